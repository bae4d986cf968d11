"""Misspelt copies of sentences: the *typo view* that teaches a word model's subword pieces to
stand in for the words people misspell.

A word model that spells unknown words out in subword pieces (:mod:`parasent.text.word_pieces`)
meets its pieces mostly in misspelt and re-spelt words ("guitr", "goverment"). Trained on the
teacher's embedding of the clean sentence, a copy of the sentence with some of its words
misspelt asks the pieces of the misspellings to mean what the clean words mean: the noise
augmentation of robust word-embedding training (e.g. Belinkov & Bisk 2018, *Synthetic and
Natural Noise Both Break Neural Machine Translation*, Sec. 3: swaps, deletions, keyboard
substitutions). Each edit is one of the four of Damerau (1964) on one letter inside the word
(the first letter stays, as people rarely misspell it): deletion, transposition of two
neighbours, substitution by a neighbouring key, insertion of a neighbouring key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

# Neighbouring keys on a QWERTY keyboard: the letters a finger slips to.
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
NEIGHBOURS = {
    letter: "".join(
        _ROWS[r2][c2]
        for r2 in (r - 1, r, r + 1)
        if 0 <= r2 < len(_ROWS)
        for c2 in (c - 1, c, c + 1)
        if 0 <= c2 < len(_ROWS[r2]) and (r2, c2) != (r, c)
    )
    for r, row in enumerate(_ROWS)
    for c, letter in enumerate(row)
}
MIN_LETTERS = 4  # shorter words are left alone: one edit turns most of them into other words
_WORD = re.compile(r"[A-Za-z]+")


def misspell_word(word: str, rng: np.random.Generator) -> str:
    """``word`` with one edit at a position after its first letter (see the module docstring)."""
    position = int(rng.integers(1, len(word)))
    letter = word[position].lower()
    near = NEIGHBOURS.get(letter, letter)
    edit = int(rng.integers(4))
    if edit == 0:  # deletion
        return word[:position] + word[position + 1 :]
    if edit == 1 and position < len(word) - 1:  # transposition
        return word[:position] + word[position + 1] + word[position] + word[position + 2 :]
    if edit == 2:  # substitution by a neighbouring key
        return word[:position] + near[int(rng.integers(len(near)))] + word[position + 1 :]
    return word[:position] + near[int(rng.integers(len(near)))] + word[position:]  # insertion


def misspell(texts: Sequence[str], rate: float, seed: int) -> list[str]:
    """Each text with each word of at least :data:`MIN_LETTERS` ASCII letters misspelt with
    probability ``rate`` (one edit). Reproducible per text: the choices depend on the text and
    ``seed`` only, not on the other texts or their order."""
    out = []
    for text in texts:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        rng = np.random.default_rng([seed, int.from_bytes(digest[:8], "little")])

        def edit(match: re.Match[str], rng: np.random.Generator = rng) -> str:
            word = match.group(0)
            if len(word) < MIN_LETTERS or rng.random() >= rate:
                return word
            return misspell_word(word, rng)

        out.append(_WORD.sub(edit, text))
    return out
