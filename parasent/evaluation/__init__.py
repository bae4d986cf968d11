"""Evaluation: a registry of similarity datasets and suites, metrics, and one evaluator."""

from parasent.evaluation.datasets import DATASETS, SUITES, SimilarityDataset, suite_datasets
from parasent.evaluation.evaluator import EvaluationReport, SimilarityEvaluator, evaluate

__all__ = [
    "DATASETS",
    "SUITES",
    "EvaluationReport",
    "SimilarityDataset",
    "SimilarityEvaluator",
    "evaluate",
    "suite_datasets",
]
