"""The teacher's per-word states: each word the mean of the teacher tokens starting in it,
stored by text and passed once, resumable, a damaged shard named."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.distillation.cache import CachedTeacher
from parasent.distillation.contextual import word_means
from parasent.distillation.teacher import Teacher
from parasent.distillation.word_states import FOLDER, WordStateCache
from parasent.errors import ModelFormatError


def test_a_word_is_the_mean_of_the_tokens_starting_in_it():
    tokens = np.array([[9.0, 9.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 7.0]], dtype=np.float32)
    offsets = [(0, 0), (0, 3), (3, 5), (6, 9), (0, 0)]  # [CLS] "dog" "##gy" "ran" [SEP]
    words, means = word_means("doggy ran far", tokens, offsets)
    assert words == ["doggy", "ran", "far"]
    np.testing.assert_allclose(means[:2], [[2.0, 3.0], [5.0, 6.0]])
    assert np.isnan(means[2]).all()  # "far": cut by the teacher's length limit


def test_states_are_passed_once_and_read_back(tmp_path):
    calls: list[list[str]] = []

    def compute(texts):
        calls.append(list(texts))
        return [np.full((len(t.split()), 3), len(t), dtype=np.float32) for t in texts]

    cache = WordStateCache(tmp_path)
    first = cache.get(["a b", "c d e"], compute)
    assert [s.shape for s in first] == [(2, 3), (3, 3)] and first[1].dtype == np.float16
    again = WordStateCache(tmp_path).get(["c d e", "f", "a b"], compute)
    assert calls == [["a b", "c d e"], ["f"]]  # only the new text the second time
    np.testing.assert_array_equal(again[0], first[1])
    assert again[1].shape == (1, 3)


def test_a_damaged_shard_is_named(tmp_path):
    WordStateCache(tmp_path).get(["a b"], lambda texts: [np.zeros((2, 3), np.float32)])
    shard = next((tmp_path / FOLDER).glob("*.safetensors"))
    shard.write_bytes(b"not a shard")
    with pytest.raises(ModelFormatError, match=f"{shard}: not a word-state cache shard"):
        WordStateCache(tmp_path)


def test_the_cached_teacher_gives_each_words_state(tiny_transformer_teacher_dir, tmp_path):
    texts = ["the big dogs", "a man is talking ."]
    teacher = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path, progress=False)
    states = teacher.word_states(texts)
    encoded = Teacher(tiny_transformer_teacher_dir, device="cpu").encode_tokens(texts)
    for text, state, tokens in zip(texts, states, encoded, strict=True):
        np.testing.assert_allclose(state, word_means(text, tokens.vectors, tokens.offsets)[1], atol=2e-3)
    again = CachedTeacher(str(tiny_transformer_teacher_dir), cache_dir=tmp_path, progress=False)
    assert [s.shape for s in again.word_states(texts)] == [s.shape for s in states] and again._teacher is None


def test_states_stored_for_another_split_of_the_text_are_passed_again(tmp_path):
    """A stored array with another number of words than parasent now splits the text into
    would give one word another's state: the text is passed again."""
    WordStateCache(tmp_path).get(["a b"], lambda texts: [np.zeros((1, 3), np.float32)])
    again = WordStateCache(tmp_path).get(["a b"], lambda texts: [np.ones((2, 3), np.float32)])
    assert again[0].shape == (2, 3) and again[0].sum() == 6
    assert WordStateCache(tmp_path).get(["a b"], lambda texts: [])[0].sum() == 6  # the later shard wins
