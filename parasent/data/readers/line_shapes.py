"""What a line of a user's file is when it is not what its format says: a header line (skipped
when it opens the file), or a line whose fields look like another layout (said in its error).

Users bring files exported from spreadsheets and other tools: a first line naming the columns
(``text<TAB>label``, ``score<TAB>sentence1<TAB>sentence2``), the score last, ``true``/``false``
labels, decimal commas (``3,3``). Read as data, a header becomes a class named ``label`` and
the others a bare "found 3 field(s)". Every reader of a user's file (the pair readers, the
``text<TAB>label`` reader of ``head train --data``) skips a header through :func:`skip_header`
and names what a bad line looks like it meant through :func:`looks_like`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from parasent.support.lines import LineReader

# Column names as exports spell them, lowercased with everything but letters removed
# (sentence_A, #1 String, question2, relatedness_score: sentencea, string, question, relatednessscore).
COLUMN_NAMES = frozenset(
    {
        "text", "texta", "textb", "sentence", "sentencea", "sentenceb", "sentences", "s", "q", "question",
        "label", "labels", "class", "category", "target", "gold", "goldlabel", "goldscore", "score",
        "similarity", "relatedness", "relatednessscore", "entailmentjudgment", "judgment", "rating", "id",
        "pairid", "premise", "hypothesis", "string", "quality", "phrase", "paraphrase", "source",
        "sentiment", "polarity", "tag", "input", "output", "anchor", "positive", "negative",
    }
)  # fmt: skip
TRUTH_WORDS = frozenset({"true", "false", "yes", "no", "t", "f"})
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")


# a column name's spelling: letters and underscores, a digit after them (sentence1) or a
# numbered prefix before them (#1 String); "text 0" (a digit after a space) is data
_NAME_SHAPE = re.compile(r"^(#?\d\s?)?[a-z_]+\d?$")


def _column_name(field: str) -> bool:
    lowered = field.lower()
    return bool(_NAME_SHAPE.match(lowered)) and re.sub(r"[^a-z]", "", lowered) in COLUMN_NAMES


def is_header(fields: list[str]) -> bool:
    """Whether a line of two or more fields names columns rather than holding data: every
    field a column name (``text``, ``label``, ``sentence1``, ``#1 String``)."""
    return len(fields) >= 2 and all(_column_name(f.strip()) for f in fields)


def skip_header(reader: LineReader) -> Iterator[tuple[int, str]]:
    """The lines of ``reader`` without a header line opening the file (its first line that is
    not blank), which is noted in the reader's report (``how it was read``)."""
    first = True
    for number, text in reader:
        if first and text.strip():
            first = False
            if is_header(text.split("\t")):
                reader.report.notes.append(
                    f"{reader.path}:{number}: a header line, skipped ({text.strip()!r})"
                )
                continue
        yield number, text


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a number (a score, not a class or a sentence)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def looks_like(fields: list[str]) -> str:
    """What a line whose fields do not fit its format looks like it meant (``""`` when nothing
    recognisable): said after the error, so a user fixes the file rather than guessing."""
    first, last = fields[0].strip(), fields[-1].strip()
    if is_header(fields):
        return "a header line (column names): only a file's first line may be one, and it is skipped"
    if first.lower() in TRUTH_WORDS:
        return f"a label {first!r}: labelled pairs are 1 (paraphrase) or 0, as label<TAB>s1<TAB>s2"
    if _DECIMAL_COMMA.match(first):
        return f"a score with a decimal comma ({first!r}): write {first.replace(',', '.')}, as score<TAB>s1<TAB>s2"
    if len(fields) >= 3 and (is_number(last) or _DECIMAL_COMMA.match(last) or last.lower() in TRUTH_WORDS):
        return (
            f"the score or label last ({last!r}): the columns go label-or-score first, "
            "as score<TAB>s1<TAB>s2 (or label<TAB>s1<TAB>s2)"
        )
    return ""


def shape_error(expected: str, fields: list[str]) -> str:
    """The reason of a line with the wrong fields: what was expected, what was found (the
    count and the start of each field), and what the line looks like it meant."""
    shown = " | ".join(repr(f[:30] + ("..." if len(f) > 30 else "")) for f in fields[:4])
    shown += f" | ... ({len(fields) - 4} more)" if len(fields) > 4 else ""
    meant = looks_like(fields)
    return f"expected {expected!r}, found {len(fields)} field(s): {shown}" + (
        f"; it looks like {meant}" if meant else ""
    )
