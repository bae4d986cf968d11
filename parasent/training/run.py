"""Training any encoder end to end, as a line of stages run in this order, each with typed
inputs and outputs (docs/architecture.md walks a pair through them):

0. the start (:func:`begin_run`, shared with the supervised heads, and :func:`load_start`):
   the checkpoint a resumed run continues, the seeded random state, the model a run continues;
1. training text (:func:`parasent.training.text_stage.read_training_text` -> :class:`TrainingText`):
   pools, files, synthetic pairs or running text, without evaluation sentences;
2. the teacher, when the config names one (:class:`parasent.distillation.provider.TeacherSide`),
   a provider for stages 3 and 5, with one step of its own on the encoder of stage 4
   (:meth:`~parasent.distillation.provider.TeacherSide.remove_components`);
3. featurizer and initial vectors (:func:`parasent.training.features_stage.build_features` ->
   :class:`Features`): a tokenizer, and vectors from a file or distilled from the teacher;
4. encoder (:func:`parasent.training.encoder_stage.build_training_encoder` -> a
   :class:`~parasent.training.encoder_stage.TrainingEncoder`);
5. batch source and objective (:func:`parasent.training.objective_stage.batch_source` ->
   ``BatchSource``, then :func:`parasent.training.objective_stage.build_objective` ->
   :class:`ObjectiveStage`): margin, Siamese CBOW, or the teacher regression mixed in;
6. the trainer (:class:`parasent.training.trainer.Trainer`): one loop, checkpoints, validation.
"""

from __future__ import annotations

import os
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from parasent.core.model import model_record
from parasent.core.model_card import GUARD_KEY, KEPT_OUT_KEY, TRAINING_FILES_KEY, mark_finished
from parasent.data.training_text.corpus import CorpusReport
from parasent.data.training_text.pools import PoolReport, held_domain_tests
from parasent.data.training_text.shards import prepared_guard
from parasent.distillation.cache import Ranks
from parasent.distillation.corpus_pass import PassReport, pass_teacher_text
from parasent.distillation.provider import DISTILLED, TeacherSide
from parasent.encoders.base import Encoder
from parasent.errors import (
    CheckpointError,
    DataNotFoundError,
    ParasentWarning,
    Terminated,
    TrainingInterrupted,
)
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.file_pairs import HELD_OUT, VALIDATION_CHOICES, PairsEvaluator, named_sts, read_pairs
from parasent.support.paths import resolve_data_dir
from parasent.support.validation import resolve_device
from parasent.training import distributed
from parasent.training.batching import BatchSource
from parasent.training.blending import Blend, blend_run
from parasent.training.checkpoint import load_resumable_checkpoint
from parasent.training.config import RunOptions, TrainConfig
from parasent.training.encoder_stage import build_training_encoder, vocabulary_report
from parasent.training.features_stage import Start, build_features, initial_vectors, load_init_model
from parasent.training.megabatch import MegabatchData
from parasent.training.objective_stage import ObjectiveStage, batch_source, build_objective, pairs_metadata
from parasent.training.optim import build_optimizer, guard_sgd_pulls
from parasent.training.protocols import Evaluator, ObjectiveFactory
from parasent.training.text_stage import TrainingText, read_training_text
from parasent.training.trainer import CHECKPOINT_FILE, Trainer, TrainState

if TYPE_CHECKING:
    from parasent.text.featurizers import Featurizer


@dataclass
class TrainResult:
    state: TrainState
    model_path: Path
    pool: PoolReport | None
    corpus: CorpusReport | None = None
    encoder: Encoder | None = None  # as trained (the last epoch; model_path holds the best)
    tokenizer: Featurizer | None = None
    blend: Blend | None = None  # a contextual fine-tune's pull toward its start (training/blending.py)
    is_writer: bool = True  # under torchrun, the process that writes the model (and reports it)


@dataclass
class Assembled:
    """A run ready to ``fit``: its trainer and the training text it reads."""

    trainer: Trainer
    text: TrainingText


def begin_run(config: RunOptions, out_dir: Path, resume: bool) -> dict[str, Any] | None:
    """The first stage of every run, a training run's and a supervised head's
    (:func:`parasent.supervised.run.train_head`): the checkpoint of the run in ``out_dir`` when
    ``resume`` (it must have ``config``'s options), then torch's and Python's random state seeded
    with ``config.seed``, so that the stages after it draw the same numbers on every run."""
    checkpoint = load_resumable_checkpoint(out_dir / CHECKPOINT_FILE, config) if resume else None
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    return checkpoint


def load_start(
    config: TrainConfig, checkpoint: dict[str, Any] | None, out_dir: Path, metadata: dict[str, Any]
) -> Start:
    """What the run continues: the ``checkpoint`` of :func:`begin_run`, and the model
    ``config.encoder.init_model``, if any (a resumed run's must be the one it began from: its
    ``base_model`` in ``metadata``, :func:`run_metadata`, the one the checkpoint records)."""
    # Fine-tuning (Hokamp & Arora 2016, Sec. 3.6) and cumulative training (Jiao et al. 2018):
    # the model's vocabulary and weights, no new words.
    init_model = config.encoder.init_model
    if checkpoint is not None and init_model:
        check_same_start(init_model, checkpoint, metadata.get("base_model") or {}, out_dir / CHECKPOINT_FILE)
    init = (
        load_init_model(init_model, config.encoder.name, config.encoder.options, config.seed)
        if init_model
        else None
    )
    return Start(checkpoint, init)


def check_same_start(init_model: str, checkpoint: dict[str, Any], record: dict[str, str], path: Path) -> None:
    """Refuse to resume a run whose ``--init-model`` (``record``: its name and digest now) has
    changed since it began (a package upgrade of ``default``, a directory trained again): its
    rows, the self-distillation's targets and the blend's start would come from another model
    than the checkpoint's."""
    began = ((checkpoint.get("metadata") or {}).get("base_model") or {}).get("digest")
    now = record.get("digest")
    if began and now and began != now:
        short = {name: digest.split(":")[-1][:12] for name, digest in (("now", now), ("began", began))}
        raise CheckpointError(
            f"{path}: --init-model {init_model} is not the model this run began from (digest "
            f"{short['now']}, the run's {short['began']}); start a new run instead of --resume"
        )


def _teacher_side(
    config: TrainConfig,
    root: Path,
    text: TrainingText,
    device: str,
    *,
    progress: bool,
    say: Callable[[str], None],
) -> TeacherSide:
    """The run's teacher side over its training text, its teacher on ``device``."""
    return TeacherSide.prepare(
        config.teacher,
        root,
        text.pairs,
        text.forbidden,
        seed=config.seed,
        distilled=config.encoder.vectors == DISTILLED,
        device=device,
        say=say,
        progress=progress,
    )


def prepare_teacher(
    config: TrainConfig, root: Path, text: TrainingText, *, progress: bool, say: Callable[[str], None]
) -> TeacherSide:
    """The teacher side of a margin run (an inactive one without a teacher); a run must have
    pairs or teacher sentences to train on."""
    if config.objective.name != "margin":
        return TeacherSide()
    teacher = _teacher_side(config, root, text, resolve_device(config.device), progress=progress, say=say)
    if not text.pairs and not teacher.sentences and text.prepared is None:
        notes = text.pool.guard_notes() if text.pool is not None else []
        raise DataNotFoundError(
            "no training pairs left after filtering; "
            + "".join(f"{note}; or " for note in notes)
            + "check --pool / --pairs"
        )
    return teacher


def assemble(
    config: TrainConfig,
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    resume: bool = False,
    objective: ObjectiveFactory | None = None,
    progress: bool = True,
    lenient: bool = False,
    say: Callable[[str], None] = print,
) -> Assembled:
    """The stages of a run, in order, ready to ``fit``. ``lenient`` skips (and reports)
    malformed lines in the user's pair files and vectors file."""
    out_dir = Path(out_dir)
    root = resolve_data_dir(data_dir)
    began = run_metadata(config, root)  # the start's digest is taken once: checked on resume, recorded
    start = load_start(config, begin_run(config, out_dir, resume), out_dir, began)
    text = read_training_text(config, root, lenient=lenient, say=say)
    teacher = prepare_teacher(config, root, text, progress=progress, say=say)
    features = build_features(
        config,
        text,
        start,
        lambda: initial_vectors(config, root, text, teacher, lenient=lenient, say=say),
        unlabelled=teacher.sentences,
    )
    built = build_training_encoder(config, features, start, root=root)
    encoder = built.encoder
    data = batch_source(config, text, features.tokenizer)
    if text.documents is not None:
        say(data.summary())  # Siamese CBOW: how many sentences are anchors, and why not the others
    report = vocabulary_report(config, features, start, built, data)
    if report is not None:
        say(report)
    resumed = start.checkpoint is not None
    teacher.remove_components(
        config.teacher, encoder, features.tokenizer, text.pairs, resumed=resumed, say=say
    )
    if objective is not None:  # a loss handed over as an object (parasent.training.fit)
        metadata = {**pairs_metadata(text, data), "objective": repr(objective)}
        stage = ObjectiveStage(objective.build(encoder, data), data, metadata)
    else:
        stage = build_objective(config, encoder, features, start, text, data, teacher, say=say)
    validator = build_validator(config, root, text, lenient=lenient)  # what scores each epoch
    stage, world = at_scale(config, stage, encoder)  # mega-batches; one process of several under torchrun
    if note := megabatch_note(config, stage.data):
        say(note)
    optimizer = build_optimizer(
        encoder,
        config.optimizer.name,
        config.optimizer.lr,
        schedule=config.optimizer.lr_schedule,
        total_steps=config.epochs * stage.data.num_batches(config.batch_size),
    )
    guard_sgd_pulls(stage.objective, optimizer, config.optimizer.name)
    trainer = Trainer(
        objective=stage.objective,
        optimizer=optimizer,
        data=stage.data,
        config=config,
        out_dir=out_dir,
        tokenizer=features.tokenizer,
        validator=validator,
        metadata={**stage.metadata, **began},
        progress=progress,
        validate_initial=start.init is not None,
        export=features.rows.merged if features.rows is not None else None,
    )
    if world is not None:
        distributed.attach(trainer, *world)
    return Assembled(trainer, text)


def run_metadata(config: TrainConfig, root: Path | None = None) -> dict[str, Any]:
    """What the model records of how its run began: the model it continues, by name and digest
    (its card's ``base_model``), whether the leakage guard was on (off: its transfer and STS
    2016 figures are not comparable, which ``evaluate`` and the card then say), and the domain
    test splits no text of it saw (``evaluate --pairs`` warns on the others: evaluation/domain_tests.py)."""
    metadata: dict[str, Any] = {GUARD_KEY: config.data.leakage_guard}
    if config.data.pair_files:
        metadata[TRAINING_FILES_KEY] = training_files(config)
    if config.encoder.init_model:
        metadata["base_model"] = model_record(config.encoder.init_model)
    if root is not None:
        metadata[KEPT_OUT_KEY] = kept_out(config, root, metadata.get("base_model"))
    return metadata


def training_files(config: TrainConfig) -> list[dict[str, str]]:
    """The run's pair files that are files (a pipe is read once, by the run), each as typed
    with its sha256: ``evaluate --pairs`` on one of them says its figures are in-sample."""
    from parasent.support.regular_files import sha256_of

    return [
        {"file": path, "sha256": sha256_of(path)}
        for path, _ in config.data.pair_files
        if Path(path).is_file()
    ]


def kept_out(config: TrainConfig, root: Path, base: dict[str, Any] | None) -> list[str]:
    """The domain test splits no text of this run saw: those its guard (on) covered in ``root``,
    less any its prepared set was not filtered of or the model it continues did not keep out
    (a start whose record does not say kept out none)."""
    if config.data.leakage_guard != "on":
        return []
    held = held_domain_tests(root)
    if config.data.prepared is not None:
        held = [name for name in held if name in prepared_guard(config.data.prepared)[1]]
    if base is not None:
        held = [name for name in held if name in (base.get(KEPT_OUT_KEY) or [])]
    return held


def build_validator(
    config: TrainConfig, root: Path, text: TrainingText, *, lenient: bool = False
) -> Evaluator | None:
    """What selects the best epoch (``config.validation``): a suite of the registry, the pairs
    held out of the training text, a file of the user's pairs, or nothing."""
    validation = config.validation
    if validation is None:
        return None
    if validation == HELD_OUT:  # at least MIN_HELD_OUT_PAIRS (training/text_stage.py)
        return PairsEvaluator(text.held_out, "held-out pairs")
    if config.validation_file is not None:
        pairs, name, _ = read_pairs(config.validation_file, lenient=lenient, others=VALIDATION_CHOICES)
        return PairsEvaluator(pairs, name, graded=named_sts(config.validation_file))
    return SimilarityEvaluator(validation, root)


def at_scale(
    config: TrainConfig, stage: ObjectiveStage, encoder: Encoder
) -> tuple[ObjectiveStage, tuple[distributed.World, torch.device] | None]:
    """The objective stage with mega-batch negatives (``--megabatch``) and, when started by
    torchrun, as one process of several (docs/training-at-scale.md); ``(world, device)`` or None."""
    options = config.objective
    data, objective = stage.data, stage.objective
    if options.megabatch > 1 or options.megabatch_anneal:
        data = MegabatchData(data, encoder, options.megabatch, options.megabatch_anneal)
    world = None
    if distributed.launched():
        data, objective, rank, device = distributed.distribute(config, data, objective)
        world = (rank, device)
    return ObjectiveStage(objective, data, stage.metadata), world


def megabatch_note(config: TrainConfig, data: BatchSource) -> str | None:
    """A ``--megabatch`` larger than an epoch's batches is the epoch itself: said, not silent."""
    size, batches = config.objective.megabatch, data.num_batches(config.batch_size)
    if size <= batches:
        return None
    return (
        f"note: --megabatch {size} is more than the {batches} batch(es) an epoch holds: each negative "
        f"is chosen among the whole epoch, as --megabatch {batches} would"
    )


def train(
    config: TrainConfig,
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    resume: bool = False,
    progress: bool = True,
    lenient: bool = False,
    say: Callable[[str], None] = print,
    objective: ObjectiveFactory | None = None,
) -> TrainResult:
    """Train a model per ``config`` into the run directory ``out_dir`` (best model in ``out_dir/model``).

    The run directory is locked from the start (:mod:`parasent.support.runlock`): a second run into it
    fails at once instead of replacing this one's model. ``objective``: a loss given as an object
    (:func:`parasent.training.fit.fit`), which replaces the configured one."""
    from parasent.support.runlock import run_lock

    say = distributed.voice(say)  # one voice under torchrun: process 0's
    with run_lock(out_dir):
        try:
            run = assemble(
                config,
                out_dir,
                data_dir=data_dir,
                resume=resume,
                objective=objective,
                progress=progress,
                lenient=lenient,
                say=say,
            )
        except KeyboardInterrupt as stop:  # in a teacher's pass, most often: its chunks done are cached
            raise TrainingInterrupted(
                "before training began; the teacher's passes keep what they finished in their "
                "cache, so the same command continues them" + (" (and --resume the run)" if resume else ""),
                exit_code=143 if isinstance(stop, Terminated) else 130,
            ) from None
        try:
            run.trainer.finishes_run = False  # the start as it was and the blend follow: marked below
            state = run.trainer.fit(resume=resume)
        except BaseException:
            distributed.leave(finished=False)
            raise
        distributed.leave()
        trainer = run.trainer
        blend = None
        if trainer.is_writer:
            try:
                with warnings.catch_warnings():  # the run reads its own model, unfinished until the end
                    warnings.simplefilter("ignore", ParasentWarning)
                    if state.best_epoch == 0:
                        write_start_as_it_was(config, trainer.model_path)
                    blend = blend_run(
                        config, trainer.model_path, trainer.validator, data_dir, state.best_epoch, say
                    )
                mark_finished(trainer.model_path)  # the run's last step: its model is its result
            except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (Terminated) where a handler raises it
                raise TrainingInterrupted(
                    f"after training, before the run's last step; the best epoch's model is in "
                    f"{trainer.model_path}; --resume finishes the run",
                    exit_code=143 if isinstance(stop, Terminated) else 130,
                ) from None
    return TrainResult(
        state,
        trainer.model_path,
        run.text.pool,
        run.text.corpus,
        trainer.encoder,
        trainer.tokenizer,
        blend,
        trainer.is_writer,
    )


def write_start_as_it_was(config: TrainConfig, model_path: Path) -> None:
    """A run whose start scored best writes the start itself: an averaging model continued
    under a composing encoder (``--encoder contextual``) starts with its vectors exactly, but
    the written model would compose them at a fraction of the average's speed for nothing.
    The run's metadata (how it went) is kept."""
    from parasent.core.model import load

    if not config.encoder.init_model or not (model_path / "config.json").is_file():
        return
    written, start = load(model_path), load(config.encoder.init_model)
    if written.encoder_config["name"] != start.encoder_config["name"]:
        type(start)(start.tokenizer, start.encoder_config, start.weights, metadata=written.metadata).save(
            model_path
        )


def teacher_pass(
    config: TrainConfig,
    data_dir: str | Path | None = None,
    *,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> PassReport:
    """The teacher pass of ``config``'s run alone (its teacher text, its teacher), into the
    teacher's cache, in this process or in its share under torchrun (``parasent teacher-pass``)."""
    ranks = distributed.join_ranks()
    try:
        report = _teacher_pass(config, resolve_data_dir(data_dir), ranks, progress=progress, say=say)
    except BaseException:
        distributed.leave(finished=False)
        raise
    distributed.leave()
    return report


def _teacher_pass(
    config: TrainConfig, root: Path, ranks: Ranks | None, *, progress: bool, say: Callable[[str], None]
) -> PassReport:
    if ranks and ranks.rank:  # one voice, one progress bar: process 0's
        say, progress = (lambda _message: None), False
    device = resolve_device(config.device)
    if device.startswith("cuda"):
        device = distributed.rank_device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    text = read_training_text(config, root, say=say)
    side = _teacher_side(config, root, text, device, progress=progress, say=say)
    contextual = config.teacher.distill_context and config.encoder.vectors == DISTILLED
    tokens = config.teacher.teacher_tokens > 0  # the per-token term's second pass, cached as well
    return pass_teacher_text(side, ranks, contextual=contextual, say=say, word_states=tokens)
