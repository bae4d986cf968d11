"""Paraphrase mining: exactly the pairs of a brute-force scan, each once, best first; the
approximate graph finds nearly all of them; a corpus is mined from its file."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.corpus.mining import ScanRows, mine_corpus, mine_vectors, mining_report
from parasent.data.text_input import SpooledCorpus
from parasent.errors import OptionError
from parasent.text.word_vectors import WordVectors


def clustered(n: int, dim: int = 24, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n // 10, dim))
    return (centres[rng.integers(0, len(centres), n)] + 0.5 * rng.normal(size=(n, dim))).astype(np.float32)


def brute_force_pairs(vectors: np.ndarray, k: int, threshold: float) -> set[tuple[int, int]]:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    scores = unit @ unit.T
    np.fill_diagonal(scores, -np.inf)
    pairs = set()
    for i, row in enumerate(scores):
        for j in np.lexsort((np.arange(len(row)), -row))[:k]:
            if row[j] >= threshold:
                pairs.add((min(i, int(j)), max(i, int(j))))
    return pairs


@pytest.mark.parametrize(("k", "threshold"), [(5, None), (3, 0.6)])
def test_exact_mining_finds_what_a_brute_force_scan_finds(k, threshold):
    vectors = clustered(2500)
    pairs = mine_vectors(vectors, top_k=k, threshold=threshold)
    found = list(zip(pairs.first.tolist(), pairs.second.tolist(), strict=True))
    assert set(found) == brute_force_pairs(vectors, k, -np.inf if threshold is None else threshold)
    assert len(found) == len(set(found)) and all(i < j for i, j in found)  # each pair once
    assert (np.diff(pairs.scores) <= 0).all()  # best first
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    np.testing.assert_allclose(
        pairs.scores, np.einsum("ij,ij->i", unit[pairs.first], unit[pairs.second]), atol=1e-5
    )
    best = mine_vectors(vectors, top_k=k, threshold=threshold, max_pairs=10)
    assert best.triplets() == pairs.triplets()[:10]


def test_the_graph_finds_nearly_every_exact_neighbour():
    pytest.importorskip("usearch")
    vectors = clustered(3000, seed=2)
    exact = mine_vectors(vectors, top_k=10)
    approximate = mine_vectors(vectors, top_k=10, ann=True)
    exact_pairs = set(zip(exact.first.tolist(), exact.second.tolist(), strict=True))
    found = set(zip(approximate.first.tolist(), approximate.second.tolist(), strict=True))
    assert len(found & exact_pairs) / len(exact_pairs) >= 0.95
    assert (np.diff(approximate.scores) <= 0).all()


def test_options_are_checked():
    with pytest.raises(OptionError, match="top_k must be positive"):
        mine_vectors(np.eye(3), top_k=0)
    with pytest.raises(OptionError, match="between -1 and 1"):
        mine_vectors(np.eye(3), threshold=1.5)


def test_a_corpus_is_mined_from_its_file_with_a_report(tmp_path):
    words = ["a", "man", "plays", "guitar", "cat", "sleeps", "dog", "runs", "market", "falls"]
    rng = np.random.default_rng(0)
    model = SentenceModel.from_vectors(
        WordVectors(words, rng.normal(size=(len(words), 16)).astype(np.float32))
    )
    lines = [
        "a man plays guitar",
        "a cat sleeps",
        "a man plays a guitar",
        "",
        "dog runs",
        "market falls",
        "a cat sleeps",
    ]
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(lines) + "\n")
    with SpooledCorpus(str(path)) as corpus:
        pairs = mine_corpus(model, corpus, top_k=2, threshold=0.9)
        report = mining_report(pairs, len(corpus))
    found = {(lines[i], lines[j]) for i, j in zip(pairs.first, pairs.second, strict=True)}
    assert found == {("a cat sleeps", "a cat sleeps"), ("a man plays guitar", "a man plays a guitar")}
    assert report[0].startswith("2 pair(s) among 7 line(s); 4 line(s) in at least one")
    assert any("[0.99, 1.00]" in line for line in report)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_sets_mine_without_error(n):
    pytest.importorskip("usearch")
    vectors = np.eye(max(n, 1), 4, dtype=np.float32)[:n]
    for ann in (False, True):
        assert len(mine_vectors(vectors, top_k=3, ann=ann)) == (1 if n == 2 else 0)


@pytest.mark.parametrize("ann", [False, True])
def test_a_top_k_beyond_the_set_is_every_other_line(ann):
    """--top-k 1000000000000 allocated 1.42 PiB: a line has n - 1 others, so k is at most that."""
    if ann:
        pytest.importorskip("usearch")
    vectors = clustered(50, seed=3)
    huge = mine_vectors(vectors, top_k=10**12, threshold=None, ann=ann)
    assert len(huge) == 50 * 49 // 2 or ann
    first = huge.triplets()[:5]
    again = mine_vectors(vectors, top_k=49, threshold=None, ann=ann).triplets()[:5]
    assert [t[1:] for t in first] == [t[1:] for t in again]  # the same pairs, in the same order
    # the approximate index sums in an order of its own: cosines agree to float32 rounding, not bit for bit
    np.testing.assert_allclose([t[0] for t in first], [t[0] for t in again], rtol=1e-6)


def test_written_cosines_never_pass_one():
    """Two identical lines were written with cosine 1.000001 (float32 rounding)."""
    from parasent.corpus.corpus_files import cosines_shown

    assert cosines_shown(np.array([1.0000012, 0.5, -1.0000005], dtype=np.float32)) == [
        "1.000000",
        "0.500000",
        "-1.000000",
    ]


def _corpus(tmp_path, lines):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(lines) + "\n")
    return SpooledCorpus(str(path))


def test_blank_lines_and_exact_copies_never_enter_the_scan(tmp_path):
    """A million blank lines took the full quadratic scan (no answer after 150 s): blank lines
    are left out, and exact copies are paired with their first line by hash alone."""
    lines = ["", "a cat sleeps", "  ", "a cat sleeps", "dog runs", "a cat sleeps", "", "dog runs"]
    with _corpus(tmp_path, lines) as corpus:
        rows = ScanRows.of(corpus)
    assert rows.scanned.tolist() == [1, 4] and rows.blank == 3
    assert rows.copies.tolist() == [3, 5, 7] and rows.originals.tolist() == [1, 1, 4]


def test_a_corpus_of_blank_and_equal_lines_mines_its_copies_and_says_so(tmp_path):
    words = ["a", "cat", "sleeps"]
    model = SentenceModel.from_vectors(WordVectors(words, np.eye(3, 4, dtype=np.float32)))
    said = []
    with _corpus(tmp_path, [""] * 50_000 + ["a cat sleeps"] * 3) as corpus:
        pairs = mine_corpus(model, corpus, top_k=5, threshold=0.5, notice=said.append)
    assert pairs.triplets() == [[1.0, 50_000, 50_001], [1.0, 50_000, 50_002]]
    assert said == [
        "left out of the scan: 50,000 blank line(s), 2 exact copies (each paired with the first line "
        "of its text, score 1)"
    ]


def test_max_pairs_keeps_the_best_of_scan_and_copies_together(tmp_path):
    words = ["a", "man", "plays", "guitar", "cat", "sleeps"]
    model = SentenceModel.from_vectors(
        WordVectors(words, np.random.default_rng(1).normal(size=(6, 8)).astype(np.float32))
    )
    lines = ["a man plays guitar", "a man plays a guitar", "a cat sleeps", "a cat sleeps"]
    with _corpus(tmp_path, lines) as corpus:
        every = mine_corpus(model, corpus, top_k=3, threshold=None)
        best = mine_corpus(model, corpus, top_k=3, threshold=None, max_pairs=2)
    assert best.triplets() == every.triplets()[:2]
    assert every.triplets()[0] == [1.0, 2, 3]
    assert len(every) == 1 + 3  # the copy pair, and the three pairs of the distinct lines
