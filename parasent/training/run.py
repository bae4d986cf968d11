"""Training any encoder end to end: data, vocabulary (words or characters), encoder, objective, loop.

The margin objective (PARAGRAM-PHRASE and the other encoders) reads paraphrase pairs: a pool,
files, scored pairs above ``min_score`` and synthetic pairs; the Siamese CBOW objective reads
running text.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from parasent.data.corpus import CorpusReport, iter_sentences, read_corpus
from parasent.data.lines import ReadReport
from parasent.data.pools import PoolReport, build_pool, evaluation_sentences, filter_pairs
from parasent.data.vectors import WordVectors, read_word_vectors
from parasent.encoders import build_encoder, encoder_entry
from parasent.encoders.base import Encoder
from parasent.errors import DataNotFoundError
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.objectives.margin import MarginLoss
from parasent.objectives.siamese_cbow import SiameseCBOWLoss
from parasent.paths import resolve_data_dir
from parasent.text.characters import FEATURIZERS, CharNgramTokenizer
from parasent.text.featurizers import tokenizer_from_string
from parasent.text.tokenizer import WordTokenizer
from parasent.text.vocab import build_vocabulary, count_words
from parasent.training import distributed
from parasent.training.checkpoint import load_resumable_checkpoint
from parasent.training.config import TrainConfig
from parasent.training.distilled import DISTILLED, TeacherSide
from parasent.training.documents import DocumentData
from parasent.training.initialization import initial_embeddings
from parasent.training.megabatch import MegabatchData
from parasent.training.optim import build_optimizer
from parasent.training.pairs import PairData
from parasent.training.prepared import PreparedPairs, prepared_summary
from parasent.training.trainer import CHECKPOINT_FILE, Trainer, TrainState

if TYPE_CHECKING:
    from parasent.model import SentenceModel


@dataclass
class TrainResult:
    state: TrainState
    model_path: Path
    pool: PoolReport | None
    corpus: CorpusReport | None = None
    encoder: Encoder | None = None  # as trained (the last epoch; model_path holds the best)
    tokenizer: Any = None


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


def add_synthetic_pairs(
    config: TrainConfig, root: Path, pairs: list, report: PoolReport, say: Callable[[str], None]
) -> list:
    """Pairs of ``config.synthetic`` for the sentences of ``config.synthetic_for``: the training
    pairs (``train``; leakage filtered as usual), or a suite, whose sentences are evaluation
    sentences (the transductive setting of Hokamp & Arora 2016, Sec. 3.2: not leakage filtered)."""
    from parasent.evaluation.datasets import suite_datasets
    from parasent.paraphrase import build_generator, synthetic_pairs

    generator = build_generator(config.synthetic, root, seed=config.seed)
    if config.synthetic_for == "train":
        made = synthetic_pairs(generator, (s for p in pairs for s in (p.s1, p.s2)), label="train")
        made, extra = filter_pairs(made, evaluation_sentences(root))
        leaked = extra.total_leaked
    else:
        sentences = [
            s for spec in suite_datasets(config.synthetic_for) for p in spec.load(root) for s in (p.s1, p.s2)
        ]
        made = synthetic_pairs(generator, sentences, label=config.synthetic_for)
        leaked = 0
    source = made[0].source if made else f"synthetic:{generator.name}"
    report.read[source] += len(made) + leaked
    report.leaked[source] += leaked
    report.kept[source] += len(made)
    transductive = config.synthetic_for != "train"
    say(
        f"synthetic: {len(made)} pair(s) from generator {generator.name!r} for the sentences of "
        f"{config.synthetic_for!r}"
        + (" (TRANSDUCTIVE: they contain evaluation sentences, by design)" if transductive else "")
    )
    return pairs + made


def build_trainer(
    config: TrainConfig,
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    resume: bool = False,
    progress: bool = True,
    lenient: bool = False,
    say: Callable[[str], None] = print,
) -> tuple[Trainer, PoolReport | None, CorpusReport | None]:
    """Data, vocabulary, encoder, objective and optimizer of a run, ready to ``fit``.

    ``lenient`` skips (and reports) malformed lines in the user's pair files and vectors file.
    """
    out_dir = Path(out_dir)
    root = resolve_data_dir(data_dir)
    checkpoint = None
    if resume:
        checkpoint = load_resumable_checkpoint(out_dir / CHECKPOINT_FILE, config)
    torch.manual_seed(config.seed)
    random.seed(config.seed)

    report: PoolReport | None = None
    corpus_report: CorpusReport | None = None
    forbidden = evaluation_sentences(root)
    pairs: list = []
    teacher = TeacherSide()
    prepared: PreparedPairs | None = None
    if config.objective == "siamese-cbow":
        documents, corpus_report = read_corpus(root, config.corpus, forbidden=forbidden)
        say(corpus_report.summary())
        texts = iter_sentences(documents)
    elif config.prepared is not None:
        prepared = PreparedPairs.open(config.prepared)
        say(prepared_summary(prepared))
        texts = iter(())
    else:
        pairs, report = build_pool(
            root,
            config.pool,
            files=[(p, f) for p, f in config.pair_files],
            forbidden=forbidden,
            min_score=config.min_score,
            lenient=lenient,
        )
        say(report.summary())
        pairs = subsample(pairs, config.max_pairs, config.seed)
        if config.synthetic:
            pairs = add_synthetic_pairs(config, root, pairs, report, say)
        teacher = TeacherSide.prepare(config, root, pairs, forbidden, say=say, progress=progress)
        if not pairs and not teacher.sentences:
            raise DataNotFoundError("no training pairs left after filtering; check --pool / --pairs")
        texts = (s for pair in pairs for s in (pair.s1, pair.s2))

    entry = encoder_entry(config.encoder)
    # Fine-tuning (Hokamp & Arora 2016, Sec. 3.6) and cumulative training (Jiao et al. 2018):
    # the model's vocabulary and weights, no new words.
    init = load_init_model(config.init_model, config.encoder) if config.init_model else None
    vectors: WordVectors | None = None
    if checkpoint is not None:
        tokenizer = tokenizer_from_string(checkpoint["tokenizer"], checkpoint["tokenizer_config"])
    elif init is not None:
        tokenizer = init.tokenizer
    elif entry.featurizer != "words":
        tokenizer = CharNgramTokenizer.from_texts(
            texts,
            **FEATURIZERS[entry.featurizer],
            max_size=config.max_ngrams,
            min_count=config.min_count,
        )
    else:
        if config.vectors == DISTILLED:
            vectors = teacher.distilled_vectors(config, root, pairs, say=say)
        elif config.vectors is not None:
            read_report = ReadReport()
            vectors = read_word_vectors(
                resolve_vectors_path(config.vectors, root), lenient=lenient, report=read_report
            )
            for line in read_report.notes + ([read_report.summary()] if read_report.skipped else []):
                say(line)
        if prepared is not None:
            tokenizer = prepared.tokenizer()
        else:
            counts = count_words(texts)
            vocabulary = build_vocabulary(
                vectors.words if vectors else [], counts, min_count=config.min_count
            )
            tokenizer = WordTokenizer.from_vocabulary(vocabulary, unknown=config.unknown)

    if config.objective == "siamese-cbow":
        data = DocumentData.from_documents(documents, tokenizer, config.num_negatives)
    elif prepared is not None:
        data = prepared
    else:
        data = PairData.from_pairs(pairs, tokenizer)
        data.length_buckets = config.length_buckets
    if init is not None:
        encoder = init.torch_encoder()
    else:
        dim = vectors.dim if vectors is not None else config.dim
        if dim is None and checkpoint is not None:  # a run that started from vectors: the checkpoint knows
            dim = int(checkpoint["objective"]["encoder.embedding.weight"].shape[1])
        if dim is None and config.vectors is not None:  # character models: the size of the word models
            dim = read_word_vectors(resolve_vectors_path(config.vectors, root)).dim
        encoder = build_encoder(
            {
                "name": config.encoder,
                "vocab_size": tokenizer.vocab_size,
                "embedding_dim": dim,
                **config.encoder_options,
            }
        )
    encoder.dropout = config.dropout
    if checkpoint is None and init is None and entry.featurizer == "words":
        matrix, found = initial_embeddings(tokenizer, vectors, dim, config.seed, config.init_std)
        encoder.set_embeddings(matrix)
        covered = len(np.intersect1d(data.vocabulary_rows(), np.arange(2, 2 + found)))
        unit = "sentences" if config.objective == "siamese-cbow" else "training pairs"
        say(
            f"vocabulary: {tokenizer.vocab_size} entries, {found} from initial vectors, "
            f"{tokenizer.vocab_size - 2 - found} new training words (min count {config.min_count}); "
            f"{covered} pretrained words occur in the {len(data)} {unit}"
        )
    elif checkpoint is None and init is None:
        say(
            f"vocabulary: {tokenizer.vocab_size} character features ({entry.featurizer}, cap {config.max_ngrams})"
        )
    elif init is not None:
        say(
            f"continuing {config.init_model}: {init.encoder_config['name']}, vocabulary "
            f"{tokenizer.vocab_size} (no new words); {len(data.vocabulary_rows())} occur in the training data"
        )
    if checkpoint is None and config.remove_components:
        encoder.set_embeddings(teacher.remove_components(config, encoder, tokenizer, pairs, say=say))
    if config.objective == "siamese-cbow":
        objective: torch.nn.Module = SiameseCBOWLoss(encoder)
        metadata: dict[str, Any] = {"corpus": corpus_report.to_dict(), "training_examples": len(data)}
    else:
        # Character models have no pretrained rows: lambda_w is then plain L2 on W (CHARAGRAM's
        # lambda ||theta||^2), a pull towards zero. A continued model is pulled to its start.
        pretrained = entry.featurizer == "words" or init is not None
        weight = encoder.embedding.weight.detach()
        objective = MarginLoss(
            encoder,
            delta=config.delta,
            negatives=config.negatives,
            lambda_w=0.0 if teacher.active else config.lambda_w,
            lambda_c=config.lambda_c,
            # with the teacher, the pull lives in the distillation objective: no second copy here
            initial_embeddings=weight[:0]
            if teacher.active
            else (weight.clone() if pretrained else torch.zeros_like(weight)),
            composition_to_initial=composition_to_initial(config, encoder),
        )
        metadata = {
            "pool": report.to_dict() if report else None,
            "training_pairs": len(data),
            **teacher.metadata(),
        }
        if prepared is not None:
            metadata["prepared"] = {"directory": str(config.prepared), **prepared.corpus.manifest["filter"]}
        if config.synthetic and config.synthetic_for != "train":
            metadata["transductive"] = config.synthetic_for
        objective, data = teacher.objective_and_data(config, encoder, tokenizer, objective, data, say=say)
    if config.megabatch > 1 or config.megabatch_anneal:
        data = MegabatchData(data, encoder, config.megabatch, config.megabatch_anneal)
    world = None
    if distributed.launched():  # under torchrun: one process of several
        data, objective, world, device = distributed.distribute(config, data, objective)
    optimizer = build_optimizer(
        encoder,
        config.optimizer,
        config.lr,
        schedule=config.lr_schedule,
        total_steps=config.epochs * data.num_batches(config.batch_size),
    )
    validator = SimilarityEvaluator(config.validation, root) if config.validation else None
    trainer = Trainer(
        objective=objective,
        optimizer=optimizer,
        data=data,
        config=config,
        out_dir=out_dir,
        tokenizer=tokenizer,
        validator=validator,
        metadata=metadata,
        progress=progress,
        validate_initial=init is not None,
    )
    if world is not None:
        distributed.attach(trainer, world, device)
    return trainer, report, corpus_report


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
    """Train a model per ``config`` into the run directory ``out_dir`` (best model in ``out_dir/model``)."""
    trainer, report, corpus_report = build_trainer(
        config, out_dir, data_dir=data_dir, resume=resume, progress=progress, lenient=lenient, say=say
    )
    state = trainer.fit(resume=resume)
    return TrainResult(state, trainer.model_path, report, corpus_report, trainer.encoder, trainer.tokenizer)


def composition_to_initial(config: TrainConfig, encoder: Encoder) -> bool:
    """Whether lambda_c pulls the composition parameters to their initial values.

    ``auto``: yes for an encoder that asks for it (the identity-RNN) and when continuing a
    trained model (the "universal" prior of Wieting et al. Sec. 4.4.1); otherwise plain L2.
    """
    if config.composition_prior != "auto":
        return config.composition_prior == "initial"
    return encoder.composition_prior == "initial" or config.init_model is not None


def load_init_model(path: str, encoder_name: str) -> SentenceModel:
    """The model a cumulative run continues; its encoder must be the one asked for."""
    from parasent.model import load

    model = load(path)
    if model.encoder_config["name"] != encoder_name:
        raise ValueError(
            f"--init-model {path} holds a {model.encoder_config['name']!r} model; "
            f"pass --encoder {model.encoder_config['name']}"
        )
    return model
