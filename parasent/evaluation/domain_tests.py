"""A user's file that is a domain test split, scored by a model whose training may have seen it.

docs/adapt.md measures fine-tuning on the test splits of MSRP, Twitter URL, PAWS-Wiki and Quora
BiMPM (``DOMAIN_TESTS`` of the catalog). A model trained with the leakage guard at ``suites`` or
``off``, before the guard covered those splits (the shipped default, built before
2026-11-29), or continuing such a model, may hold their sentences in its training text: its figure on them
measures what it was trained on, not what it learnt. ``parasent evaluate --pairs`` (and
``evaluate_pairs``) says so under the figures, from the model's own record
(:func:`parasent.core.model_card.domain_tests_kept_out`). Models of other libraries carry no
record, and get no warning: nothing is known of their training text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parasent.core.model_card import GUARD_KEY, KEPT_OUT_KEY, domain_tests_kept_out, trained_on_file
from parasent.data.readers.records import TrainingPair
from parasent.data.registry.catalog import TEXT_SOURCES
from parasent.data.training_text.leakage import leakage_key
from parasent.data.training_text.pools import held_domain_tests
from parasent.errors import ParasentError
from parasent.support.paths import ENV_VAR, resolve_data_dir

#: A split's pairs are said when at least this share of the file's pairs has both sentences in it:
#: then the file's figure rests in good part on sentences the model may have been trained on.
MATCH_SHARE = 0.1


def domain_tests_of(pairs: Sequence[TrainingPair], data_dir: str | Path | None = None) -> dict[str, int]:
    """How many of ``pairs`` are each domain test split's (both sentences in it, compared as the
    guard compares them), for the splits holding at least :data:`MATCH_SHARE` of them, among
    those the data directory holds; none where no data directory is found (a directory named,
    by ``data_dir`` or ``$PARASENT_DATA``, and missing is said)."""
    if data_dir is not None or os.environ.get(ENV_VAR):
        root = resolve_data_dir(data_dir)
    else:
        try:
            root = resolve_data_dir()
        except ParasentError:
            return {}
    keys = [(leakage_key(p.s1), leakage_key(p.s2)) for p in pairs]
    found = {}
    for name in held_domain_tests(root):
        try:
            sentences = {leakage_key(text) for text in TEXT_SOURCES[name].read(root)}
        except ParasentError:  # a damaged test file: the figure is the user's, the check is skipped
            continue
        inside = sum(first in sentences and second in sentences for first, second in keys)
        if inside and inside >= MATCH_SHARE * len(keys):
            found[name] = inside
    return found


def trained_here(metadata: dict[str, Any]) -> bool:
    """Whether the model records a parasent training run (so its record says what it kept out)."""
    return any(key in metadata for key in (GUARD_KEY, "training", "pool"))


def leak_warnings(model: Any, splits: dict[str, int], pairs: int) -> list[str]:
    """A warning for each of ``splits`` (its pairs among the file's ``pairs``) the model's
    training did not keep out, saying why."""
    metadata = getattr(model, "metadata", None)
    if not splits or not isinstance(metadata, dict) or not trained_here(metadata):
        return []
    kept = set(domain_tests_kept_out(metadata))
    return [
        f"{inside:,} of these {pairs:,} pairs are {name}'s, which this model's training text was not kept clear "
        f"of ({_why(metadata, name)}): its figure on them may be high, not comparable (docs/adapt.md)"
        for name, inside in splits.items()
        if name not in kept
    ]


def in_sample_warnings(model: Any, file: str, sha256: str) -> list[str]:
    """A warning where ``file`` (its bytes' ``sha256``) is one the model was trained on: its
    figures then measure the pairs it fitted, less the share it held out, not what it learnt."""
    metadata = getattr(model, "metadata", None)
    trained = trained_on_file(metadata, sha256) if isinstance(metadata, dict) else None
    if trained is None:
        return []
    return [
        f"{file} is the file this model was trained on (--pairs {trained}): its figures are in-sample, "
        "not a measure of what it learnt; score a file of pairs it did not see"
    ]


WEAKER_GUARD = {
    "off": "trained with the leakage guard off",
    "suites": "trained with the leakage guard on the evaluation suites only",
}


def _why(metadata: dict[str, Any], name: str) -> str:
    """Why ``name`` was not kept out, from the model's record."""
    state = metadata.get(GUARD_KEY)
    if state in ("off", "suites"):  # said alike to the command line's users and the API's
        return WEAKER_GUARD[state]
    pool = metadata.get("pool")
    recorded = KEPT_OUT_KEY in metadata or (isinstance(pool, dict) and "domain_tests" in pool)
    if state != "on" or not recorded:
        return "trained before the leakage guard covered the domain test splits"
    base = metadata.get("base_model")
    if isinstance(base, dict) and name not in (base.get(KEPT_OUT_KEY) or []):
        start = base.get("name", "a model")
        if KEPT_OUT_KEY not in base:
            return f"it continues {start}, whose record does not say what its training kept out"
        return f"it continues {start}, whose training did not keep it out"
    if ((metadata.get("training") or {}).get("data") or {}).get("prepared"):
        recorded = isinstance(pool, dict) and pool.get("leakage_guard") == "on" and "domain_tests" in pool
        if recorded and name not in (pool.get("domain_tests") or []):
            return "its data directory lacked the split when its pairs were prepared"
        if not recorded:
            return "its prepared pairs do not record being filtered of it (prepared with the guard off or unsaid)"
    return "its data directory lacked the split when it was trained"
