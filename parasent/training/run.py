"""Training PARAGRAM-PHRASE-style models end to end: pool, vocabulary, encoder, objective, loop."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

from parasent.data.lines import ReadReport
from parasent.data.pools import PoolReport, build_pool
from parasent.data.vectors import WordVectors, read_word_vectors
from parasent.encoders import build_encoder
from parasent.errors import CheckpointError, DataNotFoundError
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.objectives.margin import MarginLoss
from parasent.paths import resolve_data_dir
from parasent.text.tokenizer import WordTokenizer
from parasent.text.vocab import build_vocabulary, count_words
from parasent.training.checkpoint import load_checkpoint
from parasent.training.config import TrainConfig
from parasent.training.initialization import initial_embeddings
from parasent.training.optim import build_optimizer
from parasent.training.pairs import PairData
from parasent.training.trainer import CHECKPOINT_FILE, Trainer, TrainState


@dataclass
class TrainResult:
    state: TrainState
    model_path: Path
    pool: PoolReport


def resolve_vectors_path(vectors: str, data_dir: Path) -> Path:
    path = Path(vectors).expanduser()
    if path.is_file():
        return path
    if (data_dir / vectors).is_file():
        return data_dir / vectors
    raise DataNotFoundError(
        f"initial vectors {vectors!r}: not a file, nor under the data directory {data_dir}"
    )


def subsample(pairs: list, limit: int | None, seed: int) -> list:
    if limit is None or limit >= len(pairs):
        return pairs
    keep = np.sort(np.random.default_rng([seed, 7]).choice(len(pairs), size=limit, replace=False))
    return [pairs[i] for i in keep]


def train(
    config: TrainConfig,
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    resume: bool = False,
    progress: bool = True,
    lenient: bool = False,
    say: Callable[[str], None] = print,
) -> TrainResult:
    """Train a model per ``config`` into the run directory ``out_dir`` (best model in ``out_dir/model``).

    ``lenient`` skips (and reports) malformed lines in the user's pair files and vectors file.
    """
    out_dir = Path(out_dir)
    root = resolve_data_dir(data_dir)
    checkpoint = None
    if resume:
        checkpoint = load_checkpoint(out_dir / CHECKPOINT_FILE)
        saved = TrainConfig.from_dict(checkpoint["config"])
        changed = config.resume_compatible(saved)
        if changed:
            raise CheckpointError(
                f"{out_dir / CHECKPOINT_FILE}: --resume with different option(s) {', '.join(changed)}; "
                "resume with the original options (only --epochs may grow)"
            )
    torch.manual_seed(config.seed)
    random.seed(config.seed)

    pairs, report = build_pool(
        root, config.pool, files=[(p, f) for p, f in config.pair_files], lenient=lenient
    )
    say(report.summary())
    pairs = subsample(pairs, config.max_pairs, config.seed)
    if not pairs:
        raise DataNotFoundError("no training pairs left after filtering; check --pool / --pairs")

    vectors: WordVectors | None = None
    if checkpoint is not None:
        tokenizer = WordTokenizer(
            Tokenizer.from_str(checkpoint["tokenizer"]), unknown=checkpoint["tokenizer_config"]["unknown"]
        )
    else:
        if config.vectors is not None:
            read_report = ReadReport()
            vectors = read_word_vectors(
                resolve_vectors_path(config.vectors, root), lenient=lenient, report=read_report
            )
            for line in read_report.notes + ([read_report.summary()] if read_report.skipped else []):
                say(line)
        counts = count_words(s for pair in pairs for s in (pair.s1, pair.s2))
        vocabulary = build_vocabulary(vectors.words if vectors else [], counts, min_count=config.min_count)
        tokenizer = WordTokenizer.from_vocabulary(vocabulary, unknown=config.unknown)

    data = PairData.from_pairs(pairs, tokenizer)
    dim = vectors.dim if vectors is not None else (config.dim or checkpoint["config"].get("dim"))
    if dim is None:  # resuming a run that started from vectors: the checkpoint knows the shape
        dim = int(checkpoint["objective"]["encoder.embedding.weight"].shape[1])
    encoder = build_encoder(
        {
            "name": config.encoder,
            "vocab_size": tokenizer.vocab_size,
            "embedding_dim": dim,
            **config.encoder_options,
        }
    )
    if checkpoint is None:
        matrix, found = initial_embeddings(tokenizer, vectors, dim, config.seed)
        encoder.set_embeddings(matrix)
        covered = len(np.intersect1d(data.vocabulary_rows(), np.arange(2, 2 + found)))
        say(
            f"vocabulary: {tokenizer.vocab_size} entries, {found} from initial vectors, "
            f"{tokenizer.vocab_size - 2 - found} new training words (min count {config.min_count}); "
            f"{covered} pretrained words occur in the {len(data)} training pairs"
        )
    objective = MarginLoss(
        encoder,
        delta=config.delta,
        negatives=config.negatives,
        lambda_w=config.lambda_w,
        lambda_c=config.lambda_c,
        initial_embeddings=encoder.embedding.weight.detach().clone(),
    )
    optimizer = build_optimizer(encoder, config.optimizer, config.lr)
    validator = SimilarityEvaluator(config.validation, root) if config.validation else None
    trainer = Trainer(
        objective=objective,
        optimizer=optimizer,
        data=data,
        config=config,
        out_dir=out_dir,
        tokenizer=tokenizer,
        validator=validator,
        metadata={"pool": report.to_dict(), "training_pairs": len(data)},
        progress=progress,
    )
    state = trainer.fit(resume=resume)
    return TrainResult(state, trainer.model_path, report)
