"""Checks on a model directory from an untrusted source, before anything large is allocated.

A model directory is data: a 2 KB ``config.json`` must not make parasent allocate gigabytes
(``layers: 1000000``), a JSON file must not exhaust the stack, a tokenizer must not be parsed
before its size is known to be plausible, and weights must be finite numbers. Every error
names the file it is about.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from parasent.errors import ModelFormatError
from parasent.support.regular_files import read_regular, regular_size

MAX_JSON_BYTES = 16 << 20  # config.json, modules.json: a few KB in practice
MAX_DIM = 100_000  # embedding and hidden sizes
MAX_VOCAB = 50_000_000
MAX_LAYERS = 64
# tokenizer.json: a generous number of bytes per vocabulary entry (WordPiece: ~25, BPE with merges: ~60).
TOKENIZER_BYTES_PER_ENTRY = 2048
TOKENIZER_BYTES_BASE = 4 << 20
_FINITE_CHUNK = 1 << 22  # elements per finiteness check (bounded temporary memory)


def read_json(path: str | Path, *, max_bytes: int = MAX_JSON_BYTES, what: str = "a JSON file") -> Any:
    """A JSON file, refusing one larger than ``max_bytes`` or nested deeper than Python parses;
    ``what`` names what the file should be, in the error."""
    path = Path(path)
    try:
        return json.loads(read_regular(path, max_bytes=max_bytes))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelFormatError(f"{path}: not {what} (invalid JSON: {exc})") from None
    except RecursionError:
        raise ModelFormatError(f"{path}: not {what} (JSON nested too deeply)") from None
    except OSError as exc:
        raise ModelFormatError(f"{path}: unreadable ({exc.strerror or exc})") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_config_types(path: Path, config: Any) -> None:
    """``config.json``'s sections have the types parasent writes (a string where a number is
    expected would otherwise fail deep inside, as a traceback)."""
    if not isinstance(config, dict):
        raise ModelFormatError(f"{path}: not a parasent model config (not a JSON object)")
    for key in ("encoder", "tokenizer"):
        if not isinstance(config.get(key), dict):
            raise ModelFormatError(f"{path}: '{key}' must be an object, got {config.get(key)!r:.60}")
    if "format" in config and not (_is_int(config["format"]) and config["format"] >= 1):
        raise ModelFormatError(f"{path}: 'format' must be a positive integer, got {config['format']!r:.60}")
    if not isinstance(config.get("metadata", {}) or {}, dict):
        raise ModelFormatError(f"{path}: 'metadata' must be an object")
    sha = config["tokenizer"].get("sha256")  # absent in models of older versions; never off when present
    if "sha256" in config["tokenizer"] and not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
        raise ModelFormatError(f"{path}: tokenizer.sha256 must be a sha256 in hex, got {sha!r:.60}")
    if not isinstance(config["tokenizer"].get("kind", "words"), str):
        raise ModelFormatError(
            f"{path}: tokenizer.kind must be a string, got {config['tokenizer']['kind']!r:.60}"
        )
    rows = config["tokenizer"].get("vocab_size", 1)  # written by every version; checked where present
    if not _is_int(rows) or not 0 < rows <= MAX_VOCAB:
        raise ModelFormatError(
            f"{path}: tokenizer.vocab_size must be an integer in 1..{MAX_VOCAB}, got {rows!r:.60}"
        )
    encoder = config["encoder"]
    if not isinstance(encoder.get("name"), str):
        raise ModelFormatError(f"{path}: encoder.name must be a string, got {encoder.get('name')!r:.60}")
    limits = {"vocab_size": MAX_VOCAB, "embedding_dim": MAX_DIM}
    for key, limit in limits.items():
        value = encoder.get(key)
        if not _is_int(value) or not 0 < value <= limit:
            raise ModelFormatError(
                f"{path}: encoder.{key} must be an integer in 1..{limit}, got {value!r:.60}"
            )
    check_encoder_sizes(path, encoder)


def check_encoder_sizes(path: Path, encoder: dict[str, Any]) -> None:
    """Sane limits on the encoder's declared sizes (every integer hyperparameter)."""
    for key, value in encoder.items():
        if key in ("vocab_size", "name"):
            continue
        limit = MAX_LAYERS if key in ("layers", "num_layers") else MAX_DIM
        for item in value if isinstance(value, list) else [value]:
            if _is_int(item) and not 0 <= item <= limit:
                raise ModelFormatError(f"{path}: encoder.{key} {item} is outside 0..{limit}")


def check_against_weights(path: Path, encoder: dict[str, Any], weights: dict[str, np.ndarray]) -> None:
    """Build the encoder on torch's ``meta`` device (no memory) and compare every parameter's
    shape with the weights file, so that declared sizes are those of the weights before the
    real module is allocated."""
    import torch

    from parasent.core.torch_side import torch_side

    try:
        with torch.device("meta"):
            module = torch_side().build(encoder)
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{path}: encoder settings cannot be built ({exc})") from None
    expected = {name: tuple(t.shape) for name, t in module.state_dict().items()}
    compare_shapes(path, expected, weights)


def check_declared_shapes(path: Path, entry: Any, encoder: dict[str, Any], weights: dict[str, Any]) -> None:
    """The weights of an encoder the core runs in numpy, against the shapes its config declares
    (the numpy forward's module says them: ``parameter_shapes``), without torch."""
    try:
        expected = entry.forward_module().parameter_shapes(encoder)
    except (KeyError, TypeError, ValueError) as exc:
        said = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelFormatError(f"{path}: encoder settings cannot be built ({said})") from None
    compare_shapes(path, expected, weights)


def compare_shapes(path: Path, expected: dict[str, tuple[int, ...]], weights: dict[str, Any]) -> None:
    """Every weight the encoder declares, of its declared shape, and no other."""
    missing = sorted(set(expected) - set(weights))
    extra = sorted(set(weights) - set(expected))
    if missing or extra:
        raise ModelFormatError(
            f"{path}: weights do not match the encoder (missing {missing[:3]}, unexpected {extra[:3]})"
        )
    for name, shape in expected.items():
        if tuple(weights[name].shape) != shape:
            raise ModelFormatError(
                f"{path}: {name} has shape {tuple(weights[name].shape)}, the config declares {shape}"
            )


def check_finite(path: Path, weights: dict[str, np.ndarray]) -> None:
    """Refuse NaN or infinite weights (they would give NaN similarities, printed as 0 or invalid
    JSON). Reading every weight of a memory-mapped file defeats the mapping's point (a sentence
    reads a few rows), so a file found finite is remembered (:mod:`parasent.support.filememo`)."""
    from parasent.support.filememo import remembered

    remembered(path, "finite", lambda: _check_finite(path, weights))


def _check_finite(path: Path, weights: dict[str, np.ndarray]) -> str:
    from parasent.core.stored_weights import QuantizedTable

    for name, tensor in weights.items():
        if isinstance(tensor, QuantizedTable):
            tensor = tensor.scales  # int8 values are finite; a scale may not be
        if tensor.dtype.kind != "f":
            continue
        flat = tensor.reshape(-1)
        for start in range(0, flat.size, _FINITE_CHUNK):
            if not np.isfinite(flat[start : start + _FINITE_CHUNK]).all():
                raise ModelFormatError(f"{path}: tensor {name!r} has non-finite values (NaN or inf)")
    return "yes"


def check_tokenizer_size(path: Path, entries: int) -> None:
    """Refuse a tokenizer file far larger than a vocabulary of ``entries`` tokens needs,
    before it is parsed (parsing costs time and memory in proportion to the file)."""
    try:
        size = regular_size(path)  # a FIFO or a device is refused here, before anything opens it
    except FileNotFoundError:
        return  # the loader reports the missing file
    limit = TOKENIZER_BYTES_BASE + TOKENIZER_BYTES_PER_ENTRY * max(int(entries), 0)
    if size > limit:
        raise ModelFormatError(
            f"{path}: {size} bytes is far more than a vocabulary of {entries} entries needs (limit {limit})"
        )
