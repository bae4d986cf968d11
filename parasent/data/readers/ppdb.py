"""Readers for the Paraphrase Database (PPDB): human-rated samples, lexical pairs, phrasal releases."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from parasent.data.readers.records import PpdbRule, RatedPhrasePair, WordPair
from parasent.support.lines import LineReader, ReadReport, parse_float

RATING_RANGE = (1.0, 5.0)  # Pavlick et al. (2015): every rating and their mean are on a 1-5 scale


def read_ppdb_human(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[RatedPhrasePair]:
    """Read Pavlick et al. (2015) ratings: ``mean_score<TAB>[LHS]<TAB>phrase1<TAB>phrase2<TAB>ratings``."""
    reader = LineReader(path, lenient=lenient, report=report)
    for number, text in reader:
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) != 5:
            reader.fail(
                number,
                f"expected 5 tab-separated fields (score, LHS, phrase1, phrase2, ratings), found {len(fields)}",
            )
            continue
        score = parse_float(reader, number, fields[0], "mean score", RATING_RANGE)
        if score is None:
            continue
        try:
            ratings = tuple(float(r) for r in fields[4].split(",") if r.strip())
        except ValueError:
            reader.fail(number, f"ratings {fields[4]!r} are not comma-separated numbers")
            continue
        if not all(RATING_RANGE[0] <= r <= RATING_RANGE[1] for r in ratings):  # NaN fails too
            reader.fail(number, f"ratings {fields[4]!r} are not all numbers in [1, 5]")
            continue
        yield RatedPhrasePair(score, fields[1], fields[2], fields[3], ratings)


def read_ppdb_lexical(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[WordPair]:
    """Read lexical pairs, one ``word1 word2`` per line (whitespace separated)."""
    reader = LineReader(path, lenient=lenient, report=report)
    for number, text in reader:
        fields = text.split()
        if not fields:
            continue
        if len(fields) != 2:
            reader.fail(number, f"expected 2 whitespace-separated words, found {len(fields)}")
            continue
        yield WordPair(fields[0], fields[1])


def read_ppdb_phrasal(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[PpdbRule]:
    """Read a PPDB release: ``LHS ||| phrase ||| paraphrase ||| features ||| alignment [||| entailment]``.

    Features are ``name=value`` tokens separated by spaces; the alignment is ``i-j`` tokens.
    """
    reader = LineReader(path, lenient=lenient, report=report)
    for number, text in reader:
        if not text.strip():
            continue
        fields = [field.strip() for field in text.split("|||")]
        if len(fields) not in (5, 6):
            reader.fail(number, f"expected 5 or 6 '|||'-separated fields, found {len(fields)}")
            continue
        lhs, phrase, paraphrase, feature_text, alignment_text = fields[:5]
        if not phrase or not paraphrase:
            reader.fail(number, "empty phrase or paraphrase")
            continue
        features, bad = _features(feature_text)
        if bad is not None:
            reader.fail(number, f"feature {bad!r} is not name=number (a finite one)")
            continue
        alignment, bad = _alignment(alignment_text)
        if bad is not None:
            reader.fail(number, f"alignment point {bad!r} is not i-j")
            continue
        entailment = fields[5] if len(fields) == 6 and fields[5] else None
        yield PpdbRule(lhs, phrase, paraphrase, features, tuple(alignment), entailment)


def _features(text: str) -> tuple[dict[str, float], str | None]:
    """``name=value`` tokens as a dict, or the first token that is not one (with a finite value)."""
    features: dict[str, float] = {}
    for token in text.split():
        name, sep, value = token.partition("=")
        try:
            number = float(value)
        except ValueError:
            return features, token
        if not sep or not name or not math.isfinite(number):
            return features, token
        features[name] = number
    return features, None


def _alignment(text: str) -> tuple[list[tuple[int, int]], str | None]:
    """``i-j`` tokens as pairs, or the first token that is not one."""
    alignment: list[tuple[int, int]] = []
    for token in text.split():
        left, sep, right = token.partition("-")
        if not sep or not _is_index(left) or not _is_index(right):
            return alignment, token
        alignment.append((int(left), int(right)))
    return alignment, None


def _is_index(text: str) -> bool:
    """A word position of an alignment point: ASCII digits (``isdigit`` accepts '³'), bounded."""
    return text.isascii() and text.isdecimal() and len(text) <= 6
