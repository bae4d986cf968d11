"""Misspelt copies of sentences (the typo view)."""

import numpy as np
import pytest

from parasent.paraphrase.typos import MIN_LETTERS, NEIGHBOURS, misspell, misspell_word

pytestmark = pytest.mark.core


def test_one_edit_after_the_first_letter():
    rng = np.random.default_rng(0)
    edits = [misspell_word("government", rng) for _ in range(500)]
    assert all(e[0] == "g" and abs(len(e) - len("government")) <= 1 for e in edits)
    assert sum(e != "government" for e in edits) > 450  # a transposition of the last letter is none
    assert set(NEIGHBOURS["s"]) == set("qweadzxc") and set(NEIGHBOURS["q"]) == set("wsa")


def test_misspelling_is_seeded_per_text_and_leaves_short_words_and_other_scripts():
    texts = ["The government passed a new law.", "Кошка спит.", "a an the of"]
    once, again = misspell(texts, 0.9, seed=3), misspell(list(reversed(texts)), 0.9, seed=3)
    assert once == list(reversed(again))  # per text: independent of order and neighbours
    assert once[1:] == texts[1:]  # no ASCII word of MIN_LETTERS letters: nothing to edit
    assert once[0] != texts[0] and once[0].split()[0] == "The"  # three letters stay
    assert misspell(texts, 0.0, seed=3) == texts and MIN_LETTERS == 4
    edited = [
        a != b
        for a, b in zip(
            misspell(["alpha bravo charlie delta"] * 1, 0.5, 1)[0].split(),
            "alpha bravo charlie delta".split(),
            strict=True,
        )
    ]
    assert 0 < sum(edited) < 4
