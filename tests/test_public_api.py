"""The names users import, wherever the modules behind them live (docs/architecture.md: the
package root keeps ``__init__``, ``cli``, ``errors`` and the modules users import)."""

from __future__ import annotations

import numpy as np
import pytest

import parasent

pytestmark = pytest.mark.core


def test_load_and_SentenceModel_are_the_package_s_names():
    model = parasent.load()
    assert isinstance(model, parasent.SentenceModel)
    assert parasent.SentenceModel is type(model)
    vectors = model.encode(["A man is playing a guitar.", "A man plays the guitar."])
    assert vectors.shape == (2, model.dim)
    assert float(model.similarity(vectors[:1], vectors[1:])[0, 0]) > 0.8


def test_search_ranks_the_nearest_corpus_vector_first():
    corpus = np.eye(4, dtype=np.float32)
    hits = parasent.search(np.array([[0.1, 0.9, 0.0, 0.0]], dtype=np.float32), corpus, top_k=2)
    assert [hit["corpus_id"] for hit in hits[0]] == [1, 0]


def test_util_keeps_sentence_transformers_names():
    from parasent import util

    assert callable(util.cos_sim) and callable(util.semantic_search) and callable(util.normalize_embeddings)
    assert np.allclose(util.cos_sim(np.eye(2), np.eye(2)), np.eye(2))


def test_evaluation_evaluate_scores_a_suite(mini_data_dir):
    from parasent.evaluation import evaluate

    report = evaluate(parasent.load(), "validation", mini_data_dir)
    assert np.isfinite(report.primary)


def test_errors_and_version_stay_at_the_root():
    from parasent.errors import ParasentError

    assert issubclass(parasent.errors.ModelFormatError, ParasentError)
    assert parasent.__version__
