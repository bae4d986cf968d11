"""Readers for SemEval STS files in both layouts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from parasent.data.readers.line_shapes import looks_like, shape_error, skip_header
from parasent.data.readers.records import ScoredPair
from parasent.errors import DataFormatError
from parasent.support.lines import LineReader, ReadReport, parse_float

SCORE_RANGE = (0.0, 5.0)  # SemEval STS gold scores


def read_sts(
    path: str | Path,
    *,
    lenient: bool = False,
    report: ReadReport | None = None,
    score_range: tuple[float, float] | None = SCORE_RANGE,
) -> Iterator[ScoredPair]:
    """Read ``score<TAB>s1<TAB>s2`` lines; a line whose score is empty is unscored and skipped.
    Scores must lie in ``score_range`` (SemEval's 0-5; None: any finite score, a user's own
    scale: a correlation and a ranking do not depend on it)."""
    reader = LineReader(path, lenient=lenient, report=report, copy_pipe=True)  # <(zcat f.gz) too
    for number, text in skip_header(reader):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) != 3:
            reader.fail(number, shape_error("score<TAB>s1<TAB>s2", fields))
            continue
        score_text, s1, s2 = fields
        if not score_text.strip():
            continue
        meant = looks_like(fields)
        if meant:  # 3,3 or true: not a number, and what it is said
            reader.fail(number, f"score {score_text.strip()!r} is not a number; it looks like {meant}")
            continue
        score = parse_float(reader, number, score_text.strip(), "score", score_range)
        if score is None:
            continue
        yield ScoredPair(s1, s2, score)


def read_own_sts(path: str | Path, **options: Any) -> Iterator[ScoredPair]:
    """A user's ``score<TAB>s1<TAB>s2`` file (``--pairs FILE:sts``): scores on any scale."""
    return read_sts(path, score_range=None, **options)


def read_sts_official(
    input_path: str | Path, gold_path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[ScoredPair]:
    """Read the official SemEval layout: ``STS.input.*`` (``s1<TAB>s2``) and parallel ``STS.gs.*`` scores.

    A gold line that is empty marks an unscored pair, which is skipped as in the official scorer.
    In lenient mode a malformed line of either file skips its pair; the files stay aligned.
    """
    inputs = LineReader(input_path, lenient=lenient, report=report)
    golds = LineReader(gold_path, lenient=lenient, report=report)
    gold_iter = golds.lines(placeholders=True)
    for number, text in inputs.lines(placeholders=True):
        gold = next(gold_iter, None)
        if gold is None:
            # Parallel files that disagree in length cannot be read leniently: pairing would be wrong.
            raise DataFormatError(gold_path, number, "gold file has fewer lines than the input file")
        _, gold_text = gold
        if text is None or gold_text is None:
            continue  # a line of the pair was malformed (lenient mode): skip the pair
        fields = text.split("\t")
        if len(fields) < 2:
            inputs.fail(number, f"expected 2 tab-separated sentences, found {len(fields)} field(s)")
            continue
        if not gold_text.strip():
            continue
        score = parse_float(golds, number, gold_text.strip(), "gold score", SCORE_RANGE)
        if score is None:
            continue
        yield ScoredPair(fields[0], fields[1], score)
    extra = next(gold_iter, None)
    if extra is not None:
        raise DataFormatError(gold_path, extra[0], "gold file has more lines than the input file")
