"""What the service encodes with: a parasent model (numpy, no torch for averaging models) or,
for comparison and for transformer models, any sentence-transformers model through the same
service code. ``encode`` returns unit vectors and each text's token count (for ``usage``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from parasent.core.inference import normalize_rows


def model_name(path: str) -> str:
    """A model's name from its directory: a run's or an index's ``model/`` is named after the
    run or the index (every such model would otherwise be called "model")."""
    folder = Path(path).resolve()
    return folder.parent.name if folder.name == "model" and folder.parent.name else folder.name


class ParasentBackend:
    def __init__(self, path: str | None, name: str | None = None) -> None:
        import parasent

        self.model = parasent.load(path) if path is not None else parasent.load()
        self.name = name or (model_name(path) if path is not None else "parasent-default")
        self.dim = self.model.dim

    def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        vectors, counts = self.model.encode_with_counts(texts)  # one text: the memoised one-text path
        return normalize_rows(vectors), counts


class SentenceTransformersBackend:
    def __init__(self, path: str | None, name: str | None = None) -> None:
        from sentence_transformers import SentenceTransformer

        if path is None:
            raise ValueError("the sentence-transformers backend needs --model DIR")
        self.model = SentenceTransformer(path, device="cpu")
        self.name = name or model_name(path)
        self.dim = int(self.model.get_sentence_embedding_dimension())

    def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        vectors = self.model.encode(texts, batch_size=64, convert_to_numpy=True, normalize_embeddings=True)
        lengths = [len(ids) for ids in self.model.tokenizer(texts, add_special_tokens=False)["input_ids"]]
        return np.asarray(vectors, dtype=np.float32), np.asarray(lengths)


BACKENDS = {"parasent": ParasentBackend, "sentence-transformers": SentenceTransformersBackend}


def make_backend(
    kind: str, path: str | None, name: str | None = None
) -> ParasentBackend | SentenceTransformersBackend:
    if kind not in BACKENDS:
        raise ValueError(f"unknown backend {kind!r} (known: {', '.join(BACKENDS)})")
    return BACKENDS[kind](path, name)
