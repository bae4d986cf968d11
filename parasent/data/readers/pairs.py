"""Reader for labelled pair files: ``label<TAB>s1<TAB>s2[<TAB>extra...]`` (MSRP, Twitter URL, Quora)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from parasent.data.readers.line_shapes import looks_like, shape_error, skip_header
from parasent.data.readers.records import LabelledPair
from parasent.support.lines import LineReader, ReadReport


def read_labelled_pairs(
    path: str | Path,
    *,
    header: bool = False,
    lenient: bool = False,
    report: ReadReport | None = None,
    binary: bool = False,
) -> Iterator[LabelledPair]:
    """Read integer-labelled sentence pairs; columns after the third (ids) are ignored.
    ``binary``: a label other than 0 or 1 is an error naming its line (a user's ``:labelled``
    file, whose labels say paraphrase or not)."""
    reader = LineReader(path, lenient=lenient, report=report, copy_pipe=True)  # <(zcat f.gz) too
    for number, text in skip_header(reader):
        if header and number == 1:
            continue
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) < 3:
            reader.fail(number, shape_error("label<TAB>s1<TAB>s2", fields))
            continue
        try:
            label = int(fields[0])
        except ValueError:
            meant = looks_like(fields)
            reader.fail(
                number,
                f"label {fields[0]!r} is not an integer" + (f"; it looks like {meant}" if meant else ""),
            )
            continue
        if binary and label not in (0, 1):
            reader.fail(
                number,
                f"label {label} is not 0 or 1 (a labelled file marks paraphrases 1, other pairs 0; graded "
                "scores are FILE:sts; other classes, such as NLI's 0/1/2, need mapping to 0/1 first)",
            )
            continue
        yield LabelledPair(fields[1], fields[2], label)


def read_text_pairs(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[LabelledPair]:
    """Read unlabelled paraphrase pairs, ``s1<TAB>s2`` per line (every pair a positive)."""
    reader = LineReader(path, lenient=lenient, report=report, copy_pipe=True)  # <(zcat f.gz) too
    for number, text in skip_header(reader):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) != 2:
            reader.fail(number, shape_error("s1<TAB>s2", fields))
            continue
        yield LabelledPair(fields[0], fields[1], 1)
