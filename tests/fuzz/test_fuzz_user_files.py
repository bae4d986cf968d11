"""The files users hand the newer commands, on seeded mutations: a corpus for ``mine`` and
``dedup`` (plain text and JSON Lines), a saved classifier head (``head.json``,
``head.safetensors``) and a pairs file for ``evaluate --pairs`` (each format, and sniffed). The
only exceptions allowed are parasent's own errors (and the ``ValueError`` of a figure that
cannot be made), every error names the file, no input hangs, and whatever succeeds is finite:
mined cosines within [-1, 1], probabilities that sum to 1, figures that are numbers or
"undefined". ``PARASENT_FUZZ_N`` inputs per target (docs/robustness.md).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.corpus.dedup import dedup_corpus
from parasent.corpus.mining import mine_corpus
from parasent.data.text_input import SpooledCorpus
from parasent.errors import ParasentError
from parasent.text.word_vectors import WordVectors
from tests.fuzz.mutate import Tally, inputs

WORDS = ["a", "man", "plays", "guitar", "the", "cat", "sleeps", "dog", "runs", "woman", "piano"]
CORPUS = {
    "corpus.txt": b"a man plays guitar\nthe cat sleeps\n\na man plays the guitar\nthe dog runs\nthe cat sleeps\n",
    "corpus.jsonl": b'{"text": "a man plays guitar"}\n{"text": "the cat sleeps", "id": 2}\n\n{"text": "the dog runs"}\n',
}
PAIRS = {
    "sts": b"4.5\ta man plays guitar\ta man plays the guitar\n1.0\tthe cat sleeps\tthe dog runs\n"
    b"3.2\ta woman plays piano\ta man plays piano\n0.2\tthe dog runs\ta man plays guitar\n" * 3,
    "labelled": b"1\ta man plays guitar\ta man plays the guitar\n0\tthe cat sleeps\tthe dog runs\n"
    b"1\tthe cat sleeps\ta cat sleeps\n0\ta woman plays piano\tthe dog runs\n" * 3,
    "tsv": b"a man plays guitar\ta man plays the guitar\nthe cat sleeps\ta cat sleeps\n"
    b"the dog runs\ta dog runs\na woman plays piano\tthe woman plays the piano\n" * 3,
}
ALLOWED = (ParasentError, ValueError)


@pytest.fixture(scope="module")
def model():
    table = np.random.default_rng(0).normal(size=(len(WORDS), 8)).astype(np.float32)
    return SentenceModel.from_vectors(WordVectors(WORDS, table))


def _mine_and_dedup(model, path) -> None:
    with SpooledCorpus(str(path)) as corpus:
        pairs = mine_corpus(model, corpus, top_k=3, threshold=None)
        assert np.all(np.abs(pairs.scores) <= 1 + 1e-5), pairs.scores
        assert len(pairs) == 0 or pairs.second.max() < len(corpus)
        result = dedup_corpus(model, corpus, threshold=0.9)
        assert len(result) == len(corpus) and result.kept.any() == (len(corpus) > 0)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_mine_and_dedup_survive_mutated_corpora(tmp_path, model, name):
    path = tmp_path / name
    path.write_bytes(CORPUS[name])
    _mine_and_dedup(model, path)  # the sample itself is valid
    tally = Tally(f"mine/dedup {name}")
    for index, data in inputs(CORPUS[name], seed=len(name) + 11):
        path.write_bytes(data)
        tally.check(index, lambda: _mine_and_dedup(model, path), name, ALLOWED)
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])


def _figures_are_numbers(model, spec: str) -> None:
    from parasent.evaluation.file_pairs import evaluate_pairs

    report = evaluate_pairs(model, spec)
    for name, value in report.figures.items():
        assert value is None or math.isfinite(value), (name, value)
    assert math.isfinite(report.primary)
    report.format_table()


@pytest.mark.parametrize("fmt", ["sts", "labelled", "tsv", "sniffed"])
def test_evaluate_pairs_survives_mutated_pair_files(tmp_path, model, fmt):
    sample = PAIRS["sts" if fmt == "sniffed" else fmt]
    path = tmp_path / "pairs.tsv"
    spec = str(path) if fmt == "sniffed" else f"{path}:{fmt}"
    path.write_bytes(sample)
    _figures_are_numbers(model, spec)
    tally = Tally(f"evaluate --pairs {fmt}")
    for index, data in inputs(sample, seed=len(fmt) + 23):
        path.write_bytes(data)
        tally.check(index, lambda: _figures_are_numbers(model, spec), "pairs.tsv", ALLOWED)
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])


def _predict(directory) -> None:
    from parasent.supervised.head_forward import read_head

    head, _ = read_head(directory, input_dim=4)
    rows = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    log_probs = head(rows)
    assert np.all(np.isfinite(log_probs)) and np.allclose(np.exp(log_probs).sum(axis=1), 1.0, atol=1e-4)


@pytest.mark.parametrize("which", ["head.json", "head.safetensors"])
def test_a_saved_head_survives_mutation(tmp_path, which):
    pytest.importorskip("torch")
    from parasent.supervised.heads import build_head, save_head

    directory = tmp_path / "head"
    directory.mkdir()
    save_head(
        directory,
        build_head("sentence", 4, 6, 3, seed=1),
        {"task": "x", "classes_from": "file", "labels": ["a", "b", "c"]},
    )
    _predict(directory)
    sample = (directory / which).read_bytes()
    tally = Tally(f"head {which}")
    for index, data in inputs(sample, seed=len(which) + 31, gz=False):
        (directory / which).write_bytes(data)
        tally.check(index, lambda: _predict(directory), str(directory), (ParasentError,))
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])
