"""The numpy forwards of encoders that compose an averaging model's rows: the contextual tier's.

The model is :class:`parasent.encoders.contextual.ContextualAveraging` (its docstring gives the
equation); this is the same computation on the same weights, in float32, a block of tokens at
a time so that memory stays bounded by :data:`BLOCK_TOKENS` whatever the batch. The token
table may be int8 (:class:`parasent.core.stored_weights.QuantizedTable`): rows are widened
when gathered, as the averaging path does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parasent.core.stored_weights import EMBEDDING_KEY
from parasent.text.tokenized import Tokenized

BLOCK_TOKENS = 8_192  # tokens per block: (tokens, width x hidden) float32 is ~25 MB at 3 x 256
_GELU_C = np.float32(np.sqrt(2.0 / np.pi))
RMS_FLOOR = np.float32(1e-6)  # a row of smaller RMS is taken as zero when scaled (both forwards)
MAX_REACH = 64  # attention's window, tokens either side: memory per token grows with it
MAX_LAYERS = 8  # stacked convolutions: a model file cannot declare an unbounded stack


def parameter_shapes(config: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The shape of every weight the encoder ``config`` declares (checked before loading)."""
    for key in ("embedding_dim", "hidden", "width", "attention", "reach", "layers"):
        value = config.get(key, 0) if key not in ("embedding_dim", "hidden", "width") else config[key]
        if not isinstance(value, int) or isinstance(value, bool):  # "2" or 2.7 would load as something else
            raise ValueError(f"{key} must be an integer, got {value!r:.40}")
    dim, hidden, width = int(config["embedding_dim"]), int(config["hidden"]), int(config["width"])
    shapes = {
        EMBEDDING_KEY: (int(config["vocab_size"]), dim),
        "context.weight": (hidden, dim, width),
        "context.bias": (hidden,),
        "shift.weight": (dim, hidden),
        "shift.bias": (dim,),
        "gate.weight": (1, hidden),
        "gate.bias": (1,),
    }
    attention = int(config.get("attention", 0))
    if not 0 <= int(config.get("reach", 8)) <= MAX_REACH:
        raise ValueError(f"reach {config['reach']} is outside 0..{MAX_REACH}")
    if attention:
        shapes.update(
            {"attend.weight": (2 * attention + hidden, hidden), "attend.bias": (2 * attention + hidden,)}
        )
    layers = int(config.get("layers", 1))
    if not 1 <= layers <= MAX_LAYERS:
        raise ValueError(f"layers {config['layers']} is outside 1..{MAX_LAYERS}")
    for layer in range(layers - 1):
        shapes.update({f"deeper.{layer}.weight": (hidden, hidden, width), f"deeper.{layer}.bias": (hidden,)})
    return shapes


COMPOSITION_KEYS = (
    "context.weight",
    "context.bias",
    "shift.weight",
    "shift.bias",
    "gate.weight",
    "gate.bias",
    "attend.weight",
    "attend.bias",
    *(f"deeper.{layer}.{part}" for layer in range(MAX_LAYERS - 1) for part in ("weight", "bias")),
)


def interpolated(
    start: dict[str, Any] | None, trained: dict[str, Any], alpha: float
) -> dict[str, np.ndarray]:
    """The composition weights a fraction ``alpha`` of the way from ``start``'s to ``trained``'s,
    in ``trained``'s dtype: the straight line in weight space between a model and its fine-tuned
    self, along which the fine-tuned model's gain on its task is traded for the start's
    generality (WiSE-FT, Wortsman et al. 2022, Eq. 1: theta = (1 - alpha) theta_0 + alpha theta_1).

    ``start`` None is an averaging model: its correction (U, c, v, a) is zero and it reads no
    convolution, so the trained convolution (and attention) is kept and only the correction
    scales; ``alpha`` 0 is then the average itself, exactly. A start and a trained model of
    different composition weights (one with attention) have no line between them."""
    if start is not None and {k for k in COMPOSITION_KEYS if k in start} != {
        k for k in COMPOSITION_KEYS if k in trained
    }:
        raise ValueError(
            "the start and the trained model have different composition weights: no line between them"
        )
    out = {}
    for key in (key for key in COMPOSITION_KEYS if key in trained):
        end = np.asarray(trained[key])
        if start is None:
            begin = end if key.startswith(("context.", "attend.", "deeper.")) else np.zeros_like(end)
        else:
            begin = np.asarray(start[key])
        mixed = (1.0 - alpha) * begin.astype(np.float32) + alpha * end.astype(np.float32)
        out[key] = mixed.astype(end.dtype)
    return out


class ContextualForward:
    """The composition weights of one model, laid out once for matrix products."""

    def __init__(self, weights: dict[str, Any], config: dict[str, Any]) -> None:
        self.width = int(config["width"])
        self.hidden = int(config["hidden"])
        kernel = np.asarray(weights["context.weight"], dtype=np.float32)  # (H, D, width)
        self.kernel = np.ascontiguousarray(kernel.transpose(1, 2, 0).reshape(kernel.shape[1], -1))
        self.bias = np.asarray(weights["context.bias"], dtype=np.float32)
        self.shift = np.ascontiguousarray(np.asarray(weights["shift.weight"], dtype=np.float32).T)
        self.shift_bias = np.asarray(weights["shift.bias"], dtype=np.float32)
        self.gate = np.asarray(weights["gate.weight"], dtype=np.float32).reshape(-1)
        self.gate_bias = np.float32(np.asarray(weights["gate.bias"], dtype=np.float32).reshape(-1)[0])
        self.table = weights[EMBEDDING_KEY]
        self.deeper = []  # layers 2.. : (kernel (H, width x H), bias) of each stacked convolution
        for layer in range(int(config.get("layers", 1)) - 1):
            deep = np.asarray(weights[f"deeper.{layer}.weight"], dtype=np.float32)
            flat = np.ascontiguousarray(deep.transpose(1, 2, 0).reshape(deep.shape[1], -1))
            self.deeper.append((flat, np.asarray(weights[f"deeper.{layer}.bias"], dtype=np.float32)))
        self.attention = int(config.get("attention", 0))
        self.reach = int(config.get("reach", 8))
        if self.attention:
            self.attend = np.ascontiguousarray(np.asarray(weights["attend.weight"], dtype=np.float32).T)
            self.attend_bias = np.asarray(weights["attend.bias"], dtype=np.float32)

    def __call__(self, tokenized: Tokenized) -> np.ndarray:
        """``(sentences, dim)``: each sentence's vector; an empty sentence is the zero vector."""
        lengths = np.asarray(tokenized.lengths, dtype=np.int64)
        out = np.zeros((len(lengths), self.table.shape[1]), dtype=np.float32)
        first = 0
        while first < len(lengths):  # whole sentences, about BLOCK_TOKENS tokens a block
            ends = np.cumsum(lengths[first:])
            last = first + max(1, int(np.searchsorted(ends, BLOCK_TOKENS, side="right")))
            self._block(tokenized, first, last, out)
            first = last
        return out

    def _block(self, tokenized: Tokenized, first: int, last: int, out: np.ndarray) -> None:
        start, stop = int(tokenized.offsets[first]), int(tokenized.offsets[last])
        lengths = np.asarray(tokenized.lengths[first:last], dtype=np.int64)
        if stop == start:
            return
        vectors = np.asarray(self.table[tokenized.ids[start:stop]], dtype=np.float32)
        hidden = self._hidden(vectors, lengths)
        if self.attention:
            hidden += self._attended(hidden, lengths)
        moved = vectors + hidden @ self.shift + self.shift_bias
        moved *= (hidden @ self.gate + (1.0 + self.gate_bias))[:, None]
        full = lengths > 0
        starts = (np.cumsum(lengths) - lengths)[full]
        out[first:last][full] = np.add.reduceat(moved, starts, axis=0) / lengths[full, None]

    def _hidden(self, vectors: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """``(tokens, H)``: GELU of the convolution over each token's window (zero beyond the
        ends), then each stacked convolution's GELU added to it."""
        rms = np.sqrt(np.mean(vectors * vectors, axis=1, keepdims=True))
        scaled = vectors / np.maximum(rms, RMS_FLOOR)  # as the torch module's rms_scaled
        local = np.arange(len(vectors)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        length = np.repeat(lengths, lengths)
        hidden = self._convolved(scaled, self.kernel, self.bias, local, length)
        for kernel, bias in self.deeper:
            hidden += self._convolved(hidden, kernel, bias, local, length)
        return hidden

    def _convolved(
        self, inputs: np.ndarray, kernel: np.ndarray, bias: np.ndarray, local: np.ndarray, length: np.ndarray
    ) -> np.ndarray:
        """``(tokens, H)``: GELU(b + sum_k W_k x_{i+k-width//2}), windows cut at the sentence's ends."""
        count = len(inputs)
        products = (inputs @ kernel).reshape(count, self.width, self.hidden)
        hidden = products[:, self.width // 2] + bias
        for k in range(self.width):
            step = k - self.width // 2
            if step < 0:  # every token takes its left neighbour's product, then a sentence's first
                hidden[-step:] += products[: count + step, k]  # tokens give back their neighbour's
                wrong = np.flatnonzero(local < -step)
                wrong = wrong[wrong >= -step]
                hidden[wrong] -= products[wrong + step, k]
            elif step > 0:  # the same on the right, given back by a sentence's last tokens
                hidden[: count - step] += products[step:, k]
                wrong = np.flatnonzero(local + step >= length)
                wrong = wrong[wrong < count - step]
                hidden[wrong] -= products[wrong + step, k]
        return _gelu(hidden)

    def _attended(self, hidden: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """``(tokens, H)``: each token's attention over the tokens within ``reach`` of it in its
        sentence, as the torch module's ``_attend``; the windows are strided views of the block,
        zero-padded at its ends (no copy), offsets beyond a sentence's ends masked."""
        count, size = len(hidden), self.attention
        reach = min(self.reach, int(lengths.max()) - 1)  # offsets no sentence of the block reaches
        padded = np.zeros((count + 2 * reach, self.attend.shape[1]), dtype=np.float32)
        np.matmul(hidden, self.attend, out=padded[reach : reach + count])
        padded[reach : reach + count] += self.attend_bias
        windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * reach + 1, axis=0)  # (T, P, K)
        query = padded[reach : reach + count, :size]
        scores = np.matmul(query[:, None, :], windows[:, size : 2 * size])[:, 0]  # (T, K)
        scores /= np.float32(np.sqrt(size))
        local = (np.arange(count) - np.repeat(np.cumsum(lengths) - lengths, lengths)).astype(np.int32)
        offset = np.arange(-reach, reach + 1, dtype=np.int32)
        scores[
            (local[:, None] < -offset) | (local[:, None] >= np.repeat(lengths, lengths)[:, None] - offset)
        ] = -np.inf
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=1, keepdims=True)
        return np.matmul(windows[:, 2 * size :], scores[:, :, None])[:, :, 0]


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh form (torch's ``approximate="tanh"``), in place."""
    inner = x * x
    inner *= np.float32(0.044715)
    inner += 1.0
    inner *= x
    inner *= _GELU_C
    np.tanh(inner, out=inner)
    inner += 1.0
    inner *= 0.5
    x *= inner
    return x


def contextual_forward(weights: dict[str, Any], config: dict[str, Any]) -> ContextualForward:
    """The model's numpy forward (the registry entry's ``numpy_forward``)."""
    return ContextualForward(weights, config)
