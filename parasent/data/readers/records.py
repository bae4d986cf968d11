"""Typed records that the readers stream. Every pair record has ``s1`` and ``s2``."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """Two sentences and a graded similarity score (STS: 0-5)."""

    s1: str
    s2: str
    score: float


@dataclass(frozen=True, slots=True)
class TrainingPair:
    """A pair assumed to be a paraphrase, and where it came from (a pool source or a file)."""

    s1: str
    s2: str
    source: str
    score: float | None = None  # a graded similarity (STS 0-5) when the source has one


@dataclass(frozen=True, slots=True)
class LabelledPair:
    """Two sentences and a class label (MSRP, Twitter URL: 1 = paraphrase)."""

    s1: str
    s2: str
    label: int


@dataclass(frozen=True, slots=True)
class LabelledSentence:
    """One sentence and a class label (SST binary sentiment: 1 = positive)."""

    text: str
    label: int


@dataclass(frozen=True, slots=True)
class TextWithLabel:
    """One text and its class as the user's file names it (``text<TAB>label``: any string)."""

    text: str
    label: str


@dataclass(frozen=True, slots=True)
class SickPair:
    """A SICK pair: relatedness in [1, 5] and an entailment judgement."""

    pair_id: str
    s1: str
    s2: str
    relatedness: float
    entailment: str


@dataclass(frozen=True, slots=True)
class PitPair:
    """A SemEval-2015 Twitter paraphrase (PIT) pair.

    ``degree`` is the graded score in [0, 1] of ``test.label`` (the STS-style target);
    ``votes`` the ``(positive, negative)`` crowd votes of train/dev files; ``expert`` the 0-5
    expert label of the test file. ``paraphrase`` follows the task README's mapping and is
    None for debatable pairs.
    """

    topic_id: str
    topic: str
    s1: str
    s2: str
    paraphrase: bool | None
    degree: float | None = None
    votes: tuple[int, int] | None = None
    expert: int | None = None


@dataclass(frozen=True, slots=True)
class RatedPhrasePair:
    """A PPDB 2.0 human-rated phrase pair (Pavlick et al. 2015): mean score 1-5."""

    score: float
    lhs: str
    s1: str
    s2: str
    ratings: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class WordPair:
    """A lexical PPDB pair (synonyms or antonyms)."""

    s1: str
    s2: str


@dataclass(frozen=True, slots=True)
class PpdbRule:
    """One paraphrase rule of a PPDB phrasal release.

    ``LHS ||| phrase ||| paraphrase ||| features ||| alignment [||| entailment]``
    """

    lhs: str
    s1: str
    s2: str
    features: dict[str, float] = field(hash=False, compare=False)
    alignment: tuple[tuple[int, int], ...]
    entailment: str | None = None
