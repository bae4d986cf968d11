"""Encoding speed at every batch size, and cold start, of parasent beside its peers, in one run.

On the unique sentences of the transfer suite and STS 2016, each library in a process of its
own with its own default threads:

  parasent            the default model (or --model)
  sentence-transformers  StaticEmbedding over the model's word rows
                      (``parasent export --words-only --format sentence-transformers``)
  model2vec           ``distill`` of the same teacher at 256 dimensions (bench_peers.py's build)

sentences/s at batch 1, 32, 1,024 and 4,096 (best of --repeats passes; batch 1 calls
``encode([s])`` once per sentence, on the first --batch1-sentences), at batch 1 and 4,096 on
the same sentences made non-ASCII (typeset punctuation; every e as é), the time of
``import + load`` in that process, and its peak RSS; then a cold-start row: the whole process
of ``parasent similarity A B`` and the same similarity through a script of each peer, wall
time and peak RSS (median of --cold-runs, the libraries interleaved). ``--rounds N`` runs every
library's case N times, in turn, keeping each cell's best: this machine has slow spells of
minutes, and one spell over one library's case alone moves a ratio by 1.5x. Bytecode is compiled once beforehand into
a scratch cache (PYTHONPYCACHEPREFIX), as an installed package has it.

    python bench/bench_encode.py                       # builds the peers once into --work
    python bench/bench_encode.py --model runs/default --skip sentence-transformers

parasent is imported as the environment has it (``PYTHONPATH=$PWD`` for a checkout): the same
script times two checkouts, before and after a change, on one model directory.
"""

from __future__ import annotations

import argparse
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
BATCHES = (1, 32, 1024, 4096)
PAIR = ("A man plays a guitar.", "Someone plays the guitar.")
ENGINES = ("parasent", "sentence-transformers", "model2vec")


def typographic(text: str) -> str:
    """The text as typeset text has it: curly apostrophes and quotes, dashes, an ellipsis."""
    text = text.replace("'", "\u2019").replace(" - ", " \u2014 ").replace("...", "\u2026")
    quotes = text.split('"')
    return (
        "".join(part + ("\u201c" if i % 2 == 0 else "\u201d") for i, part in enumerate(quotes[:-1]))
        + quotes[-1]
    )


def accented(text: str) -> str:
    """Every e as é: words the vocabulary does not know, in a script it does (a stand-in for
    another Latin-script language)."""
    return text.replace("e", "\u00e9")


# Text that is not ASCII, at these batch sizes: the suite's sentences changed by each of these
TEXT_VARIANTS = {"typographic punctuation": typographic, "accented letters": accented}
VARIANT_BATCHES = (1, 4096)

COLD_SCRIPTS = {
    "model2vec": (
        "import sys\nimport numpy as np\nfrom model2vec import StaticModel\n"
        "m = StaticModel.from_pretrained(sys.argv[1])\na, b = m.encode([sys.argv[2], sys.argv[3]])\n"
        "print(f'{float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) or 1.0)):.4f}')\n"
    ),
    "sentence-transformers": (
        "import sys\nfrom sentence_transformers import SentenceTransformer\n"
        "m = SentenceTransformer(sys.argv[1], device='cpu')\ne = m.encode([sys.argv[2], sys.argv[3]])\n"
        "print(f'{float(m.similarity(e[:1], e[1:])[0, 0]):.4f}')\n"
    ),
}


def sentences(data_dir: str | None) -> list[str]:
    from parasent.evaluation.evaluator import SimilarityEvaluator

    seen = dict.fromkeys(SimilarityEvaluator("transfer", data_dir).sentences)
    seen.update(dict.fromkeys(SimilarityEvaluator("validation", data_dir).sentences))
    return list(seen)


# --- one library in its own process --------------------------------------------------------
def _load(engine: str, path: str):
    """``encode(batch, batch_size)`` of the library, with import and load inside the timing."""
    if engine == "parasent":
        import parasent

        model = parasent.load(path)
        return lambda batch, size: model.encode(batch, batch_size=size)
    if engine == "model2vec":
        from model2vec import StaticModel

        model = StaticModel.from_pretrained(path)
        return lambda batch, size: model.encode(batch, batch_size=size, show_progress_bar=False)
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(path, device="cpu")
    return lambda batch, size: model.encode(batch, batch_size=size, convert_to_numpy=True)


def case_encode(args: argparse.Namespace) -> dict:
    texts = json.loads(Path(args.sentences).read_text())
    started = time.perf_counter()
    encode = _load(args.engine, args.path)
    load_s = time.perf_counter() - started
    rates = {str(size): _best_rate(encode, texts, size, args) for size in BATCHES}
    peak = peak_rss_mb()  # before the texts below, whose new words fill memos
    other_text = {
        name: {
            str(size): _best_rate(encode, [variant(t) for t in texts], size, args) for size in VARIANT_BATCHES
        }
        for name, variant in TEXT_VARIANTS.items()
    }
    return {
        "load_s": load_s,
        "rates": rates,
        "other_text": other_text,
        "peak_rss_mb": peak,
        "peak_rss_mb_after_other_text": peak_rss_mb(),
        "sentences": len(texts),
    }


def _best_rate(encode, texts: list[str], size: int, args: argparse.Namespace) -> float:
    """Sentences/s of the best of --repeats passes at batch ``size`` (batch 1: ``encode([s])``
    once per sentence, on the first --batch1-sentences)."""
    best = 0.0
    for _ in range(args.repeats):
        if size == 1:
            few = texts[: args.batch1_sentences]
            began = time.perf_counter()
            for text in few:
                encode([text], 1)
            best = max(best, len(few) / (time.perf_counter() - began))
        else:
            began = time.perf_counter()
            for first in range(0, len(texts), size):
                encode(texts[first : first + size], size)
            best = max(best, len(texts) / (time.perf_counter() - began))
    return best


# --- the runner ---------------------------------------------------------------------------------
def build_peers(args: argparse.Namespace, work: Path) -> dict[str, str]:
    from parasent.core.model import resolve_model_path

    model_dir = resolve_model_path(args.model)
    config = json.loads((model_dir / "config.json").read_text())
    paths = {"parasent": str(model_dir)}
    env = dict(os.environ)
    if "sentence-transformers" not in args.skip:
        out = work / f"st-words-{config['tokenizer'].get('sha256', 'x')[:12]}"
        if not out.is_dir():
            command = [sys.executable, "-m", "parasent", "export", "--model", str(model_dir)]
            command += ["--format", "sentence-transformers", "--dtype", "float32", str(out)]
            if config["tokenizer"].get("kind") == "word_bigrams":
                command.insert(-1, "--words-only")
            subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
        paths["sentence-transformers"] = str(out)
    if "model2vec" not in args.skip:
        out = Path(args.model2vec) if args.model2vec else work / "m2v-distill"
        if not out.is_dir():
            peers = str(HERE.parent / "bench_peers.py")
            subprocess.run(
                [sys.executable, peers, "--case", "model2vec", "--out", str(out)], check=True, env=env
            )
        paths["model2vec"] = str(out)
    return paths


def cold_start(paths: dict[str, str], runs: int) -> dict[str, dict]:
    """Whole-process similarity of one pair per library, interleaved; (wall s, peak MB) medians.
    Run with ``runs=0`` first: that round compiles the bytecode and is not timed."""
    scratch = Path(tempfile.mkdtemp(prefix="parasent-cold-"))
    commands = {}
    for engine, path in paths.items():
        if engine == "parasent":
            commands[engine] = [sys.executable, "-m", "parasent", "similarity", *PAIR, "--model", path]
        else:
            script = scratch / f"cold_{engine.replace('-', '_')}.py"  # never the library's own name
            script.write_text(COLD_SCRIPTS[engine])
            commands[engine] = [sys.executable, str(script), path, *PAIR]
    samples: dict[str, list[tuple[float, float]]] = {engine: [] for engine in commands}
    for _ in range(max(runs, 1)):
        for engine, command in commands.items():
            with open(scratch / "stderr", "w+b") as errors:
                began = time.perf_counter()
                process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
                _, status, usage = os.wait4(process.pid, 0)
                wall = time.perf_counter() - began
                errors.seek(0)
                if status != 0:
                    raise SystemExit(f"{engine} cold start failed: {errors.read().decode()[-2000:]}")
            samples[engine].append((wall, usage.ru_maxrss / 1024))
    return {
        engine: {
            "wall_s": statistics.median(w for w, _ in s),
            "peak_rss_mb": statistics.median(m for _, m in s),
        }
        for engine, s in samples.items()
    }


def best_of(cases: list[dict]) -> dict:
    """One library's rounds as one: the best rate of every cell, the shortest load, the
    largest peak memory."""
    best = dict(cases[0])
    best["rates"] = {size: max(case["rates"][size] for case in cases) for size in cases[0]["rates"]}
    best["other_text"] = {
        name: {size: max(case["other_text"][name][size] for case in cases) for size in sizes}
        for name, sizes in cases[0]["other_text"].items()
    }
    best["load_s"] = min(case["load_s"] for case in cases)
    for memory in ("peak_rss_mb", "peak_rss_mb_after_other_text"):
        best[memory] = max(case[memory] for case in cases)
    best["rounds"] = len(cases)
    return best


def run(args: argparse.Namespace) -> None:
    # every case reads bytecode as an installed package has it (compiled once, into a scratch
    # cache, never into the checkout), not its source compiled anew at each start
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="parasent-pycache-")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    paths = build_peers(args, work)
    texts = sentences(args.data_dir)
    sentence_file = work / "sentences.json"
    sentence_file.write_text(json.dumps(texts))
    cold_start(paths, 0)  # compiles every library's bytecode before anything is timed
    rounds: dict[str, list[dict]] = {engine: [] for engine in paths}
    for _ in range(args.rounds):  # the libraries in turn, each round: a slow spell hits them alike
        for engine, path in paths.items():
            argv = ["--case", "encode", "--engine", engine, "--path", path, "--sentences", str(sentence_file)]
            argv += ["--repeats", str(args.repeats), "--batch1-sentences", str(args.batch1_sentences)]
            rounds[engine].append(run_case(str(HERE), argv))
    results = {engine: best_of(cases) for engine, cases in rounds.items()}
    cold = cold_start(paths, args.cold_runs)
    print(
        f"{len(texts):,} unique sentences (transfer + STS 2016); batch 1 on the first "
        f"{min(args.batch1_sentences, len(texts)):,}; best of {args.repeats} passes"
        + (f" in each of {args.rounds} rounds (the libraries in turn)" if args.rounds > 1 else "")
        + f"; {os.cpu_count()} cores"
    )
    header = "| sentences/s at batch size | " + " | ".join(f"{b:,}" for b in BATCHES)
    print(header + " | import + load | peak RSS | cold `similarity` (wall, peak RSS) |")
    print("|---" * (len(BATCHES) + 4) + "|")
    for engine, result in results.items():
        rates = " | ".join(f"{result['rates'][str(b)]:,.0f}" for b in BATCHES)
        c = cold[engine]
        print(
            f"| {engine} | {rates} | {result['load_s']:.3f} s | {result['peak_rss_mb']:.0f} MB | "
            f"{c['wall_s']:.3f} s, {c['peak_rss_mb']:.0f} MB |"
        )
    shares = {
        name: sum(not variant(text).isascii() for text in texts) / len(texts)
        for name, variant in TEXT_VARIANTS.items()
    }
    print()
    names = list(TEXT_VARIANTS)
    columns = [(name, size) for name in names for size in VARIANT_BATCHES]
    print(
        "| sentences/s of text not ASCII | "
        + " | ".join(f"{name} ({shares[name]:.0%} of texts), batch {size:,}" for name, size in columns)
        + " |"
    )
    print("|---" * (len(columns) + 1) + "|")
    for engine, result in results.items():
        cells = " | ".join(f"{result['other_text'][name][str(size)]:,.0f}" for name, size in columns)
        print(f"| {engine} | {cells} |")
    print()
    best = {engine: max(result["rates"].values()) for engine, result in results.items()}
    for engine in results:
        if engine != "parasent":
            print(
                f"parasent's fastest / {engine}'s fastest: {best['parasent']:,.0f} / {best[engine]:,.0f} "
                f"sentences/s = {best['parasent'] / best[engine]:.2f}x"
            )
    for engine in results:
        if engine != "parasent":
            ratios = ", ".join(
                f"{b:,}: {results['parasent']['rates'][str(b)] / results[engine]['rates'][str(b)]:.2f}x"
                for b in BATCHES
            )
            print(
                f"parasent / {engine}: {ratios}; cold start {cold['parasent']['wall_s'] / cold[engine]['wall_s']:.2f}x the wall time"
            )
    print(json.dumps({"encode": results, "cold": cold}))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", choices=["encode"])
    parser.add_argument("--engine", choices=ENGINES)
    parser.add_argument("--path")
    parser.add_argument("--sentences")
    parser.add_argument("--model", default="default", help="parasent model (default: the shipped one)")
    parser.add_argument("--model2vec", help="a model2vec directory (default: distilled into --work)")
    parser.add_argument(
        "--work", default="/tmp/parasent-encode-bench", help="where the peers are built (kept)"
    )
    parser.add_argument("--data-dir")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every library's case this many times, in turn, and keep each cell's best "
        "(a machine beside others has slow spells of minutes, longer than one case)",
    )
    parser.add_argument("--batch1-sentences", type=int, default=5000)
    parser.add_argument("--cold-runs", type=int, default=7)
    parser.add_argument("--skip", action="append", default=[], choices=["sentence-transformers", "model2vec"])
    args = parser.parse_args()
    if args.case == "encode":
        print(json.dumps(case_encode(args)))
    else:
        run(args)


if __name__ == "__main__":
    main()
