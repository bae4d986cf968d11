"""What ``parasent tune`` and ``parasent compare`` use of each encoder: its additions to the
paper's grid, whether its parameters share one lambda, and its columns in the comparison.

These settings belong to the experiments, not to the model: the core's registry
(:mod:`parasent.core.encoder_registry`) holds what loading, encoding and training need of an
encoder, and the experiments alone read what is here (:mod:`parasent.experiments.search`,
:mod:`parasent.experiments.variants`). An encoder with no record here is tuned on the paper's
grid as it stands and has no column in ``parasent compare``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ComparisonVariant:
    """A column of the architecture comparison (``parasent compare``): the encoder with these
    hyperparameters and training options. ``key`` names it on the command line and in the
    run keys of the comparison's log (``KEY/seed-N``), so finished runs are found again."""

    key: str
    label: str  # column header, as in the papers' tables
    options: Mapping[str, Any] = field(default_factory=dict)  # encoder hyperparameters
    overrides: Mapping[str, Any] = field(default_factory=dict)  # training options


@dataclass(frozen=True)
class EncoderSettings:
    """The experiments' settings of the registered encoder ``encoder``.

    ``grid`` adds to or replaces keys of the paper's grid
    (:data:`parasent.experiments.search.PAPER_GRID`) for ``parasent tune``: a training option
    or ``encoder_options.NAME`` and its values; an empty list drops a key that does not apply.
    ``shared_lambda``: one lambda for every parameter (the CHARAGRAM supplement's
    ``lambda ||theta||^2``), so a tuning trial's ``lambda_c`` sets ``lambda_w`` too.
    ``variants`` are the encoder's columns in ``parasent compare``."""

    encoder: str
    grid: Mapping[str, list[Any]] = field(default_factory=dict)
    shared_lambda: bool = False
    variants: tuple[ComparisonVariant, ...] = ()


# CHARAGRAM supplement, Sec. 2: batch 25 or 50, delta 0.4, lambda in {1e-4, 1e-5, 1e-6}.
_CHAR_GRID: dict[str, list[Any]] = {
    "batch_size": [25, 50],
    "delta": [0.4],
    "lambda_c": [1e-4, 1e-5, 1e-6],
    "lambda_w": [],
    "freeze_words": [],
    "clip": [],
}
# The variants' settings were chosen by ``scripts/tune_variants.sh`` (1 epoch, STS 2016
# validation; docs/paper-encoders-comparison.md lists each grid and its winner). Every variant
# keeps the shipped PARAGRAM-PHRASE delta 0.6, lambda_w 1e-8, batch 100 and MAX negatives, so
# all train on the same batches for the same number of steps; character models use one lambda
# for all their parameters.
_RECURRENT = {"lambda_c": 1e-6, "optimizer": "adagrad", "lr": 0.0005}
_CHAR = {"lambda_c": 1e-6, "lambda_w": 1e-6}

#: By encoder name, in the registry's order (the comparison's columns follow it).
SETTINGS: dict[str, EncoderSettings] = {
    settings.encoder: settings
    for settings in [
        EncoderSettings(
            "word_averaging",
            grid={"lambda_c": [], "freeze_words": []},
            variants=(ComparisonVariant("pp", "PP"),),
        ),
        EncoderSettings(
            "projection",
            variants=(ComparisonVariant("proj", "proj.", overrides={"lambda_c": 1e-4}),),
        ),
        EncoderSettings(
            "dan",
            grid={"encoder_options.layers": [1, 2], "encoder_options.activation": ["tanh", "relu"]},
            variants=(
                ComparisonVariant("dan", "DAN", {"layers": 1, "activation": "tanh"}, {"lambda_c": 1e-6}),
            ),
        ),
        EncoderSettings(
            "rnn",
            grid={"encoder_options.activation": ["tanh", "relu"]},
            variants=(ComparisonVariant("rnn", "RNN", {"activation": "tanh"}, _RECURRENT),),
        ),
        EncoderSettings(
            "identity_rnn",
            grid={"lambda_c": [1000.0, 100.0, 10.0, 1.0]},  # the paper's "higher regularization"
            variants=(ComparisonVariant("irnn", "iRNN", overrides={"lambda_c": 1.0}),),
        ),
        EncoderSettings(
            "lstm",
            grid={"encoder_options.output_gate": [True, False]},
            variants=(
                ComparisonVariant("lstm_no_og", "LSTM (no o.g.)", {"output_gate": False}, _RECURRENT),
                ComparisonVariant("lstm_og", "LSTM (o.g.)", {"output_gate": True}, _RECURRENT),
            ),
        ),
        EncoderSettings(
            "cse",
            grid={  # Jiao et al. fix Adam at 0.001 and tune delta, lambda_w, lambda_c and the batch size
                "optimizer": ["adam"],
                "lr": [0.001],
                "lambda_w": [1e-4, 1e-5, 1e-6],
                "lambda_c": [1e-5, 1e-6, 1e-7, 0.0],
                "batch_size": [32, 64, 128, 256],
                "encoder_options.activation": ["linear", "tanh"],
                "freeze_words": [],
                "clip": [],
            },
            variants=(
                ComparisonVariant(
                    "cse", "CSE", {"activation": "linear"}, {"lambda_c": 1e-6, "optimizer": "adam"}
                ),
            ),
        ),
        EncoderSettings(
            "contextual",
            grid={"encoder_options.hidden": [128, 256], "freeze_words": []},
            # from the paper's start (GloVe-4k) like every column; it is meant to compose a trained
            # model's rows (docs/which-model.md), so this column is a floor, not its use
            variants=(
                ComparisonVariant("ctx", "contextual", {"hidden": 128}, {"optimizer": "adam", "lr": 1e-3}),
            ),
        ),
        EncoderSettings(
            "charagram",
            grid={**_CHAR_GRID, "encoder_options.activation": ["tanh", "linear"]},
            shared_lambda=True,
            variants=(ComparisonVariant("charagram", "CHARAGRAM", {"activation": "linear"}, _CHAR),),
        ),
        EncoderSettings(
            "char_cnn",
            grid={
                **_CHAR_GRID,
                "encoder_options.filter_activation": ["relu", "tanh"],
                "encoder_options.output_activation": ["tanh", "linear"],
            },
            shared_lambda=True,
            variants=(
                ComparisonVariant(
                    "char_cnn", "charCNN", {"filter_activation": "relu", "output_activation": "linear"}, _CHAR
                ),
            ),
        ),
        EncoderSettings(
            "char_lstm",
            grid={**_CHAR_GRID, "encoder_options.output_gate": [True, False]},
            shared_lambda=True,
            variants=(
                ComparisonVariant("char_lstm", "charLSTM", {"output_gate": True}, {**_CHAR, "lr": 0.0005}),
            ),
        ),
    ]
}


def settings_of(encoder: str) -> EncoderSettings:
    """The settings of ``encoder``: its record, or none (the paper's grid, no column)."""
    return SETTINGS.get(encoder) or EncoderSettings(encoder)
