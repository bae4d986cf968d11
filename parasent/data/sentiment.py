"""Reader for labelled sentences, ``sentence<TAB>label`` (the SST binary files)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from parasent.data.lines import LineReader, ReadReport
from parasent.data.records import LabelledSentence


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
    for number, text in reader:
        if not text.strip():
            continue
        sentence, tab, label = text.rpartition("\t")
        if not tab:
            reader.fail(number, "expected 'sentence<TAB>label', found no tab")
            continue
        try:
            value = int(label.strip())
        except ValueError:
            reader.fail(number, f"label {label.strip()!r} is not an integer")
            continue
        if classes is not None and not 0 <= value < classes:
            reader.fail(number, f"label {value} is not in 0..{classes - 1}")
            continue
        if not sentence.strip():
            reader.fail(number, "empty sentence")
            continue
        yield LabelledSentence(sentence.strip(), value)
