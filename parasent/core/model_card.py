"""The model card (``README.md``) written into every model directory and export.

Model hubs and tools read the YAML front matter (``library_name``, ``license``,
``base_model``, ``tags``, ``pipeline_tag``); people read the body: what the model is, how to
load it, and, when the model's metadata records one, its transfer table (correlation per STS
set, the papers' evaluation). Everything comes from the model's own config and metadata, so a
card never claims what the directory does not hold.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parasent.support.regular_files import sha256_of
from parasent.support.tables import markdown_table
from parasent.support.version import __version__

if TYPE_CHECKING:
    from parasent.text.featurizers import Featurizer

CARD_FILE = "README.md"
DEFAULT_LICENSE = "mit"
TAGS = ["sentence-similarity", "sentence-embeddings", "paraphrastic", "parasent"]


def _yaml_value(value: Any) -> str:
    """A YAML scalar: JSON strings are valid YAML, and quoting avoids any type guessing."""
    return json.dumps(value, ensure_ascii=False)


def model_fingerprint(directory: Path) -> dict[str, str]:
    """``{name: sha256}`` of every entry of a model directory but its card (a FIFO, a device or
    a folder is refused by :func:`sha256_of` before it is opened)."""
    return {entry.name: sha256_of(entry) for entry in sorted(directory.iterdir()) if entry.name != CARD_FILE}


def model_digest(directory: Path) -> str:
    """One sha256 of a model directory's files (its card aside: rewriting a card changes no
    vector), so a model that names its base can say exactly which it was, wherever it lies."""
    listing = "".join(f"{name}\t{sha}\n" for name, sha in model_fingerprint(directory).items())
    return "sha256:" + hashlib.sha256(listing.encode("utf-8")).hexdigest()


def base_model(metadata: dict[str, Any]) -> str | None:
    """The model this one was distilled from or initialised with, when the metadata says."""
    for key in ("base_model", "teacher", "init_model"):
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            return value["name"]
    source = metadata.get("source")
    if isinstance(source, dict) and isinstance(source.get("name"), str):
        return source["name"]
    return None


#: Metadata key: "off" when the model was trained with the leakage guard off (``--leakage-guard off``).
GUARD_KEY = "leakage_guard"
BLEND_KEY = "blend"  # a contextual fine-tune's blend toward its start (training/blending.py)
#: What the transfer and STS 2016 figures of such a model are, said beside each of them.
NOT_COMPARABLE = "not comparable (the leakage guard was off: the training text may hold their sentences)"


def guard_off(metadata: dict[str, Any]) -> bool:
    """Whether the model was trained on text that may share sentences with the transfer suite and
    STS 2016 (their figures then measure recall, not transfer)."""
    return metadata.get(GUARD_KEY) == "off"


#: The domain test splits the leakage guard covers only when on (data/registry/catalog.DOMAIN_TESTS).
DOMAIN_TEST_NAMES = "MSRP, Twitter URL, PAWS-Wiki and Quora BiMPM"
#: Metadata key (and key of a run's ``base_model`` record): the domain test splits no text of the
#: model's training saw, its start's included (:func:`domain_tests_kept_out`).
KEPT_OUT_KEY = "domain_tests_kept_out"


def domain_tests_kept_out(metadata: dict[str, Any]) -> list[str]:
    """The domain test splits no text of the model's training saw, its start's included, as the
    run recorded them (``training/run.py:kept_out``: the splits its guard covered, on, that the
    model it continued kept out too). A model of before that record reads from its pool's
    (guard on and the splits its pool covered, narrowed by its start's record); one trained
    before the guard covered them, or with it at suites or off, kept out none."""
    if KEPT_OUT_KEY in metadata:
        return [str(name) for name in metadata[KEPT_OUT_KEY] or []]
    if metadata.get(GUARD_KEY) != "on":
        return []
    pool = metadata.get("pool")
    kept = [str(name) for name in pool.get("domain_tests") or []] if isinstance(pool, dict) else []
    base = metadata.get("base_model")
    if isinstance(base, dict):
        kept = [name for name in kept if name in (base.get(KEPT_OUT_KEY) or [])]
    return kept


#: Metadata key: the run's own pair files (``--pairs``), each as typed with its sha256, so that
#: ``evaluate --pairs`` can say a file is one the model was trained on (:func:`trained_on_file`).
TRAINING_FILES_KEY = "training_files"


def trained_on_file(metadata: dict[str, Any], sha256: str) -> str | None:
    """The name the model's run gave a training file with these bytes, or None (a model of
    before the record, or of another library, says nothing)."""
    for record in metadata.get(TRAINING_FILES_KEY) or []:
        if isinstance(record, dict) and record.get("sha256") == sha256:
            return str(record.get("file"))
    return None


#: Metadata key of a model a training run saved before it finished (its best epoch so far):
#: ``{"epoch": N, "epochs": M}``; the run drops it when it ends (:func:`mark_finished`).
UNFINISHED_KEY = "unfinished"


def unfinished_note(metadata: dict[str, Any], model_dir: Path) -> str | None:
    """What a model of an unfinished run is, said wherever it is loaded from its run directory
    (``RUN/model`` beside ``RUN/checkpoint.safetensors``); None for any other model (older models
    have no record, and are not said to be unfinished)."""
    record = metadata.get(UNFINISHED_KEY)
    run = model_dir.parent
    if (
        not isinstance(record, dict)
        or model_dir.name != "model"
        or not (run / "checkpoint.safetensors").is_file()
    ):
        return None  # a copy made of such a model (compacted, exported) has no run to finish
    return (
        f"{model_dir} is the model of a training run that has not finished (its best epoch so far, after "
        f"epoch {record.get('epoch')} of {record.get('epochs')}); "
        f"{record.get('command', 'parasent train')} --out {run} --resume finishes it"
    )


def mark_finished(model_dir: Path) -> None:
    """Drop the unfinished record from a run's model once the run has ended (atomically)."""
    from parasent.support.staging import staged_file

    path = Path(model_dir) / "config.json"
    if not path.is_file():
        return
    config = json.loads(path.read_text(encoding="utf-8"))
    if UNFINISHED_KEY not in (config.get("metadata") or {}):
        return
    del config["metadata"][UNFINISHED_KEY]
    with staged_file(path, overwrite=True) as tmp:
        Path(tmp).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")  # as a save writes it


def _guard_notes(metadata: dict[str, Any]) -> list[str]:
    """What the card says of a guard that was not fully on: off (no figure comparable), or suites
    (the transfer suite and STS 2016 kept out, the domain test splits not)."""
    if guard_off(metadata):
        return [
            f"Trained with the leakage guard off: its transfer and STS 2016 figures are {NOT_COMPARABLE}; so "
            f"are its figures on the test splits of {DOMAIN_TEST_NAMES}."
        ]
    if metadata.get(GUARD_KEY) == "suites":
        return [
            f"Trained with the leakage guard on the transfer suite and STS 2016 alone (`--leakage-guard suites`): "
            f"the test splits of {DOMAIN_TEST_NAMES} may be in its training text, so its figures on them "
            "are not comparable."
        ]
    return []


def transfer_table(metadata: dict[str, Any]) -> list[tuple[str, float]]:
    """``metadata["transfer"]`` ({dataset: Pearson r}) as rows; empty when unknown."""
    table = metadata.get("transfer")
    if not isinstance(table, dict):
        return []
    return [(str(k), float(v)) for k, v in table.items() if isinstance(v, (int, float))]


def render_card(
    model: Any,
    *,
    library: str = "parasent",
    dim: int | None = None,
    dtype: str = "float32",
    usage: str | None = None,
    notes: list[str] | None = None,
    unknown: str | None = None,
) -> str:
    """The README.md text of ``model`` (a :class:`~parasent.core.model.SentenceModel`; typed loosely
    because the model module imports this one) as written for ``library`` (its loader in the usage block);
    ``notes``: paragraphs a reader must see before the scores (what an export needs or lost);
    ``unknown``: what the written directory does with unknown words, where its reader differs."""
    metadata = model.metadata
    dim = dim or int(model.weights["embedding.weight"].shape[1])
    from parasent.core.encoder_registry import is_static_model

    static = is_static_model(model)
    tags = TAGS + (
        ["sentence-transformers"] + (["static-embeddings"] if static else []) if library != "parasent" else []
    )
    front = [
        "---",
        f"library_name: {library}",
        f"license: {_yaml_value(metadata.get('license', DEFAULT_LICENSE))}",
    ]
    base = base_model(metadata)
    if base:
        front.append(f"base_model: {_yaml_value(base)}")
    languages = [str(code) for code in metadata.get("languages", []) or []]
    if languages:
        front += ["language:"] + [f"- {_yaml_value(code)}" for code in languages]
    front += ["pipeline_tag: sentence-similarity", "tags:"] + [f"- {tag}" for tag in tags]
    rows = transfer_table(metadata)
    if rows:
        front += ["model-index:", "- name: parasent", "  results:"]
        for name, score in rows:
            front += [
                "  - task: {type: STS}",
                f"    dataset: {{name: {_yaml_value(name)}, type: {_yaml_value(name)}}}",
                f"    metrics: [{{type: pearson, value: {score:.4f}}}]",
            ]
    front.append("---")
    encoder = model.encoder_config["name"]
    body = [
        "",
        "# Paraphrastic sentence embeddings",
        "",
        f"A `{encoder}` sentence encoder ({units(model.tokenizer, composed=not static)}, {dim} dimensions, "
        f"{dtype} weights) written by parasent {__version__}. Sentences whose vectors have a high "
        "cosine are paraphrases.",
        "",
        "```python",
        usage
        or 'import parasent\n\nmodel = parasent.load("path/to/this/directory")\n'
        'vectors = model.encode(["A man is playing a guitar."], normalize_embeddings=True)',
        "```",
    ]
    if base:
        body += ["", f"Base model: `{base}`."]
    body += _unknown_text(unknown or getattr(model.tokenizer, "unknown", None), languages)
    for note in (notes or []) + _guard_notes(metadata):
        body += ["", note]
    if rows:
        table = markdown_table(
            ["dataset", "r"], [[name, f"{100 * score:.1f}"] for name, score in rows], [False, True]
        )
        body += ["", "## Transfer (Pearson's r x 100)", "", table]
    return "\n".join(front + body) + "\n"


def units(tokenizer: Featurizer, *, composed: bool = False) -> str:
    """What the rows stand for: tokens, or words (and word bigrams, trigrams, subword pieces);
    ``composed``: a model that moves and weights each row by its neighbours before the mean."""
    how = "each moved and weighted by its neighbours, then averaged" if composed else "averaged together"
    from parasent.text.word_bigrams import bigram_rows_of, trigram_rows_of

    bigrams, trigrams = len(bigram_rows_of(tokenizer)), len(trigram_rows_of(tokenizer))
    pieces = tokenizer.config().get("pieces", 0)
    if not bigrams and not trigrams and not pieces:
        return f"{tokenizer.vocab_size} tokens" + (f", {how}" if composed else "")
    units = [f"{tokenizer.vocab_size - bigrams - trigrams - pieces - 2} words"]
    units += [f"{bigrams} word bigrams"] if bigrams else []
    units += [f"{trigrams} word trigrams"] if trigrams else []
    units += [f"{pieces} subword pieces for the other words"] if pieces else []
    return ", ".join(units[:-1]) + " and " + units[-1] + f", {how}"


def _unknown_text(unknown: str | None, languages: list[str]) -> list[str]:
    """The card's paragraph on text the model does not know (``unknown``: the featurizer's mode)."""
    where = f"It was built for {', '.join(languages)} text. " if languages else ""
    if unknown == "pieces":
        what = (
            "A word outside its vocabulary is encoded from the rows of its subword pieces; text "
            "with no known word or piece is the zero vector, whose cosine with anything is 0."
        )
    elif unknown == "vector":
        what = "Every word outside its vocabulary shares one [UNK] vector."
    elif unknown == "skip":
        what = "Words outside its vocabulary are skipped; text with none it knows is the zero vector."
    else:
        return [""] + ([where.strip()] if where else [])
    return [
        "",
        "## Text it does not know",
        "",
        where + what + " `model.coverage(texts)` reports the share of words it knows.",
    ]


def read_front_matter(text: str) -> dict[str, str]:
    """The top-level ``key: value`` pairs of a card's front matter (enough for tests and checks)."""
    lines = text.splitlines()
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        return {}
    end = lines.index("---", 1)
    pairs = {}
    for line in lines[1:end]:
        if ":" in line and not line.startswith((" ", "-")):
            key, _, value = line.partition(":")
            pairs[key.strip()] = value.strip()
    return pairs
