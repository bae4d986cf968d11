"""Distillation as a provider of two training stages (:mod:`parasent.training.run`): the
*initial vectors* (word vectors distilled from the teacher) and the *objective* (the teacher
regression, mixed with the margin loss), plus the unlabelled sentences both read and the one
teacher step on the new encoder (``remove_components``).

It reads the ``teacher`` section of a run's configuration
(:class:`~parasent.distillation.teacher_config.TeacherConfig`) and takes the few other options it needs
as arguments; it builds nothing of the training loop itself, so the layer below
``training/`` stays below it: the batch source that mixes the teacher's sentences with the
pairs is assembled by the training stage from :class:`TeacherTargets`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.data.readers.wordfreq import read_word_frequencies
from parasent.data.training_text.leakage import guard_note
from parasent.distillation.cache import CachedTeacher
from parasent.distillation.teacher_config import TeacherConfig
from parasent.distillation.token_targets import TokenTargets
from parasent.distillation.unlabelled import unlabelled_sentences
from parasent.distillation.words import DistilledVectors, distill_word_vectors, distillation_vocabulary
from parasent.text.tokenized import Tokenized
from parasent.text.vocab import count_words
from parasent.text.word_pieces import is_piece_token, piece_text, piece_token, teacher_pieces
from parasent.text.word_vectors import WordVectors, resolve_vectors_path

if TYPE_CHECKING:
    from parasent.data.training_text.pools import TrainingPair
    from parasent.encoders.base import Encoder
    from parasent.objectives.margin import MarginLoss
    from parasent.text.featurizers import Featurizer

ALIGN_SAMPLE = 50_000  # teacher sentences the alignment to a narrower student is fitted on
DISTILLED = "distilled"  # the ``vectors`` value that asks for distilled initial vectors


def distilled_vectors(
    teacher: CachedTeacher,
    frequencies_path: str | Path,
    *,
    top: int,
    training_texts: Iterable[str],
    weighting: str = "sif",
    sif_a: float = 3e-4,
    pca_dim: int | None = None,
    contextual_texts: Sequence[str] = (),
    pieces: bool = False,
    piece_components: int = 0,
    say: Callable[[str], None] = print,
) -> DistilledVectors:
    """Word vectors for the ``top`` most frequent words of the list plus every training word,
    and with ``pieces`` a row for each of the teacher's subword pieces (``[p]`` tokens,
    :mod:`parasent.text.word_pieces`), distilled the same way: the contextual mean where the
    teacher text has the piece, the teacher's embedding of the piece alone otherwise."""
    frequencies = read_word_frequencies(frequencies_path)
    counts = count_words(training_texts)
    extra = sorted(counts, key=lambda w: (-counts[w], w))
    words = distillation_vocabulary(frequencies, top, extra)
    if pieces:
        words += [piece_token(p) for p in teacher_pieces(teacher.pieces())]
    say(
        f"distilling {len(words)} vectors ({top} frequent words + training words"
        f"{' + the teacher pieces' if pieces else ''}) from {teacher.path}"
    )
    contextual = None
    if contextual_texts:
        sums = teacher.contextual(contextual_texts)
        if sums is None:
            say("the teacher is not a mean-pooling transformer: word-alone vectors for every word")
        else:
            wanted = set(words)
            contextual = {w: v for w, v in sums.vectors().items() if w in wanted}
            counts.update(
                {w: int(c) for w, c in zip(sums.words, sums.counts, strict=False) if is_piece_token(w)}
            )
            say(
                f"{len(contextual)} words and pieces take their mean contextual vector over "
                f"{len(contextual_texts)} sentences"
            )
    distilled = distill_word_vectors(
        lambda ws: teacher.encode([piece_text(w) for w in ws], desc="teacher (words)"),
        words,
        frequencies=frequencies,
        weighting=weighting,
        sif_a=sif_a,
        pca_dim=pca_dim,
        fallback_counts=counts,
        contextual=contextual,
        piece_components=piece_components if pieces else 0,
    )
    distilled.info["teacher"] = teacher.describe()
    return distilled


@dataclass
class TeacherTargets:
    """The teacher's side of the objective stage: the objective, and the unlabelled sentences
    (token ids) with their teacher embeddings, batched ``batch_size`` per step; ``use_pairs``
    says whether the margin loss on the pairs is part of the objective."""

    objective: Any
    sentences: Tokenized
    targets: np.ndarray
    batch_size: int
    use_pairs: bool
    token_targets: TokenTargets | None = None  # with --teacher-tokens: each token's (token_targets.py)


@dataclass
class TeacherSide:
    """What a run takes from its teacher: the cached teacher, the unlabelled sentences of the
    regression objective, and the information recorded in the model's metadata."""

    teacher: CachedTeacher | None = None
    sentences: list[str] = field(default_factory=list)
    teacher_weight: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)
    projection: Any = None  # the PCA of distilled vectors, applied to the teacher's targets too

    @property
    def active(self) -> bool:
        """Whether the regression objective is on (a teacher, a weight and sentences)."""
        return self.teacher is not None and self.teacher_weight > 0 and bool(self.sentences)

    @classmethod
    def prepare(
        cls,
        options: TeacherConfig,
        data_dir: Path,
        pairs: Sequence[TrainingPair],
        forbidden: set[str],
        *,
        seed: int,
        distilled: bool,
        device: str,
        say: Callable[[str], None] = print,
        progress: bool = True,
    ) -> TeacherSide:
        """The teacher of ``options`` (none: an inactive side) and, when the regression or the
        contextual distillation of ``distilled`` initial vectors needs them, its unlabelled
        sentences (sampled with ``seed``; no evaluation sentence)."""
        if options.model is None:
            return cls()
        teacher = CachedTeacher(options.model, cache_dir=options.cache_dir, device=device, progress=progress)
        side = cls(teacher, [], options.teacher_weight, {"teacher": teacher.describe()})
        if options.teacher_weight > 0 or (options.distill_context and distilled):
            sentences, counts = unlabelled_sentences(
                options.teacher_text,
                data_dir,
                pairs,
                forbidden,
                limit=options.teacher_max_sentences,
                seed=seed,
            )
            side.sentences = sentences
            side.info["teacher_sentences"] = counts
            sources = {k: v for k, v in counts.items() if k not in ("leaked", "after_limit")}
            by_source = ", ".join(f"{k} {v}" for k, v in sources.items())
            read = counts["leaked"] + sum(sources.values())
            guard = guard_note("the teacher text", counts["leaked"], read, "sentence(s)")
            drawn = f"drawn at random from {sum(sources.values()):,}: " if "after_limit" in counts else ""
            say(
                f"teacher regression on {len(sentences)} unlabelled sentences ({drawn}{by_source}); "
                f"dropped {counts['leaked']} that the leakage guard keeps out (--leakage-guard)"
                + (f"; {guard}" if guard else "")
            )
            side.say_estimate(say)
        return side

    def say_estimate(self, say: Callable[[str], None]) -> None:
        """Say how long the teacher pass over the sentences not cached yet will take here."""
        if self.teacher is None:
            return
        missing, seconds = self.teacher.estimate(self.sentences)
        if missing:
            say(pass_estimate("teacher pass", missing, len(self.sentences), seconds))

    def initial_vectors(
        self,
        options: TeacherConfig,
        data_dir: Path,
        pairs: Sequence[TrainingPair],
        *,
        pieces: bool,
        say: Callable[[str], None] = print,
    ) -> WordVectors:
        """The *initial vectors* stage: word vectors distilled from the teacher for the frequent
        words and every word of the training pairs and unlabelled sentences, and with ``pieces``
        (``--unknown pieces``) for the teacher's subword pieces."""
        texts = [s for pair in pairs for s in (pair.s1, pair.s2)] + self.sentences
        init = distilled_vectors(
            self.teacher,
            resolve_vectors_path(options.frequencies, data_dir),
            top=options.distill_vocab,
            training_texts=texts,
            weighting=options.distill_weighting,
            sif_a=options.distill_sif_a,
            pca_dim=options.distill_pca,
            contextual_texts=self.sentences if options.distill_context else (),
            pieces=pieces,
            piece_components=options.piece_components,
            say=say,
        )
        self.info["distilled"] = init.info
        self.projection = init.projection
        return init.vectors

    def remove_components(
        self,
        options: TeacherConfig,
        encoder: Encoder,
        tokenizer: Featurizer,
        pairs: Sequence[TrainingPair],
        *,
        resumed: bool,
        say: Callable[[str], None] = print,
    ) -> None:
        """The step after the *encoder* stage: with ``options.remove_components``, the encoder's
        word vectors lose the top principal components of the averaged training sentences (pairs
        and unlabelled), folded into every word vector. Not on a ``resumed`` run: its
        checkpoint holds the vectors as they were trained from the folded ones."""
        count = options.remove_components
        if resumed or not count:
            return
        from parasent.core.inference import average_rows
        from parasent.distillation.postprocess import principal_components, remove_components
        from parasent.text.tokenizer import PAD_ID

        texts = list(dict.fromkeys([s for pair in pairs for s in (pair.s1, pair.s2)] + self.sentences))
        table = encoder.embedding.weight.detach().cpu().numpy()
        components = principal_components(average_rows(tokenizer.encode_batch(texts), table), count)
        table = remove_components(table, components)
        table[PAD_ID] = 0.0
        say(f"removed the top {count} principal component(s) of {len(texts)} training sentences")
        self.info["removed_components"] = count
        encoder.set_embeddings(table)

    def objective(
        self,
        options: TeacherConfig,
        encoder: Encoder,
        tokenizer: Featurizer,
        margin: MarginLoss,
        pair_count: int,
        *,
        margin_weight: float,
        lambda_w: float,
        seed: int,
        say: Callable[[str], None] = print,
    ) -> TeacherTargets | None:
        """The *objective* stage with the teacher: the regression onto the teacher's sentence
        embeddings, plus the ``margin`` loss on the pairs (when there are pairs and it has a
        ``margin_weight``; ``lambda_w`` pulls the word vectors to their start); None when the
        regression is off (the margin loss alone)."""
        if not self.active:
            return None
        from parasent.objectives.distillation import DistillationObjective

        checked = self._check_tokens(encoder, tokenizer) if options.teacher_tokens else None
        targets = self.teacher.encode(self.sentences, desc="teacher (sentences)")
        if self.projection is not None:
            targets = self.projection.apply(targets)
        regression = targets.shape[1] == encoder.output_dim
        if not regression and options.teacher_align:
            targets, regression = self._aligned(encoder, tokenizer, targets, seed, say), True
        if not regression and (options.teacher_contrastive or not options.teacher_relational):
            raise ValueError(
                f"the teacher's {targets.shape[1]}-dimensional embeddings cannot be regressed by a "
                f"{encoder.output_dim}-dimensional encoder (distil the initial vectors from the same teacher, "
                "or match cosines alone: --teacher-relational W with --teacher-contrastive 0)"
            )
        use_pairs = pair_count > 0 and margin_weight > 0
        objective = DistillationObjective(
            encoder,
            margin=margin if use_pairs else None,
            teacher_weight=self.teacher_weight,
            margin_weight=margin_weight,
            lambda_w=lambda_w,
            initial_embeddings=encoder.embedding.weight.detach().clone(),
            contrastive=options.teacher_contrastive,
            temperature=options.teacher_temperature,
            relational=options.teacher_relational,
            regression=regression,
            tokens=options.teacher_tokens,
        )
        sentences, targets = self._views(options, tokenizer, targets, seed, checked[0] if checked else None)
        tokens = self._token_targets(encoder, tokenizer, sentences, checked[1], say) if checked else None
        return TeacherTargets(objective, sentences, targets, options.teacher_batch_size, use_pairs, tokens)

    def _check_tokens(self, encoder: Encoder, tokenizer: Featurizer) -> tuple[Tokenized, Any]:
        """Before the teacher's passes, not after them: the encoder gives per-token outputs, the
        teacher per-token states, and the text enough words to fit the map onto the rows. Returns
        the teacher sentences tokenized and their single-token words, which the targets are built on."""
        from parasent.distillation.token_targets import check_enough_text
        from parasent.objectives.distillation import check_token_outputs

        check_token_outputs(encoder)
        assert self.teacher is not None
        self.teacher.check_word_states()
        tokenized = tokenizer.encode_batch(self.sentences)
        return tokenized, check_enough_text(
            tokenizer, self.sentences, tokenized, encoder.embedding.weight.shape[1]
        )

    def _token_targets(
        self,
        encoder: Encoder,
        tokenizer: Featurizer,
        sentences: Tokenized,
        split: Any,
        say: Callable[[str], None],
    ) -> TokenTargets:
        """Per-token targets of the teacher sentences (their first copy: a view's copy, spelt
        otherwise, has none; ``split``: their single-token words), from the teacher's word
        states (a second pass, cached)."""
        from parasent.distillation.token_targets import token_targets

        rows = encoder.embedding.weight.detach().float().cpu().numpy()
        missing, seconds = self.teacher.word_states_estimate(self.sentences)
        if missing:
            say(pass_estimate("teacher pass (word states)", missing, len(self.sentences), seconds))
        states = self.teacher.word_states(self.sentences)
        tokens = token_targets(tokenizer, self.sentences, sentences, states, rows, split=split)
        say(tokens.describe())
        self.info["token_targets"] = tokens.report
        return tokens

    def _aligned(
        self,
        encoder: Encoder,
        tokenizer: Featurizer,
        targets: np.ndarray,
        seed: int,
        say: Callable[[str], None],
    ) -> np.ndarray:
        """``targets`` carried into the student's space (:mod:`parasent.distillation.alignment`),
        the map fitted on a seeded sample of the teacher sentences as the student encodes them now."""
        from parasent.core.inference import normalize_rows
        from parasent.distillation.alignment import fit_alignment
        from parasent.encoders.base import encode_batches

        rng = np.random.default_rng(seed)
        sample = rng.choice(len(self.sentences), size=min(ALIGN_SAMPLE, len(self.sentences)), replace=False)
        student = encode_batches(encoder, tokenizer.encode_batch([self.sentences[i] for i in sample]))
        align = fit_alignment(targets[sample], student)
        aligned = (targets @ align).astype(np.float32)
        fit = float(np.mean(np.sum(normalize_rows(aligned[sample]) * normalize_rows(student), axis=1)))
        say(
            f"teacher targets aligned to the student's {align.shape[1]} dimensions (mean cosine to its start {fit:.3f})"
        )
        self.info["aligned"] = {"sample": len(sample), "start_cosine": round(fit, 4)}
        return aligned

    def _views(
        self,
        options: TeacherConfig,
        tokenizer: Featurizer,
        targets: np.ndarray,
        seed: int,
        tokenized: Tokenized | None = None,
    ) -> tuple[Tokenized, np.ndarray]:
        """The teacher sentences and their targets, plus a copy per view asked for, each with the
        clean sentence's target: the piece view (some words spelt out in pieces) and the typo
        view (some words misspelt, :mod:`parasent.paraphrase.typos`), both drawn with ``seed``;
        ``tokenized``: the sentences tokenized already (the per-token term's check did)."""
        views = [tokenized if tokenized is not None else tokenizer.encode_batch(self.sentences)]
        if options.piece_view > 0:
            views.append(tokenizer.encode_batch_forgetting(self.sentences, options.piece_view, seed))
        if options.typo_view > 0:
            from parasent.paraphrase.typos import misspell

            views.append(tokenizer.encode_batch(misspell(self.sentences, options.typo_view, seed)))
        return Tokenized.concatenate(views), np.concatenate([targets] * len(views))

    def metadata(self) -> dict[str, Any]:
        return dict(self.info)


def pass_estimate(what: str, missing: int, total: int, seconds: float) -> str:
    """What a teacher pass over the ``missing`` of ``total`` sentences will cost here (seconds
    under a minute and a half: "about 0 min" read as nothing to wait for)."""
    cost = f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
    return (
        f"{what}: {missing} of {total} sentences not cached; about {cost} on this machine "
        "(resumable: a killed pass keeps each chunk it finished, a few thousand sentences, and the "
        "same command continues from there)"
    )
