"""The DCU-SEManiacs system end to end (Hokamp & Arora 2016) on STS 2016: fine-tune a model
on task-internal pairs (and, transductively, on synthetic paraphrases of the evaluation
sentences), fit gradient-boosting ensembles over lexical features and the models' cosines,
and compare every column on STS 2016. ``parasent sts-system`` prints what this returns.

Every fine-tuning is a run of a :class:`~parasent.support.sweep.Sweep` under ``out`` (``runs.jsonl``):
a system that is stopped, or run again with the same settings, reuses finished models.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parasent.core.model import SentenceModel, load
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.paired import Comparison, compare_predictions
from parasent.sts.ensemble import format_importances
from parasent.sts.system import build_ensemble, finetune_config, sts_training_pairs
from parasent.support.staging import write_run_file
from parasent.support.sweep import Sweep

RESULTS_FILE = "results.json"
WEIGHTED = "sts2016_weighted_mean_pearson"


@dataclass
class SystemResults:
    comparison: Comparison
    threshold: float
    epochs: int
    synthetic: str | None
    importances: dict[str, Any] = field(default_factory=dict)
    sweep: list[tuple[float, float, float | None]] = field(default_factory=list)

    def legend(self) -> str:
        """What each column is."""
        synthetic = (
            f"synthetic = the same plus {self.synthetic} paraphrases of the STS 2016 sentences "
            "(TRANSDUCTIVE: trained on evaluation sentences, without their scores); "
            if self.synthetic
            else ""
        )
        ensembles = ["lexical only", "ensemble (raw + task-internal cosines)"]
        ensembles += ["fusion (all models' cosines, TRANSDUCTIVE)"] if self.synthetic else []
        return (
            "columns: raw = the given model; task-internal = fine-tuned on STS 2012 train pairs with gold >= "
            f"{self.threshold:g}; {synthetic}{' / '.join(ensembles)} "
            "= gradient boosting on lexical features (+ cosines), trained on the STS 2012 train pairs' "
            "gold scores, predicting 0-5."
        )

    def format_sweep(self, markdown: bool = False) -> str:
        lines = ["threshold sweep (task-internal fine-tuning, STS 2016 Pearson x100):"]
        if markdown:
            from parasent.support.tables import markdown_table

            rows = [[f"{t:g}", f"{m:.2f}", f"{w:.2f}"] for t, m, w in self.sweep]
            lines.append(markdown_table(["threshold", "mean of 5 sets", "weighted by pairs"], rows))
        else:
            lines += ["threshold  mean  weighted"] + [f"{t:9g}  {m:.2f}  {w:.2f}" for t, m, w in self.sweep]
        return "\n".join(lines)

    def format_table(self, markdown: bool = False) -> str:
        parts = [self.comparison.format_table(markdown=markdown), self.legend()]
        if self.sweep:
            parts.append("\n" + self.format_sweep(markdown))
        for name, importances in self.importances.items():
            parts.append(f"\nfeature importance, {name} (Gini, as the paper reports; split counts second):")
            parts.append(format_importances(importances, markdown))
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "comparison": self.comparison.to_dict(),
            "threshold": self.threshold,
            "epochs": self.epochs,
            "importances": self.importances,
        }
        if self.sweep:
            out["sweep"] = [
                {"threshold": t, "mean_pearson": m, "weighted_mean_pearson": w} for t, m, w in self.sweep
            ]
        return out


def check_before_fine_tuning(threshold: float, synthetic: str | None) -> None:
    """What would fail only after minutes of fine-tuning, said first: a threshold no gold score
    reaches (every training pair dropped), a generator that cannot be built (a missing file, a
    function that does not import; ``ppdb`` reads the data directory where it is used)."""
    if not 0 <= threshold <= 5:
        raise ValueError(f"threshold (--threshold) must be within the gold scores' 0-5, got {threshold:g}")
    if synthetic and synthetic != "ppdb":
        from parasent.paraphrase import build_generator

        build_generator(synthetic)


def run_system(
    model: str | Path,
    out: str | Path,
    *,
    data_dir: Path,
    threshold: float = 3.8,
    epochs: int = 10,
    synthetic: str | None = "ppdb",
    sweep_thresholds: Sequence[float] = (),
    seed: int = 1,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> SystemResults:
    """The system's columns on STS 2016 (and, with ``sweep_thresholds``, the task-internal model
    at each threshold); writes the fine-tuned models, ensembles and ``results.json`` to ``out``."""
    check_before_fine_tuning(threshold, synthetic)
    out = Path(out)
    runs = Sweep(out, say=say)

    def finetune(name: str, min_score: float, paraphrases: str | None = None) -> SentenceModel:
        config = finetune_config(model, min_score=min_score, epochs=epochs, synthetic=paraphrases, seed=seed)
        return load(
            runs.run(name, config.to_dict(), _finetune(config, data_dir, progress, say)).result["model"]
        )

    evaluator = SimilarityEvaluator("validation", data_dir)
    models = {"raw": load(model), "task-internal": finetune("task-internal", threshold)}
    if synthetic:
        models["synthetic"] = finetune("synthetic", threshold, synthetic)
    predictions = {name: evaluator.predictions(m) for name, m in models.items()}
    importances = _ensembles(models, evaluator, predictions, out, data_dir, seed, say)
    golds = {spec.name: evaluator.gold(spec.name) for spec in evaluator.specs}
    results = SystemResults(
        compare_predictions(predictions, golds, suite="validation"), threshold, epochs, synthetic, importances
    )
    for value in sweep_thresholds:
        report = evaluator(finetune(f"sweep/threshold-{value:g}", value))
        results.sweep.append((value, report.primary, report.aggregates.get(WEIGHTED)))
    write_run_file(out / RESULTS_FILE, json.dumps(results.to_dict(), indent=2) + "\n")
    return results


def _finetune(
    config: Any, data_dir: Path, progress: bool, say: Callable[[str], None]
) -> Callable[[Path], dict[str, Any]]:
    def work(run_dir: Path) -> dict[str, Any]:
        from parasent.training.run import train
        from parasent.training.trainer import CHECKPOINT_FILE

        say(f"== fine-tuning: {run_dir.relative_to(run_dir.parent.parent)}")
        resume = (run_dir / CHECKPOINT_FILE).is_file()
        result = train(config, run_dir, data_dir=data_dir, resume=resume, progress=progress, say=say)
        return {"model": str(result.model_path)}

    return work


def _ensembles(
    models: dict[str, SentenceModel],
    evaluator: SimilarityEvaluator,
    predictions: dict[str, Any],
    out: Path,
    data_dir: Path,
    seed: int,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """Fit the lexical, ensemble and (with a synthetic model) fusion regressors on the STS 2012
    train pairs; their STS 2016 predictions go into ``predictions``; their importances back."""
    training_pairs, leaked = sts_training_pairs(data_dir)
    say(
        f"ensemble training pairs: {len(training_pairs)} STS 2012 train pairs with gold scores "
        f"({leaked} dropped for sharing a sentence with an evaluation set)"
    )
    ensembles = {
        "lexical only": {},
        "ensemble": {"raw": models["raw"], "task-internal": models["task-internal"]},
    }
    if "synthetic" in models:
        ensembles["fusion"] = dict(models)
    pairs = {spec.name: [(p.s1, p.s2) for p in evaluator.pairs[spec.name]] for spec in evaluator.specs}
    importances = {}
    for name, members in ensembles.items():
        ensemble = build_ensemble(members, data_dir).fit(training_pairs, seed=seed)
        ensemble.save(out / "ensembles" / name.replace(" ", "-"))
        predictions[name] = {d: ensemble.predict(pairs[d]) for d in pairs}
        importances[name] = ensemble.trees.importances()
    return importances
