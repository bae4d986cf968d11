"""A classifier of one's own labels, side by side on the same frozen vectors (docs/adapt.md):
``parasent head train --data`` (its default: a head on the shipped model's frozen vectors; and
``--setting universal``: the rows the texts use fine-tuned with the head), scikit-learn's
logistic regression on those vectors (standardised), and model2vec's
``StaticModelForClassification`` on the shipped model's word rows exported to model2vec (model2vec
has no word bigrams; its defaults: the embeddings fine-tuned with the head). Accuracy on each set's test split, training seconds, and
prediction speed (test texts per second, one call). Sets: SST-2 (the shared data's split) and
the 2,000 movie reviews of Pang & Lee (document polarity; a seeded 80/10/10 split).

Each system runs in a fresh process of this script (its own peak memory); files are made from
the shared data into ``--work``. Run on a quiet machine:
``python bench/bench_classify.py --data-dir ../shared/data`` (needs scikit-learn and model2vec).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import peak_rss_mb, run_case  # noqa: E402

SYSTEMS = (
    "parasent head (features)",
    "parasent head (universal)",
    "scikit-learn logistic regression",
    "model2vec StaticModelForClassification",
)


def _read(path: Path) -> list[tuple[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        rows = [line.rstrip("\n").rsplit("\t", 1) for line in handle if line.strip()]
    return [(text, "positive" if label.strip() == "1" else "negative") for text, label in rows]


def make_sets(root: Path, work: Path) -> None:
    """``SET-{train,dev,test}.tsv`` (``text<TAB>label``) in ``work``, once."""
    work.mkdir(parents=True, exist_ok=True)
    splits = {
        "sst2": {s: _read(root / (f"sst2/sentiment-{s}.tsv" + (".gz" if s == "train" else ""))) for s in ("train", "dev", "test")}
    }  # fmt: skip
    reviews = []
    for label in ("pos", "neg"):
        for path in sorted((root / "corpus/movie_reviews" / label).glob("*.txt")):
            text = " ".join(path.read_text(encoding="utf-8").split())
            reviews.append((text, "positive" if label == "pos" else "negative"))
    random.Random(7).shuffle(reviews)
    cut = [int(len(reviews) * f) for f in (0.8, 0.9)]
    splits["movie-reviews"] = {
        "train": reviews[: cut[0]],
        "dev": reviews[cut[0] : cut[1]],
        "test": reviews[cut[1] :],
    }
    for name, parts in splits.items():
        for split, rows in parts.items():
            path = work / f"{name}-{split}.tsv"
            if not path.exists():
                path.write_text("".join(f"{t}\t{y}\n" for t, y in rows), encoding="utf-8")


def _rows(path: Path) -> tuple[list[str], list[str]]:
    rows = [line.rstrip("\n").rsplit("\t", 1) for line in path.read_text(encoding="utf-8").splitlines()]
    return [t for t, _ in rows], [y for _, y in rows]


def _accuracy(predicted, gold) -> float:
    return 100.0 * sum(p == g for p, g in zip(predicted, gold, strict=True)) / len(gold)


def case(system: str, name: str, work: Path) -> dict:
    """Train one system on one set; its figures as a dict (printed as JSON by ``main``)."""
    train, dev, test = (work / f"{name}-{split}.tsv" for split in ("train", "dev", "test"))
    texts, gold = _rows(test)
    began = time.perf_counter()
    if system in SYSTEMS[:2]:
        import parasent
        from parasent.cli import main

        setting = "features" if system == SYSTEMS[0] else "universal"
        out = work / "runs" / f"{name}-{setting}"
        shutil.rmtree(out, ignore_errors=True)  # the bench's own run of the last time
        argv = ["--data", str(train), "--validation", str(dev), "--out", str(out), "--quiet"]
        code = main(["head", "train", *argv, *([] if setting == "features" else ["--setting", setting])])
        if code:
            raise SystemExit(f"head train failed ({code})")
        trained, model = time.perf_counter() - began, parasent.load(out)
        predict = model.predict
    elif system == SYSTEMS[2]:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        import parasent

        encoder = parasent.load()
        train_texts, train_gold = _rows(train)
        classifier = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))  # scaled:
        classifier.fit(encoder.encode(train_texts), train_gold)  # unscaled, reviews' averages sat at chance
        trained = time.perf_counter() - began

        def predict(items):
            return classifier.predict(encoder.encode(list(items)))
    else:
        from model2vec import StaticModel
        from model2vec.train import StaticModelForClassification

        import parasent
        from parasent.core.compaction import words_only

        exported = work / "default-model2vec"
        if not exported.exists():  # model2vec has no word bigrams: the default's word rows
            words_only(parasent.load()).export(exported, "model2vec")
        began = time.perf_counter()
        train_texts, train_gold = _rows(train)
        dev_texts, dev_gold = _rows(dev)
        classifier = StaticModelForClassification.from_static_model(
            model=StaticModel.from_pretrained(str(exported))
        )
        classifier = classifier.fit(train_texts, train_gold, X_val=dev_texts, y_val=dev_gold)
        trained = time.perf_counter() - began
        predict = classifier.predict
    predict(texts[:10])  # warm
    started = time.perf_counter()
    predicted = list(predict(texts))
    rate = len(texts) / (time.perf_counter() - started)
    return {
        "accuracy": _accuracy(predicted, gold),
        "train_s": trained,
        "texts_per_s": rate,
        "peak_mb": peak_rss_mb(),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "case":
        print(json.dumps(case(sys.argv[2], sys.argv[3], Path(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--work", default="/tmp/parasent-bench-classify")
    parser.add_argument("--sets", nargs="+", default=["sst2", "movie-reviews"])
    args = parser.parse_args()
    from parasent.support.tables import format_rows

    work = Path(args.work)
    make_sets(Path(args.data_dir), work)
    rows = []
    for name in args.sets:
        for system in SYSTEMS:
            figures = run_case(__file__, ["case", system, name, str(work)])
            rows.append(
                [
                    name,
                    system,
                    figures["accuracy"],
                    figures["train_s"],
                    figures["texts_per_s"],
                    figures["peak_mb"],
                ]
            )
            print(json.dumps({"set": name, "system": system, **figures}), flush=True)
    head = ["set", "system", "test accuracy", "training s", "prediction texts/s", "peak MB"]
    print(format_rows(head, rows, digits=[0, 0, 2, 1, 0, 0]))


if __name__ == "__main__":
    main()
