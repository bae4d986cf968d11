"""Fine-tuning the shipped default on a domain's own pairs (docs/adapt.md): the domain's held-out
test figure, transfer and STS 2016 for the shipped default, the documented command
(``parasent train --init-model default --pairs FILE:FORMAT --out DIR``, no tuning flag), the
GloVe-4k start of the paper recipe (``--pool none --pairs FILE``), and the teacher; then each
lever of the recipe turned off or changed, one at a time, on the domains named by ``--levers``.
``--contextual``: docs/which-model.md's table instead (the default, its fine-tuning, and the
contextual tier fine-tuned by ``--init-model default --encoder contextual``).

Each training run is a fresh process of this script (its own peak memory, VmHWM); the domains'
files are made from the shared data into ``--work`` (read in place, never copied into the
repo). Run on a quiet machine: ``python bench/bench_finetune.py --data-dir ../shared/data``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import peak_rss_mb, run_case  # noqa: E402

# domain -> (training file spec, test: a file spec or "suite:NAME,NAME", what the training file is)
DOMAINS = {
    "quora": ("quora-train.tsv:labelled", "quora-test.tsv:labelled", "Quora question pairs, BiMPM dev (labelled) -> test"),
    "msrp": ("msrp-train.tsv:labelled", "msrp-test.tsv:labelled", "MSRP train (labelled) -> test"),
    "sts2012": ("sts2012-train.tsv:sts", "suite:sts2012/MSRpar,sts2012/MSRvid,sts2012/SMTeuroparl", "STS 2012 train (scored) -> its test sets (DCU's task-internal setting)"),
    "twitter-url": ("twitter-train.tsv:labelled", "twitter-test.tsv:labelled", "Twitter URL train (labelled) -> test"),
    "quora-positives": ("quora-positives.tsv:tsv", "quora-test.tsv:labelled", "Quora duplicates only, ParaGen (s1<TAB>s2) -> BiMPM test"),
    "pit": ("pit-dev.tsv:sts", "suite:twitter2015/test", "PIT-2015 dev (crowd votes as scores) -> test"),
    "paws": ("paws-dev.tsv:labelled", "paws-test.tsv:labelled", "PAWS-Wiki dev (labelled, word order) -> test"),
}  # fmt: skip
LEVERS = {
    "the recipe": [],
    "no self-distillation (--keep-start 0)": ["--keep-start", "0"],
    "labels as positives only (--scores threshold)": ["--scores", "threshold"],
    "Adam 1e-3 (--optimizer adam --lr 1e-3)": ["--optimizer", "adam", "--lr", "1e-3"],
    "the paper's AdaGrad rate (--lr 0.05)": ["--lr", "0.05"],
    "Eq. 1's pull instead (--keep-start 0 --lambda-w 1e-3)": ["--keep-start", "0", "--lambda-w", "1e-3"],
    "no selection: the last epoch (--validation none)": ["--validation", "none"],
}


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]


def make_domains(root: Path, work: Path) -> None:
    """The domains' files in the formats a user brings (written once into ``work``)."""
    from parasent.data.readers.pit import read_pit2015
    from parasent.data.readers.sts import read_sts, read_sts_official

    extra, work = root / "paraphrase_extra", work.resolve()
    work.mkdir(parents=True, exist_ok=True)

    def write(name: str, rows: list[str]) -> None:
        if not (work / name).exists():
            (work / name).write_text("\n".join(rows) + "\n", encoding="utf-8")

    def three(path: Path, cols: tuple[int, ...] = (0, 1, 2)) -> list[str]:
        return ["\t".join(line.split("\t")[i] for i in cols) for line in _lines(path) if line]

    write("quora-train.tsv", three(extra / "quora_bimpm/dev.tsv.gz"))
    write("quora-test.tsv", three(extra / "quora_bimpm/test.tsv.gz"))
    write("msrp-train.tsv", three(root / "paraphrase/msrp/train.tsv"))
    write("msrp-test.tsv", three(root / "paraphrase/msrp/test.tsv"))
    write("twitter-train.tsv", three(root / "paraphrase/twitter_url_corpus/train.tsv.gz"))
    write("twitter-test.tsv", three(root / "paraphrase/twitter_url_corpus/test.tsv.gz"))
    write("paws-dev.tsv", three(extra / "paws_wiki/dev.tsv.gz", (3, 1, 2))[1:])
    write("paws-test.tsv", three(extra / "paws_wiki/test.tsv.gz", (3, 1, 2))[1:])
    q1 = _lines(extra / "quora_paragen/val.q1") + _lines(extra / "quora_paragen/dev.q1.gz")
    q2 = _lines(extra / "quora_paragen/val.q2") + _lines(extra / "quora_paragen/dev.q2.gz")
    write(
        "quora-positives.tsv", [f"{a}\t{b}" for a, b in zip(q1, q2, strict=True) if a.strip() and b.strip()]
    )
    sts = [
        p for name in ("MSRpar", "SMTeuroparl") for p in read_sts(root / f"sts/semeval/2012/{name}.train.tsv")
    ]
    msrvid = root / "sts/msrvid2012"
    sts += list(read_sts_official(msrvid / "STS.input.MSRvid.train.txt", msrvid / "STS.gs.MSRvid.train.txt"))
    write("sts2012-train.tsv", [f"{p.score}\t{p.s1}\t{p.s2}" for p in sts])
    pit = read_pit2015(root / "sts/pit2015/dev.data.gz")
    write("pit-dev.tsv", [f"{p.votes[0] / 5:.1f}\t{p.s1}\t{p.s2}" for p in pit])


def score(model, test: str, work: Path, data_dir: str) -> float:
    """The domain's test figure: average precision, or the mean Pearson of a suite's sets."""
    if test.startswith("suite:"):
        from parasent.evaluation.evaluator import SimilarityEvaluator

        names = test.removeprefix("suite:").split(",")
        figures = [SimilarityEvaluator(name, data_dir)(model).primary for name in names]
        return sum(figures) / len(figures)
    from parasent.evaluation.file_pairs import evaluate_pairs

    return evaluate_pairs(model, str(work / test)).primary


def case_train(argv: list[str]) -> None:
    """One ``parasent train`` in this process: seconds and peak memory as a JSON line."""
    from parasent.cli import main

    began = time.perf_counter()
    code = main(["train", *argv, "--quiet"])
    print(json.dumps({"code": code, "seconds": time.perf_counter() - began, "peak_mb": peak_rss_mb()}))


def case_measure(argv: list[str]) -> None:
    """Test figure, transfer and STS 2016 of a model (``default``, a run, or ``teacher``)."""
    model_arg, test, work, data_dir = argv
    from parasent.evaluation.evaluator import SimilarityEvaluator

    if model_arg == "teacher":
        from parasent.distillation.cache import CachedTeacher

        cached = CachedTeacher("auto", progress=False)  # cached: a rerun reads its vectors

        class Teacher:
            def encode(self, texts, batch_size=64, **_):
                return cached.encode(list(texts))

        model = Teacher()
    else:
        import parasent

        model = parasent.load(model_arg)
    figures = {
        "test": score(model, test, Path(work), data_dir),
        "transfer": SimilarityEvaluator("transfer", data_dir)(model).primary,
        "sts2016": SimilarityEvaluator("validation", data_dir)(model).primary,
    }
    print(json.dumps(figures))


def train_and_measure(name: str, train: list[str], test: str, work: Path, data_dir: str) -> dict:
    out = work / "runs" / name
    if not (out / "model").exists():
        ran = run_case(__file__, ["train", *train, "--out", str(out), "--overwrite", "--data-dir", data_dir])
        (out / "bench.json").write_text(json.dumps(ran))
    timed = out / "bench.json"  # a run put here by hand has no training cost to show (row leaves it blank)
    ran = json.loads(timed.read_text()) if timed.is_file() else {}
    return {**ran, **run_case(__file__, ["measure", str(out), test, str(work), data_dir])}


def row(label: str, figures: dict, base: dict | None = None) -> list[str]:
    delta = f" ({figures['test'] - base['test']:+.2f})" if base else ""
    cost = f"{figures['seconds']:.0f} s, {figures['peak_mb']:.0f} MB" if "seconds" in figures else ""
    return [
        label,
        f"{figures['test']:.2f}{delta}",
        f"{figures['transfer']:.2f}",
        f"{figures['sts2016']:.2f}",
        cost,
    ]


def domain_table(domain: str, work: Path, data_dir: str, teacher: bool) -> list[list[str]]:
    train, test, _ = DOMAINS[domain]
    pairs = str(work / train)
    base = run_case(__file__, ["measure", "default", test, str(work), data_dir])
    rows = [row("shipped default", base)]
    tuned = train_and_measure(
        f"{domain}-finetune", ["--init-model", "default", "--pairs", pairs], test, work, data_dir
    )
    rows.append(row("fine-tuned (the documented command)", tuned, base))
    glove = train_and_measure(
        f"{domain}-glove", ["--pool", "none", "--pairs", pairs, "--recipe", "paper"], test, work, data_dir
    )
    rows.append(row("GloVe-4k start, paper recipe (--pool none --pairs)", glove, base))
    if teacher:
        rows.append(
            row(
                "teacher all-MiniLM-L6-v2",
                run_case(__file__, ["measure", "teacher", test, str(work), data_dir]),
                base,
            )
        )
    return rows


def contextual_table(domain: str, work: Path, data_dir: str) -> list[list[str]]:
    """docs/which-model.md's row of a domain: the default, its fine-tuning, and the contextual
    tier fine-tuned by the documented command (``--init-model default --encoder contextual``)."""
    train, test, _ = DOMAINS[domain]
    pairs = str(work / train)
    base = run_case(__file__, ["measure", "default", test, str(work), data_dir])
    tuned = train_and_measure(
        f"{domain}-finetune", ["--init-model", "default", "--pairs", pairs], test, work, data_dir
    )
    argv = ["--init-model", "default", "--encoder", "contextual", "--pairs", pairs]
    contextual = train_and_measure(f"{domain}-contextual", argv, test, work, data_dir)
    return [
        row("shipped default", base),
        row("default fine-tuned", tuned, base),
        row("contextual fine-tuned (--encoder contextual)", contextual, base),
    ]


def lever_table(domains: list[str], work: Path, data_dir: str) -> list[list[str]]:
    rows = []
    for domain in domains:
        train, test, _ = DOMAINS[domain]
        base = run_case(__file__, ["measure", "default", test, str(work), data_dir])
        for label, flags in LEVERS.items():
            argv = ["--init-model", "default", "--pairs", str(work / train), *flags]
            slug = (
                "finetune"
                if not flags
                else "lever-" + "".join(c for c in "-".join(flags) if c.isalnum() or c == "-")
            )
            figures = train_and_measure(f"{domain}-{slug}", argv, test, work, data_dir)
            rows.append([domain, *row(label, figures, base)])
    return rows


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("train", "measure"):
        (case_train if sys.argv[1] == "train" else case_measure)(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument(
        "--work",
        default="/tmp/parasent-bench-finetune",
        help="domain files and runs (kept: reruns reuse them)",
    )
    parser.add_argument("--domains", nargs="+", default=list(DOMAINS), choices=list(DOMAINS))
    parser.add_argument("--levers", nargs="*", default=["quora", "msrp", "sts2012"], choices=list(DOMAINS))
    parser.add_argument(
        "--no-teacher", action="store_true", help="skip the teacher's rows (its encoding is the slow part)"
    )
    parser.add_argument(
        "--contextual",
        action="store_true",
        help="docs/which-model.md's table instead: the default, its fine-tuning and the contextual tier's",
    )
    args = parser.parse_args()
    from parasent.support.tables import format_rows

    work = Path(args.work)
    make_domains(Path(args.data_dir), work)
    head = ["model", "domain test (AP / Pearson)", "transfer", "STS 2016", "training"]
    if args.contextual:
        for domain in args.domains:
            rows = contextual_table(domain, work, args.data_dir)
            print(format_rows(head, rows, title=f"{domain}: {DOMAINS[domain][2]}"), flush=True)
            print(flush=True)
        return
    for domain in args.domains:
        rows = domain_table(domain, work, args.data_dir, not args.no_teacher)
        print(format_rows(head, rows, title=f"{domain}: {DOMAINS[domain][2]}"), flush=True)
        print(flush=True)
    if args.levers:
        print(
            format_rows(
                ["domain", *head],
                lever_table(args.levers, work, args.data_dir),
                title="levers, one at a time",
            )
        )


if __name__ == "__main__":
    main()
