"""Word frequency lists: ``word count`` per line (e.g. the shared English Wikipedia unigram counts)."""

from __future__ import annotations

from pathlib import Path

from parasent.data.lines import LineReader, ReadReport


def read_word_counts(
    path: str | Path, *, lowercase: bool = True, lenient: bool = False, report: ReadReport | None = None
) -> dict[str, int]:
    """``{word: count}``; with ``lowercase`` the counts of case variants are summed."""
    reader = LineReader(path, lenient=lenient, report=report)
    counts: dict[str, int] = {}
    for number, text in reader:
        if not text.strip():
            continue
        fields = text.split()
        if len(fields) != 2:
            reader.fail(number, f"expected 'word count', found {len(fields)} field(s)")
            continue
        word, count_text = fields
        try:
            count = int(count_text)
        except ValueError:
            reader.fail(number, f"count {count_text!r} is not an integer")
            continue
        if count < 0:
            reader.fail(number, f"count {count} is negative")
            continue
        if lowercase:
            word = word.lower()
        counts[word] = counts.get(word, 0) + count
    return counts
