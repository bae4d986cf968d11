"""Naming a model on the command line: a model or run directory, or ``vectors:PATH`` for
plain averaging of word vectors (the papers' baselines); ``LABEL=SPEC`` names it in tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from parasent.core.model import SentenceModel

VECTORS_PREFIX = "vectors:"


@dataclass
class NamedModel:
    label: str
    spec: str
    model: SentenceModel


def split_label(text: str) -> tuple[str | None, str]:
    """``LABEL=SPEC`` -> (LABEL, SPEC); a bare spec has no label."""
    label, sep, spec = text.partition("=")
    if sep and label and "/" not in label and not label.startswith(VECTORS_PREFIX):
        return label, spec
    return None, text


def load_model_spec(text: str, data_dir: str | Path | None = None) -> NamedModel:
    """Load ``[LABEL=]DIR`` or ``[LABEL=]vectors:PATH`` (PATH as given, else under the data dir)."""
    label, spec = split_label(text)
    if spec.startswith(VECTORS_PREFIX):
        from parasent.support.paths import resolve_data_dir
        from parasent.text.word_vectors import read_word_vectors, resolve_vectors_path

        path = spec[len(VECTORS_PREFIX) :]
        given = Path(path).expanduser()
        resolved = given if given.is_file() else resolve_vectors_path(path, resolve_data_dir(data_dir))
        model = SentenceModel.from_vectors(read_word_vectors(resolved), metadata={"vectors": str(resolved)})
        return NamedModel(label or f"avg {Path(path).name}", spec, model)
    return NamedModel(label or Path(spec).name or spec, spec, SentenceModel.load(spec))
