"""Stage 4 of a training run, the *encoder*: a new encoder over the tokenizer's rows, its word
vectors set from the initial vectors (random rows for words without one), or the torch encoder
of a continued model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.encoders import build_encoder
from parasent.encoders.base import Encoder
from parasent.text.word_bigrams import trigram_rows_of
from parasent.text.word_vectors import read_word_vectors, resolve_vectors_path
from parasent.training.features_stage import Features, Start
from parasent.training.initialization import initial_embeddings

if TYPE_CHECKING:
    from parasent.training.batching import BatchSource
    from parasent.training.config import EncoderConfig, TrainConfig


def embedding_dim(options: EncoderConfig, features: Features, start: Start, root: Path) -> int | None:
    """The width of the word vectors: the initial vectors', the option's, the checkpoint's
    (a resumed run that started from vectors), or, for character models, that of the vectors
    the word models use."""
    if features.vectors is not None:
        return features.vectors.dim
    dim = options.dim
    if dim is None and start.checkpoint is not None:
        dim = int(start.checkpoint["objective"]["encoder.embedding.weight"].shape[1])
    if dim is None and options.vectors is not None:
        dim = read_word_vectors(resolve_vectors_path(options.vectors, root)).dim
    return dim


def new_encoder(name: str, options: dict[str, Any], features: Features, dim: int | None) -> Encoder:
    """A new encoder ``name`` (with hyperparameters ``options``) over the rows of ``features``."""
    return build_encoder(
        {"name": name, "vocab_size": features.tokenizer.vocab_size, "embedding_dim": dim, **options}
    )


def initial_matrix(
    features: Features, dim: int | None, seed: int, std: float | None = None
) -> tuple[np.ndarray, int]:
    """The word vectors a new encoder starts from: the initial vectors of ``features``, seeded
    random rows for the other words, zero rows for word n-grams; and how many rows came from the
    initial vectors."""
    matrix, found = initial_embeddings(features.tokenizer, features.vectors, dim, seed, std)
    matrix[features.zero_rows] = 0.0
    return matrix, found


@dataclass(frozen=True)
class TrainingEncoder:
    """Stage 4: the encoder a run trains, and how many of its rows the initial vectors set
    (``None`` when none were: a continued model, a character model)."""

    encoder: Encoder
    initial_rows: int | None = None


def build_training_encoder(
    config: TrainConfig, features: Features, start: Start, *, root: Path
) -> TrainingEncoder:
    """The encoder of ``config.encoder`` over ``features``: a continued model's, or a new one
    with the initial vectors in its embedding."""
    options = config.encoder
    initial = None
    if features.rows is not None:
        encoder = features.rows.encoder()
    elif start.init is not None:
        encoder = start.init.torch_encoder()
    else:
        dim = embedding_dim(options, features, start, root)
        if start.fresh and features.new_word_rows:
            initial = initial_matrix(features, dim, config.seed, options.init_std)
        encoder = new_encoder(options.name, options.options, features, dim)
    encoder.dropout = options.dropout
    if options.freeze_words:
        encoder.embedding.weight.requires_grad_(False)  # W_w is not updated (the paper's grid)
    if initial is None:
        return TrainingEncoder(encoder)
    matrix, initial_rows = initial
    encoder.set_embeddings(matrix)
    return TrainingEncoder(encoder, initial_rows)


def vocabulary_report(
    config: TrainConfig, features: Features, start: Start, built: TrainingEncoder, data: BatchSource
) -> str | None:
    """What the run's rows are and how many the training text uses (``data``, the batch source
    of stage 5), as the run prints it; nothing for a resumed run's own model."""
    options, tokenizer = config.encoder, features.tokenizer
    if built.initial_rows is not None:
        found = built.initial_rows
        covered = len(np.intersect1d(data.vocabulary_rows(), np.arange(2, 2 + found)))
        unit = "sentences" if config.objective.name == "siamese-cbow" else "training pairs"
        grams = len(features.zero_rows)
        trigrams = len(trigram_rows_of(tokenizer))
        return (
            f"vocabulary: {tokenizer.vocab_size} entries: [PAD], [UNK], {found} from initial vectors, "
            f"{tokenizer.vocab_size - 2 - found - grams} new training words (min count {config.data.min_count})"
            + (f", {grams - trigrams} word bigrams" if grams - trigrams else "")
            + (f", {trigrams} word trigrams" if trigrams else "")
            + (" (rows from zero)" if grams else "")
            + f"; {covered} pretrained words occur in the {len(data)} {unit}"
        )
    if start.fresh:
        return (
            f"vocabulary: {tokenizer.vocab_size} character features ({features.featurizer}, "
            f"cap {config.data.max_ngrams})"
        )
    if features.rows is not None and options.freeze_words:
        return (
            f"continuing {options.init_model}: {start.init.encoder_config['name']}, its rows kept as they are "
            f"(--freeze-words: only the composition trains); its training text uses {len(features.rows) - 1} "
            f"of the {start.init.tokenizer.vocab_size} tokens"
        )
    if features.rows is not None:
        return (
            f"continuing {options.init_model}: {start.init.encoder_config['name']}, training the "
            f"{len(features.rows) - 1} rows of the {start.init.tokenizer.vocab_size} tokens that its "
            "training text uses, each its own row (no new words)"
        )
    if start.init is None:
        return None
    return (
        f"continuing {options.init_model}: {start.init.encoder_config['name']}, vocabulary "
        f"{tokenizer.vocab_size} (no new words); {len(data.vocabulary_rows())} occur in the training data"
    )
