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

from parasent.core.model_spec import load_model_spec
from parasent.encoders.base import Encoder
from parasent.errors import CheckpointError
from parasent.objectives.supervised import SupervisedObjective
from parasent.supervised.config import HeadConfig
from parasent.supervised.evaluate import TaskEvaluator, TaskReport
from parasent.supervised.heads import build_head, save_head
from parasent.supervised.model import SupervisedModel
from parasent.supervised.tasks import Examples, load_examples, task_by_name
from parasent.support.paths import resolve_data_dir
from parasent.support.staging import write_run_file
from parasent.text.tokenizer import WordTokenizer
from parasent.training.encoder_stage import new_encoder, set_initial_vectors
from parasent.training.features_stage import plain_vectors, word_features
from parasent.training.labelled import LabelledData
from parasent.training.optim import build_optimizer, guard_sgd_pulls
from parasent.training.run import begin_run
from parasent.training.trainer import CHECKPOINT_FILE, Trainer, TrainState

RESULTS_FILE = "results.json"


@dataclass
class HeadResult:
    state: TrainState
    model_path: Path
    dev: TaskReport
    test: TaskReport


def build_task_encoder(
    config: HeadConfig, train: Examples, root: Path, say: Callable[[str], None]
) -> tuple[WordTokenizer, Encoder]:
    """The encoder a head run starts from, and its tokenizer.

    ``scratch``: a new ``config.encoder`` over the initial vectors' words plus the task's
    training words (``min_count``), word vectors from ``config.vectors``. ``universal`` and
    ``features``: the model ``config.init`` as trained (its vocabulary and weights).
    """
    if config.setting != "scratch":
        named = load_model_spec(config.init, root)
        tokenizer = named.model.tokenizer
        encoder = named.model.torch_encoder()
        coverage = ""
        if hasattr(tokenizer, "oov_counts"):
            unknown, total = tokenizer.oov_counts([t for side in train.sides for t in side])
            coverage = f", {100 * unknown / max(total, 1):.2f}% of training tokens unknown"
        say(f"encoder: {named.spec} ({encoder.name}, vocabulary {tokenizer.vocab_size}{coverage})")
        return tokenizer, encoder
    vectors = plain_vectors(config.vectors, root, lenient=False, say=say) if config.vectors else None
    texts = (t for side in train.sides for t in side)
    features = word_features(vectors, texts, min_count=config.min_count, unknown=config.unknown)
    tokenizer = features.tokenizer
    dim = vectors.dim if vectors is not None else config.dim
    encoder = new_encoder(config.encoder, config.encoder_options, features, dim)
    found = set_initial_vectors(encoder, features, dim, config.seed)
    say(
        f"encoder: new {config.encoder}, {tokenizer.vocab_size} words ({found} from initial vectors, "
        f"{tokenizer.vocab_size - 2 - found} task words with count >= {config.min_count})"
    )
    return tokenizer, encoder


def train_head(
    config: HeadConfig,
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    resume: bool = False,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> HeadResult:
    """Train ``config.task``'s head into ``out_dir`` (best dev epoch in ``out_dir/model``), then
    score the best model on the dev and test splits (written to ``out_dir/results.json``)."""
    out_dir = Path(out_dir)
    root = resolve_data_dir(data_dir)
    checkpoint = begin_run(config, out_dir, resume)
    task = task_by_name(config.task)
    train = load_examples(task, "train", root).subsample(config.max_examples, config.seed)
    dev = TaskEvaluator(task, "dev", root)
    say(f"{task.name}: {len(train)} training examples, {len(dev.examples)} dev; setting {config.setting}")

    tokenizer, encoder = build_task_encoder(config, train, root, say)
    if checkpoint is not None and checkpoint["tokenizer"] != tokenizer.tokenizer.to_str():
        raise CheckpointError(
            f"{out_dir / CHECKPOINT_FILE}: the vocabulary differs from the checkpointed run's"
        )
    data = LabelledData.from_sides(train.sides, train.targets, tokenizer)
    head = build_head(task.kind, encoder.output_dim, config.hidden_dim, task.classes, seed=config.seed)
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
    trainer = Trainer(
        objective=objective,
        optimizer=optimizer,
        data=data,
        config=config,
        out_dir=out_dir,
        tokenizer=tokenizer,
        validator=lambda model: dev(model, head),
        metadata={"task": task.name, "setting": config.setting, "init": config.init, "examples": len(data)},
        progress=progress,
        model_files=lambda directory: save_head(directory, head, info),
    )
    state = trainer.fit(resume=resume)

    best = SupervisedModel.load(trainer.model_path)
    dev_report = dev(best.sentence_model, best.head, name=str(out_dir))
    test_report = TaskEvaluator(task, "test", root)(best.sentence_model, best.head, name=str(out_dir))
    results = {
        "config": config.to_dict(),
        "best_epoch": state.best_epoch,
        "dev": dev_report.to_dict(),
        "test": test_report.to_dict(),
    }
    write_run_file(out_dir / RESULTS_FILE, json.dumps(results, indent=2) + "\n")
    return HeadResult(state, trainer.model_path, dev_report, test_report)
