"""sentence-transformers' ``util`` helpers with its signatures and return shapes, so that
code written against ``sentence_transformers.util`` runs on parasent vectors with a changed
import and no torch: ``semantic_search`` (exact cosine top-k, in bounded memory:
:mod:`parasent.core.semantic_search`), ``paraphrase_mining`` and
``paraphrase_mining_embeddings`` (:mod:`parasent.corpus.mining`: exact, by blocks, never the n x n
matrix), ``community_detection``, ``cos_sim``, ``dot_score``, ``quantize_embeddings`` and
``normalize_embeddings``.

Scores come back as numpy arrays, or as torch tensors when a torch tensor went in (what such
code then indexes and calls ``.item()`` on); a zero vector scores 0, never NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from parasent.core.inference import cosine_matrix, normalize_rows
from parasent.core.output import as_matrix, like_inputs, to_precision
from parasent.core.semantic_search import CORPUS_CHUNK, search


def cos_sim(a: Any, b: Any) -> Any:
    """The (len(a), len(b)) cosine matrix of two sets of vectors (0 for a zero vector, never NaN)."""
    return like_inputs(cosine_matrix(as_matrix(a, finite=True), as_matrix(b, finite=True)), a, b)


def dot_score(a: Any, b: Any) -> Any:
    """The (len(a), len(b)) matrix of dot products."""
    return like_inputs(as_matrix(a, finite=True) @ as_matrix(b, finite=True).T, a, b)


def normalize_embeddings(embeddings: Any) -> np.ndarray:
    """Unit-length rows (a zero row stays zero)."""
    return normalize_rows(as_matrix(embeddings))


def _score_name(score_function: Callable[..., Any] | None, allowed: tuple[str, ...], caller: str) -> str:
    name = "cos_sim" if score_function is None else getattr(score_function, "__name__", str(score_function))
    if name not in allowed:
        raise ValueError(f"parasent.util.{caller} scores by {' or '.join(allowed)} only, not {name!r}")
    return name


def semantic_search(
    query_embeddings: Any,
    corpus_embeddings: Any,
    query_chunk_size: int = 100,
    corpus_chunk_size: int = CORPUS_CHUNK,
    top_k: int = 10,
    score_function: Callable[..., Any] | None = None,
) -> list[list[dict[str, Any]]]:
    """Per query, the ``top_k`` corpus entries by cosine as ``[{"corpus_id": int, "score": float},
    ...]``, best first: sentence-transformers' ``util.semantic_search`` shape (a single query
    vector gives a list of one list). Queries and corpus may be numpy arrays, torch tensors or
    lists of vectors. ``query_chunk_size`` is accepted for compatibility (the query block is
    sized by memory here); ``score_function`` may only be a cosine (this ``cos_sim`` or
    sentence-transformers')."""
    if score_function is not None and getattr(score_function, "__name__", "") != "cos_sim":
        raise ValueError(
            f"parasent.util.semantic_search scores by cosine only, not {getattr(score_function, '__name__', score_function)!r}"
        )
    if query_chunk_size <= 0 or corpus_chunk_size <= 0:
        raise ValueError("query_chunk_size and corpus_chunk_size must be positive")
    return search(as_matrix(query_embeddings), corpus_embeddings, top_k, corpus_chunk_size=corpus_chunk_size)


def paraphrase_mining(
    model: Any,
    sentences: list[str],
    show_progress_bar: bool = False,
    batch_size: int = 32,
    query_chunk_size: int = 5000,
    corpus_chunk_size: int = 100000,
    max_pairs: int = 500000,
    top_k: int = 100,
    score_function: Callable[..., Any] | None = None,
    truncate_dim: int | None = None,
    prompt_name: str | None = None,
    prompt: str | None = None,
) -> list[list[float | int]]:
    """``[[score, i, j], ...]`` with ``i < j``, best first: for every sentence its ``top_k`` most
    similar others, each pair once, the best ``max_pairs`` (sentence-transformers'
    ``util.paraphrase_mining``). ``model`` is a parasent model (or anything with ``encode``);
    ``batch_size`` only bounds the memory of encoding (a parasent model encodes 4,096 at a
    time at least: an averaged vector does not depend on its batch); the chunk sizes are
    accepted for compatibility (blocks are sized by memory here)."""
    embeddings = model.encode(
        list(sentences), batch_size=max(batch_size, 4096), show_progress_bar=show_progress_bar,
        truncate_dim=truncate_dim,
    )  # fmt: skip
    return paraphrase_mining_embeddings(
        embeddings, query_chunk_size, corpus_chunk_size, max_pairs, top_k, score_function
    )


def paraphrase_mining_embeddings(
    embeddings: Any,
    query_chunk_size: int = 5000,
    corpus_chunk_size: int = 100000,
    max_pairs: int = 500000,
    top_k: int = 100,
    score_function: Callable[..., Any] | None = None,
) -> list[list[float | int]]:
    """:func:`paraphrase_mining` on vectors already computed (numpy, torch or a list of rows);
    ``score_function``: ``cos_sim`` (the default) or ``dot_score``."""
    from parasent.corpus.mining import check_options, pairs_of
    from parasent.corpus.neighbours import exact_neighbours

    name = _score_name(score_function, ("cos_sim", "dot_score"), "paraphrase_mining")
    if query_chunk_size <= 0 or corpus_chunk_size <= 0:
        raise ValueError("query_chunk_size and corpus_chunk_size must be positive")
    check_options(top_k, None, max_pairs)
    matrix = as_matrix(embeddings)
    lists = exact_neighbours(matrix, top_k, unit=name == "dot_score")  # dot products of the rows as given
    return pairs_of(lists, max_pairs).triplets()


def community_detection(
    embeddings: Any,
    threshold: float = 0.75,
    min_community_size: int = 10,
    batch_size: int = 1024,
    show_progress_bar: bool = False,
) -> list[list[int]]:
    """Communities of vectors (sentence-transformers' ``util.community_detection``): a vector
    with at least ``min_community_size`` vectors (itself included) at or above ``threshold``
    by cosine is a centre, its community those vectors; communities are taken largest first,
    each without the vectors an earlier one took, kept while ``min_community_size`` remain.
    Each list starts with its centre, then its members by decreasing cosine to it; the lists
    come largest first. Scores are computed a block of ``batch_size`` rows against a chunk of
    columns at a time: never the n x n matrix."""
    from parasent.corpus.communities import communities

    matrix = as_matrix(embeddings) if len(embeddings) else np.zeros((0, 1), dtype=np.float32)
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    return communities(
        matrix, threshold, min_community_size, batch_size=batch_size, progress=show_progress_bar
    )


def quantize_embeddings(
    embeddings: Any,
    precision: str,
    ranges: np.ndarray | None = None,
    calibration_embeddings: np.ndarray | None = None,
) -> Any:
    """Vectors at a lower ``precision`` (``float32``, ``int8``, ``uint8``, ``binary``,
    ``ubinary``) as sentence-transformers' ``quantize_embeddings`` computes them: int8 and
    uint8 split each dimension's [min, max] (of ``ranges``, else of ``calibration_embeddings``,
    else of ``embeddings`` themselves, which must then be more than one) into 256 buckets; the
    binary ones keep sign bits, 8 a byte. A list of (tokens, dim) matrices is quantised with
    one shared calibration, into a list."""
    if isinstance(embeddings, list) and embeddings and np.ndim(embeddings[0]) == 2:
        matrices = [_float_array(item) for item in embeddings]
        if precision.endswith("int8") and ranges is None:
            calibration = (
                np.concatenate(matrices) if calibration_embeddings is None else calibration_embeddings
            )
            ranges = _ranges(as_matrix(calibration)) if len(calibration) else None
        return [quantize_embeddings(m, precision, ranges, calibration_embeddings) for m in matrices]
    array = _float_array(embeddings)
    single = array.ndim == 1
    matrix = as_matrix(array)
    if precision.endswith("int8") and ranges is None and len(matrix):
        if calibration_embeddings is None and len(matrix) == 1:
            raise ValueError(
                f"cannot compute {precision} ranges from a single embedding: pass ranges or calibration_embeddings"
            )
        ranges = _ranges(matrix if calibration_embeddings is None else as_matrix(calibration_embeddings))
    out = to_precision(matrix, precision, None if ranges is None else np.asarray(ranges, dtype=np.float32))
    return out[0] if single else out


def _float_array(embeddings: Any) -> np.ndarray:
    """A numpy array of ``embeddings`` (a tensor, an array, a list of rows); int8 and uint8
    vectors are refused (they are quantised already)."""
    array = embeddings.detach().cpu().numpy() if hasattr(embeddings, "detach") else np.asarray(embeddings)
    if array.dtype in (np.int8, np.uint8):
        raise ValueError(f"embeddings to quantize must be float, not {array.dtype}")
    return (
        array.astype(np.float32) if array.size or array.ndim == 2 else array.reshape(0, 0).astype(np.float32)
    )


def _ranges(calibration: np.ndarray) -> np.ndarray:
    return np.stack([calibration.min(axis=0), calibration.max(axis=0)])
