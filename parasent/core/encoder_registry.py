"""The registry of sentence encoders: what the model knows about each one, as data.

An entry is what loading, encoding and training know of an encoder without building it: its
class (by name, in :mod:`parasent.encoders`), what its rows stand for, whether its sentence
vector is the mean of its rows, its default ``lambda_c``, and the numpy forward of one that
composes rows. The core reads it to load and encode a model (an averaging one with numpy
alone); training and :mod:`parasent.encoders` itself read it from above. What ``parasent tune``
and ``parasent compare`` use of an encoder (its grid, its columns) is the experiments' own
(:mod:`parasent.experiments.encoder_settings`). It holds no module of the torch side: the core
sits below :mod:`parasent.encoders`, which resolves ``target`` when an encoder is built. Adding
an encoder is one new module in ``parasent/encoders/`` plus one entry here, and its record in
the experiments' settings for a grid of its own or a column in the comparison
(docs/adding-an-encoder.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
    picked in the architecture comparison (README, "Variant settings"). ``numpy_forward`` names
    the function of :mod:`parasent.core` that runs a non-averaging encoder without torch
    (``composition:contextual_forward``), so the core install loads and encodes it."""

    name: str
    target: str
    static: bool = False
    description: str = ""
    featurizer: str = "words"
    lambda_c: float = 1e-6
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


ENCODERS: dict[str, EncoderEntry] = {
    entry.name: entry
    for entry in [
        EncoderEntry(
            "word_averaging",
            "word_averaging:WordAveraging",
            static=True,
            description="PARAGRAM-PHRASE: the mean of word vectors trained for being averaged",
            lambda_c=0.0,  # no composition parameters
        ),
        EncoderEntry(
            "projection",
            "projection:Projection",
            description="W_p mean(x) + b",
            lambda_c=1e-4,
        ),
        EncoderEntry(
            "dan",
            "dan:DAN",
            description="deep averaging network, 1-2 layers",
        ),
        EncoderEntry(
            "rnn",
            "rnn:RNN",
            description="recurrent network, last hidden state",
        ),
        EncoderEntry(
            "identity_rnn",
            "identity_rnn:IdentityRNN",
            description="identity-initialised linear RNN divided by length, pulled back to identity",
            lambda_c=1.0,  # the paper's grid for it is {1000, 100, 10, 1}: "higher regularization"
        ),
        EncoderEntry(
            "lstm",
            "lstm:LSTM",
            description="peephole LSTM, with/without output gate",
        ),
        EncoderEntry(
            "cse",
            "cse:CSE",
            description="convolutional sentence encoder, sum pooling",
        ),
        EncoderEntry(
            "contextual",
            "contextual:ContextualAveraging",
            description="an averaging model's rows, each moved and weighted by a convolution of its context",
            lambda_c=0.0,
            numpy_forward="composition:contextual_forward",
        ),
        EncoderEntry(
            "charagram",
            "charagram:Charagram",
            description="character n-gram counts times a matrix, plus bias, tanh/linear",
            featurizer="char_ngrams",
        ),
        EncoderEntry(
            "char_cnn",
            "char_cnn:CharCNN",
            description="character CNN",
            featurizer="chars",
        ),
        EncoderEntry(
            "char_lstm",
            "char_lstm:CharLSTM",
            description="character LSTM",
            featurizer="chars",
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


def is_static_model(model: Any) -> bool:
    """Whether a model's vector is a mean of its rows alone (not the contextual tier's, whose
    composition has weights of its own): what a static-embedding format can hold."""
    return encoder_entry(model.encoder_config["name"]).static


def word_averaging_names() -> str:
    """The encoders that average word rows, as an option's message names them (``a or b``)."""
    return " or ".join(name for name, entry in ENCODERS.items() if entry.averages_words)
