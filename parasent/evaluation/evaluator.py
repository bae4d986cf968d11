"""One evaluator for every similarity suite: cosine of the two sentence vectors against gold.

Works with anything that has ``encode(list_of_sentences) -> (n, dim) array``: parasent
models, torch encoders during training, or a sentence-transformers model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from parasent.core.inference import cosine_rows
from parasent.core.model_card import NOT_COMPARABLE, guard_off
from parasent.core.output import as_matrix
from parasent.data.readers.records import ScoredPair
from parasent.data.registry import DataRecord
from parasent.data.registry.catalog import (
    MTEB_SCORE,
    MTEB_STS_TASKS,
    MTEB_SUITE,
    SIMILARITY,
    suite_datasets,
    suite_metric,
)
from parasent.data.training_text.pools import GUARDED_SUITES
from parasent.errors import DataNotFoundError
from parasent.evaluation.metrics import pearson, spearman
from parasent.support.paths import resolve_data_dir


class Encodes(Protocol):
    def encode(self, sentences: Sequence[str], batch_size: int = ...) -> np.ndarray: ...


@dataclass
class DatasetResult:
    name: str
    group: str
    n: int
    pearson: float
    spearman: float
    oov_rate: float | None = None
    label: str = ""  # the registry's description of the set (empty for in-memory sets)


@dataclass
class EvaluationReport:
    """Per-dataset correlations and labelled aggregates; ``primary_metric`` names the headline."""

    suite: str
    datasets: list[DatasetResult]
    aggregates: dict[str, float]
    labels: dict[str, str]
    primary_metric: str
    model: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def primary(self) -> float:
        return self.aggregates[self.primary_metric]

    def log_values(self) -> dict[str, float]:
        """The figures a training log records beside the primary one: each dataset's Pearson."""
        return {d.name: d.pearson for d in self.datasets}

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "suite": self.suite,
            "primary_metric": self.primary_metric,
            "datasets": [asdict(d) for d in self.datasets],
            "aggregates": self.aggregates,
            "aggregate_labels": self.labels,
            "warnings": self.warnings,
        }

    def format_table(self) -> str:
        """A plain-text table: datasets, then each labelled aggregate (Pearson / Spearman x100)."""
        width = max([len(d.name) for d in self.datasets] + [7])
        show_oov = any(d.oov_rate is not None for d in self.datasets)
        head = (
            f"{'dataset':<{width}} {'n':>5} "
            + (f"{'oov%':>6} " if show_oov else "")
            + f"{'pearson':>8} {'spearman':>8}"
        )
        lines = [
            f"model: {self.model}  suite: {self.suite}" if self.model else f"suite: {self.suite}",
            head,
            "-" * len(head),
        ]
        for d in self.datasets:
            oov = (f"{d.oov_rate * 100:6.2f} " if d.oov_rate is not None else f"{'':6} ") if show_oov else ""
            lines.append(f"{d.name:<{width}} {d.n:>5} {oov}{d.pearson:8.2f} {d.spearman:8.2f}")
        lines.append("-" * len(head))
        label_width = max(len(label) for label in self.labels.values())
        for key, label in self.labels.items():
            if key.endswith("_pearson"):
                twin = key[: -len("pearson")] + "spearman"
                rho = f"{self.aggregates[twin]:8.2f}" if twin in self.aggregates else f"{'':8}"
                marker = ""
                if self.primary_metric in (key, twin):
                    metric = self.primary_metric.rsplit("_", 1)[-1]
                    marker = "  <- headline" + (f" ({metric})" if metric != "pearson" else "")
                lines.append(f"{label:<{label_width}}  {self.aggregates[key]:8.2f} {rho}{marker}")
            elif key.endswith("_spearman"):  # a Spearman-only figure: MTEB's STS measure
                marker = "  <- headline (spearman)" if self.primary_metric == key else ""
                lines.append(f"{label:<{label_width}}  {'':8} {self.aggregates[key]:8.2f}{marker}")
        lines.extend(f"{d.name}: {d.label}" for d in self.datasets if d.label)
        for warning in self.warnings:
            lines.append(f"warning: {warning}")
        return "\n".join(lines)


def _aggregate(
    results: list[DatasetResult], predictions: dict[str, np.ndarray], golds: dict[str, np.ndarray], suite: str
) -> tuple[dict[str, float], dict[str, str]]:
    aggregates: dict[str, float] = {}
    labels: dict[str, str] = {}
    groups: dict[str, list[DatasetResult]] = {}
    for r in results:
        groups.setdefault(r.group, []).append(r)
    for group, members in groups.items():
        if len(members) < 2:
            continue
        n = np.array([m.n for m in members], dtype=np.float64)
        for metric in ("pearson", "spearman"):
            values = np.array([getattr(m, metric) for m in members])
            aggregates[f"{group}_mean_{metric}"] = float(values.mean())
            aggregates[f"{group}_weighted_mean_{metric}"] = float((values * n).sum() / n.sum())
        pooled_pred = np.concatenate([predictions[m.name] for m in members])
        pooled_gold = np.concatenate([golds[m.name] for m in members])
        aggregates[f"{group}_pooled_pearson"] = pearson(pooled_pred, pooled_gold)
        aggregates[f"{group}_pooled_spearman"] = spearman(pooled_pred, pooled_gold)
        labels[f"{group}_mean_pearson"] = f"{group} mean over {len(members)} sets (unweighted)"
        labels[f"{group}_weighted_mean_pearson"] = f"{group} mean weighted by pairs"
        labels[f"{group}_pooled_pearson"] = f"{group} pooled pairs (one correlation)"
    for metric in ("pearson", "spearman"):
        aggregates[f"{suite}_mean_{metric}"] = float(np.mean([getattr(r, metric) for r in results]))
    labels[f"{suite}_mean_pearson"] = f"{suite} mean over {len(results)} sets (unweighted)"
    return aggregates, labels


class SimilarityEvaluator:
    """Loads a suite once; calling it on a model returns an :class:`EvaluationReport`.

    ``datasets`` (name -> scored pairs) evaluates in-memory sets instead of reading the suite.
    """

    def __init__(
        self,
        suite: str = "transfer",
        data_dir: str | Path | None = None,
        *,
        batch_size: int = 1024,
        datasets: dict[str, list[ScoredPair]] | None = None,
        progress: bool = False,
    ) -> None:
        """``progress``: a bar over the sentences while a parasent model encodes them (shown only
        on a terminal)."""
        self.suite = suite
        self.batch_size = batch_size
        self.progress = progress
        if datasets is None:
            self.specs: list[DataRecord] = suite_datasets(suite)
            root = resolve_data_dir(data_dir)
            datasets = {spec.name: spec.load(root) for spec in self.specs}
            for spec in self.specs:
                if not datasets[spec.name]:  # a correlation of nothing is no figure
                    where = ", ".join(str(path) for path in spec.paths(root))
                    raise DataNotFoundError(
                        f"{where}: no pairs to evaluate ({spec.name}: the file is empty or holds only blank lines)"
                    )
        else:
            # In-memory sets (tests, a user's own data): registry metadata where the name is known.
            self.specs = [
                SIMILARITY.get(name) or DataRecord(name, "similarity", "memory", (), group=name.split("/")[0])
                for name in datasets
            ]
        empty = [name for name, pairs in datasets.items() if not len(pairs)]
        if empty:
            raise ValueError(f"dataset {empty[0]!r} has no pairs to evaluate")
        self.pairs = datasets
        sentences: dict[str, int] = {}
        for pairs in self.pairs.values():
            for pair in pairs:
                sentences.setdefault(pair.s1, len(sentences))
                sentences.setdefault(pair.s2, len(sentences))
        self._index = sentences
        self.sentences = list(sentences)

    def predictions(self, model: Encodes) -> dict[str, np.ndarray]:
        """Cosine per pair for every dataset, encoding each unique sentence once."""
        # a parasent model (iter_encode) takes sentence-transformers' show_progress_bar; other encoders may not
        shown = {"show_progress_bar": True} if self.progress and hasattr(model, "iter_encode") else {}
        vectors = as_matrix(
            model.encode(self.sentences, batch_size=self.batch_size, **shown),
            finite=True,
            texts=self.sentences,
        )
        out = {}
        for spec in self.specs:
            pairs = self.pairs[spec.name]
            left = np.fromiter((self._index[p.s1] for p in pairs), dtype=np.int64, count=len(pairs))
            right = np.fromiter((self._index[p.s2] for p in pairs), dtype=np.int64, count=len(pairs))
            out[spec.name] = cosine_rows(vectors[left], vectors[right])
        return out

    def gold(self, name: str) -> np.ndarray:
        return np.array([p.score for p in self.pairs[name]], dtype=np.float64)

    def __call__(self, model: Encodes, *, name: str = "") -> EvaluationReport:
        predictions = self.predictions(model)
        golds = {spec.name: self.gold(spec.name) for spec in self.specs}
        results = []
        warnings = []
        oov = getattr(model, "oov_rate", None)
        for spec in self.specs:
            pred, gold = predictions[spec.name], golds[spec.name]
            if np.ptp(pred) == 0:
                warnings.append(f"{spec.name}: constant predictions, correlations reported as 0")
            pairs = self.pairs[spec.name]
            rate = oov([p.s1 for p in pairs] + [p.s2 for p in pairs]) if oov is not None else None
            results.append(
                DatasetResult(
                    spec.name,
                    spec.group,
                    len(pairs),
                    pearson(pred, gold),
                    spearman(pred, gold),
                    rate,
                    spec.description,
                )
            )
        aggregates, labels = _aggregate(results, predictions, golds, self.suite)
        primary = f"{self.suite}_mean_{suite_metric(self.specs)}"
        if self.suite == MTEB_SUITE and set(MTEB_STS_TASKS) <= {r.group for r in results}:
            primary = MTEB_SCORE  # the suite is there for MTEB's measure: that is its headline
            aggregates[primary] = float(np.mean([aggregates[f"{g}_pooled_spearman"] for g in MTEB_STS_TASKS]))
            labels[primary] = f"MTEB's STS measure: the mean of {len(MTEB_STS_TASKS)} tasks' pooled Spearman"
        warnings += self.guard_warnings(model)
        return EvaluationReport(self.suite, results, aggregates, labels, primary, name, warnings)

    def guard_warnings(self, model: Encodes) -> list[str]:
        """The warning a model trained with the leakage guard off gets on the sets the guard
        protects: its training text may hold their sentences, so the figures are not transfer."""
        if not guard_off(getattr(model, "metadata", None) or {}):
            return []
        guarded = {record.name for suite in GUARDED_SUITES for record in suite_datasets(suite)}
        hit = [spec.name for spec in self.specs if spec.name in guarded]
        return [f"{len(hit)} of these sets: {NOT_COMPARABLE}"] if hit else []


def evaluate(
    model: Encodes,
    suite: str = "transfer",
    data_dir: str | Path | None = None,
    *,
    name: str = "",
    progress: bool = False,
) -> EvaluationReport:
    """Evaluate ``model`` on a suite of the registry (see :data:`parasent.evaluation.SUITES`)."""
    return SimilarityEvaluator(suite, data_dir, progress=progress)(model, name=name)
