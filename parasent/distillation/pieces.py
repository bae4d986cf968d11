"""A static model from a transformer's input embeddings, without running the transformer.

The teacher's WordPiece input embedding rows, averaged over a text's pieces, are a sentence
encoder already (57.56 transfer for all-MiniLM-L6-v2, the reference figures); weighting each
piece by SIF, ``a / (a + p(piece))`` (Arora et al. 2017, Sec. 3), with ``p`` counted on
running text, lifts it to ~68: frequent pieces ("the", ",", "##s") stop dominating the
average. It needs the teacher's files (``tokenizer.json``, the safetensors weights) and numpy:
no torch, no teacher pass, seconds to build. The default model is distilled from the same
teacher and then trained (docs/default-model.md); this one stands in where that teacher pass
has not been run.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from parasent.core.model import SentenceModel
from parasent.core.stored_weights import EMBEDDING_KEY
from parasent.errors import ModelFormatError
from parasent.support.mmap_weights import map_safetensors
from parasent.support.path_names import native_path

EMBEDDING_SUFFIX = "word_embeddings.weight"


def input_embeddings(teacher_dir: str | Path) -> np.ndarray:
    """The ``(vocab, dim)`` input embedding table of a sentence-transformers/transformers directory."""
    path = Path(teacher_dir) / "model.safetensors"
    if not path.is_file():
        raise ModelFormatError(f"{path}: missing (a transformer directory with safetensors weights)")
    tensors = map_safetensors(path)
    names = [name for name in tensors if name.endswith(EMBEDDING_SUFFIX)]
    if len(names) != 1:
        raise ModelFormatError(f"{path}: expected one *{EMBEDDING_SUFFIX} tensor, found {names}")
    return np.array(tensors[names[0]], dtype=np.float32)


def sif_piece_model(teacher_dir: str | Path, texts: Iterable[str], *, sif_a: float = 1e-3) -> SentenceModel:
    """SIF-weighted input embeddings of the teacher's pieces, ``p`` from ``texts`` (add-one)."""
    from tokenizers import Tokenizer

    from parasent.text.pretrained import PretrainedTokenizer

    teacher_dir = Path(teacher_dir)
    tokenizer = PretrainedTokenizer(Tokenizer.from_file(native_path(teacher_dir / "tokenizer.json")))
    table = input_embeddings(teacher_dir)
    if table.shape[0] != tokenizer.vocab_size:
        raise ModelFormatError(
            f"{teacher_dir}: {table.shape[0]} embedding rows, {tokenizer.vocab_size} tokens"
        )
    counts = np.ones(tokenizer.vocab_size, dtype=np.float64)
    chunk: list[str] = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == 8192:
            counts += np.bincount(tokenizer.encode_batch(chunk).ids, minlength=len(counts))
            chunk = []
    if chunk:
        counts += np.bincount(tokenizer.encode_batch(chunk).ids, minlength=len(counts))
    weights = sif_a / (sif_a + counts / counts.sum())
    config = {
        "name": "word_averaging",
        "vocab_size": tokenizer.vocab_size,
        "embedding_dim": int(table.shape[1]),
    }
    metadata = {"recipe": "sif-pieces", "sif_a": sif_a, "piece_counts_total": int(counts.sum())}
    return SentenceModel(
        tokenizer, config, {EMBEDDING_KEY: (table * weights[:, None]).astype(np.float32)}, metadata=metadata
    )
