"""Evaluation: metrics and one evaluator over the similarity suites.

The datasets and suites themselves are records of the data registry
(:mod:`parasent.data.registry.catalog`); ``SUITES`` and ``suite_datasets`` are re-exported here because
a suite's name is what the evaluator is called with.
"""

from parasent.data.registry.catalog import SUITES, suite_datasets
from parasent.evaluation.evaluator import EvaluationReport, SimilarityEvaluator, evaluate

__all__ = [
    "SUITES",
    "EvaluationReport",
    "SimilarityEvaluator",
    "evaluate",
    "suite_datasets",
]
