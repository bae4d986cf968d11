"""Splitting running text into sentences (for Siamese CBOW, which predicts a sentence's neighbours).

A rule-based splitter for edited English prose: a sentence ends at ``.``, ``!`` or ``?``
(possibly repeated, possibly followed by closing quotes or brackets) when whitespace and
then a plausible sentence start follow (an uppercase letter, a digit, or an opening quote
or bracket before one). A period does not end a sentence after a known abbreviation
("Mr.", "e.g.", "U.S.") or a single capital initial ("H. G. Wells"). Paragraph boundaries
always end a sentence. The rules are deliberately few and documented: the corpus only needs
neighbouring sentences to be neighbours, not a perfect segmentation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# Lowercased, without the final period. Titles and common abbreviations of the shared corpora.
ABBREVIATIONS = frozenset(
    """mr mrs ms messrs mme mlle dr st jr sr prof rev hon gen col capt lt sgt maj adm gov
    sen rep pres supt esq co corp inc ltd bros vs etc cf viz al approx dept est fig vol
    no nos p pp ch chap sec art jan feb mar apr jun jul aug sep sept oct nov dec mt ft
    e.g i.e u.s u.s.a u.k a.m p.m d.c b.c a.d n.y""".split()
)

# Candidate boundary: terminal punctuation, optional closing quotes/brackets, whitespace.
_BOUNDARY = re.compile(r"""([.!?]+)(["'\u201d\u2019)\]]*)(\s+)""")
# What may start a sentence: optional opening quotes/brackets, then an uppercase letter or a digit.
_STARTER = re.compile(r"""["'\u201c\u2018(\[]*[A-Z0-9]""")
# Paragraphs are whitespace-normalised, so the word before a period starts after the last space.
# The longest abbreviation is short: looking back further is never needed, which keeps the
# splitter linear in the paragraph length (a paragraph of "Mr. Mr. ..." has no boundary).
_LOOKBACK = 32


def _is_abbreviation(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (the text before a period) ends with an abbreviation or an initial."""
    space = text.rfind(" ", max(start, end - _LOOKBACK), end)
    if space < 0 and end - start > _LOOKBACK:
        return False  # a "word" longer than any abbreviation
    word = text[(space + 1 if space >= 0 else start) : end]
    if not word:
        return False
    word = word.lstrip("\"'(\u201c\u2018[")
    if len(word) == 1 and word.isalpha() and word.isupper():
        return True  # an initial: "H. G. Wells", "Harry S. Truman"
    return word.lower() in ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """The sentences of one paragraph of running text, whitespace-normalised."""
    text = " ".join(text.split())
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(2)
        if not _STARTER.match(text, match.end()):
            continue
        if match.group(1) == "." and _is_abbreviation(text, start, match.start()):
            continue
        sentence = text[start:end].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    rest = text[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


def paragraphs_by_blank_lines(lines: Iterable[str]) -> Iterator[str]:
    """Paragraphs of hard-wrapped text (books): blocks of lines separated by blank lines."""
    block: list[str] = []
    for line in lines:
        if line.strip():
            block.append(line.strip())
        elif block:
            yield " ".join(block)
            block = []
    if block:
        yield " ".join(block)


def paragraphs_by_lines(lines: Iterable[str]) -> Iterator[str]:
    """Paragraphs of unwrapped text (speeches): every non-blank line is one paragraph."""
    for line in lines:
        if line.strip():
            yield line.strip()
