"""Encoding speed at every batch size, on text not seen before, and cold start, of parasent
beside its peers, in one run.

On the unique sentences of the transfer suite and STS 2016, each library in a process of its
own with its own default threads:

  parasent            the default model (or --model)
  sentence-transformers  StaticEmbedding over the model's word rows
                      (``parasent export --words-only --format sentence-transformers``)
  model2vec           ``distill`` of the same teacher at 256 dimensions (bench_peers.py's build)

Rows, in sentences/s:

- **one sentence per call, unseen**: ``encode([s])`` once per sentence on sentences the process
  has never encoded: every pass (the untimed one too) takes the next --batch1-sentences of a
  pool of other text (the running text of the data directory and the Multi30k captions,
  shuffled, none of them a suite sentence), the same sentences for every library in a turn.
  This is what a service or a stream meets. A library may still remember *words* it met in
  earlier sentences (parasent's one-text path keeps a bounded memo of tokens), never the text;
- **one sentence per call, repeated**: the same --batch1-sentences of that pool pass after pass
  (the untimed pass, then the timed ones): what memoising seen text would give, labelled so;
- **batches of 32, 1,024 and 4,096**: ``encode`` of each slice of the suite. These passes repeat
  the suite; parasent's batch path remembers no text, word or piece from one call to the next
  (its tables are the model's), and neither peer does;
- **one call, ``encode(all, batch_size=k)``** at k = 1, 32, 1,024 and 4,096: the whole suite in
  one call, as ported code passes it (for a static model ``batch_size`` only bounds memory);
- at batch 1 (unseen) and 4,096, the same text made non-ASCII (typeset punctuation; every e as é);

the time of ``import + load`` in that process, and its peak RSS; then a cold-start row: the
whole process of ``parasent similarity A B`` and the same similarity through a script of each
peer, wall time and peak RSS (median of --cold-runs, the libraries interleaved).

The three processes stay loaded and take turns: a turn of one library at one cell, then the
same turn of the next, --rounds times (after one round of warm-up that is not counted), each
round in the next of the six orders of the three, so that each library follows each of the
others about as often; each library idle while another runs. A turn is one pass that is not
timed (the library's caches and threads, after another library's turn), then --passes timed
passes, its best: the same number of passes for every library, whatever the length of its pass
(best of more passes would favour the faster library). This machine has slow spells of seconds
to minutes, and one spell over one library's minute-long case alone moved a ratio by 1.5x;
turns taken in rotation share the spells. The table gives each cell's best turn; the ratios
below it also the median over rounds of each round's ratio, with its range. Bytecode is
compiled once beforehand into a scratch cache (PYTHONPYCACHEPREFIX), as an installed package
has it.

    pip install -e '.[peers]'                          # model2vec's distill (scripts/setup.sh has no peers)
    python bench/bench_encode.py                       # builds the peers once into --work
    python bench/bench_encode.py --model runs/default --skip sentence-transformers

parasent is imported as the environment has it (``PYTHONPATH=$PWD`` for a checkout): the same
script times two checkouts, before and after a change, on one model directory.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import peak_rss_mb, run_case
from tqdm import tqdm

HERE = Path(__file__).resolve()
BATCHES = (32, 1024, 4096)  # encode of each slice of the suite
LIST_SIZES = (1, 32, 1024, 4096)  # encode(all, batch_size=k), one call
DEFAULT_BATCH = 4096
PAIR = ("A man plays a guitar.", "Someone plays the guitar.")
ENGINES = ("parasent", "sentence-transformers", "model2vec")
# A cell: (how the pass calls encode, batch size, text variant or None). "unseen": encode([s])
# per sentence on new sentences of the pool each pass; "repeated": the same on the same
# sentences of the suite; "batches": encode of each slice; "list": encode(all, batch_size=k)
PLAIN_CELLS = [("unseen", 1, None), ("repeated", 1, None)] + [("batches", b, None) for b in BATCHES]
LIST_CELLS = [("list", k, None) for k in LIST_SIZES]


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


def unseen_pool(data_dir: str | None, exclude: list[str]) -> list[str]:
    """Sentences for the unseen rows: the running text of the data directory and the Multi30k
    training captions, unique, none of them a suite sentence, shuffled (seed 0) so that each
    pass draws from every source alike."""
    import gzip
    import random

    from bench_search import running_text

    from parasent.support.paths import resolve_data_dir

    root = resolve_data_dir(data_dir)
    pool = dict.fromkeys(running_text(root))
    for path in sorted((root / "paraphrase_extra" / "multi30k_task2_en").glob("train.*.en.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            pool.update(dict.fromkeys(" ".join(line.split()) for line in handle))
    for text in exclude:
        pool.pop(text, None)
    texts = [text for text in pool if text]
    random.Random(0).shuffle(texts)
    return texts


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


def write_pool(args: argparse.Namespace) -> None:
    """The first --lines sentences of the unseen pool into --pool, one a line; prints its size."""
    pool = unseen_pool(args.data_dir, json.loads(Path(args.sentences).read_text()))
    Path(args.pool).write_text("".join(text + "\n" for text in pool[: args.lines]), encoding="utf-8")
    print(json.dumps({"size": len(pool)}))


def _data_dir(args: argparse.Namespace) -> list[str]:
    return ["--data-dir", args.data_dir] if args.data_dir else []


def worker(args: argparse.Namespace) -> None:
    """One library loaded once, taking the turns the driver asks for on stdin, one per line
    (``TURN <mode> <size> [<text variant>]``, ``MEMORY``), each answered with one JSON line;
    the first line out is the load time. Answers go to the process's own stdout, whatever the
    library prints to its stdout goes to stderr."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    texts = json.loads(Path(args.sentences).read_text())
    pool = Pool(args.pool, args.batch1_sentences)
    started = time.perf_counter()
    encode = _load(args.engine, args.path)
    _answer(answers, {"load_s": time.perf_counter() - started, "sentences": len(texts)})
    variants: dict[str, list[str]] = {}  # made when first asked for: after the peak memory is read
    for line in sys.stdin:
        command, *rest = line.split(maxsplit=3)
        if command == "MEMORY":
            _answer(answers, {"peak_rss_mb": peak_rss_mb()})
            continue
        mode, size, variant = rest[0], int(rest[1]), rest[2].strip() if len(rest) > 2 else None
        if variant and variant not in variants:
            variants[variant] = [TEXT_VARIANTS[variant](t) for t in texts]
        suite = variants[variant] if variant else texts
        _answer(answers, {"rate": _turn(encode, (mode, size, variant), suite, pool, args)})


class Pool:
    """The unseen sentences, read from their file (one a line) as they are handed out, so that
    they never add to the library's memory; no sentence is given twice. The first ``repeated``
    are kept apart for the repeated row (the same sentences pass after pass)."""

    def __init__(self, path: str, repeated: int) -> None:
        self.lines = open(path, encoding="utf-8")  # noqa: SIM115 - read for the worker's life
        self.repeated = self._next(repeated)

    def _next(self, count: int) -> list[str]:
        taken = [line.rstrip("\n") for line in itertools.islice(self.lines, count)]
        if len(taken) < count:
            raise SystemExit("the unseen pool's sentences are used up")
        return taken

    def take(self, count: int, variant: str | None) -> list[str]:
        taken = self._next(count)
        return [TEXT_VARIANTS[variant](t) for t in taken] if variant else taken


def _turn(encode, cell: tuple, suite: list[str], pool: Pool, args: argparse.Namespace) -> float:
    """One pass not timed, then the best of --passes timed passes, each on its own text."""
    rates = [_rate(encode, cell, suite, pool, args) for _ in range(1 + args.passes)]
    return max(rates[1:])


def _answer(answers, figures: dict) -> None:
    print(json.dumps(figures), file=answers, flush=True)


def _rate(encode, cell: tuple, suite: list[str], pool: Pool, args: argparse.Namespace) -> float:
    """Sentences/s of one pass of ``cell`` (see :data:`PLAIN_CELLS`)."""
    mode, size, variant = cell
    if mode in ("unseen", "repeated"):
        few = pool.take(args.batch1_sentences, variant) if mode == "unseen" else pool.repeated
        began = time.perf_counter()
        for text in few:
            encode([text], 1)
        return len(few) / (time.perf_counter() - began)
    began = time.perf_counter()
    if mode == "list":
        encode(suite, size)
    else:
        for first in range(0, len(suite), size):
            encode(suite[first : first + size], size)
    return len(suite) / (time.perf_counter() - began)


class Worker:
    """The driver's side of :func:`worker`: a library's process, asked one turn at a time."""

    def __init__(self, engine: str, path: str, sentences: Path, args: argparse.Namespace) -> None:
        command = [sys.executable, str(HERE), "--case", "worker", "--engine", engine, "--path", path]
        command += ["--sentences", str(sentences), "--batch1-sentences", str(args.batch1_sentences)]
        command += ["--pool", str(sentences.parent / "pool.txt")]
        command += ["--passes", str(args.passes)]
        self.engine = engine
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.load_s = self._read()["load_s"]

    def ask(self, line: str) -> dict:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self._read()

    def _read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(
                f"the {self.engine} worker ended (exit {self.process.wait()}); see its error above"
            )
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def take_turns(workers: list[Worker], cells: list[tuple], rounds: int, settle: float) -> dict:
    """``{engine: {cell: [rate of each round]}}``: every cell's turn of each library in turn,
    after a round of warm-up. Each round takes the next order of the libraries (all orders in
    turn), so that each follows each of the others about as often; a pause of ``settle`` s
    after each turn lets the last library's threads go idle (torch's OpenMP threads spin a
    while after their work) before the next is timed."""
    orders = list(itertools.permutations(workers))
    rates: dict[str, dict] = {w.engine: {cell: [] for cell in cells} for w in workers}
    with tqdm(total=(rounds + 1) * len(cells) * len(workers), desc="turns", file=sys.stderr) as bar:
        for round_ in range(rounds + 1):
            for cell in cells:
                for worker in orders[round_ % len(orders)]:
                    mode, size, variant = cell
                    rate = worker.ask(f"TURN {mode} {size}" + (f" {variant}" if variant else ""))["rate"]
                    if round_:
                        rates[worker.engine][cell].append(rate)
                    time.sleep(settle)
                    bar.update()
    return rates


def ratio_summary(mine: list[float], theirs: list[float]) -> str:
    """``median (lowest-highest)`` of the rounds' ratios, round by round."""
    ratios = sorted(a / b for a, b in zip(mine, theirs, strict=True))
    return f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x)"


# --- the runner ---------------------------------------------------------------------------------
def build_peers(args: argparse.Namespace, work: Path) -> dict[str, str]:
    from parasent.core.model import resolve_model_path

    model_dir = resolve_model_path(args.model)
    config = json.loads((model_dir / "config.json").read_text())
    paths = {"parasent": str(model_dir)}
    if "sentence-transformers" not in args.skip:
        out = work / f"st-words-{config['tokenizer'].get('sha256', 'x')[:12]}"
        if not out.is_dir():
            command = [sys.executable, "-m", "parasent", "export", "--model", str(model_dir)]
            command += ["--format", "sentence-transformers", "--dtype", "float32", str(out)]
            if config["tokenizer"].get("kind") == "word_bigrams":
                command.insert(-1, "--words-only")
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir())
        paths["sentence-transformers"] = str(out)
    if "model2vec" not in args.skip:
        out = Path(args.model2vec) if args.model2vec else work / "m2v-distill"
        if not out.is_dir():
            run_case(str(HERE.parent / "bench_peers.py"), ["--case", "model2vec", "--out", str(out)])
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
                # in a scratch folder: `python -m` puts its working directory first on sys.path,
                # and a checkout there would be imported whatever PYTHONPATH says
                process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, cwd=scratch)
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


def run(args: argparse.Namespace) -> None:
    # every library reads bytecode as an installed package has it (compiled once, into a scratch
    # cache, never into the checkout), not its source compiled anew at each start
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="parasent-pycache-")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    paths = build_peers(args, work)
    texts = sentences(args.data_dir)
    variant_cells = [("unseen", 1, name) for name in TEXT_VARIANTS] + [
        ("batches", DEFAULT_BATCH, name) for name in TEXT_VARIANTS
    ]
    unseen_cells = sum(mode == "unseen" for mode, _, _ in PLAIN_CELLS + variant_cells)
    needed = (args.rounds + 1) * (1 + args.passes) * args.batch1_sentences * unseen_cells
    needed += args.batch1_sentences  # the repeated row's sentences
    sentence_file = work / "sentences.json"
    sentence_file.write_text(json.dumps(texts))
    # made in a process of its own: the driver's memory stays small, since the processes it
    # starts count it in their peak (ru_maxrss keeps the parent's resident size at the fork)
    argv = ["--case", "pool", "--sentences", str(sentence_file), "--pool", str(work / "pool.txt")]
    pool = run_case(str(HERE), [*argv, "--lines", str(needed), *_data_dir(args)])
    if needed > pool["size"]:
        raise SystemExit(
            f"the unseen rows need {needed:,} sentences, the pool holds {pool['size']:,}: "
            "lower --batch1-sentences or --rounds"
        )
    cold_start(paths, 0)  # compiles every library's bytecode before anything is timed
    # loaded one after another, each load timed alone
    workers = [Worker(engine, path, sentence_file, args) for engine, path in paths.items()]
    try:
        plain = take_turns(workers, PLAIN_CELLS, args.rounds, args.settle)
        # peak memory before the texts below, whose new words fill memos
        memory = {w.engine: w.ask("MEMORY")["peak_rss_mb"] for w in workers}
        listed = take_turns(workers, LIST_CELLS, args.rounds, args.settle)
        other = take_turns(workers, variant_cells, args.rounds, args.settle)
    finally:
        for w in workers:
            w.close()
    cold = cold_start(paths, args.cold_runs)
    engines = list(paths)
    print(
        f"{len(texts):,} unique sentences (transfer + STS 2016); one sentence per call on "
        f"{args.batch1_sentences:,} sentences a pass (unseen: new sentences of a pool of {pool['size']:,} "
        f"others each pass); the libraries' processes taking turns (a pass not timed, then the best "
        f"of {args.passes}), {args.rounds} rounds after one of warm-up, each cell's best turn; "
        f"{os.cpu_count()} cores"
    )
    print_plain(workers, plain, memory, cold)
    print_listed(listed, engines)
    print_other_text(texts, other, variant_cells, engines)
    print_ratios(plain, listed, cold, engines, args.rounds)
    print(
        json.dumps(
            {
                "plain": _keyed(plain),
                "list": _keyed(listed),
                "other_text": _keyed(other),
                "cold": cold,
                "memory": memory,
            }
        )
    )


def _label(cell: tuple) -> str:
    mode, size, _ = cell
    if mode in ("unseen", "repeated"):
        return f"1, {mode}"
    return f"{size:,}"


def print_plain(workers: list[Worker], plain: dict, memory: dict, cold: dict) -> None:
    print()
    header = "| sentences/s at batch size | " + " | ".join(_label(cell) for cell in PLAIN_CELLS)
    print(header + " | import + load | peak RSS | cold `similarity` (wall, peak RSS) |")
    print("|---" * (len(PLAIN_CELLS) + 4) + "|")
    for w in workers:
        rates = " | ".join(f"{max(plain[w.engine][cell]):,.0f}" for cell in PLAIN_CELLS)
        c = cold[w.engine]
        print(
            f"| {w.engine} | {rates} | {w.load_s:.3f} s | {memory[w.engine]:.0f} MB | "
            f"{c['wall_s']:.3f} s, {c['peak_rss_mb']:.0f} MB |"
        )


def print_listed(listed: dict, engines: list[str]) -> None:
    """One call over the whole suite at each batch size, and each at the default's rate."""
    print()
    print(
        "| sentences/s of encode(all, batch_size=k), one call | "
        + " | ".join(f"k = {k:,}" for k in LIST_SIZES)
        + " | slowest k / k = 4,096 |"
    )
    print("|---" * (len(LIST_SIZES) + 2) + "|")
    for engine in engines:
        best = {k: max(listed[engine][("list", k, None)]) for k in LIST_SIZES}
        print(
            f"| {engine} | "
            + " | ".join(f"{best[k]:,.0f}" for k in LIST_SIZES)
            + f" | {min(best.values()) / best[DEFAULT_BATCH]:.2f} |"
        )


def print_other_text(texts: list[str], other: dict, cells: list[tuple], engines: list[str]) -> None:
    shares = {name: sum(not v(t).isascii() for t in texts) / len(texts) for name, v in TEXT_VARIANTS.items()}
    print()
    print(
        "| sentences/s of text not ASCII | "
        + " | ".join(
            f"{name} ({shares[name]:.0%} of texts), batch {_label(cell)}"
            for cell in cells
            for name in [cell[2]]
        )
        + " |"
    )
    print("|---" * (len(cells) + 1) + "|")
    for engine in engines:
        print(f"| {engine} | " + " | ".join(f"{max(other[engine][cell]):,.0f}" for cell in cells) + " |")


def print_ratios(plain: dict, listed: dict, cold: dict, engines: list[str], rounds: int) -> None:
    """parasent against each peer: the best cells' ratios, and the rounds' ratios (each round's
    passes ran within seconds of each other) as a median and range."""
    print()
    batch_cells = [cell for cell in PLAIN_CELLS if cell[0] == "batches"]
    fastest = {e: [max(plain[e][cell][r] for cell in batch_cells) for r in range(rounds)] for e in engines}
    for peer in engines[1:]:
        mine = max(max(plain["parasent"][cell]) for cell in batch_cells)
        theirs = max(max(plain[peer][cell]) for cell in batch_cells)
        print(
            f"parasent's fastest / {_possessive(peer)} fastest (batches): {mine:,.0f} / {theirs:,.0f} "
            f"sentences/s = {mine / theirs:.2f}x the best passes; round by round "
            f"{ratio_summary(fastest['parasent'], fastest[peer])}"
        )
    for peer in engines[1:]:
        cells = ", ".join(
            f"{_label(cell)}: {max(plain['parasent'][cell]) / max(plain[peer][cell]):.2f}x "
            f"(rounds {ratio_summary(plain['parasent'][cell], plain[peer][cell])})"
            for cell in PLAIN_CELLS
        )
        wall = cold["parasent"]["wall_s"] / cold[peer]["wall_s"]
        print(f"parasent / {peer}: {cells}; cold start {wall:.2f}x the wall time")
    default = listed["parasent"][("list", DEFAULT_BATCH, None)]
    print(
        "parasent, one call at batch_size k / at 4,096, round by round: "
        + ", ".join(
            f"k = {k:,}: {ratio_summary(listed['parasent'][('list', k, None)], default)}"
            for k in LIST_SIZES[:-1]
        )
    )


def _possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def _keyed(rates: dict) -> dict:
    """The rates with JSON keys: ``mode size [variant]``."""
    return {
        e: {" ".join(str(k) for k in cell if k is not None): r for cell, r in cells.items()}
        for e, cells in rates.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", choices=["worker", "pool"])
    parser.add_argument("--lines", type=int, help="sentences of the pool to write (--case pool)")
    parser.add_argument("--engine", choices=ENGINES)
    parser.add_argument("--path")
    parser.add_argument("--sentences")
    parser.add_argument("--pool")
    parser.add_argument("--model", default="default", help="parasent model (default: the shipped one)")
    parser.add_argument("--model2vec", help="a model2vec directory (default: distilled into --work)")
    parser.add_argument(
        "--work", default="/tmp/parasent-encode-bench", help="where the peers are built (kept)"
    )
    parser.add_argument("--data-dir")
    parser.add_argument(
        "--rounds",
        type=int,
        default=10,
        help="turns of every cell by each library, the libraries taking turns (after a round of warm-up)",
    )
    parser.add_argument(
        "--passes", type=int, default=2, help="timed passes of a turn, after one not timed (the turn's best)"
    )
    parser.add_argument(
        "--settle", type=float, default=0.2, help="seconds of pause after each turn (threads going idle)"
    )
    parser.add_argument(
        "--batch1-sentences", type=int, default=3000, help="sentences of a pass at one sentence per call"
    )
    parser.add_argument("--cold-runs", type=int, default=7)
    parser.add_argument("--skip", action="append", default=[], choices=["sentence-transformers", "model2vec"])
    args = parser.parse_args()
    if args.rounds < 1 or args.passes < 1:
        parser.error("--rounds and --passes take at least 1")
    if args.case == "worker":
        worker(args)
    elif args.case == "pool":
        write_pool(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
