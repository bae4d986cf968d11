"""A saved semantic-search index: a directory holding a corpus's texts, their unit vectors and
the model that encoded them, so that ``parasent query DIR "text"`` needs nothing else.

``index.json`` (what it holds), ``vectors.safetensors`` (one float32 ``vectors`` tensor,
written chunk after chunk and memory-mapped when read: building and querying a million
sentences takes memory for one batch, not the corpus), ``texts.txt`` (the corpus, one text a
line, line i = corpus id i), ``model/`` (a parasent model directory) and, optionally,
``ann.usearch`` (an approximate-search graph, see :mod:`parasent.core.ann`). No pickle.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent import __version__
from parasent.errors import DataFormatError, ModelFormatError
from parasent.support.staging import staged_directory

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel

INDEX_FILE = "index.json"
VECTORS_FILE = "vectors.safetensors"
TEXTS_FILE = "texts.txt"
MODEL_DIR = "model"
FORMAT = 1


def read_lines(path: str | Path) -> Iterator[str]:
    """The lines of a UTF-8 text file without their ends; a line that is not UTF-8 is reported
    with its number rather than as a decoding traceback."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                yield raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise DataFormatError(path, number, f"not UTF-8 text ({exc.reason})") from None


def write_safetensors_header(
    handle: Any, name: str, shape: tuple[int, int], metadata: dict[str, str]
) -> None:
    """The header of a one-tensor float32 safetensors file (8-byte length, JSON padded to 8 bytes);
    the caller then writes the ``shape`` rows in order, so the file never exists in memory."""
    from parasent.support.mmap_weights import safetensors_header

    size = int(np.prod(shape)) * 4
    entry = {"dtype": "F32", "shape": list(shape), "data_offsets": [0, size]}
    handle.write(safetensors_header({"__metadata__": metadata, name: entry}))


def build_index(
    model: SentenceModel,
    corpus: str | Path,
    directory: str | Path,
    *,
    batch_size: int = 4096,
    ann: bool = False,
    progress: bool = True,
) -> Path:
    """Encode every line of ``corpus`` and write the index directory atomically; ``progress``:
    bars (on a terminal only) over the encoding and the graph build. A graph without usearch
    fails here, before anything is encoded."""
    if ann:
        from parasent.core.ann import require_usearch

        require_usearch()
    count = sum(1 for _ in read_lines(corpus))
    if count == 0:
        raise DataFormatError(corpus, 1, "empty corpus: nothing to index")
    texts, ahead = itertools.tee(_batched(read_lines(corpus), batch_size))
    vectors = model.iter_encode(
        (t for chunk in ahead for t in chunk), batch_size=batch_size
    )  # unit-length in write_index
    source = str(Path(corpus).resolve())
    return write_index(
        model, zip(texts, vectors, strict=True), count, directory, corpus=source, ann=ann,
        progress=progress, batch_size=batch_size,
    )  # fmt: skip


def write_index(
    model: SentenceModel,
    chunks: Iterable[tuple[Sequence[str], np.ndarray]],
    count: int,
    directory: str | Path,
    *,
    corpus: str,
    ann: bool = False,
    progress: bool = True,
    batch_size: int = 4096,
) -> Path:
    """Write the index directory atomically from ``count`` texts and their vectors, a chunk at a
    time (the vectors are made unit-length here; ``corpus`` names where the texts came from):
    the one writer of :func:`build_index` and of vectors computed elsewhere (:mod:`parasent.ray`)."""
    from tqdm.auto import tqdm

    from parasent.core.inference import normalize_rows

    directory = Path(directory)
    with staged_directory(directory) as staging:
        model.save(staging / MODEL_DIR)
        bar = tqdm(total=count, desc="index", unit="sentence", disable=None if progress else True)
        written = 0
        with (
            open(staging / VECTORS_FILE, "wb") as vectors,
            open(staging / TEXTS_FILE, "w", encoding="utf-8") as texts,
        ):
            write_safetensors_header(vectors, "vectors", (count, model.dim), {"format": "parasent-index"})
            for chunk_texts, chunk in chunks:
                chunk = normalize_rows(np.asarray(chunk, dtype=np.float32))
                if chunk.shape != (len(chunk_texts), model.dim):
                    raise ValueError(f"{len(chunk_texts)} texts but vectors of shape {chunk.shape}")
                texts.writelines(text + "\n" for text in chunk_texts)
                vectors.write(np.ascontiguousarray(chunk, dtype="<f4").tobytes())
                written += len(chunk)
                bar.update(len(chunk))
        bar.close()
        if written != count:
            raise ValueError(f"{written} vectors written, {count} announced")
        if ann:
            from parasent.core.ann import ANN_FILE, build_ann
            from parasent.core.semantic_search import chunks_of
            from parasent.core.stored_weights import read_weights

            stored = read_weights(staging / VECTORS_FILE)["vectors"]
            build_ann(
                chunks_of(stored, batch_size), model.dim, staging / ANN_FILE, total=count, progress=progress
            )
        info = {
            "format": FORMAT,
            "parasent_version": __version__,
            "count": count,
            "dim": model.dim,
            "normalized": True,
            "corpus": corpus,
            "ann": "usearch" if ann else None,
        }
        (staging / INDEX_FILE).write_text(json.dumps(info, indent=2) + "\n")
    return directory


def _batched(items: Iterator[str], size: int) -> Iterator[list[str]]:
    chunk: list[str] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class SavedIndex:
    """An index directory opened for queries: vectors memory-mapped, texts read once."""

    def __init__(self, directory: str | Path) -> None:
        from parasent.core.model import load
        from parasent.core.stored_weights import read_weights

        self.directory = Path(directory)
        info_path = self.directory / INDEX_FILE
        try:
            self.info = json.loads(info_path.read_text())
            count, dim = int(self.info["count"]), int(self.info["dim"])
        except FileNotFoundError:
            raise ModelFormatError(f"{info_path}: missing (build an index with parasent index)") from None
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"{info_path}: not a parasent index ({exc})") from None
        self.model = load(self.directory / MODEL_DIR)
        self.vectors = read_weights(self.directory / VECTORS_FILE).get("vectors")
        if self.vectors is None or self.vectors.shape != (count, dim):
            raise ModelFormatError(f"{self.directory / VECTORS_FILE}: does not hold {count} x {dim} vectors")
        if self.info.get("normalized") is not True:  # normalised once here, never per query
            from parasent.core.inference import normalize_rows

            self.vectors = normalize_rows(np.asarray(self.vectors, dtype=np.float32))
        self.texts = list(read_lines(self.directory / TEXTS_FILE))
        if len(self.texts) != count:
            raise ModelFormatError(
                f"{self.directory / TEXTS_FILE}: {len(self.texts)} lines, index says {count}"
            )
        self.ann = None
        if self.info.get("ann"):
            from parasent.core.ann import ANN_FILE, AnnIndex

            self.ann = AnnIndex(self.directory / ANN_FILE)

    def __len__(self) -> int:
        return len(self.texts)

    def search(
        self, queries: str | list[str], top_k: int = 10, *, exact: bool = False
    ) -> list[list[dict[str, Any]]]:
        """Per query, ``{"corpus_id", "score", "text"}`` best first (the graph unless ``exact``)."""
        from parasent.core.semantic_search import search

        vectors = self.model.encode([queries] if isinstance(queries, str) else list(queries))
        if self.ann is not None and not exact:
            hits = self.ann.search(vectors, top_k)
        else:
            hits = search(vectors, self.vectors, top_k, unit_corpus=True)  # unit rows since build or load
        for row in hits:
            for hit in row:
                hit["text"] = self.texts[hit["corpus_id"]]
        return hits


def load_index(directory: str | Path) -> SavedIndex:
    return SavedIndex(directory)
