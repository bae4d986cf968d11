"""Time and peak memory of the paths around encoding: save, index, query, device="cpu".

Each case runs in a fresh process (its peak RSS its own) and prints one JSON line; the driver
prints a table. parasent is imported as the environment has it, so the same script measures
two checkouts, before and after a change (``PYTHONPATH=/path/to/checkout``):

  save            ``model.save(DIR)`` of the model as loaded (one sentence encoded first):
                  seconds, the peak RSS beyond the process's RSS before the save (in units of
                  the model directory's size), the bytes written (against the model's), and
                  whether the saved copy encodes the suite's sentences to the same bits
  index N         the whole ``parasent index CORPUS -o DIR`` process on N lines of running
                  text: wall seconds, peak RSS, the index's size; beside it ``parasent encode``
                  of the same lines to .npy (what the corpus alone costs)
  query N         an index of N lines built once, then in fresh processes: ``load_index(DIR)``
                  (seconds, median of --runs) and the whole ``parasent query DIR TEXT`` process
  device          ``encode`` of 5,000 suite sentences in a fresh process, device None against
                  device="cpu": seconds of the call and whether torch was imported

    python bench/bench_paths.py                               # every case, the shipped default
    PYTHONPATH=/work/main python bench/bench_paths.py         # the same cases on another checkout
    python bench/bench_paths.py --cases save device --model runs/default
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import peak_rss_mb, run_case

HERE = Path(__file__).resolve()
CASES = ("save", "index", "query", "device")
# ``python -m parasent`` and ``python -c`` put their working directory first on sys.path: run
# from a checkout, they would import its parasent whatever PYTHONPATH says
NEUTRAL = tempfile.gettempdir()


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def suite_sentences(data_dir: str | None) -> list[str]:
    from parasent.evaluation.evaluator import SimilarityEvaluator

    return list(dict.fromkeys(SimilarityEvaluator("transfer", data_dir).sentences))


def case_save(args: argparse.Namespace) -> dict:
    import parasent
    from parasent.core.model import resolve_model_path

    model = parasent.load(args.model)
    model.encode(["A man is playing a guitar."])
    before = _rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        model.save(Path(tmp) / "copy")
        seconds = time.perf_counter() - started
        peak = peak_rss_mb()
        texts = suite_sentences(args.data_dir)
        copy = parasent.load(Path(tmp) / "copy")
        same = copy.encode(texts).tobytes() == model.encode(texts).tobytes()
        same_one = all(copy.encode(t).tobytes() == model.encode(t).tobytes() for t in texts[:2000])
        written = _size(Path(tmp) / "copy")
    held = _size(resolve_model_path(args.model))
    return {
        "seconds": seconds,
        "beyond_mb": peak - before,
        "model_mb": held / 1e6,
        "written_mb": written / 1e6,
        "identical": bool(same and same_one),
    }


def _process(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of a whole process; stops on its failure."""
    with tempfile.TemporaryFile() as errors:
        began = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, cwd=NEUTRAL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - began
        if status != 0:
            errors.seek(0)
            raise SystemExit(f"{' '.join(command[:4])} failed:\n{errors.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def _corpus(args: argparse.Namespace, lines: int, directory: Path) -> Path:
    from bench_search import corpus_lines

    from parasent.support.paths import resolve_data_dir

    path = directory / f"corpus-{lines}.txt"
    if not path.exists():
        path.write_text("\n".join(corpus_lines(resolve_data_dir(args.data_dir), lines)) + "\n")
    return path


def case_index(args: argparse.Namespace) -> dict:
    parasent_cli = [sys.executable, "-m", "parasent"]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = _corpus(args, args.lines, Path(tmp))
        out = Path(tmp) / "index"
        wall, peak = _process(
            [*parasent_cli, "index", str(corpus), "-o", str(out), "--model", args.model, "--quiet"]
        )
        size = _size(out)
        model_size = _size(out / "model")
        encode_wall, encode_peak = _process(
            [
                *parasent_cli,
                "encode",
                str(corpus),
                "-o",
                str(Path(tmp) / "v.npy"),
                "--model",
                args.model,
                "--quiet",
            ]
        )
    return {
        "lines": args.lines,
        "seconds": wall,
        "peak_mb": peak,
        "index_mb": size / 1e6,
        "model_in_index_mb": model_size / 1e6,
        "encode_seconds": encode_wall,
        "encode_peak_mb": encode_peak,
    }


LOAD_SCRIPT = (
    "import sys, time\nbegan = time.perf_counter()\nfrom parasent.corpus.index import load_index\n"
    "index = load_index(sys.argv[1])\nloaded = time.perf_counter() - began\n"
    "index.search(['a man is playing a guitar'], top_k=5)\n"
    "print(loaded, time.perf_counter() - began)\n"
)


def case_query(args: argparse.Namespace) -> dict:
    import parasent
    from parasent.corpus.index import build_index

    with tempfile.TemporaryDirectory() as tmp:
        corpus = _corpus(args, args.lines, Path(tmp))
        out = Path(tmp) / "index"
        build_index(parasent.load(args.model), corpus, out, progress=False)
        loads, firsts, walls = [], [], []
        for _ in range(args.runs + 1):  # the first run warms the page cache and is not counted
            result = subprocess.run(
                [sys.executable, "-c", LOAD_SCRIPT, str(out)],
                capture_output=True,
                text=True,
                check=True,
                cwd=NEUTRAL,
            )
            loaded, first = (float(x) for x in result.stdout.split())
            wall, _ = _process(
                [sys.executable, "-m", "parasent", "query", str(out), "a man is playing a guitar"]
            )
            loads.append(loaded)
            firsts.append(first)
            walls.append(wall)
    return {
        "lines": args.lines,
        "load_s": statistics.median(loads[1:]),
        "load_and_first_query_s": statistics.median(firsts[1:]),
        "query_process_s": statistics.median(walls[1:]),
    }


def case_device(args: argparse.Namespace) -> dict:
    import parasent

    texts = suite_sentences(args.data_dir)[:5000]
    model = parasent.load(args.model)
    model.encode(["warm"])
    started = time.perf_counter()
    vectors = model.encode(texts, device=args.device)
    seconds = time.perf_counter() - started
    return {
        "device": args.device,
        "seconds": seconds,
        "torch_imported": "torch" in sys.modules,
        "digest": hashlib.sha256(vectors.tobytes()).hexdigest(),
    }


def run(args: argparse.Namespace) -> None:
    common = ["--model", args.model] + (["--data-dir", args.data_dir] if args.data_dir else [])
    rows = Rows()

    def case(*argv: str) -> dict:
        return run_case(str(HERE), ["--case", *argv, *common])

    import parasent

    print(f"parasent {parasent.__version__} from {Path(parasent.__file__).parent}; {os.cpu_count()} cores")
    if "save" in args.cases:
        save = case("save")
        rows.append(
            (
                "save (the model as loaded)",
                f"{save['seconds']:.2f} s; peak {save['beyond_mb']:.0f} MB beyond the loaded model "
                f"({save['beyond_mb'] / save['model_mb']:.2f}x its {save['model_mb']:.1f} MB); wrote "
                f"{save['written_mb']:.1f} MB ({save['written_mb'] / save['model_mb']:.2f}x); "
                f"copy encodes the same bits: {'yes' if save['identical'] else 'NO'}",
            )
        )
    for lines in args.index_lines if "index" in args.cases else []:
        index = case("index", "--lines", str(lines))
        rows.append(
            (
                f"parasent index, {lines:,} lines",
                f"{index['seconds']:.2f} s, peak {index['peak_mb']:.0f} MB; index {index['index_mb']:.1f} MB "
                f"(model {index['model_in_index_mb']:.1f} MB); parasent encode of the same lines: "
                f"{index['encode_seconds']:.2f} s, peak {index['encode_peak_mb']:.0f} MB",
            )
        )
    if "query" in args.cases:
        query = case("query", "--lines", str(args.query_lines), "--runs", str(args.runs))
        rows.append(
            (
                f"query, index of {args.query_lines:,} lines",
                f"load_index {query['load_s']:.3f} s, + first query {query['load_and_first_query_s']:.3f} s; "
                f"whole parasent query process {query['query_process_s']:.3f} s (medians of {args.runs})",
            )
        )
    if "device" in args.cases:
        plain, cpu = case("device", "--device", "none"), case("device", "--device", "cpu")
        rows.append(
            (
                "encode 5,000 sentences",
                f"device=None {plain['seconds']:.3f} s; device='cpu' {cpu['seconds']:.3f} s "
                f"(torch imported: {cpu['torch_imported']}; same vectors: {plain['digest'] == cpu['digest']})",
            )
        )


class Rows:
    """The table's rows, each printed as soon as it is measured (a later case may fail)."""

    def append(self, row: tuple[str, str]) -> None:
        name, figures = row
        print(f"{name:<32}  {figures}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", choices=CASES)
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--model", default="default")
    parser.add_argument("--data-dir")
    parser.add_argument("--lines", type=int)
    parser.add_argument("--index-lines", type=int, nargs="+", default=[5_000, 200_000])
    parser.add_argument("--query-lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per query figure (median)")
    parser.add_argument("--device", default="none")
    args = parser.parse_args()
    if args.device == "none":
        args.device = None
    if args.case is None:
        run(args)
        return
    figures = {"save": case_save, "index": case_index, "query": case_query, "device": case_device}[args.case](
        args
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
