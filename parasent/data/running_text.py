"""Running text split into sentences, in document order: books, speeches, reviews.

Two layouts cover the shared ``corpus/`` folders: ``prose`` (paragraphs separated by blank
lines, lines possibly wrapped; sentences are found by punctuation, see
:func:`split_sentences`) and ``lines`` (one sentence per line, as in the tokenized movie
reviews). Unlabelled sentences feed the teacher-regression objective (and any objective that
reads running text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from parasent.data.lines import open_binary
from parasent.errors import DataNotFoundError

LAYOUTS = ("prose", "lines")

# Words after which a period does not end a sentence (titles, initials are handled apart).
ABBREVIATIONS = frozenset(
    "mr mrs ms messrs dr st jr sr prof gen col capt lt sgt rev hon gov sen rep pres vs etc "
    "no nos vol fig inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"'\u2019\u201d)\]]*(?=\s+)")
_EMPHASIS = re.compile(r"_([^_\s][^_]*?)_")
_SPACES = re.compile(r"\s+")


def split_sentences(paragraph: str) -> list[str]:
    """Sentences of a paragraph of prose: a boundary is ``.``, ``!`` or ``?`` (with closing
    quotes or brackets) followed by space and a word that does not start in lowercase,
    except after a known abbreviation or a single-letter initial ("Mr. Knightley", "S. Truman")."""
    text = _SPACES.sub(" ", paragraph).strip()
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        following = text[end:].lstrip()
        if not following or following[0].islower():
            continue
        before = text[start : match.start()].rsplit(" ", 1)[-1].lstrip("\"'(\u201c\u2018[")
        if match.group().startswith(".") and (
            before.lower().rstrip(".") in ABBREVIATIONS or (len(before) == 1 and before.isalpha())
        ):
            continue
        sentence = text[start:end].strip()
        if sentence:
            sentences.append(sentence)
        start = end
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _decoded_lines(path: str | Path) -> Iterator[str]:
    """Lines decoded as UTF-8, or as Latin-1 where a line is not UTF-8: old etexts and speech
    files mix the two (two Gutenberg books and the speeches of the shared corpus do)."""
    with open_binary(path) as handle:
        for raw in handle:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
            yield text.rstrip("\r\n")


def read_sentences(path: str | Path, layout: str = "prose") -> Iterator[str]:
    """Sentences of one file in order (gzip or not)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if layout == "lines":
        for text in _decoded_lines(path):
            text = text.strip()
            if text:
                yield text
        return
    paragraph: list[str] = []
    for text in _decoded_lines(path):
        if text.strip():
            paragraph.append(text.strip())
            continue
        if paragraph:
            yield from split_sentences(_EMPHASIS.sub(r"\1", " ".join(paragraph)))
            paragraph = []
    if paragraph:
        yield from split_sentences(_EMPHASIS.sub(r"\1", " ".join(paragraph)))


@dataclass(frozen=True)
class TextSource:
    """Files of running text under the data directory (a glob) and their layout."""

    name: str
    pattern: str
    layout: str
    description: str = ""

    def files(self, data_dir: str | Path) -> list[Path]:
        return sorted(Path(data_dir).glob(self.pattern))


RUNNING_TEXT: dict[str, TextSource] = {
    source.name: source
    for source in [
        TextSource("gutenberg", "corpus/gutenberg/*.txt.gz", "prose", "13 public-domain books"),
        TextSource("movie_reviews", "corpus/movie_reviews/*/*.txt", "lines", "2,000 tokenized film reviews"),
        TextSource("state_union", "corpus/state_union/*.txt", "prose", "65 State of the Union addresses"),
    ]
}


def corpus_sentences(data_dir: str | Path, names: Iterable[str] | None = None) -> Iterator[str]:
    """Sentences of the named sources (default: all of :data:`RUNNING_TEXT`), file by file in order."""
    for name in list(names) if names is not None else list(RUNNING_TEXT):
        if name not in RUNNING_TEXT:
            raise KeyError(f"unknown running-text source {name!r} (known: {', '.join(RUNNING_TEXT)})")
        source = RUNNING_TEXT[name]
        files = source.files(data_dir)
        if not files:
            raise DataNotFoundError(f"{Path(data_dir) / source.pattern}: no files for running text {name!r}")
        for path in files:
            yield from read_sentences(path, source.layout)
