"""Sentence encoders behind one interface, and their registry.

The registry is metadata only, so that ``import parasent`` and numpy inference never import
torch. Adding an encoder is one new module plus one line here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from parasent.encoders.base import Encoder


@dataclass(frozen=True)
class EncoderEntry:
    """``target`` is ``module:Class``; ``static`` means the sentence vector is the mean of
    embedding rows, so inference can run in numpy without torch. ``featurizer`` is what the
    embedding rows stand for: ``words`` (initialised from word vectors) or a character
    featurizer of :data:`parasent.text.characters.FEATURIZERS` (rows start random).
    ``lambda_c`` is the default weight of Eq. 1's penalty on the composition parameters: a
    value of the papers' grid for the encoder (Wieting et al. 2016 Sec. 4.2.1, footnote 9;
    Jiao et al. 2018 Sec. 4.1; CHARAGRAM supplement Sec. 2), the one STS 2016 validation
    picked in the architecture comparison (README, "Variant settings")."""

    name: str
    target: str
    static: bool = False
    description: str = ""
    featurizer: str = "words"
    lambda_c: float = 1e-6


ENCODERS: dict[str, EncoderEntry] = {
    entry.name: entry
    for entry in [
        EncoderEntry(
            "word_averaging",
            "parasent.encoders.word_averaging:WordAveraging",
            static=True,
            description="PARAGRAM-PHRASE: the mean of word vectors trained for being averaged",
            lambda_c=0.0,  # no composition parameters
        ),
        EncoderEntry(
            "projection",
            "parasent.encoders.projection:Projection",
            description="W_p mean(x) + b",
            lambda_c=1e-4,
        ),
        EncoderEntry("dan", "parasent.encoders.dan:DAN", description="deep averaging network, 1-2 layers"),
        EncoderEntry("rnn", "parasent.encoders.rnn:RNN", description="recurrent network, last hidden state"),
        EncoderEntry(
            "identity_rnn",
            "parasent.encoders.identity_rnn:IdentityRNN",
            description="identity-initialised linear RNN divided by length, pulled back to identity",
            lambda_c=1.0,  # the paper's grid for it is {1000, 100, 10, 1}: "higher regularization"
        ),
        EncoderEntry(
            "lstm", "parasent.encoders.lstm:LSTM", description="peephole LSTM, with/without output gate"
        ),
        EncoderEntry(
            "cse", "parasent.encoders.cse:CSE", description="convolutional sentence encoder, sum pooling"
        ),
        EncoderEntry(
            "charagram",
            "parasent.encoders.charagram:Charagram",
            description="character n-gram counts times a matrix, plus bias, tanh/linear",
            featurizer="char_ngrams",
        ),
        EncoderEntry(
            "char_cnn", "parasent.encoders.char_cnn:CharCNN", description="character CNN", featurizer="chars"
        ),
        EncoderEntry(
            "char_lstm",
            "parasent.encoders.char_lstm:CharLSTM",
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


def default_lambda_c_help() -> str:
    """The encoders' default lambda_c, as ``train --help`` shows them."""
    return ", ".join(f"{e.name} {e.lambda_c:g}" for e in ENCODERS.values())


def encoder_class(name: str) -> type[Encoder]:
    module_name, _, class_name = encoder_entry(name).target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def build_encoder(config: dict[str, Any]) -> Encoder:
    """Instantiate from a config as written by :meth:`Encoder.config`."""
    config = dict(config)
    name = config.pop("name")
    return encoder_class(name)(**config)
