"""The encoders the papers compare, as the columns of the comparison table.

Each variant is an encoder with its hyperparameters and the training options that differ
from the base run's, chosen with ``parasent tune`` on STS 2016 validation from the grids
of the papers (Wieting et al. 2016 Sec. 4.2.1; Jiao et al. 2018 Sec. 4.1; CHARAGRAM
supplement Sec. 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Variant:
    key: str  # command-line name
    label: str  # column header, as in the papers' tables
    encoder: str
    options: dict[str, Any] = field(default_factory=dict)  # encoder hyperparameters
    overrides: dict[str, Any] = field(default_factory=dict)  # training options


# Settings chosen by ``scripts/tune_variants.sh`` (1 epoch, STS 2016 validation; docs/paper-encoders-comparison.md
# lists each grid and its winner). Every variant keeps the shipped PARAGRAM-PHRASE delta 0.6,
# lambda_w 1e-8, batch 100 and MAX negatives, so all train on the same batches for the same
# number of steps; character models use one lambda for all their parameters.
_RECURRENT = {"lambda_c": 1e-6, "optimizer": "adagrad", "lr": 0.0005}
_CHAR = {"lambda_c": 1e-6, "lambda_w": 1e-6}
VARIANTS: list[Variant] = [
    Variant("pp", "PP", "word_averaging"),
    Variant("proj", "proj.", "projection", overrides={"lambda_c": 1e-4}),
    Variant("dan", "DAN", "dan", {"layers": 1, "activation": "tanh"}, {"lambda_c": 1e-6}),
    Variant("rnn", "RNN", "rnn", {"activation": "tanh"}, _RECURRENT),
    Variant("irnn", "iRNN", "identity_rnn", overrides={"lambda_c": 1.0}),
    Variant("lstm_no_og", "LSTM (no o.g.)", "lstm", {"output_gate": False}, _RECURRENT),
    Variant("lstm_og", "LSTM (o.g.)", "lstm", {"output_gate": True}, _RECURRENT),
    Variant("cse", "CSE", "cse", {"activation": "linear"}, {"lambda_c": 1e-6, "optimizer": "adam"}),
    Variant("charagram", "CHARAGRAM", "charagram", {"activation": "linear"}, _CHAR),
    Variant(
        "char_cnn", "charCNN", "char_cnn", {"filter_activation": "relu", "output_activation": "linear"}, _CHAR
    ),
    Variant("char_lstm", "charLSTM", "char_lstm", {"output_gate": True}, {**_CHAR, "lr": 0.0005}),
]
VARIANTS_BY_KEY = {v.key: v for v in VARIANTS}


def select_variants(keys: list[str] | None) -> list[Variant]:
    if not keys:
        return list(VARIANTS)
    unknown = [k for k in keys if k not in VARIANTS_BY_KEY]
    if unknown:
        raise KeyError(f"unknown variant(s) {', '.join(unknown)} (known: {', '.join(VARIANTS_BY_KEY)})")
    return [VARIANTS_BY_KEY[k] for k in keys]
