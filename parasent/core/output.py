"""What ``encode`` hands back, in sentence-transformers' terms: truncated (Matryoshka-style
``truncate_dim``), unit-length (``normalize_embeddings``), quantised (``precision``) and as the
container asked for (numpy, a list of rows, or a torch tensor, importing torch only then).

Quantisation follows the usual embedding-quantisation scheme so that stored or served vectors
can be compared with those of other libraries: ``int8``/``uint8`` map each dimension's
[min, max] range (over the batch, or over ``ranges`` computed from a calibration set) to 256
buckets; ``binary``/``ubinary`` keep the sign bit of each dimension, packed 8 to a byte
(``binary`` offset by -128 into int8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parasent.core.inference import normalize_rows

PRECISIONS = ("float32", "float16", "int8", "uint8", "binary", "ubinary")
# encode keywords of other libraries that do not change a static sentence vector: accepted,
# ignored (SentenceModel.encode's docstring lists them; a test keeps the two in step)
IGNORED_KEYWORDS = frozenset(
    {
        "prompt_name",
        "prompt",
        "prompt_type",
        "task",
        "task_type",
        "task_metadata",
        "hf_split",
        "hf_subset",
        "pool",
        "chunk_size",
        "max_length",
        "max_seq_length",
        "num_workers",
        "instruction",
        "output_value",
    }
)


def check_keywords(kwargs: dict[str, Any], known: Sequence[str] = ()) -> None:
    """Accept the harmless keywords of other libraries' ``encode``; refuse an unknown one (a typo
    like ``normalise_embeddings`` would otherwise be silently ignored) and the ones whose meaning
    parasent cannot honour (token embeddings), rather than silently returning something else.
    ``known``: the function's own keywords, offered as corrections."""
    import difflib

    for name in kwargs:
        if name not in IGNORED_KEYWORDS:
            close = difflib.get_close_matches(name, [*known, *sorted(IGNORED_KEYWORDS)], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TypeError(f"encode() got an unexpected keyword argument {name!r}{hint}")
    output_value = kwargs.get("output_value", "sentence_embedding")
    if output_value not in (None, "sentence_embedding"):
        raise ValueError(f"output_value={output_value!r}: parasent models give sentence embeddings only")


def torch_tensor(matrix: np.ndarray) -> Any:
    """``matrix`` as a torch tensor; without torch, a one-line error naming the extra."""
    try:
        import torch
    except ImportError:
        from parasent.errors import MissingDependencyError

        raise MissingDependencyError(
            "convert_to_tensor=True needs torch, which the core install lacks: install parasent[train] "
            "(or leave convert_to_tensor unset for a numpy array)"
        ) from None
    return torch.from_numpy(np.ascontiguousarray(matrix))


def like_inputs(result: np.ndarray, *inputs: Any) -> Any:
    """``result`` as a torch tensor when any of ``inputs`` is one (what code that hands
    sentence-transformers tensors expects back), else as it is; torch is never imported here."""
    if any(hasattr(item, "detach") for item in inputs):
        return torch_tensor(result)
    return result


def to_precision(matrix: np.ndarray, precision: str, ranges: np.ndarray | None = None) -> np.ndarray:
    """``matrix`` (n, dim) float32 at ``precision``; ``ranges`` is a (2, dim) [min; max] calibration."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    if precision == "float32":
        return matrix
    if precision == "float16":
        return matrix.astype(np.float16)
    if precision in ("binary", "ubinary"):
        packed = np.packbits(matrix > 0, axis=-1)
        return (packed.astype(np.int16) - 128).astype(np.int8) if precision == "binary" else packed
    if ranges is None and len(matrix) == 1:  # its own range is one point: every value in bucket 0
        raise ValueError(
            f"precision={precision!r} calibrates each dimension's range on the batch, and one sentence has "
            "none: encode several sentences together, or pass ranges from a calibration set "
            "(parasent.core.output.to_precision(vectors, precision, ranges))"
        )
    if ranges is None:
        ranges = np.stack([matrix.min(axis=0), matrix.max(axis=0)]) if len(matrix) else None
    if ranges is None:
        return np.zeros(matrix.shape, dtype=np.int8 if precision == "int8" else np.uint8)
    starts = ranges[0]
    steps = (ranges[1] - ranges[0]) / 255
    steps = np.where(steps > 0, steps, 1.0)  # a constant dimension: every value in bucket 0
    buckets = np.clip(np.floor((matrix - starts) / steps), 0, 255)
    if precision == "uint8":
        return buckets.astype(np.uint8)
    return (buckets - 128).astype(np.int8)


def finish(
    matrix: np.ndarray,
    *,
    normalize: bool = False,
    truncate_dim: int | None = None,
    precision: str = "float32",
    convert_to_numpy: bool = True,
    convert_to_tensor: bool = False,
) -> Any:
    """Apply the output options in sentence-transformers' order: truncate, normalise, quantise,
    convert. Truncating first keeps a truncated normalised vector unit-length."""
    if truncate_dim is not None:
        if truncate_dim <= 0:
            raise ValueError(f"truncate_dim must be positive, got {truncate_dim}")
        matrix = matrix[:, :truncate_dim]
    if normalize:
        matrix = normalize_rows(matrix)
    matrix = to_precision(np.ascontiguousarray(matrix), precision)
    if convert_to_tensor:
        return torch_tensor(matrix)
    if convert_to_numpy:
        return matrix
    return list(matrix)


def as_matrix(vectors: Any, *, finite: bool = False, texts: Sequence[str] | None = None) -> np.ndarray:
    """A (n, dim) float32 array from a numpy array, a torch tensor or a sequence of vectors;
    a single vector becomes one row. ``finite``: vectors a user handed in (to ``similarity``,
    ``search``) or a model an evaluator scores made are checked, a row holding NaN or infinity
    refused, naming it (and its text, given ``texts``): its cosines would be NaN, or 0 where
    normalisation zeroes it, and either passes unseen (vectors parasent made, an index's, are not
    checked again on every query)."""
    if hasattr(vectors, "detach"):  # a torch tensor, without importing torch
        vectors = vectors.detach().cpu().float().numpy()
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2:
        raise ValueError(f"expected vectors of shape (n, dim) or (dim,), got shape {matrix.shape}")
    if finite:
        rows = np.isfinite(matrix).all(axis=1)
        if not rows.all():
            row = int(np.flatnonzero(~rows)[0])
            which = f"vector row {row}" if texts is None else f"the vector of {texts[row][:60]!r} (row {row})"
            raise ValueError(
                f"{which} holds NaN or infinity ({int((~rows).sum())} such row(s)): no cosine can be taken"
            )
    return matrix


def is_text(items: Any) -> bool:
    """Whether ``items`` is a sentence or a sequence of sentences (not vectors)."""
    if isinstance(items, str):
        return True
    if isinstance(items, Sequence) and not isinstance(items, (bytes, bytearray)):
        return len(items) == 0 or isinstance(items[0], str)
    return False
