"""Everything that defines a training run, stored with its checkpoints and models.

A :class:`TrainConfig` is five sections, one per stage of the pipeline that reads it
(:mod:`parasent.training.run`): :class:`DataConfig` (the training text),
:class:`EncoderConfig` (featurizer, initial vectors, encoder), :class:`OptimizerConfig`,
:class:`ObjectiveConfig` and :class:`~parasent.distillation.teacher_config.TeacherConfig`
(distillation), plus the options of the run itself (seed, validation, checkpoints, device). Every option also has one *flat* name, unique
across sections (``encoder``, ``vectors``, ``lr``, ``teacher_weight``): the name of its
command-line flag, of presets and recipes, and of the configuration files written before the
sections existed (which still load, :meth:`TrainConfig.from_dict`). The command-line options
are generated from the fields' metadata (:func:`parasent.support.config_fields.option`), so help
texts live beside their fields, once: here, and for the teacher section in
:mod:`parasent.distillation.teacher_config`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from parasent.core.encoder_registry import averages_words, composes_rows, word_averaging_names
from parasent.data.training_text.leakage import GUARD_STATES
from parasent.distillation.teacher_config import TeacherConfig
from parasent.encoders import default_lambda_c_help, encoder_entry, encoder_names_help
from parasent.evaluation.file_pairs import HELD_OUT
from parasent.objectives.names import NEGATIVE_STRATEGIES, PULL_MODES
from parasent.support.config_fields import option
from parasent.training.optim_names import DEFAULT_LEARNING_RATES, LR_SCHEDULES, OPTIMIZERS

DEFAULT_ENCODER = "word_averaging"  # PARAGRAM-PHRASE, the papers' and the default model's
DEFAULT_VECTORS = "wordvecs/glove50_4k.txt.gz"
OBJECTIVES = ("margin", "siamese-cbow")
COMPOSITION_PRIORS = ("auto", "zero", "initial")
PULL_ROWS = ("initial", "all")
VOCABULARIES = ("grow", "initial")
SCORE_USES = ("threshold", "rank")


SELECTIONS = ("best", "clears-noise")  # how the validation figure chooses the epoch (Trainer)


class RunOptions:
    """What the options dataclass of a run shares (:class:`TrainConfig`, the supervised
    ``HeadConfig``): JSON round trip, the learning rate, and the resume check."""

    # Options a resumed run may change without becoming a different run.
    RESUMABLE_CHANGES = frozenset({"epochs", "patience", "checkpoint_every", "log_every", "device"})
    KIND = "training"
    # Numeric options (flat names) and their rule (parasent.support.validation.RULES; "?": None allowed),
    # checked before any work: a negative clip would reverse gradients, clip 0 silently disable it.
    FLAGS: ClassVar[dict[str, str]] = {}  # an option whose flag is not --its-flat-name ("": none)
    NUMBER_RULES: ClassVar[dict[str, str]] = {
        "epochs": "positive",
        "patience": "positive?",
        "batch_size": "positive",
        "lr": "positive?",
        "lambda_w": "non-negative?",
        "lambda_c": "non-negative?",
        "clip": "positive?",
        "seed": "non-negative",
        "checkpoint_every": "non-negative",
        "log_every": "positive",
        "dim": "positive?",
        "min_count": "non-negative",
        "piece_components": "non-negative",
    }

    def check_numbers(self) -> None:
        from parasent.support.validation import check_number

        flat = self.flat()
        for key, rule in self.NUMBER_RULES.items():
            if key in flat:  # named as both spell it: fit(clip=-1) and --clip -1 meet one line
                flag = self.FLAGS.get(key, "--" + key.replace("_", "-"))
                name = f"{key} ({flag})" if flag else key
                check_number(name, flat[key], rule.rstrip("?"), optional=rule.endswith("?"))

    @property
    def learning_rate(self) -> float:
        return DEFAULT_LEARNING_RATES[self.optimizer] if self.lr is None else self.lr

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def flat(self) -> dict[str, Any]:
        """Every option under its flat name."""
        return self.to_dict()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown {cls.KIND} option(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    def resume_compatible(self, other: RunOptions) -> list[str]:
        """Options that differ from ``other`` in a way that would make a resumed run a different run."""
        mine, theirs = self.flat(), other.flat()
        return [k for k in mine if k not in self.RESUMABLE_CHANGES and mine[k] != theirs[k]]


@dataclass
class DataConfig:
    """The training text: paraphrase pairs (margin objective) or running text (Siamese CBOW)."""

    pool: str | None = option("standard", help="named training pool (standard, sts2012-train); 'none' to use only --pairs")  # fmt: skip
    pair_files: list[list[str]] = option([], flag="--pairs", action="append", metavar="FILE[:FORMAT]", help="extra paraphrase pairs; FORMAT is tsv (s1<TAB>s2), labelled, ppdb or sts (score<TAB>s1<TAB>s2); not named: tsv, labelled or sts, read from the file")  # fmt: skip
    min_score: float | None = option(None, help="scored pairs (--pool sts2012-train, --pairs FILE:sts) count as paraphrases from this gold score up (unset: the pool's own, 3.8 for sts2012-train)")  # fmt: skip
    synthetic: str | None = option(None, metavar="GENERATOR", help="add synthetic paraphrase pairs: ppdb (offline lexical substitution), file:PATH (sentence<TAB>paraphrase lines), python:MODULE:FUNCTION (e.g. a machine-translation round trip)")  # fmt: skip
    synthetic_for: str = option("validation", help="whose sentences --synthetic paraphrases: 'train' (the training pairs) or a suite (e.g. validation: TRANSDUCTIVE, the pairs contain that suite's evaluation sentences)")  # fmt: skip
    corpus: str | None = option(None, help="siamese-cbow: running text, a named corpus (standard, gutenberg, movie_reviews, state_union) or PATH[:sentences|wrapped|paragraphs]")  # fmt: skip
    max_pairs: int | None = option(None, help="train on a seeded subsample of this many pairs")
    min_count: int = option(1, help="training words below this count map to [UNK]")
    unknown: str = option("vector", choices=["vector", "skip", "pieces"], help="out-of-vocabulary words: a trained [UNK] vector, skipped, or the rows of their subword pieces (the teacher's WordPiece vocabulary; needs a teacher)")  # fmt: skip
    max_ngrams: int | None = option(100_000, help="cap on the character n-gram vocabulary (character encoders; CHARAGRAM's had 100,283)")  # fmt: skip
    word_bigrams: int = option(0, help="word models: also average the N most frequent word bigrams (seen twice or more) of the training and teacher text, rows starting at zero (0: words only)")  # fmt: skip
    word_trigrams: int | None = option(None, help="word models: also average the N most frequent word trigrams (three adjacent known words, seen twice or more) of the training and teacher text, rows starting at zero (unset or 0: none)")  # fmt: skip
    length_buckets: int = option(0, help="batch pairs of similar length (sorted within chunks of N batches; 0: random batches)")  # fmt: skip
    prepared: str | None = option(None, metavar="DIR", help="train on the shards of a `parasent prepare` directory: its pairs and vocabulary, memory bounded by the shard size (docs/training-at-scale.md)")  # fmt: skip
    scores: str = option("threshold", choices=list(SCORE_USES), help="pairs with a score (sts) or a label (labelled): threshold (paraphrases from --min-score up, label 1) or rank (every pair kept, the batch's cosines ranked as its scores; labelled negatives count)")  # fmt: skip
    held_out: float = option(0.1, help="with --validation held-out: the share of the training pairs held out to select on (seeded; pairs that share a sentence stay on one side)")  # fmt: skip
    leakage_guard: str = option("on", choices=list(GUARD_STATES), help="on: drop every training pair (or sentence) sharing a sentence with the transfer suite, STS 2016 or a domain test split (MSRP, Twitter URL, PAWS-Wiki, Quora BiMPM), so that their figures stay comparable; suites: the transfer suite and STS 2016 alone (the guard before 2026-11-29, with which the shipped default was built: scripts/build_default.sh); off: keep them, to adapt to a domain of those suites (SICK, MSRvid); the run's transfer and STS 2016 figures are then marked not comparable")  # fmt: skip

    def __post_init__(self) -> None:
        if self.scores not in SCORE_USES:
            raise ValueError(f"scores must be one of {SCORE_USES}, got {self.scores!r}")
        if self.length_buckets < 0:
            raise ValueError(f"length_buckets must be >= 0, got {self.length_buckets}")
        if self.word_bigrams < 0:
            raise ValueError(f"word_bigrams must be >= 0, got {self.word_bigrams}")
        if self.word_trigrams is not None and self.word_trigrams < 0:
            raise ValueError(f"word_trigrams must be >= 0, got {self.word_trigrams}")
        if self.leakage_guard not in GUARD_STATES:
            raise ValueError(f"leakage_guard must be one of {GUARD_STATES}, got {self.leakage_guard!r}")
        if self.word_trigrams == 0:  # one configuration for "none": a run log's unset option matches it
            self.word_trigrams = None


@dataclass
class EncoderConfig:
    """The encoder and where its word vectors start: vectors, a trained model, or random."""

    name: str = option(DEFAULT_ENCODER, flat="encoder", help=encoder_names_help())
    options: dict[str, Any] = option({}, flat="encoder_options", flag="--encoder-option", action="append", metavar="KEY=VALUE", help="encoder hyperparameter, VALUE in JSON where not a plain word (activation=relu, layers=2, output_gate=false, widths=[1,2,3])")  # fmt: skip
    vectors: str | None = option(DEFAULT_VECTORS, help="initial word vectors (GloVe/word2vec text), relative to the data directory unless a file; 'none' for random initialisation")  # fmt: skip
    dim: int | None = option(None, help="embedding dimension (required with --vectors none)")
    init_model: str | None = option(None, help="continue this trained model (fine-tuning, cumulative training): its vocabulary and weights, scored on validation first (implies --vectors none)")  # fmt: skip
    init_std: float | None = option(None, help="std of randomly initialised word vectors (unset: as the initial vectors, or 0.1)")  # fmt: skip
    dropout: float = option(
        0.0, help="dropout on embedding vectors while training (Jiao et al. 2018, Sec. 4.1)"
    )
    vocabulary: str = option("grow", choices=list(VOCABULARIES), help="grow: training words missing from the vectors get new rows; initial: the paper's (the vectors' words + [UNK])")  # fmt: skip
    freeze_words: bool = option(False, help="do not update the word vectors (the paper's grid)")

    def __post_init__(self) -> None:
        if self.vocabulary not in VOCABULARIES:
            raise ValueError(f"vocabulary must be one of {VOCABULARIES}, got {self.vocabulary!r}")
        if self.freeze_words and averages_words(self.name):
            raise ValueError("freeze_words leaves word averaging nothing to train (its only parameters)")
        if self.init_std is not None and self.init_std <= 0:
            raise ValueError("init_std must be positive")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.init_model is not None and self.vectors is not None:
            raise ValueError("init_model brings its own vectors: set vectors to none")


@dataclass
class OptimizerConfig:
    """The optimizer, its rate and schedule, and the passes over the data."""

    name: str = option("adagrad", flat="optimizer", choices=list(OPTIMIZERS), help="optimizer")
    lr: float | None = option(None, shown_default="0.05 AdaGrad, 0.001 Adam, 1.0 AdaDelta", help="learning rate")  # fmt: skip
    lr_schedule: str = option("constant", choices=list(LR_SCHEDULES), help="linear: the rate decreases in proportion to the batches done")  # fmt: skip
    epochs: int = option(50, help="passes over the data")
    patience: int | None = option(None, help="stop once the validation figure has not risen for this many epochs (the best epoch is kept)")  # fmt: skip
    batch_size: int = option(100, help="pairs (or sentences) per step")
    clip: float | None = option(None, help="clip the gradient norm to this value")

    def __post_init__(self) -> None:
        if self.name not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.name!r}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"lr_schedule must be one of {LR_SCHEDULES}, got {self.lr_schedule!r}")
        from parasent.support.validation import check_number

        # a whole number (fit(batch_size="10")) first; named by both spellings, as check_numbers does
        check_number("batch_size (--batch-size)", self.batch_size, "count")
        check_number("epochs (--epochs)", self.epochs, "count")
        if self.batch_size < 2:
            raise ValueError("batch_size must be at least 2 (negatives come from the batch)")

    @property
    def learning_rate(self) -> float:
        return DEFAULT_LEARNING_RATES[self.name] if self.lr is None else self.lr


@dataclass
class ObjectiveConfig:
    """The loss: the margin objective (Wieting et al. 2016, Eq. 1-3) or Siamese CBOW."""

    name: str = option("margin", flat="objective", choices=list(OBJECTIVES), help="margin: paraphrase pairs (Wieting et al. 2016); siamese-cbow: running text (Kenter et al. 2016)")  # fmt: skip
    delta: float = option(0.6, help="margin")
    negatives: str = option(
        "max", choices=["max", "mix", "rand"], help="negative selection in the mini-batch"
    )
    num_negatives: int = option(2, help="siamese-cbow: random negative sentences per example (n)")
    lambda_w: float = option(1e-8, help="pull of word vectors to their initial values")
    lambda_c: float | None = option(None, shown_default=f"per encoder, from the papers' grids: {default_lambda_c_help()}", help="L2 on composition parameters")  # fmt: skip
    # How Eq. 1's lambda_w pull is applied (docs/paper-deviations.md)
    pull: str = option("lazy", choices=list(PULL_MODES), help="lambda_w pull: exact (dense, every row at every step, cost O(vocabulary)) or lazy (batch rows, scaled by the steps since last seen)")  # fmt: skip
    pull_rows: str = option("initial", choices=list(PULL_ROWS), help="rows lambda_w pulls: those of the initial vectors, or all (new training words towards their random start)")  # fmt: skip
    composition_prior: str = option("auto", choices=list(COMPOSITION_PRIORS), help="what lambda_c pulls composition parameters to (auto: initial for identity_rnn and --init-model)")  # fmt: skip
    margin_weight: float = option(1.0, help="weight of the margin loss when the teacher regression is on")
    keep_start: float = option(0.0, help="with --init-model: weight of matching the batch's sentence cosines to those of the model the run starts from (self-distillation against forgetting); 0 = off")  # fmt: skip
    megabatch: int = option(1, metavar="M", help="MAX negatives chosen among the sentences of M consecutive mini-batches (Wieting & Gimpel 2018)")  # fmt: skip
    megabatch_anneal: int = option(0, metavar="N", help="grow the mega-batch from 1 by one every N steps up to --megabatch (0: M from the start)")  # fmt: skip
    negatives_across_ranks: bool = option(False, help="under torchrun: MAX negatives among the batches of every process (the global batch)")  # fmt: skip

    def __post_init__(self) -> None:
        if self.pull not in PULL_MODES:
            raise ValueError(f"pull must be one of {PULL_MODES}, got {self.pull!r}")
        if self.pull_rows not in PULL_ROWS:
            raise ValueError(f"pull_rows must be one of {PULL_ROWS}, got {self.pull_rows!r}")
        if self.name not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.name!r}")
        if self.negatives not in NEGATIVE_STRATEGIES:
            raise ValueError(f"negatives must be one of {NEGATIVE_STRATEGIES}, got {self.negatives!r}")
        if self.num_negatives < 1:
            raise ValueError("num_negatives must be at least 1")
        if self.composition_prior not in COMPOSITION_PRIORS:
            raise ValueError(
                f"composition_prior must be one of {COMPOSITION_PRIORS}, got {self.composition_prior!r}"
            )
        if self.margin_weight < 0:
            raise ValueError("margin_weight must be >= 0")


SECTIONS: dict[str, type] = {
    "data": DataConfig,
    "encoder": EncoderConfig,
    "optimizer": OptimizerConfig,
    "objective": ObjectiveConfig,
    "teacher": TeacherConfig,
}


def flat_name(spec: Any) -> str:
    """The flat name of a dataclass field (its own name unless its metadata says otherwise)."""
    return spec.metadata.get("flat") or spec.name


def typed_value(spec: Any, value: Any) -> Any:
    """An option's value as typed (``--x none``, ``fit(x="none")``): 'none' is None, an unset
    option, unless 'none' is one of the option's own choices (``--distill-weighting none``) or
    the option has choices and no unset state (``leakage_guard="none"``: refused naming 'none',
    not None)."""
    choices = spec.metadata.get("choices") or ()
    if isinstance(value, str) and value.lower() == "none" and "none" not in choices:
        return value if choices and spec.default is not None else None
    return value


@dataclass
class TrainConfig(RunOptions):
    """Defaults: the paper's procedure (Wieting et al. 2016, Sec. 4.2.1: batch 100, AdaGrad at
    0.05, MAX negatives), with delta, lambda_w and min_count picked from the paper's grids by
    STS 2016 validation on the standard pool (docs, "Results"), and more epochs because the
    pool is ~35k pairs instead of PPDB XL's 3M.

    Build one from flat names with :meth:`from_flat` (or :meth:`preset`); change one with
    :meth:`replace`.
    """

    RESUMABLE_CHANGES = RunOptions.RESUMABLE_CHANGES | {"cache_dir"}  # where the teacher cache lives
    NUMBER_RULES: ClassVar[dict[str, str]] = {
        **RunOptions.NUMBER_RULES,
        "max_pairs": "positive?",
        "delta": "non-negative",
        "num_negatives": "positive",
        "init_std": "positive?",
        "min_score": "non-negative?",
        "dropout": "fraction",
        "max_ngrams": "positive?",
        "length_buckets": "non-negative",
        "teacher_weight": "non-negative",
        "teacher_batch_size": "positive",
        "teacher_contrastive": "non-negative",
        "teacher_temperature": "positive",
        "teacher_relational": "non-negative",
        "teacher_tokens": "non-negative",
        "teacher_max_sentences": "positive?",
        "distill_vocab": "non-negative",
        "distill_sif_a": "positive",
        "distill_pca": "positive?",
        "margin_weight": "non-negative",
        "remove_components": "non-negative",
        "keep_start": "non-negative",
        "held_out": "fraction",
        "blend_within": "non-negative?",
    }

    data: DataConfig = field(default_factory=DataConfig)
    encoder: EncoderConfig = field(default_factory=EncoderConfig)
    optimizer: OptimizerConfig = field(default_factory=OptimizerConfig)
    objective: ObjectiveConfig = field(default_factory=ObjectiveConfig)
    teacher: TeacherConfig = field(default_factory=TeacherConfig)
    seed: int = option(1, help="random seed (a CPU run is repeatable)")
    validation: str | None = option(
        "validation",
        help="what selects the best epoch: a suite (validation = STS 2016, ppdb-dev, ...), held-out (a share "
        "of the training pairs, --held-out), a file of your pairs FILE[:FORMAT] (tsv, labelled, sts), or "
        "'none' (the last epoch)",
    )
    selection: str = option(
        "best",
        help="how the validation figure chooses the epoch: best (the highest) or clears-noise (an epoch "
        "replaces the best only by more than the standard error of their difference on the same pairs; "
        "docs/adapt.md, the selection study)",
        choices=list(SELECTIONS),
    )
    blend_within: float | None = option(
        None,
        help="after a contextual fine-tune, pull the trained composition back toward the start's, keeping the "
        "point of best validation figure whose STS 2016 is not below the start's by more than this many "
        "standard errors of their difference (parasent/training/blending.py; the finetune recipe's "
        "contextual layer: 1); none: the trained one",
    )
    protocol: str = option(
        "standard",
        help="standard: select on STS 2016; ppdb (Wieting et al. 2016, Table 3): select on the PPDB dev half "
        "by Spearman, training on no Pavlick pair and no pair sharing a phrase with the PPDB test half",
        choices=["standard", "ppdb"],
    )
    checkpoint_every: int = option(
        0, help="also checkpoint every N steps (0: at the end of every epoch only)"
    )
    log_every: int = option(50, help="log the running loss every N steps")
    device: str = option("auto", help="cpu, cuda, or auto")

    @property
    def validation_file(self) -> str | None:
        """The file of the user's pairs that selects the epoch (``--validation FILE[:FORMAT]``);
        None for a suite or data set of the registry, the held-out pairs, or no validation."""
        from parasent.data.registry.catalog import SIMILARITY, SUITES

        spec = self.validation
        if spec is None or spec == HELD_OUT or spec in SUITES or spec in SIMILARITY:
            return None
        return spec

    def __post_init__(self) -> None:
        from parasent.encoders import check_encoder_options

        self.check_numbers()
        check_encoder_options(self.encoder.name, self.encoder.options)
        data, encoder = self.data, self.encoder
        if encoder.vectors is None and encoder.dim is None and encoder.init_model is None:
            raise ValueError("without initial vectors, dim is required")
        if self.objective.name == "siamese-cbow":
            if data.corpus is None:
                raise ValueError("the siamese-cbow objective trains on running text: set a corpus")
            if data.pool is not None or data.pair_files or data.synthetic:
                raise ValueError(
                    "the siamese-cbow objective reads --corpus only; use --pool none, no --pairs"
                )
        elif data.corpus is not None:
            raise ValueError(
                "a corpus is running text for --objective siamese-cbow; margin training reads pairs"
            )
        if self.objective.keep_start and encoder.init_model is None:
            raise ValueError(
                "keep_start keeps the cosines of the model a run continues: it needs --init-model "
                "(the finetune recipe is for continuing a model)"
            )
        if encoder.vectors == "distilled" and self.teacher.model is None:
            raise ValueError("vectors 'distilled' needs a teacher (--teacher auto or a directory)")
        for flag, units, count in (("--word-bigrams", "pairs", data.word_bigrams), ("--word-trigrams", "triples", data.word_trigrams)):  # fmt: skip
            if count and not averages_words(encoder.name):
                raise ValueError(
                    f"{flag} adds units to an average: it needs --encoder {word_averaging_names()}, not {encoder.name}"
                )
            if count and data.prepared:
                raise ValueError(f"{flag} counts {units} in the training text, not in a --prepared directory")
        if self.validation == HELD_OUT and data.held_out == 0:
            raise ValueError(
                "--held-out 0 holds no pair out to choose the epoch on: --validation none keeps the last "
                "epoch, --validation FILE[:FORMAT] chooses on a file of yours"
            )
        self._check_choices()
        self._check_blend()
        self._check_teacher_tokens()
        self._check_pieces()
        self._check_scale_options()

    def _check_blend(self) -> None:
        """``blend_within`` pulls a trained composition back toward the model a run continues."""
        if self.blend_within is None:
            return
        if not composes_rows(self.encoder.name):
            raise ValueError(f"blend_within pulls a trained composition back: {self.encoder.name!r} has none")
        if self.encoder.init_model is None:
            raise ValueError(
                "blend_within pulls a composition back toward the model it continues: it needs --init-model"
            )

    def _check_teacher_tokens(self) -> None:
        """The per-token term needs an encoder that composes rows token by token (a continued
        model's encoder is read from it: checked when it is built, before the teacher's passes)."""
        encoder = self.encoder
        if self.teacher.teacher_tokens and encoder.init_model is None and not composes_rows(encoder.name):
            raise ValueError(
                f"--teacher-tokens matches each token of an encoder that composes rows (--encoder contextual), "
                f"not {encoder.name}"
            )

    def _check_choices(self) -> None:
        """Every option of choices holds one of them (or is unset): ``fit``'s keywords and a
        recipe's are not checked by the command line's parser."""
        for section, spec in self.option_fields():
            choices = spec.metadata.get("choices")
            value = getattr(getattr(self, section) if section else self, spec.name)
            unset = value is None and spec.default is None  # an option whose default is unset
            if choices and not unset and value not in choices:
                raise ValueError(f"{flat_name(spec)} must be one of {tuple(choices)}, got {value!r}")
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {tuple(PROTOCOLS)}, got {self.protocol!r}")
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {self.selection!r}")

    def _check_pieces(self) -> None:
        """--unknown pieces takes its pieces from the teacher; --piece-view trains them."""
        data, encoder = self.data, self.encoder
        if data.unknown == "pieces" and (encoder.vectors != "distilled" or not averages_words(encoder.name)):
            raise ValueError(
                "--unknown pieces distils the teacher's subword pieces: it needs --vectors distilled "
                f"and --encoder {word_averaging_names()}"
            )
        if self.teacher.piece_view > 0 and (data.unknown != "pieces" or self.teacher.teacher_weight <= 0):
            raise ValueError(
                "--piece-view trains piece rows: it needs --unknown pieces and --teacher-weight > 0"
            )

    def _check_scale_options(self) -> None:
        """--megabatch and --prepared (docs/training-at-scale.md) with the options they exclude."""
        data, objective = self.data, self.objective
        if objective.megabatch < 1 or objective.megabatch_anneal < 0:
            raise ValueError("--megabatch must be >= 1 and --megabatch-anneal >= 0")
        mega = objective.megabatch > 1 or objective.megabatch_anneal > 0  # as run.at_scale wraps the data
        if mega and objective.negatives != "max":
            raise ValueError("megabatch negatives are MAX negatives of the margin loss (--negatives max)")
        if mega and self.teacher.teacher_weight > 0:
            raise ValueError(
                f"megabatch negatives are those of the margin loss alone: this run also learns from the "
                f"teacher (--teacher-weight {self.teacher.teacher_weight:g}); --teacher none runs without it"
            )
        if data.prepared is None:
            return
        others = {
            "pool": data.pool, "pairs": data.pair_files, "synthetic": data.synthetic, "max_pairs": data.max_pairs,
            "teacher": self.teacher.model, "init_model": self.encoder.init_model,
        }  # fmt: skip
        if objective.name != "margin":
            raise ValueError(
                f"--prepared holds paraphrase pairs for the margin objective; --objective {objective.name} "
                "does not train on them"
            )
        typed = [f"--{name.replace('_', '-')}" for name, value in others.items() if value]
        typed = [f"--pool {data.pool} (--pool none)" if flag == "--pool" else flag for flag in typed]
        typed += ["--length-buckets"] if data.length_buckets else []
        if typed:
            raise ValueError(f"--prepared brings its own pairs and vocabulary: drop {', '.join(typed)}")

    # the view of the training loop (parasent.training.trainer.LoopOptions) ------------------
    @property
    def epochs(self) -> int:
        return self.optimizer.epochs

    @property
    def patience(self) -> int | None:
        return self.optimizer.patience

    @property
    def batch_size(self) -> int:
        return self.optimizer.batch_size

    @property
    def clip(self) -> float | None:
        return self.optimizer.clip

    @property
    def learning_rate(self) -> float:
        return self.optimizer.learning_rate

    @property
    def composition_weight(self) -> float:
        """lambda_c: as set, or the encoder's default (from the papers' grids)."""
        if self.objective.lambda_c is not None:
            return self.objective.lambda_c
        return encoder_entry(self.encoder.name).lambda_c

    # flat names ------------------------------------------------------------------------
    @classmethod
    def option_fields(cls) -> Iterator[tuple[str | None, Any]]:
        """``(section, field)`` of every option, sections first (section None: the run's own)."""
        for section, kind in SECTIONS.items():
            for spec in fields(kind):
                yield section, spec
        for spec in fields(cls):
            if spec.name not in SECTIONS:
                yield None, spec

    def flat(self) -> dict[str, Any]:
        """Every option under its flat name (the layout of configurations before the sections)."""
        out = {}
        for section, spec in self.option_fields():
            owner = getattr(self, section) if section else self
            out[flat_name(spec)] = getattr(owner, spec.name)
        return out

    @classmethod
    def from_flat(cls, **flat: Any) -> TrainConfig:
        """A configuration from flat names (``encoder="dan", lr=0.01``); the others take their defaults."""
        where = {flat_name(spec): (section, spec.name) for section, spec in cls.option_fields()}
        unknown = set(flat) - set(where)
        if unknown:
            raise ValueError(f"unknown {cls.KIND} option(s): {', '.join(sorted(unknown))}")
        parts: dict[str | None, dict[str, Any]] = {None: {}, **{s: {} for s in SECTIONS}}
        for name, value in flat.items():
            section, attribute = where[name]
            parts[section][attribute] = value
        sections = {s: kind(**parts[s]) for s, kind in SECTIONS.items()}
        return cls(**sections, **parts[None])

    def replace(self, **flat: Any) -> TrainConfig:
        """This configuration with the options of ``flat`` (flat names) changed."""
        return type(self).from_flat(**{**self.flat(), **flat})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """From :meth:`to_dict` (sections), or from the flat layout that checkpoints, model
        directories and run logs written before the sections hold (missing options: defaults)."""
        return cls.from_flat(**cls.flatten(data))

    @staticmethod
    def flatten(data: dict[str, Any]) -> dict[str, Any]:
        """A stored configuration (sectioned or flat) as flat names."""
        flat = {k: v for k, v in data.items() if not (k in SECTIONS and isinstance(v, dict))}
        for section, kind in SECTIONS.items():
            values = data.get(section)
            if not isinstance(values, dict):
                continue
            names = {spec.name: flat_name(spec) for spec in fields(kind)}
            unknown = set(values) - set(names)
            if unknown:
                raise ValueError(f"unknown {section} option(s): {', '.join(sorted(unknown))}")
            flat.update({names[k]: v for k, v in values.items()})
        return flat

    @classmethod
    def preset(cls, objective: str = "margin", recipe: str | None = None, **overrides: Any) -> TrainConfig:
        """The defaults of ``objective`` (:data:`OBJECTIVE_PRESETS`), then those of ``recipe``
        (:data:`RECIPES`, see :func:`resolve_recipe`), then those of the ``protocol`` override
        (:data:`PROTOCOLS`), with ``overrides`` (flat names) on top."""
        if objective not in OBJECTIVE_PRESETS:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
        layers = {**OBJECTIVE_PRESETS[objective]}
        if recipe is not None:
            resolved = resolve_recipe(recipe, objective, overrides)
            _check_teacher_kept(resolved, overrides)
            layers.update(RECIPES[resolved])
            if overrides.get("teacher", layers.get("teacher")) is not None:
                layers.update(WITH_TEACHER.get(resolved, {}))
            if composes_rows(overrides.get("encoder", layers.get("encoder", DEFAULT_ENCODER))):
                layers.update(composing_layers(resolved, overrides))
        layers.update(PROTOCOLS.get(overrides.get("protocol", "standard"), {}))  # unknown: __post_init__
        return cls.from_flat(**{**layers, "objective": objective, **overrides})


# The options whose flag is not --their-flat-name (pair_files: --pairs), as their fields declare
# them: the resume check and the number checks name an option by the flag a user types.
TrainConfig.FLAGS = {
    flat_name(spec): spec.metadata["flag"]
    for _, spec in TrainConfig.option_fields()
    if spec.metadata.get("flag")
}

# Per-objective defaults that differ from the fields' (which are the margin objective's).
# Siamese CBOW follows Kenter et al. (2016), Sec. 2.3 and 3.4: random N(0, 0.01^2) vectors
# of 300 dimensions, words seen >= 5 times (others omitted, as in their evaluation), batch
# 100, n = 2 negatives, SGD with the rate decreasing with the number of batches. Their rate
# (1e-4) and single epoch are for 74M sentences; here the rate and epochs were chosen on
# STS 2016 for the ~132k sentences of the standard corpus (docs, "Siamese CBOW").
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
# defaults (PARAGRAM-PHRASE from GloVe-4k, margin objective only). ``finetune``: continuing a
# trained model (--init-model) on the user's pairs (docs/adapt.md, the lever table): their
# scores and labels ranked, unscored pairs by the margin loss, the starting model's cosines
# kept (keep_start), AdaGrad at a rate that moves the frequent words' rows least, the epoch
# chosen on a held-out share of the user's pairs. ``distilled``: the default
# model of parasent (docs, "Distilled default model"): PARAGRAM-PHRASE from word vectors
# distilled from the all-MiniLM-L6-v2 teacher (contextual means over the teacher text, SIF
# prior) plus the 100,000 most frequent word bigrams of that text (rows from zero), trained by
# regression onto the teacher's embeddings of unlabelled sentences (with an in-batch InfoNCE
# term), with the margin loss on the standard pool at ``margin_weight``; values chosen on STS
# 2016 (docs/default-model-levers.md, the lever table). ``contextual``: the general model of the
# contextual tier (docs/which-model.md): the shipped default's rows, frozen, composed by the
# contextual encoder (parasent/encoders/contextual.py), whose few parameters learn the teacher's
# in-batch cosines (the relational term: the student is 256-d, the teacher 384-d) and, token by
# token, how the teacher's context moves each word (the per-token term at 1, within the teacher's
# weight: distillation/token_targets.py) on 60,000 sentences of the distilled recipe's teacher
# text, batched as neighbours of the teacher's, at Adam 3e-4 for 2 epochs: of the general lever
# table's trained models with the installed teacher (all-MiniLM-L6-v2) at the tier's speed
# (hidden 128), the best on STS 2016 (77.98 at epoch 2 with the guard on the domain test splits;
# without the per-token term 77.49; the term at 0.1 and 10 read 77.66).
RECIPES: dict[str, dict[str, Any]] = {
    "paper": {},
    "finetune": {
        "pool": None,
        "scores": "rank",
        "keep_start": 30.0,
        "validation": HELD_OUT,
        "delta": 0.4,
        "lambda_w": 0.0,
        "optimizer": "adagrad",
        "lr": 2e-3,
        "epochs": 8,
        "teacher_text": ["pool"],
        "teacher_relational": 30.0,
        "teacher_contrastive": 0.0,
    },
    "distilled": {
        "vectors": "distilled",
        "teacher": "auto",
        "teacher_weight": 1.0,
        "margin_weight": 0.25,
        "teacher_text": ["corpus", "pool", "extended", "sts-train"],
        "distill_vocab": 200000,
        "teacher_contrastive": 1.0,
        "teacher_temperature": 0.1,
        "word_bigrams": 100000,
        "unknown": "pieces",
        "piece_components": 4,
        "piece_view": 0.25,
        "typo_view": 0.15,
        "distill_sif_a": 1e-4,
        "distill_context": True,
        "lambda_w": 0.0,
        "optimizer": "adam",
        "lr": 3e-4,
        "epochs": 3,
    },
    "contextual": {
        "init_model": "default",
        "encoder": "contextual",
        "vectors": None,
        "freeze_words": True,
        "teacher": "auto",
        "teacher_weight": 1.0,
        "teacher_text": ["corpus", "pool", "extended", "sts-train"],
        "teacher_max_sentences": 60000,
        "teacher_batches": "neighbours",
        "teacher_relational": 30.0,
        "teacher_tokens": 1.0,
        "teacher_contrastive": 0.0,
        "margin_weight": 0.0,
        "lambda_w": 0.0,
        "optimizer": "adam",
        "lr": 3e-4,
        "epochs": 2,
    },
}
AUTO_RECIPE = "auto"
# A recipe's defaults where the run names a teacher (--teacher): fine-tuning matches the teacher's
# cosines on the run's sentences (its pairs', and any --teacher-text file of the user's own).
WITH_TEACHER: dict[str, dict[str, Any]] = {"finetune": {"teacher_weight": 1.0}}
# A recipe's defaults for an encoder that composes an averaging model's rows (the contextual
# tier, docs/which-model.md): fine-tuning keeps the rows and trains the composition (Adam: AdaGrad's
# rate for rows barely moves a convolution), with the teacher's cosines on general running text
# beside the user's pairs, when the teacher is installed (teacher_text_for_composing), so that
# word order is learnt without forgetting; at a weight (10) that leaves the composition room to
# learn, the relational term (the teacher's in-batch cosines) at a third of the finetune recipe's
# weight beside the regression onto the teacher's aligned vectors (10: of 0, 3, 10 and 30 the one
# Quora's labelled dev file ranks first beyond its noise, +0.56 +- 0.05 over 3, the held-out pairs
# of PAWS and PIT within their noise of 3's; 0 forgets), and the trained composition then pulled
# back toward the start as far as the held-out pairs and STS 2016 say (blend_within,
# parasent/training/blending.py; the lever tables of docs/which-model.md).
COMPOSING: dict[str, dict[str, Any]] = {
    "finetune": {"freeze_words": True, "optimizer": "adam", "lr": 3e-4, "blend_within": 1.0},
}
COMPOSING_TEACHER: dict[str, Any] = {
    "teacher": "auto",
    "teacher_text": ["pool", "corpus:20000"],
    "teacher_weight": 10.0,
    "teacher_align": True,
    "teacher_relational": 10.0,
}


def composing_layers(recipe: str, typed: dict[str, Any]) -> dict[str, Any]:
    """:data:`COMPOSING`'s defaults of ``recipe``, with :data:`COMPOSING_TEACHER` where a teacher
    is named, or none is and the teacher is installed (``--teacher none`` turns it off)."""
    if recipe not in COMPOSING:
        return {}
    layers = dict(COMPOSING[recipe])
    if "teacher" in typed:
        wanted = typed["teacher"] is not None
    else:
        from parasent.distillation.teacher import teacher_available

        wanted = teacher_available()
    if wanted:
        layers.update({k: v for k, v in COMPOSING_TEACHER.items() if k not in typed})
    return layers


# Evaluation protocols, layered on the recipe. ``standard`` (data MANIFEST): select on STS 2016.
# ``ppdb`` (Wieting et al. 2016, Sec. 4.2.1): select on the PPDB dev half by Spearman's rho; the
# training pool then leaves out every Pavlick pair and every pair sharing a phrase with the
# PPDB test half (parasent.data.training_text.pools.protocol_exclusions).
PROTOCOLS: dict[str, dict[str, Any]] = {
    "standard": {},
    "ppdb": {"validation": "ppdb-dev"},
}

# Options that bring the user's own starting point or training data: with one of them typed,
# ``auto`` means ``paper`` (the distilled recipe's teacher pass is for the standard pool).
OWN_START = ("vectors", "init_model")
OWN_DATA = ("pair_files", "corpus", "synthetic", "prepared")


def _check_teacher_kept(recipe: str | None, overrides: dict[str, Any]) -> None:
    """A recipe that is a teacher's distillation, asked for without a teacher: said first, in
    one line (each of its teacher options refused in turn sent a user through a chain)."""
    if (
        recipe is None
        or not RECIPES[recipe].get("teacher")
        or "teacher" not in overrides
        or overrides["teacher"]
    ):
        return
    if overrides.get("teacher_weight", RECIPES[recipe].get("teacher_weight", 0)) > 0:  # its terms kept
        raise ValueError(
            f"the {recipe} recipe distils a teacher: it cannot run with --teacher none as it is "
            "(--recipe paper trains without one; --teacher-weight 0 turns off the recipe's teacher terms)"
        )


def resolve_recipe(
    name: str = AUTO_RECIPE, objective: str = "margin", typed: dict[str, Any] | None = None
) -> str | None:
    """The recipe a run with these typed options (flat names) uses; None for objectives other
    than margin (recipes are margin defaults).

    ``auto`` is ``finetune`` when the run continues a model (``--init-model``) on the user's own
    data (``--pairs``, ``--teacher-text``...; without it, the standard pool: cumulative training); ``distilled``
    when the teacher is installed (``pip install parasent[distill]``) and the user brought
    neither their own starting point, nor their own training data, nor an encoder other than
    word averaging; otherwise ``paper``. So a run on the user's ``--pairs``
    never starts the distilled recipe's teacher pass unless ``--recipe distilled`` asks for it.
    """
    if name != AUTO_RECIPE and name not in RECIPES:
        raise ValueError(f"unknown recipe {name!r} (known: {AUTO_RECIPE}, {', '.join(RECIPES)})")
    if objective != "margin":
        return None
    if name != AUTO_RECIPE:
        return name
    typed = typed or {}
    if typed.get("init_model") and any(typed.get(name) for name in (*OWN_DATA, "teacher_text")):
        return "finetune"
    if auto_reason(typed):
        return "paper"
    from parasent.distillation.teacher import teacher_available

    return "distilled" if teacher_available() else "paper"


def auto_reason(typed: dict[str, Any]) -> str | None:
    """Why ``--recipe auto`` falls back to ``paper`` for these typed options, or None."""
    own = [name for name in OWN_START if name in typed]
    own += [name for name in OWN_DATA if typed.get(name)]
    if typed.get("pool", "standard") != "standard":
        own.append("pool")
    if own:
        return "your own " + ", ".join(
            "--pairs" if n == "pair_files" else f"--{n.replace('_', '-')}" for n in own
        )
    if typed.get("encoder", DEFAULT_ENCODER) != DEFAULT_ENCODER:
        return f"--encoder {typed['encoder']}"
    return None
