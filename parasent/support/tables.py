"""Plain-text tables for the analyses: strings left-aligned, numbers right-aligned."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def cell(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.2e}"
        return f"{value:.{digits}f}"
    return str(value)


def format_rows(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    title: str | None = None,
    digits: int | Sequence[int] = 2,
    footer: Sequence[str] = (),
    markdown: bool = False,
) -> str:
    """A table with a rule under the header; ``digits`` per column or for all. ``markdown``: a
    markdown table (numbers right-aligned), the title and footer as paragraphs around it."""
    per_column = [digits] * len(headers) if isinstance(digits, int) else list(digits)
    text = [[cell(v, per_column[i]) for i, v in enumerate(row)] for row in rows]
    numeric = [
        all(isinstance(row[i], int | float) or row[i] is None for row in rows) and bool(rows)
        for i in range(len(headers))
    ]
    if markdown:
        return _markdown(headers, text, numeric, title, footer)
    widths = [max([len(h)] + [len(r[i]) for r in text]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if numeric[i] else v.ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    out = [title] if title else []
    out += [line(list(headers)), "-" * (sum(widths) + 2 * (len(widths) - 1))]
    out += [line(r) for r in text]
    out += list(footer)
    return "\n".join(out)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] = ()) -> str:
    """A Markdown table of cells already written as text (a ``|`` inside one escaped), columns
    flagged in ``right`` right-aligned: the one writer of the package's Markdown tables, so
    reports, model cards and the papers' tables cannot drift into dialects."""

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"

    flags = list(right) + [False] * (len(headers) - len(right))
    table = [line(headers), "|" + "|".join("---:" if r else "---" for r in flags) + "|"]
    return "\n".join(table + [line(row) for row in rows])


def _markdown(
    headers: Sequence[str],
    text: list[list[str]],
    numeric: list[bool],
    title: str | None,
    footer: Sequence[str],
) -> str:
    table = markdown_table(headers, text, numeric)
    parts = ([title] if title else []) + [table] + (["\n".join(footer)] if footer else [])
    return "\n\n".join(parts)
