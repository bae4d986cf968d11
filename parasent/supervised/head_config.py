"""Everything that defines a supervised-head run, stored with its checkpoints and models."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from parasent.supervised.tasks import TASKS
from parasent.training.config import DEFAULT_VECTORS, RunOptions
from parasent.training.optim_names import OPTIMIZERS

DEFAULT_TASK = "sick-relatedness"

SETTINGS = ("scratch", "universal", "features")


@dataclass
class HeadConfig(RunOptions):
    """Defaults follow Wieting et al. (2016), Sec. 4.4 and footnotes 16-17, and Jiao et al.
    (2018), Sec. 4.2: 10 epochs (20 for frozen features, Sec. 4.4.2), AdaGrad at 0.05 (of the
    papers' two optimizers, the one the SICK dev split prefers, by up to 5 points over Adam at
    0.001; SST picks Adam in two settings), hidden layer 50 (Tai et al.; the papers tune
    {50, 150, 300}), batch 25 (tuned over {25, 50, 100}), lambdas from the papers' grids.
    ``scripts/tune_heads.py`` searches those grids on a task's dev split; README,
    "Supervised heads", lists the picks.

    ``setting``: ``scratch`` builds ``encoder`` with word vectors from ``vectors``;
    ``universal`` starts from the trained model ``init`` and regularises back to it;
    ``features`` keeps ``init`` frozen and trains the head only. ``init`` is a model or run
    directory, or ``vectors:PATH`` for plain averaging of word vectors.

    ``data`` (``text<TAB>label`` lines, labels any strings) makes the task a classifier of the
    file's own classes, selected on ``validation_data`` or on a held-out share of ``data``; its
    default is ``features`` on the shipped default model (docs/adapt.md compares the settings).
    """

    KIND = "head"
    FLAGS: ClassVar[dict[str, str]] = {
        "hidden_dim": "--hidden",
        "patience": "",
        "log_every": "",
    }  # Python only
    NUMBER_RULES: ClassVar[dict[str, str]] = {
        **RunOptions.NUMBER_RULES,
        "epochs": "positive?",
        "hidden_dim": "positive",
        "lambda_s": "non-negative",
        "max_examples": "positive?",
        "held_out": "fraction",
    }

    task: str | None = None  # None: sick-relatedness, or (with data) the data file's own classes
    setting: str | None = None  # None: features on --data, else scratch
    init: str | None = None  # None: the shipped default model on --data
    encoder: str = "word_averaging"
    encoder_options: dict[str, Any] = field(default_factory=dict)
    vectors: str | None = DEFAULT_VECTORS
    dim: int | None = None
    min_count: int = 1
    unknown: str = "vector"
    hidden_dim: int = 50
    epochs: int | None = None  # None: 10, or 20 for features
    patience: int | None = None  # stop after this many epochs without a better dev figure
    batch_size: int = 25
    optimizer: str = "adagrad"
    lr: float | None = None
    lambda_w: float = 1e-5
    lambda_c: float = 1e-5
    lambda_s: float = 1e-5
    clip: float | None = None
    max_examples: int | None = None  # a seeded subsample of the training split, for reduced runs
    seed: int = 1
    checkpoint_every: int = 0
    log_every: int = 50
    device: str = "auto"
    data: str | None = None  # a user's classes: text<TAB>label lines (the task is then its labels)
    validation_data: str | None = None  # their dev split; None: a held-out share of data
    held_out: float = 0.1

    def __post_init__(self) -> None:
        self.check_numbers()
        if self.data is not None and self.task is not None and self.task != Path(self.data).name:
            raise ValueError(
                f"task {self.task!r} and data {self.data}: give one (your own classes, or a task of the papers)"
            )
        self.task = Path(self.data).name if self.data is not None else self.task or DEFAULT_TASK
        if self.data is not None:
            self.setting = self.setting or "features"
            self.init = self.init or ("default" if self.setting != "scratch" else None)
        self.setting = self.setting or "scratch"
        if self.data is None and self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)}, got {self.task!r}")
        if self.setting not in SETTINGS:
            raise ValueError(f"setting must be one of {', '.join(SETTINGS)}, got {self.setting!r}")
        if self.setting in ("universal", "features") and not self.init:
            raise ValueError(f"the {self.setting} setting needs init (a trained model, or vectors:PATH)")
        if self.setting == "scratch" and self.vectors is None and self.dim is None:
            raise ValueError("from scratch without initial vectors, dim is required")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if self.epochs is None:
            self.epochs = 20 if self.setting == "features" else 10
        if self.epochs < 1 or self.batch_size < 1 or self.hidden_dim < 1:
            raise ValueError("epochs, batch_size and hidden_dim must be positive")
