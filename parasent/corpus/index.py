"""A saved semantic-search index: a directory holding a corpus's texts, their unit vectors and
the model that encoded them, so that ``parasent query DIR "text"`` needs nothing else.

``index.json`` (what it holds, and the sha256 of each file of its model), ``vectors.safetensors``
(one float32 ``vectors`` tensor, written chunk after chunk and memory-mapped when read: building
and querying a million sentences takes memory for one batch, not the corpus), ``texts.txt``
(the corpus, one text a line, line i = corpus id i), ``model/`` (the model as it is held: an
int8 model stays int8, see :meth:`parasent.core.model.SentenceModel.save`) and, optionally,
``ann.usearch`` (an approximate-search graph, see :mod:`parasent.corpus.ann`). No pickle.

An index directory is untrusted input, as a model directory is: every file is checked to be a
regular file within its size cap before it is opened (a FIFO never blocks a query, a link to
``/dev/zero`` is never read), ``index.json``'s fields are type- and range-checked, and the
model is the one the vectors were made with: ``index.json`` records the sha256 of each of its
files, and a model directory that differs (another model of the same dimension put in its
place gives unrelated neighbours without a word) is refused in one line.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.core.model_card import CARD_FILE, model_fingerprint
from parasent.core.model_checks import MAX_DIM, read_json
from parasent.corpus.ann import ANN_FILE
from parasent.errors import DataFormatError, ModelFormatError, OptionError
from parasent.support.lines import BOM
from parasent.support.regular_files import exists, open_regular, regular_size, sha256_of
from parasent.support.staging import check_replaceable, staged_directory
from parasent.support.version import __version__

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel

INDEX_FILE = "index.json"
VECTORS_FILE = "vectors.safetensors"
TEXTS_FILE = "texts.txt"
MODEL_DIR = "model"
INDEX_ENTRIES = frozenset({INDEX_FILE, VECTORS_FILE, TEXTS_FILE, MODEL_DIR, ANN_FILE})  # what an index holds
FORMAT = 3  # 3: index.json records its own files too (files_sha256); 2: the model's; 1: none (all still load)
FINGERPRINT_KEY = "model_sha256"  # index.json: {file of model/: its sha256}, the card aside
FILES_KEY = "files_sha256"  # index.json: {vectors, texts (and graph) file: its sha256}
MAX_INDEX_JSON = 1 << 20  # index.json: a few hundred bytes in practice
MAX_LINE_BYTES = 1 << 20  # a longer corpus line is refused (as the data readers refuse one)
MAX_HEADER_BYTES = 1 << 20  # vectors.safetensors: its header, beyond the vectors themselves
MAX_COUNT = 1 << 40


def read_lines(path: str | Path, *, limit: int | None = None) -> Iterator[str]:
    """The lines of a UTF-8 text file without their ends (a regular file only: a FIFO is never
    opened); a line that is not UTF-8 or is longer than :data:`MAX_LINE_BYTES`, or a line past
    ``limit``, is reported with its number rather than as a traceback or read into memory; a
    leading byte-order mark is dropped, as every reader drops it."""
    with open_regular(path) as handle:
        for number in itertools.count(1):
            raw = handle.readline(MAX_LINE_BYTES + 2)
            if not raw:
                return
            if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                raise DataFormatError(path, number, f"line longer than {MAX_LINE_BYTES} bytes")
            if limit is not None and number > limit:
                raise DataFormatError(path, number, f"more lines than the {limit} the index holds")
            try:
                text = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise DataFormatError(path, number, f"not UTF-8 text ({exc.reason})") from None
            yield text.removeprefix(BOM) if number == 1 else text  # a byte-order mark is no text


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
    overwrite: bool = False,
) -> Path:
    """Encode every line of ``corpus`` and write the index directory atomically; ``progress``:
    bars (on a terminal only) over the encoding and the graph build. A graph without usearch,
    or a directory there holding other files than an index's (without ``overwrite``), fails
    here, before anything is encoded."""
    check_replaceable(Path(directory), model=False, overwrite=overwrite, owns=INDEX_ENTRIES.__contains__)
    if ann:
        from parasent.corpus.ann import require_usearch

        require_usearch()
    count = blank = 0
    for line in read_lines(corpus):
        count += 1
        blank += not line.strip()
    if count == blank:  # each text a zero vector: every query would score 0 against all of them
        raise DataFormatError(
            corpus,
            1,
            "empty corpus: nothing to index" if not count else "every line is blank: nothing to index",
        )
    texts, ahead = itertools.tee(_batched(read_lines(corpus), batch_size))
    vectors = model.iter_encode(
        (t for chunk in ahead for t in chunk), batch_size=batch_size
    )  # unit-length in write_index
    source = str(Path(corpus).resolve())
    return write_index(
        model, zip(texts, vectors, strict=True), count, directory, corpus=source, ann=ann,
        progress=progress, batch_size=batch_size, overwrite=overwrite,
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
    overwrite: bool = False,
) -> Path:
    """Write the index directory atomically from ``count`` texts and their vectors, a chunk at a
    time (the vectors are made unit-length here; ``corpus`` names where the texts came from):
    the one writer of :func:`build_index` and of vectors computed elsewhere (:mod:`parasent.ray`).
    An earlier index there is replaced; a directory holding anything else only with ``overwrite``."""
    from tqdm.auto import tqdm

    from parasent.core.inference import normalize_rows

    directory = Path(directory)
    with staged_directory(directory, overwrite=overwrite, owns=INDEX_ENTRIES.__contains__) as staging:
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
            from parasent.core.semantic_search import chunks_of
            from parasent.core.stored_weights import read_weights
            from parasent.corpus.ann import build_ann

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
            FINGERPRINT_KEY: model_fingerprint(staging / MODEL_DIR),
            FILES_KEY: {name: sha256_of(staging / name) for name in _data_files(ann)},
        }
        (staging / INDEX_FILE).write_text(json.dumps(info, indent=2) + "\n")
    return directory


def _data_files(ann: bool) -> list[str]:
    """The files an index holds beside its model: the vectors, the texts, the graph if any."""
    return [VECTORS_FILE, TEXTS_FILE] + ([ANN_FILE] if ann else [])


def check_data_files(directory: Path, recorded: Any) -> None:
    """Each of the index's own files is the one ``index.json`` records (a swapped, zeroed or
    byte-flipped vectors file, a shuffled texts file): its sha256, checked once per file as it
    is (size and modification time; :mod:`parasent.support.filememo`). None: an index of an
    earlier format, which records none."""
    from parasent.support.filememo import remembered

    if recorded is None:
        return
    for name, sha in recorded.items():
        path = directory / name
        _checked_file(path)
        if remembered(path, "sha256", lambda path=path: sha256_of(path)) != sha:
            raise ModelFormatError(
                f"{path}: not the file this index was built with (its sha256 differs from the one {INDEX_FILE} "
                "records); build the index again (parasent index)"
            )


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
    """An index directory opened for queries: vectors memory-mapped, texts read once; every file
    checked before it is opened (module docstring)."""

    def __init__(self, directory: str | Path) -> None:
        from parasent.core.model import load

        self.directory = Path(directory)
        self.info = read_info(self.directory / INDEX_FILE)
        count, dim = self.info["count"], self.info["dim"]
        check_model(self.directory / MODEL_DIR, self.info.get(FINGERPRINT_KEY))
        check_data_files(self.directory, self.info.get(FILES_KEY))
        self.model = load(self.directory / MODEL_DIR)
        if self.model.dim != dim:
            raise ModelFormatError(
                f"{self.directory / MODEL_DIR}: {self.model.dim} dimensions, index says {dim}"
            )
        self.vectors = read_vectors(self.directory / VECTORS_FILE, count, dim)
        if self.info.get("normalized") is not True:  # normalised once here, never per query
            from parasent.core.inference import normalize_rows

            self.vectors = normalize_rows(np.asarray(self.vectors, dtype=np.float32))
        self.texts = read_texts(self.directory / TEXTS_FILE, count)
        self.ann = None
        if self.info.get("ann"):
            from parasent.corpus.ann import AnnIndex

            _checked_file(self.directory / ANN_FILE)
            self.ann = AnnIndex(self.directory / ANN_FILE)

    def __len__(self) -> int:
        return len(self.texts)

    def search(
        self, queries: str | list[str], top_k: int = 10, *, exact: bool = False
    ) -> list[dict[str, Any]] | list[list[dict[str, Any]]]:
        """Per query, ``{"corpus_id", "score", "text"}`` best first (the graph unless ``exact``);
        one string gives its own list of hits, as ``SentenceModel.search`` does."""
        from parasent.core.semantic_search import search

        single = isinstance(queries, str)
        queries = [queries] if single else list(queries)
        blank = next((k for k, text in enumerate(queries) if not str(text).strip()), None)
        if blank is not None:  # its vector is zero: every score 0, the hits arbitrary
            raise OptionError(f"query {blank + 1} is empty: an empty text matches nothing; give some words")
        vectors = self.model.encode(queries)
        if self.ann is not None and not exact:
            hits = self.ann.search(vectors, top_k)
        else:
            hits = search(vectors, self.vectors, top_k, unit_corpus=True)  # unit rows since build or load
        for row in hits:
            for hit in row:
                hit["text"] = self.texts[hit["corpus_id"]]
        return hits[0] if single else hits


def zero_scored(results: Sequence[Sequence[dict[str, Any]]]) -> list[int]:
    """The positions of the queries whose every hit scored 0: their hits are in no order (the
    query, or each text found, is a zero vector: no unit the model knows)."""
    return [k for k, hits in enumerate(results) if hits and all(hit["score"] == 0.0 for hit in hits)]


def unread_queries(
    results: Sequence[Sequence[dict[str, Any]]], queries: Sequence[str], model: Any
) -> list[int]:
    """The positions of the queries of no unit the model knows (emoji only, a script it never
    saw): a zero vector, whose every hit scores 0. A query whose hits all score 0 because the
    texts found are unreadable is read, and not listed."""
    scored_zero = zero_scored(results)
    if not scored_zero:
        return []
    vectors = model.encode([queries[k] for k in scored_zero])
    return [k for k, vector in zip(scored_zero, vectors, strict=True) if not vector.any()]


def load_index(directory: str | Path) -> SavedIndex:
    return SavedIndex(directory)


def read_info(path: Path) -> dict[str, Any]:
    """``index.json``, checked: a regular file of at most :data:`MAX_INDEX_JSON` bytes, a JSON
    object whose fields have the types and ranges this version writes."""
    if not exists(path):
        raise ModelFormatError(f"{path}: missing (build an index with parasent index)")
    info = read_json(path, max_bytes=MAX_INDEX_JSON, what="a parasent index")
    if not isinstance(info, dict):
        raise ModelFormatError(f"{path}: not a parasent index (not a JSON object)")
    version = info.get("format", 1)
    if not _is_int(version) or version < 1:
        raise ModelFormatError(f"{path}: 'format' must be a positive integer, got {version!r:.60}")
    if version > FORMAT:
        raise ModelFormatError(f"{path}: format {version} is newer than this parasent reads ({FORMAT})")
    for key, limit in (("count", MAX_COUNT), ("dim", MAX_DIM)):
        if not _is_int(info.get(key)) or not 0 < info[key] <= limit:
            raise ModelFormatError(
                f"{path}: '{key}' must be an integer in 1..{limit}, got {info.get(key)!r:.60}"
            )
    if info.get("ann") not in (None, "usearch"):
        raise ModelFormatError(f"{path}: 'ann' must be null or \"usearch\", got {info['ann']!r:.60}")
    fingerprint = info.get(FINGERPRINT_KEY)
    if version >= 2 or fingerprint is not None:  # an index of format 1 has none, and still loads
        _check_fingerprint(path, fingerprint)
    files = info.get(FILES_KEY)
    if version >= 3 or files is not None:
        expected = set(_data_files(info.get("ann") is not None))
        if (
            not isinstance(files, dict)
            or set(files) != expected
            or not all(isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha) for sha in files.values())
        ):
            raise ModelFormatError(
                f"{path}: '{FILES_KEY}' must map {sorted(expected)} to their sha256, got {files!r:.80}"
            )
    return info


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_fingerprint(path: Path, fingerprint: Any) -> None:
    """``model_sha256`` maps plain file names (never a path out of ``model/``) to sha256s."""
    valid = isinstance(fingerprint, dict) and bool(fingerprint)
    for name, sha in fingerprint.items() if valid else ():
        plain = isinstance(name, str) and name not in ("", ".", "..") and not set(name) & {"/", "\\"}
        valid = valid and plain and isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha) is not None
    if not valid:
        raise ModelFormatError(
            f"{path}: '{FINGERPRINT_KEY}' must map the files of {MODEL_DIR}/ to their sha256, got {fingerprint!r:.80}"
        )


def check_model(directory: Path, fingerprint: dict[str, str] | None) -> None:
    """Refuse a model directory that is not the one the index's vectors were made with: its
    files (the card aside) must be those ``fingerprint`` names, with those sha256 (None: an
    index of format 1, which records none)."""
    if fingerprint is None:
        return
    if not directory.is_dir():
        raise ModelFormatError(f"{directory}: missing (an index holds the model that made its vectors)")
    names = sorted(entry.name for entry in directory.iterdir() if entry.name != CARD_FILE)
    problem = None
    if names != sorted(fingerprint):
        extra, missing = sorted(set(names) - set(fingerprint)), sorted(set(fingerprint) - set(names))
        problem = f"holds {extra[0]}, which" if extra else f"lacks {missing[0]}, which"
        problem += f" {INDEX_FILE} does not record" if extra else f" {INDEX_FILE} records"
    else:
        changed = [name for name in names if sha256_of(directory / name) != fingerprint[name]]
        if changed:
            problem = f"{changed[0]}'s sha256 differs from the one {INDEX_FILE} records"
    if problem:
        raise ModelFormatError(
            f"{directory}: not the model these vectors were made with ({problem}); "
            "put that model back or build the index again (parasent index)"
        )


def _checked_file(path: Path, max_bytes: int | None = None) -> int:
    """The size of regular file ``path`` of an index, within ``max_bytes``; missing: one line."""
    try:
        return regular_size(path, max_bytes=max_bytes)
    except FileNotFoundError:
        raise ModelFormatError(f"{path}: missing (an index directory holds it)") from None


def read_vectors(path: Path, count: int, dim: int) -> np.ndarray:
    """The ``(count, dim)`` float32 vectors, memory-mapped, from a regular file no larger than
    they and a header need; non-finite values are refused (checked once per version of the
    file, as model weights are)."""
    from parasent.core.model_checks import check_finite
    from parasent.core.stored_weights import read_weights

    _checked_file(path, max_bytes=count * dim * 4 + MAX_HEADER_BYTES)
    vectors = read_weights(path).get("vectors")
    if vectors is None or vectors.shape != (count, dim) or vectors.dtype != np.float32:
        raise ModelFormatError(f"{path}: does not hold {count} x {dim} float32 vectors")
    check_finite(path, {"vectors": vectors})
    return vectors


def read_texts(path: Path, count: int) -> list[str]:
    """The ``count`` lines of ``texts.txt`` (a regular file of at most ``count`` lines of at
    most :data:`MAX_LINE_BYTES` each)."""
    _checked_file(path, max_bytes=count * (MAX_LINE_BYTES + 2))
    texts = list(read_lines(path, limit=count))
    if len(texts) != count:
        raise ModelFormatError(f"{path}: {len(texts)} lines, index says {count}")
    return texts
