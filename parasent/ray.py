"""Corpora on Ray Data: a parasent model in ``ray.data.Dataset.map_batches``, on a cluster.

``Embedder`` is the callable class Ray Data runs in its workers: each worker (an actor) loads
the model once, from its directory (a path every worker can read: shared storage, or the same
path on every node), so the weights never travel through Ray's object store or pickle; only
the path and the options do. ``embed`` wraps ``map_batches``::

    import ray, parasent.ray
    ds = ray.data.read_text("s3://bucket/corpus/")            # a "text" column
    ds = parasent.ray.embed(ds, model="/shared/models/default", concurrency=8)
    ds.write_parquet("s3://bucket/vectors/")                  # text, embedding (and any id column)
    parasent.ray.build_index("vectors/", "/shared/models/default", "index/")  # parasent query index/ ...

``mine`` and ``dedup`` take what ``embed`` wrote and deal the blocks of the exact scan
(:mod:`parasent.corpus.neighbours`) to Ray tasks, merging their neighbour lists: the pairs and
the kept texts of ``parasent mine`` and ``parasent dedup`` on the same vectors::

    texts, pairs = parasent.ray.mine("vectors/", top_k=10, threshold=0.8, id_column="id")
    texts, result = parasent.ray.dedup("vectors/", threshold=0.9, id_column="id")

The vectors are those of ``model.encode`` on the same texts (the model's normalisation kept,
``normalize=True`` for unit rows), float32 or int8. Int8 takes fixed calibration ranges
(:func:`calibration`): ranges computed per Ray batch would make a vector depend on its batch.
Ray Data keeps the order of rows through ``map_batches`` when asked
(``DataContext.execution_options.preserve_order``); an ``id_column`` restores it otherwise.
Needs ``pip install parasent[ray]``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.errors import DataFormatError, OptionError

PRECISIONS = ("float32", "int8")


class Embedder:
    """``map_batches`` callable: adds a column of sentence vectors to each batch.

    Loads the model once per worker from ``model`` (a directory path); ``column`` holds the
    texts, ``output`` gets the vectors ((batch, dim) float32, or int8 with ``ranges``, the
    (2, dim) [min; max] calibration of :func:`calibration`)."""

    def __init__(
        self,
        model: str,
        *,
        column: str = "text",
        output: str = "embedding",
        normalize: bool = False,
        precision: str = "float32",
        ranges: Sequence[Sequence[float]] | None = None,
    ) -> None:
        from parasent.core.model import load

        check_precision(precision, ranges)
        self.model = load(model)
        self.column, self.output = column, output
        self.normalize, self.precision = normalize, precision
        self.ranges = None if ranges is None else np.asarray(ranges, dtype=np.float32)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        from parasent.core.output import to_precision

        if self.column not in batch:
            raise DataFormatError(
                self.column, 0, f"no column {self.column!r} in the batch (has: {', '.join(batch)})"
            )
        texts = [str(text) for text in batch[self.column]]
        vectors = self.model.encode(texts, batch_size=max(len(texts), 1), normalize_embeddings=self.normalize)
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.model.dim)
        if self.precision == "int8":
            vectors = to_precision(vectors, "int8", self.ranges)
        return {**batch, self.output: vectors}


def check_precision(precision: str, ranges: Any) -> None:
    if precision not in PRECISIONS:
        raise OptionError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    if precision == "int8" and ranges is None:
        raise OptionError(
            "int8 vectors need calibration ranges: parasent.ray.calibration(model, sample_texts)"
        )


def calibration(model: str | Path, texts: Sequence[str], *, normalize: bool = False) -> list[list[float]]:
    """The (2, dim) [min; max] of the vectors of ``texts`` (a sample of the corpus): the int8
    buckets every worker uses, so a text's int8 vector never depends on its batch."""
    from parasent.core.model import load

    vectors = load(model).encode(list(texts), normalize_embeddings=normalize)
    if not len(vectors):
        raise OptionError("calibration needs at least one text")
    return [vectors.min(axis=0).tolist(), vectors.max(axis=0).tolist()]


def embed(
    dataset: Any,
    model: str | Path,
    *,
    column: str = "text",
    output: str = "embedding",
    normalize: bool = False,
    precision: str = "float32",
    ranges: Sequence[Sequence[float]] | None = None,
    batch_size: int = 4096,
    concurrency: int = 1,
    **map_batches: Any,
) -> Any:
    """``dataset`` with a column ``output`` of vectors of its ``column``, computed by
    ``concurrency`` workers that each load ``model`` once from its directory. Other keywords
    go to ``map_batches`` (``num_cpus``, ``num_gpus``, ...)."""
    check_precision(precision, ranges)
    if not Path(model).exists() and "://" not in str(model):
        raise OptionError(f"{model}: no such model directory (every worker loads the model from this path)")
    options = dict(column=column, output=output, normalize=normalize, precision=precision, ranges=ranges)
    return dataset.map_batches(
        Embedder,
        fn_constructor_kwargs={"model": str(model), **options},
        batch_size=batch_size,
        batch_format="numpy",
        concurrency=concurrency,
        **map_batches,
    )


def read_vectors(
    path: str | Path,
    *,
    column: str = "embedding",
    text_column: str | None = "text",
    id_column: str | None = None,
) -> tuple[list[str], np.ndarray]:
    """The texts and vectors of a Parquet directory written from :func:`embed`'s dataset, in
    the order of ``id_column`` when given (else in the files' order)."""
    texts, vectors, ids = [], [], []
    for part_texts, part, part_ids in _parquet_chunks(path, column, text_column, id_column):
        texts += part_texts
        vectors.append(part)
        ids.append(part_ids)
    matrix = np.concatenate(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)
    if id_column is not None and ids:
        order = np.argsort(np.concatenate(ids), kind="stable")
        matrix, texts = matrix[order], [texts[i] for i in order]
    return texts, matrix


def _parquet_chunks(
    path: str | Path, column: str, text_column: str | None, id_column: str | None
) -> Iterator[tuple[list[str], np.ndarray, np.ndarray | None]]:
    import pyarrow.parquet as pq

    files = sorted(Path(path).glob("*.parquet")) if Path(path).is_dir() else [Path(path)]
    if not files:
        raise DataFormatError(path, 0, "no .parquet files")
    for file in files:
        table = pq.read_table(file)
        for name in (column, text_column, id_column):
            if name is not None and name not in table.column_names:
                raise DataFormatError(file, 0, f"no column {name!r} (has: {', '.join(table.column_names)})")
        vectors = _matrix(table.column(column).combine_chunks())
        texts = table.column(text_column).to_pylist() if text_column else [""] * len(vectors)
        ids = table.column(id_column).to_numpy() if id_column else None
        yield [str(t) for t in texts], vectors, ids


def _matrix(array: Any) -> np.ndarray:
    """A (rows, dim) array from a Parquet vector column: Ray's tensor extension type or a list column."""
    storage = getattr(array, "storage", array)  # an extension array keeps its values in its storage
    if len(storage) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    values = storage.flatten().to_numpy(zero_copy_only=False)
    return values.reshape(len(storage), -1)


def build_index(
    path: str | Path,
    model: str | Path,
    directory: str | Path,
    *,
    column: str = "embedding",
    text_column: str = "text",
    id_column: str | None = None,
    ann: bool = False,
    progress: bool = True,
) -> Path:
    """A :mod:`parasent.corpus.index` directory (``parasent query``) from the Parquet files of
    :func:`embed`'s dataset: its texts and float32 vectors (made unit-length), with ``model``
    (the one that encoded them) for the queries."""
    from parasent.core.model import load
    from parasent.corpus.index import write_index

    encoder = load(model)
    if id_column is not None:  # the rows in id order: read whole
        texts, vectors = read_vectors(path, column=column, text_column=text_column, id_column=id_column)
        chunks: Any = [(texts, vectors)]
        count = len(texts)
    else:  # a file at a time, in the files' order
        chunks = ((t, v) for t, v, _ in _parquet_chunks(path, column, text_column, None))
        count = _row_count(path)
    if not count:
        raise DataFormatError(path, 0, "no rows: nothing to index")
    checked = (_float_vectors(path, column, t, v) for t, v in chunks)
    return write_index(encoder, checked, count, directory, corpus=str(path), ann=ann, progress=progress)


def _float_vectors(
    path: Any, column: str, texts: list[str], vectors: np.ndarray
) -> tuple[list[str], np.ndarray]:
    if vectors.dtype.kind != "f":
        raise DataFormatError(
            path, 0, f"{column} holds {vectors.dtype} vectors; an index needs float vectors"
        )
    return texts, vectors


def _row_count(path: str | Path) -> int:
    import pyarrow.parquet as pq

    files = sorted(Path(path).glob("*.parquet")) if Path(path).is_dir() else [Path(path)]
    return sum(pq.ParquetFile(file).metadata.num_rows for file in files)


# --- mining and deduplication sharded over a cluster ------------------------------------------
def _shard_lists(vectors: np.ndarray, order: np.ndarray, blocks: list, k: int, threshold: float) -> Any:
    """One task: the neighbour lists of its share of the blocks (merged by the driver)."""
    from parasent.corpus.neighbours import exact_neighbours

    return exact_neighbours(vectors, k, threshold=threshold, blocks=blocks, order=order, unit=True)


def sharded_neighbours(vectors: Any, k: int, *, threshold: float = -np.inf, shards: int | None = None) -> Any:
    """The exact neighbour lists of :func:`parasent.corpus.neighbours.exact_neighbours`, their
    blocks dealt to ``shards`` Ray tasks (default: the cluster's CPUs), each reading the vectors
    from the object store, merged here: the lists of one process, whatever the shards."""
    import ray

    from parasent.corpus.neighbours import NeighbourLists, block_plan, locality_order, unit_vectors
    from parasent.corpus.neighbours import shards as deal

    matrix = unit_vectors(vectors)
    count = shards or max(1, int(ray.cluster_resources().get("CPU", 1)))
    order = locality_order(matrix)  # one order for every shard
    reference = ray.put(matrix)
    task = ray.remote(_shard_lists)
    parts = [
        task.remote(reference, order, blocks, k, threshold)
        for blocks in deal(block_plan(len(matrix)), count)
        if blocks
    ]
    lists = NeighbourLists(len(matrix), k, threshold)
    for part in ray.get(parts):
        lists.merge(part)
    return lists


def mine(
    source: Any,
    *,
    top_k: int = 10,
    threshold: float | None = 0.8,
    max_pairs: int | None = None,
    shards: int | None = None,
    column: str = "embedding",
    text_column: str = "text",
    id_column: str | None = None,
) -> tuple[list[str], Any]:
    """Paraphrase mining of vectors made by :func:`embed` (a Parquet directory it wrote, or its
    dataset), the blocks of the scan sharded over the cluster: ``(texts, pairs)``, the pairs
    those of :func:`parasent.corpus.mining.mine_vectors` on the same vectors."""
    from parasent.corpus.mining import check_options, pairs_of

    check_options(top_k, threshold, max_pairs)
    texts, vectors = _texts_and_vectors(source, column, text_column, id_column)
    floor = -np.inf if threshold is None else threshold
    return texts, pairs_of(sharded_neighbours(vectors, top_k, threshold=floor, shards=shards), max_pairs)


def dedup(
    source: Any,
    *,
    threshold: float = 0.9,
    shards: int | None = None,
    neighbours: int = 32,
    column: str = "embedding",
    text_column: str = "text",
    id_column: str | None = None,
) -> tuple[list[str], Any]:
    """Semantic deduplication of vectors made by :func:`embed`: exact copies by hash, then each
    text's ``neighbours`` best neighbours at or above ``threshold`` computed by shards over the
    cluster, then the greedy pass here (a text whose list is full and holds no kept earlier
    text is compared with every kept one): ``(texts, result)``, the result that of
    :func:`parasent.corpus.dedup.dedup_vectors` on the same texts and vectors."""
    from parasent.corpus.dedup import (
        KEPT,
        Deduplicated,
        check_threshold,
        dedup_by_lists,
        exact_duplicates,
        text_hashes,
    )
    from parasent.corpus.neighbours import unit_vectors

    check_threshold(threshold)
    texts, vectors = _texts_and_vectors(source, column, text_column, id_column)
    result = Deduplicated.all_kept(len(texts))
    exact_duplicates(text_hashes(texts), texts.__getitem__, result)
    left = np.flatnonzero(result.status == KEPT)
    matrix = unit_vectors(vectors[left])
    lists = sharded_neighbours(matrix, neighbours, threshold=threshold, shards=shards)
    dedup_by_lists(matrix, left, lists, threshold, result)
    return texts, result


def _texts_and_vectors(
    source: Any, column: str, text_column: str, id_column: str | None
) -> tuple[list[str], np.ndarray]:
    """Texts and float vectors of a Parquet directory or file (:func:`read_vectors`), or of a
    Ray dataset (in ``id_column`` order when given, else in the dataset's)."""
    if isinstance(source, str | Path):
        texts, vectors = read_vectors(source, column=column, text_column=text_column, id_column=id_column)
    else:
        texts, parts, ids = [], [], []
        for batch in source.iter_batches(batch_format="numpy"):
            texts += [str(text) for text in batch[text_column]]
            parts.append(np.asarray(batch[column]))
            if id_column is not None:
                ids.append(np.asarray(batch[id_column]))
        vectors = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
        if id_column is not None and ids:
            order = np.argsort(np.concatenate(ids), kind="stable")
            vectors, texts = vectors[order], [texts[i] for i in order]
    return texts, _float_vectors(source, column, texts, vectors)[1]
