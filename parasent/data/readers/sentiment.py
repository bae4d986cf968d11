"""Readers of labelled texts, ``text<TAB>label``: the SST binary files (integer labels) and a
user's own classes (any label string, ``parasent head train --data``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from parasent.data.readers.line_shapes import skip_header
from parasent.data.readers.records import LabelledSentence, TextWithLabel
from parasent.support.lines import LineReader, ReadReport


def read_labelled_sentences(
    path: str | Path,
    *,
    classes: int | None = None,
    lenient: bool = False,
    report: ReadReport | None = None,
) -> Iterator[LabelledSentence]:
    """Read ``sentence<TAB>integer label`` lines; blank lines are skipped, text is stripped.

    With ``classes``, a label outside ``0 .. classes - 1`` is a malformed line.
    """
    reader = LineReader(path, lenient=lenient, report=report)
    for number, sentence, label in _split_lines(reader):
        try:
            value = int(label)
        except ValueError:
            reader.fail(number, f"label {label!r} is not an integer")
            continue
        if classes is not None and not 0 <= value < classes:
            reader.fail(number, f"label {value} is not in 0..{classes - 1}")
            continue
        yield LabelledSentence(sentence, value)


def read_text_labels(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[TextWithLabel]:
    """Read ``text<TAB>label`` lines, the label any string after the last tab (stripped);
    blank lines are skipped, a line without a tab, text or label is malformed (``path:line``).
    A user names the file and it is read once, so a pipe (``--data <(zcat f.gz)``) is read too,
    as ``mine`` and ``encode`` read theirs."""
    reader = LineReader(path, lenient=lenient, report=report, stream_ok=True)
    for _, text, label in _split_lines(reader):
        yield TextWithLabel(text, label)


def _split_lines(reader: LineReader) -> Iterator[tuple[int, str, str]]:
    """``(line number, text, label)`` of each non-blank line, both stripped; a line of other
    than two tab-separated fields, or without a text or a label, is malformed (``path:line``):
    a pairs file given as labelled texts, or a stray tab, would otherwise make classes of its
    columns."""
    for number, line in skip_header(reader):  # a first line naming the columns (text<TAB>label)
        if not line.strip():
            continue
        fields = line.count("\t") + 1
        text, _, label = line.partition("\t")
        if fields != 2:
            reader.fail(
                number, f"expected 'text<TAB>label', found {'no tab' if fields == 1 else f'{fields} fields'}"
            )
        elif not text.strip():
            reader.fail(number, "empty text")
        elif not label.strip():
            reader.fail(number, "empty label")
        elif any(ord(c) < 32 for c in label):
            reader.fail(
                number, f"label {label.strip()!r} holds a control character (a NUL?): a class is a name"
            )
        else:
            yield number, text.strip(), label.strip()
