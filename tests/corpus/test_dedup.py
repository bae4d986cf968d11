"""Semantic deduplication: the greedy rule (a text goes when a kept earlier text is a copy of
it or is at or above the threshold; the most similar kept one explains it), exactly, in
blocks; the leakage guard against another set; SemHash's answer on the same vectors."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.corpus import dedup
from parasent.corpus.dedup import (
    EXACT,
    KEPT,
    NEAR,
    dedup_corpus,
    dedup_vectors,
    exact_duplicates,
    text_hashes,
)
from parasent.corpus.neighbours import unit_vectors
from parasent.data.text_input import SpooledCorpus
from parasent.text.word_vectors import WordVectors


def greedy(vectors: np.ndarray, texts: list[str] | None, threshold: float) -> tuple[list[int], list[int]]:
    """The rule, one text at a time over the full matrix: (status, by) per text."""
    unit = unit_vectors(vectors)
    scores = unit @ unit.T
    status, by, kept, first = [KEPT] * len(unit), [-1] * len(unit), [], {}
    for i in range(len(unit)):
        if texts is not None and texts[i] in first:
            status[i], by[i] = EXACT, first[texts[i]]
            continue
        if texts is not None:
            first[texts[i]] = i
        if kept and scores[i, kept].max() >= threshold:
            status[i], by[i] = NEAR, kept[int(np.argmax(scores[i, kept]))]
            continue
        kept.append(i)
    return status, by


def groups(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n // 4, 16))
    return (centres[rng.integers(0, len(centres), n)] + 0.3 * rng.normal(size=(n, 16))).astype(np.float32)


@pytest.mark.parametrize(("n", "threshold", "block"), [(3000, 0.8, 1024), (2000, 0.5, 128), (500, 0.95, 64)])
def test_blocks_give_the_greedy_rule(monkeypatch, n, threshold, block):
    monkeypatch.setattr(dedup, "ROW_BLOCK", block)
    vectors = groups(n, seed=n)
    texts = [f"text {i % (n - 50)}" for i in range(n)]  # the last 50 repeat the first 50
    vectors[n - 50 :] = vectors[:50]
    result = dedup_vectors(vectors, threshold=threshold, texts=texts)
    status, by = greedy(vectors, texts, threshold)
    assert result.status.tolist() == status and result.by.tolist() == by
    near = result.status == NEAR
    unit = unit_vectors(vectors)
    np.testing.assert_allclose(
        result.score[near], np.einsum("ij,ij->i", unit[near], unit[result.by[near]]), atol=1e-5
    )
    assert (result.score[result.status == EXACT] == 1.0).all()
    assert result.counts()["exact"] == 50


def test_a_hash_collision_removes_nothing():
    texts = ["a", "b", "a", "b", "c"]
    result = dedup.Deduplicated.all_kept(len(texts))
    exact_duplicates(np.zeros(len(texts), dtype=np.uint64), texts.__getitem__, result)  # every hash equal
    assert result.status.tolist() == [KEPT, KEPT, EXACT, EXACT, KEPT] and result.by.tolist()[2:4] == [0, 1]
    assert len(set(text_hashes(["a", "b", "a"]).tolist())) == 2


def test_against_removes_what_is_too_close_to_the_other_set():
    rng = np.random.default_rng(0)
    other = rng.normal(size=(50, 16)).astype(np.float32)
    corpus = rng.normal(size=(200, 16)).astype(np.float32)
    corpus[10] = other[3] + 0.01 * rng.normal(size=16)
    corpus[20] = other[7]
    texts = [f"c{i}" for i in range(200)]
    texts[30] = "o5"  # an exact copy of an other text (its vector need not be close)
    result = dedup_vectors(
        corpus, threshold=0.95, texts=texts, against=other, against_texts=[f"o{i}" for i in range(50)]
    )
    assert {i: (int(result.status[i]), int(result.by[i])) for i in np.flatnonzero(result.status)} == {
        10: (NEAR, 3),
        20: (NEAR, 7),
        30: (EXACT, 5),
    }


def test_the_graph_keeps_nearly_what_the_scan_keeps():
    pytest.importorskip("usearch")
    vectors = groups(2000, seed=5)
    exact = dedup_vectors(vectors, threshold=0.8)
    approximate = dedup_vectors(vectors, threshold=0.8, ann=True)
    assert (exact.status == approximate.status).mean() >= 0.97
    near = approximate.status == NEAR
    unit = unit_vectors(vectors)
    assert (np.einsum("ij,ij->i", unit[near], unit[approximate.by[near]]) >= 0.8 - 1e-5).all()


def test_semhash_removes_the_same_texts():
    semhash = pytest.importorskip("semhash")
    from vicinity import Backend

    vectors = groups(400, seed=9)
    texts = [f"t{i}" for i in range(400)]

    class Vectors:  # SemHash's encoder protocol: our vectors for its records
        def encode(self, sentences, **_):
            return vectors[[int(s[1:]) for s in sentences]]

    result = semhash.SemHash.from_embeddings(vectors, texts, Vectors(), ann_backend=Backend.BASIC)
    theirs = result.self_deduplicate(threshold=0.85)
    ours = dedup_vectors(vectors, threshold=0.85, texts=texts)
    assert sorted(theirs.selected) == sorted(t for t, keep in zip(texts, ours.kept, strict=True) if keep)
    explained = {d.record: d.duplicate_of for d in theirs.filtered}
    assert explained == {texts[i]: texts[ours.by[i]] for i in np.flatnonzero(ours.status == NEAR)}


def test_a_corpus_is_deduplicated_from_its_file(tmp_path):
    words = ["a", "man", "plays", "guitar", "cat", "sleeps", "dog", "runs"]
    rng = np.random.default_rng(1)
    model = SentenceModel.from_vectors(
        WordVectors(words, rng.normal(size=(len(words), 16)).astype(np.float32))
    )
    path = tmp_path / "c.txt"
    path.write_text("a man plays guitar\na cat sleeps\na man plays guitar\nman plays a guitar\ndog runs\n")
    with SpooledCorpus(str(path)) as corpus:
        result = dedup_corpus(model, corpus, threshold=0.99)
    assert result.status.tolist() == [KEPT, KEPT, EXACT, NEAR, KEPT]  # word order: the same average
    assert result.by.tolist() == [-1, -1, 0, 0, -1]
    report = dedup.dedup_report(result)
    assert report[0] == "kept 3 of 5 text(s); removed 1 exact duplicate(s) and 1 near-duplicate(s)"


@pytest.mark.parametrize("ann", [False, True])
def test_one_text_and_none_are_kept(ann):
    if ann:
        pytest.importorskip("usearch")
    assert dedup_vectors(np.ones((1, 4), np.float32), ann=ann).status.tolist() == [KEPT]
    assert len(dedup_vectors(np.zeros((0, 4), np.float32), ann=ann)) == 0
    other = np.ones((1, 4), np.float32)
    assert dedup_vectors(np.ones((1, 4), np.float32), against=other, ann=ann).status.tolist() == [NEAR]
