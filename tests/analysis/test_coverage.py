from collections import Counter

import numpy as np
import pytest

from parasent.analysis.coverage import SEMEVAL_P75, coverage_analysis, training_word_counts
from parasent.core.model import SentenceModel
from parasent.core.model_spec import NamedModel
from parasent.data.readers.records import ScoredPair
from parasent.data.registry.catalog import SUITES
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.text.word_vectors import WordVectors


def test_fractions_deviation_and_correlation():
    words = ["a", "b", "c", "x", "y"]
    matrix = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    model = NamedModel("m", "m", SentenceModel.from_vectors(WordVectors(words, matrix)))
    counts = Counter({"a": 500, "b": 150, "c": 3, "x": 200, "y": 200})
    rng = np.random.default_rng(1)
    data = {}
    for k, name in enumerate(["s/one", "s/two", "s/three", "s/four"]):
        # more rare / unknown words ("c", "zz") in later sets
        vocabulary = ["a", "b", "x", "y"] + ["c"] * k + ["zz"] * k
        data[name] = [
            ScoredPair(
                " ".join(rng.choice(vocabulary, 4)),
                " ".join(rng.choice(vocabulary, 4)),
                float(rng.uniform(0, 5)),
            )
            for _ in range(40)
        ]
    report = coverage_analysis(model, SimilarityEvaluator("s", datasets=data), counts, min_count=100)
    first, last = report.rows[0], report.rows[-1]
    assert (
        first.unknown == 0
        and first.undertrained == 0
        and last.unknown > 0
        and last.undertrained > last.unknown
    )
    tokens = [w for p in data["s/four"] for s in (p.s1, p.s2) for w in s.split()]
    assert last.unknown == pytest.approx(tokens.count("zz") / len(tokens))
    assert last.undertrained == pytest.approx((tokens.count("zz") + tokens.count("c")) / len(tokens))
    mean = np.mean([r.pearson for r in report.rows])
    assert [r.deviation for r in report.rows] == pytest.approx([r.pearson - mean for r in report.rows])
    assert -100 <= report.rho_undertrained <= 100 and "Spearman rho" in report.format_table()
    with pytest.raises(ValueError, match="75th percentile"):
        coverage_analysis(model, SimilarityEvaluator("s", datasets=data), counts, reference="p75")
    one = coverage_analysis(model, SimilarityEvaluator("s", datasets={"s/one": data["s/one"]}), counts)
    assert one.rho_undertrained is None and one.to_dict()["p_unknown"] is None  # undefined, not "0, p = 1"
    assert "n/a (fewer than 3 sets" in one.format_table()


def test_published_percentiles_cover_the_transfer_suite():
    assert set(SEMEVAL_P75) == set(SUITES["transfer"])


def test_training_counts_come_from_the_filtered_pool(mini_data_dir):
    counts = training_word_counts(mini_data_dir, "standard")
    assert counts["car"] > 0 and counts["."] > 0
