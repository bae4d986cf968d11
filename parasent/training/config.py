"""Everything that defines a training run, stored with its checkpoints and models."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from parasent.objectives.margin import NEGATIVE_STRATEGIES
from parasent.training.optim import DEFAULT_LEARNING_RATES, OPTIMIZERS

DEFAULT_VECTORS = "wordvecs/glove50_4k.txt.gz"
COMPOSITION_PRIORS = ("auto", "zero", "initial")


@dataclass
class TrainConfig:
    """Defaults: the paper's procedure (Wieting et al. 2016, Sec. 4.2.1: batch 100, AdaGrad at
    0.05, MAX negatives), with delta, lambda_w and min_count picked from the paper's grids by
    STS 2016 validation on the standard pool (README, "Results"), and more epochs because the
    pool is ~35k pairs instead of PPDB XL's 3M."""

    encoder: str = "word_averaging"
    encoder_options: dict[str, Any] = field(default_factory=dict)
    vectors: str | None = DEFAULT_VECTORS  # relative to the data directory unless it exists as given
    dim: int | None = None  # needed without vectors; must match them otherwise
    pool: str | None = "standard"
    pair_files: list[list[str]] = field(default_factory=list)  # [[path, format], ...]
    max_pairs: int | None = None  # a seeded subsample, for quick runs
    min_count: int = 1
    unknown: str = "vector"
    epochs: int = 50
    batch_size: int = 100
    optimizer: str = "adagrad"
    lr: float | None = None
    delta: float = 0.6
    negatives: str = "max"
    lambda_w: float = 1e-8
    lambda_c: float = 0.0
    clip: float | None = None
    seed: int = 1
    validation: str | None = "validation"
    checkpoint_every: int = 0  # steps; 0 = at the end of every epoch only
    log_every: int = 50
    device: str = "auto"
    # Encoders of the architecture comparison (issue 3):
    dropout: float = 0.0  # on embedding vectors while training (Jiao et al. 2018, Sec. 4.1)
    init_model: str | None = None  # continue a trained model (cumulative training); its vocabulary is kept
    composition_prior: str = (
        "auto"  # lambda_c towards "zero" or "initial" values; auto: per encoder / init_model
    )
    max_ngrams: int | None = 100_000  # cap on a character n-gram vocabulary (CHARAGRAM's had 100,283)
    length_buckets: int = 0  # batch by length within chunks of this many batches (0: random batches)

    def __post_init__(self) -> None:
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if self.negatives not in NEGATIVE_STRATEGIES:
            raise ValueError(f"negatives must be one of {NEGATIVE_STRATEGIES}, got {self.negatives!r}")
        if self.batch_size < 2:
            raise ValueError("batch_size must be at least 2 (negatives come from the batch)")
        if self.epochs < 1:
            raise ValueError("epochs must be at least 1")
        if self.vectors is None and self.dim is None and self.init_model is None:
            raise ValueError("without initial vectors, dim is required")
        if self.length_buckets < 0:
            raise ValueError(f"length_buckets must be >= 0, got {self.length_buckets}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.composition_prior not in COMPOSITION_PRIORS:
            raise ValueError(
                f"composition_prior must be one of {COMPOSITION_PRIORS}, got {self.composition_prior!r}"
            )

    @property
    def learning_rate(self) -> float:
        return DEFAULT_LEARNING_RATES[self.optimizer] if self.lr is None else self.lr

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown training option(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    def resume_compatible(self, other: TrainConfig) -> list[str]:
        """Options that differ from ``other`` in a way that would make a resumed run a different run."""
        mine, theirs = self.to_dict(), other.to_dict()
        free = {"epochs", "checkpoint_every", "log_every", "device"}
        return [k for k in mine if k not in free and mine[k] != theirs[k]]
