"""MTEB's STS main score for parasent models beside the published static models.

MTEB scores an STS task by one cosine Spearman correlation over all pairs of its test split;
the tasks whose data is in the shared data are SICK-R (train + trial + test, 9,927 pairs) and
STS12-16, which the ``mteb-sts`` suite holds with one group per task. A reporting figure only:
STS 2016 is the validation set and the rest are test sets, never a selection signal.

    python scripts/mteb_sts_table.py                       # the shipped default
    python scripts/mteb_sts_table.py runs/default-full NAME=DIR ...
"""

from __future__ import annotations

import argparse

from parasent.core.model import load
from parasent.data.registry.catalog import MTEB_STS_TASKS
from parasent.evaluation import evaluate

# MTEB results as published (main score x 100; SICK-R, STS12, STS13, STS14, STS15, STS16).
PUBLISHED = {
    "static-similarity-mrl-multilingual-v1": (68.32, 71.57, 74.33, 72.82, 82.53, 78.45),
    "potion-base-8M": (64.68, 62.25, 77.28, 71.91, 79.75, 76.26),
    "all-MiniLM-L6-v2 (teacher)": (77.58, 72.37, 80.60, 75.59, 85.39, 78.99),
}
PUBLISHED_MEANS = {"M2V_base_output": 67.78}


def row(name: str, scores: list[float]) -> str:
    mean = sum(scores) / len(scores)
    return f"| {name} | **{mean:.2f}** | " + " | ".join(f"{s:.2f}" for s in scores) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=["default"], help="NAME=DIR or DIR ('default': shipped)")
    args = parser.parse_args()
    tasks = list(MTEB_STS_TASKS.values())
    print("| model | mean | " + " | ".join(tasks) + " |")
    print("|---|---|" + "---|" * len(tasks))
    for spec in args.models:
        name, _, path = spec.rpartition("=")
        model = load(None if path == "default" else path)
        report = evaluate(model, "mteb-sts")
        scores = [report.aggregates[f"{group}_pooled_spearman"] for group in MTEB_STS_TASKS]
        print(row(f"parasent {name or path} (measured here)", scores))
    for name, scores in PUBLISHED.items():
        print(row(f"{name} (published)", list(scores)))
    for name, mean in PUBLISHED_MEANS.items():
        print(f"| {name} (published) | {mean:.2f} | " + " | ".join("–" for _ in tasks) + " |")


if __name__ == "__main__":
    main()
