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

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parasent.core.model_card import GUARD_KEY, KEPT_OUT_KEY, domain_tests_kept_out
from parasent.data.readers.records import TrainingPair
from parasent.data.registry.catalog import TEXT_SOURCES
from parasent.data.training_text.leakage import leakage_key
from parasent.data.training_text.pools import held_domain_tests
from parasent.errors import ParasentError
from parasent.support.paths import resolve_data_dir

#: A file is a split's when at least this share of its pairs has both sentences in the split.
MATCH_SHARE = 0.5


def domain_tests_of(pairs: Sequence[TrainingPair], data_dir: str | Path | None = None) -> list[str]:
    """The domain test splits ``pairs`` come from (most pairs' two sentences are the split's),
    among those the data directory holds; none where there is no data directory."""
    if data_dir is not None:
        root = resolve_data_dir(data_dir)  # one named and wrong is said, not passed over
    else:
        try:
            root = resolve_data_dir()
        except ParasentError:
            return []
    keys = [(leakage_key(p.s1), leakage_key(p.s2)) for p in pairs]
    found = []
    for name in held_domain_tests(root):
        try:
            sentences = {leakage_key(text) for text in TEXT_SOURCES[name].read(root)}
        except ParasentError:  # a damaged test file: the figure is the user's, the check is skipped
            continue
        inside = sum(first in sentences and second in sentences for first, second in keys)
        if keys and inside >= MATCH_SHARE * len(keys):
            found.append(name)
    return found


def trained_here(metadata: dict[str, Any]) -> bool:
    """Whether the model records a parasent training run (so its record says what it kept out)."""
    return any(key in metadata for key in (GUARD_KEY, "training", "pool"))


def leak_warnings(model: Any, splits: Sequence[str]) -> list[str]:
    """A warning for each of ``splits`` the model's training did not keep out, saying why."""
    metadata = getattr(model, "metadata", None)
    if not splits or not isinstance(metadata, dict) or not trained_here(metadata):
        return []
    kept = set(domain_tests_kept_out(metadata))
    seen = [name for name in splits if name not in kept]
    if not seen:
        return []
    return [
        f"these pairs are {name}'s, which this model's training text was not kept clear of "
        f"({_why(metadata, name)}): its figure on them may be high, not comparable (docs/adapt.md)"
        for name in seen
    ]


def _why(metadata: dict[str, Any], name: str) -> str:
    """Why ``name`` was not kept out, from the model's record."""
    state = metadata.get(GUARD_KEY)
    if state in ("off", "suites"):
        return f"trained with --leakage-guard {state}"
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
        return "its prepared pairs do not record being filtered of it (parasent prepare --leakage-guard on)"
    return "its data directory lacked the split when it was trained"
