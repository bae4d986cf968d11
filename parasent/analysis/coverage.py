"""Unknown and under-trained words per dataset against performance (Wieting et al. 2016, Sec. 5.1).

The paper "calculated the fraction of words in each of our 22 SemEval datasets that do not
occur at least 100 times in PPDB XL along with our performance deviation from the 75th
percentile of each dataset", and found a Spearman's rho of -45.1. Here, per dataset: the
fraction of tokens unknown to the model, the fraction occurring fewer than ``min_count``
times in the training pairs (unknown words included), the model's Pearson r, and its
deviation from a reference: the model's own mean over the datasets (``mean``), or the 75th
percentile of the official SemEval runs that the paper's Table 2 lists (``p75``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from parasent.core.model_spec import NamedModel
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.metrics import pearson
from parasent.support.tables import format_rows
from parasent.text.tokenizer import pre_tokenize
from parasent.text.vocab import count_words

# 75th percentile of the official runs per dataset, Pearson x100 (Wieting et al. 2016, Table 2;
# SICK: primary runs only).
SEMEVAL_P75 = {
    "sts2012/MSRpar": 57.6, "sts2012/MSRvid": 80.3, "sts2012/SMTeuroparl": 48.1, "sts2012/OnWN": 65.9,
    "sts2012/SMTnews": 45.4, "sts2013/headlines": 68.3, "sts2013/OnWN": 64.8, "sts2013/FNWN": 38.1,
    "sts2014/deft-forum": 46.8, "sts2014/deft-news": 74.0, "sts2014/headlines": 75.4,
    "sts2014/images": 79.0, "sts2014/OnWN": 81.1, "sts2014/tweet-news": 72.2,
    "sts2015/answers-forums": 68.2, "sts2015/answers-students": 73.6, "sts2015/belief": 72.2,
    "sts2015/headlines": 80.8, "sts2015/images": 84.3, "sick2014/test": 79.9, "twitter2015/test": 52.5,
}  # fmt: skip
REFERENCES = ("mean", "p75")


def training_word_counts(
    data_dir: str | Path, pool: str | None = "standard", files: Iterable[tuple[str, str]] = ()
) -> Counter[str]:
    """Word counts over both sides of a training pool (after the leakage filter)."""
    from parasent.data.training_text.pools import build_pool

    pairs, _ = build_pool(data_dir, pool, files=list(files))
    return count_words(s for pair in pairs for s in (pair.s1, pair.s2))


@dataclass
class CoverageRow:
    dataset: str
    tokens: int
    unknown: float  # fraction of tokens not in the model's vocabulary
    undertrained: float  # fraction with training count < min_count (unknown included)
    pearson: float
    deviation: float


@dataclass
class CoverageReport:
    model: str
    min_count: int
    reference: str
    rows: list[CoverageRow]
    rho_undertrained: float | None  # None: undefined (fewer than 3 sets, or a constant column)
    p_undertrained: float | None
    rho_unknown: float | None
    p_unknown: float | None

    def format_table(self, markdown: bool = False) -> str:
        rows = [
            [r.dataset, r.tokens, 100 * r.unknown, 100 * r.undertrained, r.pearson, r.deviation]
            for r in self.rows
        ]
        footer = [
            f"Spearman rho x100 over {len(self.rows)} sets, deviation vs under-trained fraction: "
            f"{_rho(self.rho_undertrained, self.p_undertrained)}; "
            f"vs unknown fraction: {_rho(self.rho_unknown, self.p_unknown)}"
        ]
        return format_rows(
            [
                "dataset",
                "tokens",
                "unknown %",
                f"count<{self.min_count} %",
                "pearson",
                f"dev. from {self.reference}",
            ],
            rows,
            title=f"model: {self.model}; under-trained = fewer than {self.min_count} occurrences in the training pairs",
            footer=footer,
            markdown=markdown,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "min_count": self.min_count,
            "reference": self.reference,
            "datasets": [vars(r) for r in self.rows],
            "spearman_undertrained": self.rho_undertrained,
            "p_undertrained": self.p_undertrained,
            "spearman_unknown": self.rho_unknown,
            "p_unknown": self.p_unknown,
        }


def _rho(rho: float | None, p: float | None) -> str:
    return "n/a (fewer than 3 sets, or one column constant)" if rho is None else f"{rho:.1f} (p = {p:.3g})"


def _spearman(x: list[float], y: list[float]) -> tuple[float | None, float | None]:
    """Spearman's rho x100 and its p-value; None, None where it is undefined (not 0 and p = 1,
    which would read as a measured absence of correlation)."""
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    result = stats.spearmanr(x, y)
    return float(result[0] * 100), float(result[1])


def coverage_analysis(
    named: NamedModel,
    evaluator: SimilarityEvaluator,
    counts: Counter[str],
    *,
    min_count: int = 100,
    reference: str = "mean",
) -> CoverageReport:
    if reference not in REFERENCES:
        raise ValueError(f"reference must be one of {REFERENCES}, got {reference!r}")
    tokenizer = named.model.tokenizer
    predictions = evaluator.predictions(named.model)
    scores = {n: pearson(predictions[n], evaluator.gold(n)) for n in evaluator.pairs}
    if reference == "p75":
        missing = [n for n in scores if n not in SEMEVAL_P75]
        if missing:
            raise ValueError(
                f"no published 75th percentile for {', '.join(missing)} (reference p75 covers the transfer suite)"
            )
        references = {n: SEMEVAL_P75[n] for n in scores}
    else:
        mean = float(np.mean(list(scores.values())))
        references = dict.fromkeys(scores, mean)
    rows = []
    for name, pairs in evaluator.pairs.items():
        words = [w for p in pairs for s in (p.s1, p.s2) for w in pre_tokenize(s)]
        unknown = sum(tokenizer.token_to_id(w) is None for w in words)
        undertrained = sum(counts.get(w, 0) < min_count or tokenizer.token_to_id(w) is None for w in words)
        total = max(len(words), 1)
        rows.append(
            CoverageRow(
                name,
                len(words),
                unknown / total,
                undertrained / total,
                scores[name],
                scores[name] - references[name],
            )
        )
    deviation = [r.deviation for r in rows]
    rho_u, p_u = _spearman([r.undertrained for r in rows], deviation)
    rho_k, p_k = _spearman([r.unknown for r in rows], deviation)
    return CoverageReport(named.label, min_count, reference, rows, rho_u, p_u, rho_k, p_k)
