"""Reader for SICK (Marelli et al. 2014) files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from parasent.data.readers.records import SickPair
from parasent.errors import DataFormatError
from parasent.support.lines import LineReader, ReadReport, parse_float

ENTAILMENT_LABELS = ("NEUTRAL", "ENTAILMENT", "CONTRADICTION")
RELATEDNESS_RANGE = (1.0, 5.0)
_REQUIRED = ("pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment")


def read_sick(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[SickPair]:
    """Read a SICK file with its header row (train, trial and annotated test share the layout)."""
    reader = LineReader(path, lenient=lenient, report=report)
    columns: dict[str, int] | None = None
    for number, text in reader:
        if not text.strip():
            continue
        fields = text.split("\t")
        if columns is None:
            missing = [name for name in _REQUIRED if name not in fields]
            if missing:
                # Without the header nothing can be read: this is not a per-line problem.
                raise DataFormatError(path, number, f"header lacks column(s) {', '.join(missing)}")
            columns = {name: fields.index(name) for name in _REQUIRED}
            width = len(fields)
            continue
        if len(fields) < width:
            reader.fail(number, f"expected {width} tab-separated fields, found {len(fields)}")
            continue
        score = parse_float(reader, number, fields[columns["relatedness_score"]], "relatedness_score")
        if score is None:
            continue
        if not RELATEDNESS_RANGE[0] <= score <= RELATEDNESS_RANGE[1]:
            reader.fail(number, f"relatedness_score {score} is outside [1, 5]")
            continue
        entailment = fields[columns["entailment_judgment"]].strip().upper()
        if entailment not in ENTAILMENT_LABELS:
            reader.fail(
                number, f"entailment_judgment {entailment!r} is not one of {', '.join(ENTAILMENT_LABELS)}"
            )
            continue
        yield SickPair(
            pair_id=fields[columns["pair_ID"]],
            s1=fields[columns["sentence_A"]],
            s2=fields[columns["sentence_B"]],
            relatedness=score,
            entailment=entailment,
        )
