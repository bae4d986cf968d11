"""Reader for the SemEval-2015 Task 1 Twitter paraphrase corpus (PIT-2015, Xu et al.)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from parasent.data.readers.records import PitPair
from parasent.errors import DataFormatError
from parasent.support.lines import LineReader, ReadReport

_VOTES = re.compile(r"^\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$", re.ASCII)
_LABELS = {"true": True, "false": False, "----": None}


def read_pit2015(
    data_path: str | Path,
    label_path: str | Path | None = None,
    *,
    lenient: bool = False,
    report: ReadReport | None = None,
) -> Iterator[PitPair]:
    """Read ``*.data`` (Topic_Id, Topic_Name, Sent_1, Sent_2, Label, tags...), and ``test.label`` if given.

    The label column is either crowd votes ``(pos, neg)`` (train/dev) or a 0-5 expert score
    (test). ``test.label`` lines (``true|false|----<TAB>degree``) are parallel to the data
    lines and give the graded ``degree`` used for the similarity evaluation.
    """
    reader = LineReader(data_path, lenient=lenient, report=report)
    labels = iter(LineReader(label_path, lenient=False)) if label_path is not None else None
    number = 0
    for number, text in reader.lines(placeholders=True):
        label_line = next(labels, None) if labels is not None else None
        if labels is not None and label_line is None:
            raise DataFormatError(label_path, number, "label file has fewer lines than the data file")
        if text is None:
            continue  # malformed (lenient mode): its label line is consumed, the pairing kept
        fields = text.split("\t")
        if len(fields) < 5:
            reader.fail(number, f"expected at least 5 tab-separated fields, found {len(fields)}")
            continue
        topic_id, topic, s1, s2, label = fields[:5]
        votes = expert = None
        paraphrase: bool | None
        match = _VOTES.match(label.strip())
        if match:
            votes = (int(match.group(1)), int(match.group(2)))
            paraphrase = True if votes[0] >= 3 else (False if votes[0] <= 1 else None)
        elif label.strip() in ("0", "1", "2", "3", "4", "5"):
            expert = int(label)
            paraphrase = True if expert >= 4 else (False if expert <= 2 else None)
        else:
            reader.fail(number, f"label {label!r} is neither '(pos, neg)' votes nor a 0-5 score")
            continue
        degree = None
        if label_line is not None:
            degree, paraphrase = _parse_label_line(label_path, *label_line)
        yield PitPair(topic_id, topic, s1, s2, paraphrase, degree=degree, votes=votes, expert=expert)
    if labels is not None and next(labels, None) is not None:
        raise DataFormatError(label_path, number + 1, "label file has more lines than the data file")


def _parse_label_line(path: str | Path, number: int, text: str) -> tuple[float, bool | None]:
    """``true|false|----<TAB>degree`` of ``test.label``: the degree is a finite number in [0, 1]."""
    parts = text.split("\t")
    try:
        if len(parts) != 2 or parts[0] not in _LABELS:
            raise ValueError
        degree = float(parts[1])
    except ValueError:
        raise DataFormatError(path, number, "expected 'true|false|----<TAB>degree'") from None
    if not 0.0 <= degree <= 1.0:  # also false for NaN
        raise DataFormatError(path, number, f"degree {parts[1]!r} is not a number in [0, 1]")
    return degree, _LABELS[parts[0]]
