"""Stage 3 of a training run (after the training text and the teacher side), the *featurizer
and initial vectors*: the tokenizer (words or character n-grams) and the word vectors its rows
start from.

Initial vectors come from a provider: a vectors file (GloVe/word2vec text), the teacher
(:meth:`parasent.distillation.provider.TeacherSide.initial_vectors`, ``vectors="distilled"``),
or none (random rows). A resumed run takes its tokenizer from the checkpoint, a continued
model (``init_model``) its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.distillation.provider import DISTILLED, TeacherSide
from parasent.encoders import encoder_entry
from parasent.support.lines import ReadReport
from parasent.text.characters import FEATURIZERS, CharNgramTokenizer
from parasent.text.featurizers import tokenizer_from_string
from parasent.text.tokenizer import WordTokenizer
from parasent.text.vocab import build_vocabulary, count_words
from parasent.text.word_bigrams import WordBigramTokenizer, gram_rows_of
from parasent.text.word_vectors import WordVectors, read_word_vectors, resolve_vectors_path
from parasent.training.row_subset import RowSubset
from parasent.training.text_stage import TrainingText

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel
    from parasent.text.featurizers import Featurizer
    from parasent.training.config import TrainConfig


@dataclass
class Start:
    """What a run continues besides initial vectors: the checkpoint of an interrupted run
    (``--resume``), or a trained model (``init_model``: fine-tuning, cumulative training)."""

    checkpoint: dict[str, Any] | None = None
    init: SentenceModel | None = None

    @property
    def fresh(self) -> bool:
        """Neither: a new vocabulary and new weights."""
        return self.checkpoint is None and self.init is None


@dataclass(frozen=True)
class Features:
    """The tokenizer of a run, its featurizer (``words`` or a character featurizer), and the
    initial word vectors (a fresh word model only)."""

    tokenizer: Featurizer
    featurizer: str
    vectors: WordVectors | None = None
    rows: RowSubset | None = None  # a continued averaging model: the rows its training text uses
    # Rows that start at zero: the word bigrams and trigrams (a fresh model starts as its words'
    # average); found once, with the tokenizer, for the encoder stage and the run's report.
    zero_rows: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "zero_rows", gram_rows_of(self.tokenizer))

    @property
    def new_word_rows(self) -> bool:
        return self.featurizer == "words"


def load_init_model(
    path: str, encoder_name: str, options: dict[str, Any] | None = None, seed: int = 0
) -> SentenceModel:
    """The model a cumulative run continues; its encoder must be the one asked for, or one
    that composes its rows (``--init-model default --encoder contextual``: the averaging model
    with new composition weights that start as its average, :func:`compose_rows`)."""
    from parasent.core.model import load

    model = load(path)
    held = model.encoder_config["name"]
    if (
        held != encoder_name
        and encoder_entry(encoder_name).composes_rows
        and encoder_entry(held).averages_words
    ):
        return compose_rows(model, encoder_name, options or {}, seed)
    if held != encoder_name:
        raise ValueError(f"--init-model {path} holds a {held!r} model; pass --encoder {held}")
    _check_options_held(path, model.encoder_config, options or {})
    return model


def _check_options_held(path: str, held: dict[str, Any], options: dict[str, Any]) -> None:
    """A continued model keeps its own encoder: an ``--encoder-option`` that differs from what
    it holds is refused (it was dropped without a word: ``attention=32`` on a contextual model)."""
    import inspect

    from parasent.encoders import encoder_class

    defaults = inspect.signature(encoder_class(held["name"]).__init__).parameters
    for key, value in options.items():
        has = held.get(key, defaults[key].default if key in defaults else None)
        if has != value:
            raise ValueError(
                f"--encoder-option {key}={value}: --init-model {path} holds {key}={has}, and a "
                "continued model keeps its own encoder settings"
            )


def compose_rows(
    model: SentenceModel, encoder_name: str, options: dict[str, Any], seed: int
) -> SentenceModel:
    """The averaging ``model`` under the encoder ``encoder_name`` (hyperparameters ``options``):
    its tokenizer and table as they are (int8 and shared rows kept), and the new encoder's
    composition weights drawn with ``seed``, which start it at the averaging model's vectors."""
    import torch

    from parasent.core.stored_weights import EMBEDDING_KEY
    from parasent.encoders import build_encoder

    table = model.weights[EMBEDDING_KEY]
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        fresh = build_encoder(
            {"name": encoder_name, "vocab_size": 2, "embedding_dim": table.shape[1], **options}
        )
    composition = fresh.composition_weights()
    config = {**fresh.config(), "vocab_size": model.encoder_config["vocab_size"]}
    composed = type(model)(
        model.tokenizer, config, {**composition, EMBEDDING_KEY: table}, metadata=model.metadata
    )
    composed.path = model.path
    return composed


def plain_vectors(vectors: str, root: Path, *, lenient: bool, say: Callable[[str], None]) -> WordVectors:
    """The initial vectors of a vectors file; ``lenient`` skips (and reports) malformed lines."""
    report = ReadReport()
    loaded = read_word_vectors(resolve_vectors_path(vectors, root), lenient=lenient, report=report)
    for line in report.notes + ([report.summary()] if report.skipped else []):
        say(line)
    return loaded


def initial_vectors(
    config: TrainConfig,
    root: Path,
    text: TrainingText,
    teacher: TeacherSide,
    *,
    lenient: bool = False,
    say: Callable[[str], None] = print,
) -> WordVectors | None:
    """The initial word vectors of ``config.encoder.vectors``: distilled from the teacher (its
    ``teacher`` section; with the pieces of ``data.unknown``), read from a file, or None (random
    initialisation)."""
    vectors = config.encoder.vectors
    if vectors == DISTILLED:
        pieces = config.data.unknown == "pieces"
        return teacher.initial_vectors(config.teacher, root, text.pairs, pieces=pieces, say=say)
    if vectors is not None:
        return plain_vectors(vectors, root, lenient=lenient, say=say)
    return None


def build_features(
    config: TrainConfig,
    text: TrainingText,
    start: Start,
    vectors: Callable[[], WordVectors | None],
    unlabelled: Sequence[str] = (),
) -> Features:
    """The tokenizer: the continued averaging model's over the rows its training text uses
    (:class:`RowSubset`), the checkpoint's, the continued model's, character n-grams of the
    training text, or the words of the initial vectors (``vectors()``, called only then) plus
    the training words seen ``min_count`` times, and with ``word_bigrams`` (``word_trigrams``)
    the most frequent bigrams (trigrams) of the training text and the ``unlabelled`` (teacher)
    sentences."""
    data = config.data
    featurizer = encoder_entry(config.encoder.name).featurizer
    if start.init is not None and encoder_entry(config.encoder.name).numpy_inference:
        rows = RowSubset(start.init, itertools.chain(text.sentences(), unlabelled))
        return Features(rows.featurizer(), featurizer, rows=rows)
    if start.checkpoint is not None:
        checkpoint = start.checkpoint
        return Features(
            tokenizer_from_string(checkpoint["tokenizer"], checkpoint["tokenizer_config"]), featurizer
        )
    if start.init is not None:
        return Features(start.init.tokenizer, featurizer)
    if featurizer != "words":
        tokenizer = CharNgramTokenizer.from_texts(
            text.sentences(), **FEATURIZERS[featurizer], max_size=data.max_ngrams, min_count=data.min_count
        )
        return Features(tokenizer, featurizer)
    if text.prepared is not None:  # its vocabulary was built by `parasent prepare`
        from parasent.training.prepared import PreparedPairs

        return Features(PreparedPairs(text.prepared).tokenizer(), "words", vectors())
    features = word_features(
        vectors(),
        text.sentences(),
        min_count=data.min_count,
        unknown=data.unknown,
        grow=config.encoder.vocabulary == "grow",
    )
    if data.word_bigrams or data.word_trigrams:
        tokenizer = WordBigramTokenizer.from_texts(
            features.tokenizer,
            itertools.chain(text.sentences(), unlabelled),
            max_bigrams=data.word_bigrams,
            max_trigrams=data.word_trigrams or 0,
        )
        features = replace(features, tokenizer=tokenizer)
    return features


def word_features(
    vectors: WordVectors | None,
    texts: Iterable[str],
    *,
    min_count: int = 1,
    unknown: str = "vector",
    grow: bool = True,
) -> Features:
    """A word tokenizer over the words of ``vectors`` plus the words of ``texts`` seen
    ``min_count`` times (the others map to [UNK], or are skipped: ``unknown``). Without
    ``grow``, the paper's vocabulary: the words of ``vectors`` only (plus [UNK])."""
    counts = count_words(texts)
    limit = 0 if not grow and vectors is not None else None
    vocabulary = build_vocabulary(
        vectors.words if vectors else [], counts, min_count=min_count, max_new_words=limit
    )
    return Features(WordTokenizer.from_vocabulary(vocabulary, unknown=unknown), "words", vectors)
