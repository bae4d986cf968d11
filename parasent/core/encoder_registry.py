"""The registry of sentence encoders: what the rest of the package knows about each one, as data.

An entry is everything known about an encoder without building it: its class (by name, in
:mod:`parasent.encoders`), what its rows stand for, whether its sentence vector is the mean of
its rows, its default ``lambda_c``, its ``parasent tune`` grid and its ``parasent compare``
column(s). The core reads it to load and encode a model (an averaging one with numpy alone);
training, the experiments and :mod:`parasent.encoders` itself read it from above. It holds no
module of the torch side: the core sits below :mod:`parasent.encoders`, which resolves
``target`` when an encoder is built. Adding an encoder is one new module in
``parasent/encoders/`` plus one entry here (docs/adding-an-encoder.md).
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
class EncoderEntry:
    """``target`` is ``module:Class``, a module of :mod:`parasent.encoders` and its class, by name
    (the core never imports it: :mod:`parasent.encoders` builds the class); ``static`` means the sentence vector is the mean of
    embedding rows, so inference can run in numpy without torch. ``featurizer`` is what the
    embedding rows stand for: ``words`` (initialised from word vectors) or a character
    featurizer of :data:`parasent.text.characters.FEATURIZERS` (rows start random).
    ``lambda_c`` is the default weight of Eq. 1's penalty on the composition parameters: a
    value of the papers' grid for the encoder (Wieting et al. 2016 Sec. 4.2.1, footnote 9;
    Jiao et al. 2018 Sec. 4.1; CHARAGRAM supplement Sec. 2), the one STS 2016 validation
    picked in the architecture comparison (README, "Variant settings").

    ``grid`` adds to or replaces keys of the paper's grid
    (:data:`parasent.experiments.search.PAPER_GRID`) for ``parasent tune``: a training option
    or ``encoder_options.NAME`` and its values; an empty list drops a key that does not apply.
    ``shared_lambda``: one lambda for every parameter (the CHARAGRAM supplement's
    ``lambda ||theta||^2``), so a tuning trial's ``lambda_c`` sets ``lambda_w`` too.
    ``variants`` are the encoder's columns in ``parasent compare``. ``numpy_forward`` names
    the function of :mod:`parasent.core` that runs a non-averaging encoder without torch
    (``composition:contextual_forward``), so the core install loads and encodes it."""

    name: str
    target: str
    static: bool = False
    description: str = ""
    featurizer: str = "words"
    lambda_c: float = 1e-6
    grid: Mapping[str, list[Any]] = field(default_factory=dict)
    shared_lambda: bool = False
    variants: tuple[ComparisonVariant, ...] = ()
    numpy_forward: str = ""  # ``module:function`` of parasent.core: its forward without torch

    @property
    def numpy_inference(self) -> bool:
        """Whether the core encodes with numpy alone: an averaging encoder, or one whose entry
        names its numpy forward (a composition over an averaging model's rows)."""
        return self.static or bool(self.numpy_forward)

    def forward_module(self) -> Any:
        """The module of :mod:`parasent.core` that ``numpy_forward`` names (imported on first use:
        it holds the forward and ``parameter_shapes``)."""
        import importlib

        return importlib.import_module(f"parasent.core.{self.numpy_forward.partition(':')[0]}")

    @property
    def composes_rows(self) -> bool:
        """Whether the encoder composes the rows of a word-averaging model (its table, its
        featurizer) with a few parameters of its own: it starts from such a model
        (``--init-model default --encoder contextual``) and fine-tunes only the rows its text uses."""
        return bool(self.numpy_forward) and self.featurizer == "words"

    @property
    def averages_words(self) -> bool:
        """Whether the sentence vector is the mean of word rows (``static`` over the ``words``
        featurizer): more units may join the average (word bigrams and trigrams, the subword
        pieces of unknown words), and the model can be compacted (:mod:`parasent.core.compaction`).
        A second averaging encoder gets all of these by saying so in its entry."""
        return self.static and self.featurizer == "words"


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

ENCODERS: dict[str, EncoderEntry] = {
    entry.name: entry
    for entry in [
        EncoderEntry(
            "word_averaging",
            "word_averaging:WordAveraging",
            static=True,
            description="PARAGRAM-PHRASE: the mean of word vectors trained for being averaged",
            lambda_c=0.0,  # no composition parameters
            grid={"lambda_c": [], "freeze_words": []},
            variants=(ComparisonVariant("pp", "PP"),),
        ),
        EncoderEntry(
            "projection",
            "projection:Projection",
            description="W_p mean(x) + b",
            lambda_c=1e-4,
            variants=(ComparisonVariant("proj", "proj.", overrides={"lambda_c": 1e-4}),),
        ),
        EncoderEntry(
            "dan",
            "dan:DAN",
            description="deep averaging network, 1-2 layers",
            grid={"encoder_options.layers": [1, 2], "encoder_options.activation": ["tanh", "relu"]},
            variants=(
                ComparisonVariant("dan", "DAN", {"layers": 1, "activation": "tanh"}, {"lambda_c": 1e-6}),
            ),
        ),
        EncoderEntry(
            "rnn",
            "rnn:RNN",
            description="recurrent network, last hidden state",
            grid={"encoder_options.activation": ["tanh", "relu"]},
            variants=(ComparisonVariant("rnn", "RNN", {"activation": "tanh"}, _RECURRENT),),
        ),
        EncoderEntry(
            "identity_rnn",
            "identity_rnn:IdentityRNN",
            description="identity-initialised linear RNN divided by length, pulled back to identity",
            lambda_c=1.0,  # the paper's grid for it is {1000, 100, 10, 1}: "higher regularization"
            grid={"lambda_c": [1000.0, 100.0, 10.0, 1.0]},
            variants=(ComparisonVariant("irnn", "iRNN", overrides={"lambda_c": 1.0}),),
        ),
        EncoderEntry(
            "lstm",
            "lstm:LSTM",
            description="peephole LSTM, with/without output gate",
            grid={"encoder_options.output_gate": [True, False]},
            variants=(
                ComparisonVariant("lstm_no_og", "LSTM (no o.g.)", {"output_gate": False}, _RECURRENT),
                ComparisonVariant("lstm_og", "LSTM (o.g.)", {"output_gate": True}, _RECURRENT),
            ),
        ),
        EncoderEntry(
            "cse",
            "cse:CSE",
            description="convolutional sentence encoder, sum pooling",
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
        EncoderEntry(
            "contextual",
            "contextual:ContextualAveraging",
            description="an averaging model's rows, each moved and weighted by a convolution of its context",
            lambda_c=0.0,
            grid={"encoder_options.hidden": [128, 256], "freeze_words": []},
            numpy_forward="composition:contextual_forward",
            # from the paper's start (GloVe-4k) like every column; it is meant to compose a trained
            # model's rows (docs/which-model.md), so this column is a floor, not its use
            variants=(
                ComparisonVariant("ctx", "contextual", {"hidden": 128}, {"optimizer": "adam", "lr": 1e-3}),
            ),
        ),
        EncoderEntry(
            "charagram",
            "charagram:Charagram",
            description="character n-gram counts times a matrix, plus bias, tanh/linear",
            featurizer="char_ngrams",
            grid={**_CHAR_GRID, "encoder_options.activation": ["tanh", "linear"]},
            shared_lambda=True,
            variants=(ComparisonVariant("charagram", "CHARAGRAM", {"activation": "linear"}, _CHAR),),
        ),
        EncoderEntry(
            "char_cnn",
            "char_cnn:CharCNN",
            description="character CNN",
            featurizer="chars",
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
        EncoderEntry(
            "char_lstm",
            "char_lstm:CharLSTM",
            description="character LSTM",
            featurizer="chars",
            grid={**_CHAR_GRID, "encoder_options.output_gate": [True, False]},
            shared_lambda=True,
            variants=(
                ComparisonVariant("char_lstm", "charLSTM", {"output_gate": True}, {**_CHAR, "lr": 0.0005}),
            ),
        ),
    ]
}


def encoder_entry(name: str) -> EncoderEntry:
    try:
        return ENCODERS[name]
    except KeyError:
        known = ", ".join(sorted(ENCODERS))
        raise KeyError(f"unknown encoder {name!r} (known: {known})") from None


def encoder_names_help() -> str:
    """The registered names, as ``train --help`` lists them (``a, b or c``)."""
    names = list(ENCODERS)
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]


def default_lambda_c_help() -> str:
    """The encoders' default lambda_c, as ``train --help`` shows them."""
    return ", ".join(f"{e.name} {e.lambda_c:g}" for e in ENCODERS.values())


def averages_words(name: str) -> bool:
    """Whether the registered encoder ``name`` averages word rows (False for an unknown name,
    which is reported where the name is checked)."""
    entry = ENCODERS.get(name)
    return entry is not None and entry.averages_words


def composes_rows(name: str) -> bool:
    """Whether the registered encoder ``name`` composes an averaging model's rows (False for an
    unknown name, which is reported where the name is checked)."""
    entry = ENCODERS.get(name)
    return entry is not None and entry.composes_rows


def word_averaging_names() -> str:
    """The encoders that average word rows, as an option's message names them (``a or b``)."""
    return " or ".join(name for name, entry in ENCODERS.items() if entry.averages_words)
