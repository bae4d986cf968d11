"""A saved supervised head, read and run with numpy: predicting needs no torch.

The heads are trained as torch modules (:mod:`parasent.supervised.heads`, Tai et al. 2015 as
Wieting et al. 2016 Sec. 4.4 use them); a user who loads a classifier to predict needs only its
forward pass, the same equations on the same weights:

    pair:      h_s = sigmoid(W_x (h_L * h_R) + W_+ |h_L - h_R| + b_h),  p = softmax(W_p h_s + b_p)
    sentence:  h_s = sigmoid(W_h x + b_h) (x standardized first when the head says so),
               p = softmax(W_o h_s + b_o)

Everything is checked before it is used, as the model reader checks a model: the shapes of
``head.json`` within bounds (nothing is allocated from them), each tensor of
``head.safetensors`` present, of its declared shape and finite, the input width equal to the
sentence model's, and a file classifier's labels distinct strings, one per class.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.model_checks import compare_shapes, read_json
from parasent.errors import ModelFormatError
from parasent.support.regular_files import exists, regular_size

HEAD_CONFIG = "head.json"
HEAD_WEIGHTS = "head.safetensors"
HEAD_FORMAT = 1
MAX_UNITS = 1_000_000  # the largest input, hidden or class count a head.json may declare
MAX_LABEL_CHARS = 1_000


def head_shapes(shape: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every tensor a head of ``shape`` (``head.json``'s ``head``) holds, with its shape."""
    kind, standardized = shape["kind"], shape.get("standardized", False)
    d, h, c = (_units(shape, key) for key in ("input_dim", "hidden_dim", "classes"))
    if c < 2:
        raise ValueError(f"classes must be at least 2, got {c}")
    if not isinstance(standardized, bool) or (standardized and kind != "sentence"):
        raise ValueError(
            f"standardized must be true or false (a sentence head's option), got {standardized!r}"
        )
    out = {"output.weight": (c, h), "output.bias": (c,)}
    if kind == "pair":
        return {"product.weight": (h, d), "difference.weight": (h, d), "difference.bias": (h,), **out}
    if kind == "sentence":
        own = {"shift": (d,), "scale": (d,)} if standardized else {}
        return {**own, "hidden.weight": (h, d), "hidden.bias": (h,), **out}
    raise ValueError(f"head kind must be pair or sentence, got {kind!r}")


def _units(shape: dict[str, Any], key: str) -> int:
    value = shape[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_UNITS:
        raise ValueError(f"{key} must be a whole number in 1..{MAX_UNITS}, got {value!r}")
    return value


@dataclass
class NumpyHead:
    """A head's weights (float64, so the probabilities are those of the float32 torch head to
    about 1e-7) and its forward pass: log-probabilities over its classes."""

    kind: str
    classes: int
    weights: dict[str, np.ndarray]

    @property
    def input_dim(self) -> int:
        return int(self._input_weight().shape[1])

    @property
    def hidden_dim(self) -> int:
        return int(self.weights["output.weight"].shape[1])

    @property
    def standardized(self) -> bool:
        """Whether the input is standardized first (the training texts' ``shift`` and ``scale``)."""
        return "shift" in self.weights

    def _input_weight(self) -> np.ndarray:
        return self.weights["product.weight" if self.kind == "pair" else "hidden.weight"]

    def __call__(self, *sides: np.ndarray) -> np.ndarray:
        w = self.weights
        if self.kind == "pair":
            left, right = (np.asarray(s, dtype=np.float64) for s in sides)
            hidden = left * right @ w["product.weight"].T + np.abs(left - right) @ w["difference.weight"].T
            hidden += w["difference.bias"]
        else:
            x = np.asarray(sides[0], dtype=np.float64)
            if self.standardized:
                x = (x - w["shift"]) / w["scale"]
            hidden = x @ w["hidden.weight"].T + w["hidden.bias"]
        logits = _sigmoid(hidden) @ w["output.weight"].T + w["output.bias"]
        logits -= logits.max(axis=1, keepdims=True)
        return (logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))).astype(np.float32)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # never overflows


def read_head(directory: str | Path, input_dim: int | None = None) -> tuple[NumpyHead, dict[str, Any]]:
    """The head saved in ``directory`` and its JSON config; ``input_dim``: the sentence model's
    width, which the head must take."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    directory = Path(directory)
    config_path, weights_path = directory / HEAD_CONFIG, directory / HEAD_WEIGHTS
    if not exists(config_path) or not exists(weights_path):
        raise ModelFormatError(f"{directory}: no supervised head ({HEAD_CONFIG} + {HEAD_WEIGHTS})")
    regular_size(weights_path)  # a FIFO or a device is never opened
    config = read_json(config_path, what="a parasent head config")
    if not isinstance(config, dict):
        raise ModelFormatError(f"{config_path}: not a parasent head config (a JSON {type(config).__name__})")
    if not isinstance(config.get("format", 0), int) or config.get("format", 0) > HEAD_FORMAT:
        raise ModelFormatError(
            f"{config_path}: format {config.get('format')!r} is not one this parasent reads"
        )
    try:
        shape = config["head"]
        expected = head_shapes(shape)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelFormatError(f"{config_path}: not a parasent head config ({exc})") from None
    if input_dim is not None and shape["input_dim"] != input_dim:
        raise ModelFormatError(
            f"{config_path}: the head takes {shape['input_dim']}-dimensional vectors, the model beside it "
            f"gives {input_dim} (the directory mixes files of different models)"
        )
    try:
        tensors = load_file(str(weights_path))
    except (SafetensorError, OSError, ValueError) as exc:
        raise ModelFormatError(f"{weights_path}: not a safetensors file ({exc})") from None
    weights = _checked_weights(weights_path, tensors, expected)
    _check_labels(config_path, config, shape["classes"])
    return NumpyHead(shape["kind"], shape["classes"], weights), config


def _checked_weights(
    path: Path, tensors: dict[str, np.ndarray], expected: dict[str, tuple[int, ...]]
) -> dict[str, np.ndarray]:
    """The tensors ``head.json`` declares, of their shapes (as a model's are checked), float and finite."""
    compare_shapes(path, expected, tensors)
    for name, tensor in tensors.items():
        if not np.issubdtype(tensor.dtype, np.floating):
            raise ModelFormatError(f"{path}: {name} is {tensor.dtype}; a head's weights are floats")
        if not np.isfinite(tensor).all():
            raise ModelFormatError(f"{path}: {name} holds NaN or infinite values; the head is unusable")
    return {name: tensor.astype(np.float64) for name, tensor in tensors.items()}


def _check_labels(config_path: Path, config: dict[str, Any], classes: int) -> None:
    """A classifier of a file's classes names each class once, by a string without NUL."""
    if config.get("classes_from") != "file" and "labels" not in config:
        return
    labels = config.get("labels")
    if not isinstance(labels, list) or len(labels) != classes:
        count = len(labels) if isinstance(labels, list) else "no"
        raise ModelFormatError(f"{config_path}: {count} labels for a head of {classes} classes")
    for label in labels:
        if not isinstance(label, str) or not label or "\0" in label or len(label) > MAX_LABEL_CHARS:
            raise ModelFormatError(f"{config_path}: label {label!r} is not a class name (a non-empty string)")
    if len(set(labels)) != len(labels):
        raise ModelFormatError(f"{config_path}: a label is named twice")
