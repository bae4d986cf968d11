"""The classifiers of Tai et al. (2015) that Wieting et al. (2016, Sec. 4.4) and Jiao et al.
(2018, Sec. 4.2) put on top of sentence representations, and their targets.

Pair tasks (SICK relatedness, entailment), Wieting et al. Sec. 4.4::

    h_x = h_L * h_R,   h_+ = |h_L - h_R|
    h_s = sigmoid(W_x h_x + W_+ h_+ + b_h)
    p   = softmax(W_p h_s + b_p)

(Jiao et al. print ``h_L (+) h_R`` for ``h_x``; Tai et al. and Wieting et al. use the
element-wise product, which is what this module computes.) For relatedness the prediction
is ``y = r^T p`` with ``r = [1 .. K]``, trained against the sparse target distribution
:func:`~parasent.objectives.supervised.sparse_target` with the KL loss of Eq. 2. Sentence tasks (SST): "a fully-connected
layer with a sigmoid activation followed by a softmax layer".

A head is saved as ``head.json`` (task and shapes) + ``head.safetensors`` (weights).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from parasent.supervised.head_forward import HEAD_CONFIG, HEAD_FORMAT, HEAD_WEIGHTS, NumpyHead, read_head
from parasent.support.path_names import native_path
from parasent.support.staging import ordinary_permissions


def expected_score(log_probs: torch.Tensor) -> torch.Tensor:
    """``r^T p`` with ``r = [1 .. K]``: the predicted relatedness."""
    r = torch.arange(1, log_probs.shape[1] + 1, dtype=log_probs.dtype, device=log_probs.device)
    return log_probs.exp() @ r


class PairClassifier(nn.Module):
    """Two sentence vectors in, log-probabilities over ``classes`` out (Tai et al. 2015)."""

    kind = "pair"

    def __init__(self, input_dim: int, hidden_dim: int, classes: int) -> None:
        super().__init__()
        self.input_dim, self.hidden_dim, self.classes = input_dim, hidden_dim, classes
        self.product = nn.Linear(input_dim, hidden_dim, bias=False)  # W_x
        self.difference = nn.Linear(input_dim, hidden_dim)  # W_+ and b_h
        self.output = nn.Linear(hidden_dim, classes)  # W_p and b_p

    def forward(self, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
        hidden = torch.sigmoid(self.product(left * right) + self.difference((left - right).abs()))
        return F.log_softmax(self.output(hidden), dim=1)


class SentenceClassifier(nn.Module):
    """One sentence vector in: a sigmoid hidden layer, then a softmax over ``classes``.

    ``standardized``: each input dimension is first shifted and scaled by the training texts'
    mean and standard deviation (:meth:`standardize`, buffers saved with the head), as one does
    before a logistic regression. An average's scale shrinks with the text's length, so a head
    on the raw vectors of long documents learns slowly from a small scale (movie reviews, dev
    accuracy 76.5 raw, 84.5 standardised; SST-2 dev 78.9 and 80.2; docs/adapt.md). Only on
    frozen vectors: under a trained encoder the division scales the rows' gradients by the
    inverse spread, and the universal setting on movie reviews fell to chance (dev 48-52)."""

    kind = "sentence"

    def __init__(self, input_dim: int, hidden_dim: int, classes: int, standardized: bool = False) -> None:
        super().__init__()
        self.input_dim, self.hidden_dim, self.classes = input_dim, hidden_dim, classes
        self.standardized = standardized
        if standardized:
            self.register_buffer("shift", torch.zeros(input_dim))
            self.register_buffer("scale", torch.ones(input_dim))
        self.hidden = nn.Linear(input_dim, hidden_dim)
        self.output = nn.Linear(hidden_dim, classes)

    def standardize(self, vectors: np.ndarray) -> None:
        """Take the shift and scale from ``vectors`` (the training texts' vectors, one a row)."""
        if not self.standardized:
            raise ValueError("this head was built without standardization")
        vectors = np.asarray(vectors, dtype=np.float64)
        spread = vectors.std(axis=0)
        self.shift.copy_(torch.from_numpy(vectors.mean(axis=0)))
        self.scale.copy_(torch.from_numpy(np.where(spread > 1e-8, spread, 1.0)))  # a constant dimension: 1

    def forward(self, sentence: torch.Tensor) -> torch.Tensor:
        if self.standardized:
            sentence = (sentence - self.shift) / self.scale
        return F.log_softmax(self.output(torch.sigmoid(self.hidden(sentence))), dim=1)


HEADS: dict[str, type[nn.Module]] = {"pair": PairClassifier, "sentence": SentenceClassifier}


def build_head(
    kind: str, input_dim: int, hidden_dim: int, classes: int, seed: int = 0, standardized: bool = False
) -> nn.Module:
    """A freshly initialised head (torch's default uniform init, drawn from ``seed``);
    ``standardized``: a sentence head that standardizes its input (:class:`SentenceClassifier`)."""
    if kind not in HEADS:
        raise ValueError(f"head kind must be one of {', '.join(HEADS)}, got {kind!r}")
    if input_dim < 1 or hidden_dim < 1 or classes < 2:
        raise ValueError(f"bad head shape: input {input_dim}, hidden {hidden_dim}, classes {classes}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if standardized:
            if kind != "sentence":
                raise ValueError("standardized is a sentence head's option")
            return SentenceClassifier(input_dim, hidden_dim, classes, standardized=True)
        return HEADS[kind](input_dim, hidden_dim, classes)


def head_config(head: nn.Module) -> dict[str, int | str | bool]:
    shape: dict[str, int | str | bool] = {
        "kind": head.kind,
        "input_dim": head.input_dim,
        "hidden_dim": head.hidden_dim,
        "classes": head.classes,
    }
    if getattr(head, "standardized", False):  # only when set: heads saved before it read as they were
        shape["standardized"] = True
    return shape


def save_head(directory: str | Path, head: nn.Module, info: dict[str, Any]) -> None:
    """Write ``head.json`` (shapes + ``info``, e.g. the task) and ``head.safetensors``."""
    from safetensors.torch import save_file

    directory = Path(directory)
    config = {"format": HEAD_FORMAT, "head": head_config(head), **info}
    (directory / HEAD_CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    save_file(
        {k: v.detach().cpu().contiguous() for k, v in head.state_dict().items()},
        native_path(directory / HEAD_WEIGHTS),
    )
    ordinary_permissions(directory / HEAD_WEIGHTS)  # safetensors writes 0600; a model is shared


def load_head(directory: str | Path) -> tuple[nn.Module, dict[str, Any]]:
    """The head saved in ``directory`` as a torch module, and its JSON config (checked as
    :func:`~parasent.supervised.head_forward.read_head` checks them)."""
    numpy_head, config = read_head(directory)
    shape = config["head"]
    head = build_head(
        shape["kind"],
        shape["input_dim"],
        shape["hidden_dim"],
        shape["classes"],
        standardized=shape.get("standardized", False),
    )
    head.load_state_dict(
        {name: torch.from_numpy(w.astype(np.float32)) for name, w in numpy_head.weights.items()}
    )
    head.eval()
    return head, config


def run_head(head: nn.Module, sides: list[np.ndarray], batch_size: int = 4096) -> np.ndarray:
    """Log-probabilities of ``head`` over sentence vectors (numpy in, numpy out, no gradient); a
    head read for prediction (:class:`NumpyHead`) runs in numpy."""
    if isinstance(head, NumpyHead):
        return head(*sides)
    device = next(head.parameters()).device
    was_training = head.training
    head.eval()
    out = []
    try:
        with torch.no_grad():
            for start in range(0, len(sides[0]), batch_size):
                inputs = [
                    torch.from_numpy(np.asarray(s[start : start + batch_size], dtype=np.float32)).to(device)
                    for s in sides
                ]
                out.append(head(*inputs).float().cpu().numpy())
    finally:
        head.train(was_training)
    return np.concatenate(out) if out else np.zeros((0, head.classes), dtype=np.float32)
