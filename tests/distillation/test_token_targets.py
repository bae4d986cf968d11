"""Per-token targets: each word the student spells as its own token gets its row plus how the
teacher's context moves that word, carried into the row's space at the row's scale."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.distillation.alignment import fit_alignment
from parasent.distillation.token_targets import token_targets
from parasent.text import WordTokenizer
from parasent.text.tokenized import Tokenized

WORDS = ["the", "dog", "cat", "ran", "sat", "far"]
TEXTS = ["the dog ran", "the cat sat", "the dog sat", "the cat ran", "the cat sat", "zebu dog ran far"]


def setting(context: float = 0.3, seed: int = 0):
    rng = np.random.default_rng(seed)
    tokenizer = WordTokenizer.from_vocabulary(WORDS)
    tokenized = tokenizer.encode_batch(TEXTS)
    rows = rng.normal(size=(tokenizer.vocab_size, 4)).astype(np.float32)
    mean_state = {w: rng.normal(size=6) for w in [*WORDS, "zebu"]}
    states = [
        np.array([mean_state[w] + context * rng.normal(size=6) for w in text.split()], dtype=np.float32)
        for text in TEXTS
    ]
    return tokenizer, tokenized, rows, states


def test_targets_are_the_rows_moved_as_the_teacher_moves_each_word():
    tokenizer, tokenized, rows, states = setting()
    targets = token_targets(tokenizer, TEXTS, tokenized, states, rows)
    ids = tokenized.ids
    has = np.flatnonzero(targets.row_of >= 0)
    unknown = tokenizer.encode_batch(["zebu"]).ids[0]
    far = tokenizer.tokenizer.token_to_id("far")
    assert unknown not in ids[has] and far not in ids[has]  # the unknown row; a word seen once
    assert len(has) == 5 * 3 + 2 and targets.report["sentences_aligned"] == 6
    # recompute one token's target by the module docstring's equation
    seen = [(s, k, w) for s, text in enumerate(TEXTS) for k, w in enumerate(text.split()) if w in WORDS[:5]]
    mean = {w: np.mean([states[s][k] for s, k, v in seen if v == w], axis=0) for w in WORDS[:5]}
    ids_of = [tokenizer.tokenizer.token_to_id(w) for w in WORDS[:5]]
    align = fit_alignment(np.array([mean[w] for w in WORDS[:5]], np.float32), rows[ids_of])
    s, k, word = seen[4]  # "dog" of "the dog sat"
    row = rows[tokenizer.tokenizer.token_to_id(word)]
    expected = row + (states[s][k] - mean[word]) @ align * (np.linalg.norm(row) / np.linalg.norm(mean[word]))
    position = int(tokenized.offsets[s]) + k
    np.testing.assert_allclose(targets.values[targets.row_of[position]], expected, atol=1e-2)


def test_a_word_the_teacher_never_moves_targets_its_own_row():
    tokenizer, tokenized, rows, states = setting(context=0.0)
    targets = token_targets(tokenizer, TEXTS, tokenized, states, rows)
    has = np.flatnonzero(targets.row_of >= 0)
    np.testing.assert_allclose(targets.values[targets.row_of[has]], rows[tokenized.ids[has]], atol=1e-2)
    assert targets.report["move_ratio"] == pytest.approx(0.0, abs=1e-3)


def test_a_sentence_the_tokenizer_read_otherwise_gets_no_target():
    tokenizer, tokenized, rows, states = setting()
    texts = [*TEXTS, "the dog ran"]
    tokenized = tokenizer.encode_batch(texts)
    ids = tokenized.ids.copy()
    ids[-3:] = ids[-3:][::-1]  # the last sentence's tokens read "ran dog the"
    targets = token_targets(tokenizer, texts, Tokenized(ids, tokenized.offsets), [*states, states[0]], rows)
    assert targets.report["sentences_aligned"] == 6 and (targets.row_of[-3:] == -1).all()
    with pytest.raises(ValueError, match="found 0"):
        token_targets(
            tokenizer, texts, Tokenized(np.roll(ids, 1), tokenized.offsets), [*states, states[0]], rows
        )


def test_too_little_teacher_text_to_fit_the_map_is_refused():
    tokenizer, tokenized, rows, states = setting()
    wide = np.zeros((rows.shape[0], 64), dtype=np.float32)
    with pytest.raises(ValueError, match="need at least 64 words seen 3\\+ times"):
        token_targets(tokenizer, TEXTS, tokenized, [np.pad(s, ((0, 0), (0, 58))) for s in states], wide)


def test_a_cut_keeps_the_targets_of_the_tokens_kept():
    tokenizer, tokenized, rows, states = setting()
    targets = token_targets(tokenizer, TEXTS, tokenized, states, rows)
    cut = targets.cut(np.array([0, 1, 3]))
    assert cut.row_of.tolist() == targets.row_of[[0, 1, 3]].tolist() and cut.values is targets.values
