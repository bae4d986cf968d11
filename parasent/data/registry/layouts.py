"""The readers of the registry, one per layout: ``reader(paths, **options)`` streams the items
of a :class:`~parasent.data.registry.DataRecord` (its files, globs expanded, in order).

A record names its layout; :meth:`DataRecord.read` looks the reader up here. Every reader goes
through the strict line readers of this package (a bad line is reported as ``path:line``).
What a layout yields: scored pairs (``ScoredPair``: the similarity sets), paraphrase pairs
(anything with ``s1``/``s2``: the pool sources), task examples (``SickPair``,
``LabelledSentence``) or sentences (``str``: unlabelled text).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from parasent.data.readers.pairs import read_labelled_pairs
from parasent.data.readers.pit import read_pit2015
from parasent.data.readers.ppdb import read_ppdb_human, read_ppdb_lexical
from parasent.data.readers.ppdb_task import read_ppdb_scored
from parasent.data.readers.records import ScoredPair
from parasent.data.readers.sentiment import read_labelled_sentences
from parasent.data.readers.sick import read_sick
from parasent.data.readers.sts import read_sts, read_sts_official
from parasent.support.lines import LineReader

Reader = Callable[..., Iterator[Any]]


def _sts(paths: list[Path]) -> Iterator[ScoredPair]:
    """``score<TAB>s1<TAB>s2`` files (unscored lines skipped), one after the other."""
    for path in paths:
        yield from read_sts(path)


def _sts_official(paths: list[Path]) -> Iterator[ScoredPair]:
    """The SemEval layout: an input file of pairs and a parallel gold-score file."""
    yield from read_sts_official(paths[0], paths[1])


def _sick(paths: list[Path]) -> Iterator[ScoredPair]:
    """SICK, scored by relatedness (1-5)."""
    for path in paths:
        for pair in read_sick(path):
            yield ScoredPair(pair.s1, pair.s2, pair.relatedness)


def _pit(paths: list[Path]) -> Iterator[ScoredPair]:
    """PIT-2015 test, scored by the degree of the parallel label file."""
    for pair in read_pit2015(paths[0], paths[1]):
        yield ScoredPair(pair.s1, pair.s2, pair.degree)


def _pit_pairs(paths: list[Path]) -> Iterator[Any]:
    """PIT-2015 data files as they are (dev: crowd votes, no label file)."""
    for path in paths:
        yield from read_pit2015(path)


def _sick_pairs(paths: list[Path]) -> Iterator[Any]:
    """SICK pairs with relatedness and entailment (the supervised tasks)."""
    for path in paths:
        yield from read_sick(path)


def _labelled_sentences(paths: list[Path], classes: int | None = None) -> Iterator[Any]:
    for path in paths:
        yield from read_labelled_sentences(path, classes=classes)


def _ppdb_human(paths: list[Path], min_score: float) -> Iterator[Any]:
    """Pavlick et al.'s rated phrase pairs with a mean score of at least ``min_score``."""
    for path in paths:
        for pair in read_ppdb_human(path):
            if pair.score >= min_score:
                yield pair


def _ppdb_scored(paths: list[Path], part: str | None = None) -> Iterator[Any]:
    """The rated pairs as scored pairs (the PPDB phrase task), all or one half of the split."""
    return iter(read_ppdb_scored(paths[0], part))


def _ppdb_lexical(paths: list[Path]) -> Iterator[Any]:
    for path in paths:
        yield from read_ppdb_lexical(path)


def _labelled(paths: list[Path], positive: int = 1) -> Iterator[Any]:
    """``label<TAB>s1<TAB>s2`` files: the pairs labelled ``positive``."""
    for path in paths:
        for pair in read_labelled_pairs(path):
            if pair.label == positive:
                yield pair


def _reader(path: Path) -> LineReader:
    # some releases mix encodings: a line that is not UTF-8 is read as Latin-1
    return LineReader(path, fallback_encoding="latin-1")


def _tsv_columns(paths: list[Path], columns: tuple[int, ...], header: bool = False) -> Iterator[str]:
    """Tab-separated rows (Quora, PAWS, SciTail, SNLI): the text of the given columns."""
    for path in paths:
        for number, text in _reader(path):
            if header and number == 1:
                continue
            fields = text.split("\t")
            yield from (fields[c] for c in columns if c < len(fields))


def _lines(paths: list[Path]) -> Iterator[str]:
    """One sentence per line (line-aligned paraphrase files, rewrites, captions)."""
    for path in paths:
        for _, text in _reader(path):
            yield text


def _wikisplit(paths: list[Path]) -> Iterator[str]:
    """``source<TAB>split``, the split's sentences separated by `` <::::> ``."""
    for path in paths:
        for _, text in _reader(path):
            source, _, split = text.partition("\t")
            yield source
            yield from split.split(" <::::> ")


def _flickr8k(paths: list[Path]) -> Iterator[str]:
    """``image#k<TAB>caption``."""
    for path in paths:
        for _, text in _reader(path):
            yield text.partition("\t")[2]


LAYOUTS: dict[str, Reader] = {
    "sts": _sts,
    "sts_official": _sts_official,
    "sick": _sick,
    "pit": _pit,
    "pit_pairs": _pit_pairs,
    "sick_pairs": _sick_pairs,
    "labelled_sentences": _labelled_sentences,
    "ppdb_human": _ppdb_human,
    "ppdb_lexical": _ppdb_lexical,
    "ppdb_scored": _ppdb_scored,
    "labelled": _labelled,
    "tsv_columns": _tsv_columns,
    "lines": _lines,
    "wikisplit": _wikisplit,
    "flickr8k": _flickr8k,
    # running text: parasent.data.training_text.corpus reads these files as documents
    "wrapped": _lines,
    "sentences": _lines,
    "paragraphs": _lines,
}
