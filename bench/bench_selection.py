"""How a fine-tuning run chooses its epoch, measured on the seven domains of docs/adapt.md: the
documented command (``parasent train --init-model default --pairs FILE:FORMAT``, no tuning
flag, held-out pairs choose the epoch), then, per domain, the held-out figure of the start and
of the chosen epoch (with its standard error where this parasent reports one), and the test
figure of the start and of the chosen model. A choice is right when the test moves the way the
held-out figure did. Run it on two checkouts to compare two selection rules:

    python bench/bench_selection.py --work /tmp/parasent-bench-finetune --out /tmp/selection-new
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_finetune import DOMAINS, make_domains, score  # noqa: E402


def held_out_curve(log: Path) -> list[dict]:
    """Per epoch record of a run's log: its held-out figure, standard error and whether chosen."""
    rows = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record.get("event") != "epoch" or not record.get("validation"):
            continue
        values = record["validation"]
        primary = next(k for k in values if not k.endswith("_standard_error"))
        error = next((v for k, v in values.items() if k.endswith("_standard_error")), None)
        rows.append(
            {"epoch": record["epoch"], "figure": values[primary], "error": error, "best": record.get("best")}
        )
    return rows


def run_domain(domain: str, work: Path, out: Path, data_dir: str) -> dict:
    import parasent

    train, test, _ = DOMAINS[domain]
    run = out / domain
    if not (run / "model").exists():
        command = [
            sys.executable,
            "-m",
            "parasent",
            "train",
            "--init-model",
            "default",
            "--pairs",
            str(work / train),
        ]
        command += ["--out", str(run), "--overwrite", "--quiet", "--data-dir", data_dir]
        subprocess.run(command, check=True)
    curve = held_out_curve(run / "log.jsonl")
    chosen = max((row for row in curve if row["best"]), key=lambda row: row["epoch"])
    return {
        "domain": domain,
        "start": curve[0],
        "chosen": chosen,
        "epochs": len(curve) - 1,
        "test_start": score(parasent.load("default"), test, work, data_dir),
        "test_chosen": score(parasent.load(str(run)), test, work, data_dir),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument(
        "--work", default="/tmp/parasent-bench-finetune", help="the domains' files (made once)"
    )
    parser.add_argument("--out", required=True, help="the runs of this checkout")
    parser.add_argument("--domains", nargs="+", default=list(DOMAINS), choices=list(DOMAINS))
    args = parser.parse_args()
    work = Path(args.work)
    if not (work / "paws-dev.tsv").exists():
        make_domains(Path(args.data_dir), work)
    print(
        "| domain | held-out start | chosen epoch | held-out chosen | test start | test chosen | test moved |"
    )
    print("|---|---|---|---|---|---|---|")
    for domain in args.domains:
        r = run_domain(domain, work, Path(args.out), args.data_dir)
        error = "" if r["chosen"]["error"] is None else f" +- {r['chosen']['error']:.2f}"
        moved = r["test_chosen"] - r["test_start"]
        print(
            f"| {domain} | {r['start']['figure']:.2f} | {r['chosen']['epoch']} of {r['epochs']} | "
            f"{r['chosen']['figure']:.2f}{error} | {r['test_start']:.2f} | {r['test_chosen']:.2f} | {moved:+.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
