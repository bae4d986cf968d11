"""Training a supervised head end to end: task data -> encoder (scratch, universal or frozen
features) -> head -> objective -> the one Trainer loop -> dev/test figures.

A head run is built on the stages of a training run (:mod:`parasent.training.run`): the same
start (:func:`~parasent.training.run.begin_run`: resumed checkpoint, seeded random state), the
same featurizer and encoder builders (``features_stage``, ``encoder_stage``), optimizer
(:func:`~parasent.training.optim.build_optimizer`) and loop
(:class:`~parasent.training.trainer.Trainer`); what is its own is the task data, the head and
the supervised objective."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.core.model_spec import load_model_spec
from parasent.encoders import encoder_entry
from parasent.encoders.base import Encoder
from parasent.errors import CheckpointError, DataNotFoundError
from parasent.objectives.supervised import SupervisedObjective
from parasent.supervised.evaluate import TaskEvaluator, TaskReport
from parasent.supervised.frozen import TextRows
from parasent.supervised.head_config import HeadConfig
from parasent.supervised.heads import build_head, save_head
from parasent.supervised.model import SupervisedModel
from parasent.supervised.tasks import (
    Examples,
    SupervisedTask,
    classification_task,
    file_examples,
    load_examples,
    sparse_classes_note,
    split_examples,
    task_by_name,
)
from parasent.support.paths import resolve_data_dir
from parasent.support.staging import write_run_file
from parasent.training.encoder_stage import initial_matrix, new_encoder
from parasent.training.features_stage import plain_vectors, word_features
from parasent.training.labelled import LabelledData
from parasent.training.optim import build_optimizer, guard_sgd_pulls
from parasent.training.row_subset import RowSubset
from parasent.training.run import begin_run
from parasent.training.trainer import CHECKPOINT_FILE, Trainer, TrainState

if TYPE_CHECKING:
    from parasent.text.featurizers import Featurizer

RESULTS_FILE = "results.json"


@dataclass
class HeadResult:
    state: TrainState
    model_path: Path
    dev: TaskReport
    test: TaskReport | None  # None: a user's classes without a test file


@dataclass
class TaskData:
    """A head run's task and its splits: the registry's, or a user's file of classes."""

    task: SupervisedTask
    train: Examples
    dev: TaskEvaluator
    test: TaskEvaluator | None


MIN_HELD_OUT = 2  # texts: an accuracy needs some (the pairs evaluator's minimum too)


def task_data(config: HeadConfig, root: Path) -> TaskData:
    """The task of ``config``: its registered splits, or the classes of ``config.data`` with
    ``config.validation_data`` (else a held-out share of the data) as the dev split."""
    if config.data is None:
        task = task_by_name(config.task)
        train = load_examples(task, "train", root).subsample(config.max_examples, config.seed)
        return TaskData(task, train, TaskEvaluator(task, "dev", root), TaskEvaluator(task, "test", root))
    examples, labels = file_examples(config.data)
    task = classification_task(Path(config.data).name, labels)
    if config.validation_data is not None:
        train, dev = examples, file_examples(config.validation_data, labels)[0]
    else:
        train, dev = split_examples(examples, config.held_out, config.seed)
        if len(dev.targets) < MIN_HELD_OUT:
            raise DataNotFoundError(
                f"{config.data}: {len(dev.targets)} text(s) held out of {len(examples.targets)} to choose the "
                f"epoch on (at least {MIN_HELD_OUT}; a class needs 2 distinct texts to lend one): bring more "
                "texts, a larger --held-out, or --validation FILE"
            )
    train = train.subsample(config.max_examples, config.seed)
    return TaskData(task, train, TaskEvaluator(task, "dev", examples=dev), None)


@dataclass
class TaskEncoder:
    """The encoder a head run trains (or freezes), its featurizer, and how it becomes a model to
    validate and save (None: the encoder's own weights; see :class:`Trainer`'s ``export``)."""

    tokenizer: Featurizer
    encoder: Encoder
    export: Callable[..., Any] | None = None
    vectors: np.ndarray | None = None  # the training texts' frozen vectors: a classifier of a
    # file's classes on features standardizes its input by them (SentenceClassifier)


def build_task_encoder(
    config: HeadConfig, train: Examples, root: Path, say: Callable[[str], None]
) -> TaskEncoder:
    """The encoder a head run starts from, and its tokenizer.

    ``scratch``: a new ``config.encoder`` over the initial vectors' words plus the task's
    training words (``min_count``), word vectors from ``config.vectors``. ``universal`` and
    ``features``: the model ``config.init`` as trained (its vocabulary and weights); an
    averaging one trains only the rows its task's text uses, the saved model being ``init``
    with those rows (:mod:`parasent.training.row_subset`), so a compact model stays compact,
    and with frozen features its texts' vectors are computed once (:mod:`parasent.supervised.frozen`).
    """
    texts = [t for side in train.sides for t in side]
    if config.setting != "scratch":
        named = load_model_spec(config.init, root)
        model = named.model
        if encoder_entry(model.encoder_config["name"]).static and config.setting == "features":
            frozen = TextRows(model, texts)
            built = TaskEncoder(frozen, frozen.encoder(), frozen.unchanged)
        elif encoder_entry(model.encoder_config["name"]).static:
            rows = RowSubset(model, texts)
            built = TaskEncoder(rows.featurizer(), rows.encoder(), rows.merged)
        else:
            built = TaskEncoder(model.tokenizer, model.torch_encoder())
        if config.data is not None and config.setting == "features":  # a fixed input: the frozen
            # vectors' scale (a trained encoder's rows would get gradients scaled by 1 / spread)
            frozen_rows = built.tokenizer if isinstance(built.tokenizer, TextRows) else TextRows(model, texts)
            built.vectors = frozen_rows.vectors  # a text-rows table has them already
        coverage = ""
        if hasattr(model.tokenizer, "oov_counts"):
            unknown, total = model.tokenizer.oov_counts(texts)
            coverage = f", {100 * unknown / max(total, 1):.2f}% of training tokens unknown"
        say(
            f"encoder: {named.spec} ({built.encoder.name}, vocabulary {model.tokenizer.vocab_size}{coverage})"
        )
        return built
    vectors = plain_vectors(config.vectors, root, lenient=False, say=say) if config.vectors else None
    features = word_features(vectors, texts, min_count=config.min_count, unknown=config.unknown)
    tokenizer = features.tokenizer
    dim = vectors.dim if vectors is not None else config.dim
    matrix, found = initial_matrix(features, dim, config.seed)
    encoder = new_encoder(config.encoder, config.encoder_options, features, dim)
    encoder.set_embeddings(matrix)
    say(
        f"encoder: new {config.encoder}, {tokenizer.vocab_size} words ({found} from initial vectors, "
        f"{tokenizer.vocab_size - 2 - found} task words with count >= {config.min_count}, [PAD] and [UNK])"
    )
    return TaskEncoder(tokenizer, encoder)


def train_head(
    config: HeadConfig,
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    resume: bool = False,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> HeadResult:
    """Train ``config.task``'s head (or a classifier of ``config.data``'s classes) into
    ``out_dir`` (best dev epoch in ``out_dir/model``), then score the best model on the dev and
    test splits (written to ``out_dir/results.json``)."""
    out_dir = Path(out_dir)
    root = resolve_data_dir(data_dir)
    checkpoint = begin_run(config, out_dir, resume)
    splits = task_data(config, root)
    task, train, dev = splits.task, splits.train, splits.dev
    say(f"{task.name}: {len(train)} training examples, {len(dev.examples)} dev; setting {config.setting}")
    note = sparse_classes_note(train.targets, task.classes)
    if note:
        say(note)
    built = build_task_encoder(config, train, root, say)
    if checkpoint is not None and checkpoint["tokenizer"] != built.tokenizer.tokenizer.to_str():
        raise CheckpointError(
            f"{out_dir / CHECKPOINT_FILE}: the vocabulary differs from the checkpointed run's"
        )
    trainer, head = _head_trainer(config, task, train, dev, built, out_dir, progress)
    state = trainer.fit(resume=resume)  # its end marks the model finished (training/trainer.py)
    best = SupervisedModel.load(trainer.model_path)
    dev_report = dev(best.sentence_model, best.head, name=str(out_dir))
    test_report = splits.test(best.sentence_model, best.head, name=str(out_dir)) if splits.test else None
    results = {
        "config": config.to_dict(),
        "best_epoch": state.best_epoch,
        "dev": dev_report.to_dict(),
        "test": test_report.to_dict() if test_report else None,
    }
    write_run_file(out_dir / RESULTS_FILE, json.dumps(results, indent=2) + "\n")
    return HeadResult(state, trainer.model_path, dev_report, test_report)


def _head_trainer(
    config: HeadConfig,
    task: SupervisedTask,
    train: Examples,
    dev: TaskEvaluator,
    built: TaskEncoder,
    out_dir: Path,
    progress: bool,
) -> tuple[Trainer, Any]:
    """The loop of a head run: the head, the supervised objective, its optimizer."""
    encoder = built.encoder
    data = LabelledData.from_sides(train.sides, train.targets, built.tokenizer)
    head = build_head(
        task.kind,
        encoder.output_dim,
        config.hidden_dim,
        task.classes,
        seed=config.seed,
        standardized=built.vectors is not None,
    )
    if built.vectors is not None:
        head.standardize(built.vectors)
    objective = SupervisedObjective(
        encoder,
        head,
        loss=task.loss,
        lambda_w=config.lambda_w,
        lambda_c=config.lambda_c,
        lambda_s=config.lambda_s,
        composition_to_initial=config.setting == "universal",
        freeze_encoder=config.setting == "features",
    )
    optimizer = build_optimizer(encoder, config.optimizer, config.lr, extra=list(head.parameters()))
    guard_sgd_pulls(objective, optimizer, config.optimizer)  # lambda_w's lazy pull, exact under SGD
    info = {"task": task.name, "labels": list(task.labels), "setting": config.setting, "init": config.init}
    if config.data is not None:
        info["classes_from"] = "file"
    trainer = Trainer(
        objective=objective,
        optimizer=optimizer,
        data=data,
        config=config,
        out_dir=out_dir,
        tokenizer=built.tokenizer,
        validator=lambda model: dev(model, head),
        metadata={"task": task.name, "setting": config.setting, "init": config.init, "examples": len(data)},
        progress=progress,
        model_files=lambda directory: save_head(directory, head, info),
        export=built.export,
    )
    return trainer, head
