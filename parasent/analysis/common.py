"""What the analyses share: evaluation sets named as comma-separated suites or datasets."""

from __future__ import annotations

from pathlib import Path

from parasent.data.readers.records import ScoredPair
from parasent.data.registry.catalog import suite_datasets
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.support.paths import resolve_data_dir


def load_datasets(suites: str, data_dir: str | Path | None = None) -> dict[str, list[ScoredPair]]:
    """Scored pairs of every dataset of ``suites`` (``transfer``, ``sts2014``, ``sick2014/test``,
    or several joined by commas), in registry order, each dataset once."""
    root = resolve_data_dir(data_dir)
    out: dict[str, list[ScoredPair]] = {}
    for name in (s.strip() for s in suites.split(",") if s.strip()):
        for spec in suite_datasets(name):
            if spec.name not in out:
                out[spec.name] = spec.load(root)
    if not out:
        raise KeyError(f"no datasets named by {suites!r}")
    return out


def suite_evaluator(suites: str, data_dir: str | Path | None = None) -> SimilarityEvaluator:
    """A :class:`SimilarityEvaluator` over the datasets of ``suites`` (encodes each sentence once)."""
    return SimilarityEvaluator(suites, datasets=load_datasets(suites, data_dir))
