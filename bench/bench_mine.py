"""Paraphrase mining and semantic dedup of a corpus, parasent beside what a user would run
instead, side by side in one run, each case in a process of its own (seconds from loading the
model to the result written, and peak RSS):

  mine, on 50,000 Multi30k captions (10,000 images x 5 captions, shuffled), the same vectors
  for all three: StaticEmbedding over the default model's word rows
  (``parasent export --words-only``, which parasent loads too):
    parasent mine (exact, top 10, no threshold: the pairs sentence-transformers gives)
    sentence-transformers ``util.paraphrase_mining(model, captions, top_k=10)``
    a numpy top-1 loop written by hand (blocks of 1,000 rows @ V.T, argmax)
  and ``parasent mine`` with the default model and its default threshold, as a user runs it;
  dedup, on the same captions, threshold 0.9:
    parasent dedup (the default model)
    SemHash ``self_deduplicate`` over model2vec's ``distill`` of the same teacher
    (bench_peers.py's build), and over the default's word rows as a model2vec model;
  --ann recall@10 against the exact lists; the precision of mined pairs per threshold (both
  captions of one image; both questions of a group of Quora pairs labelled duplicate, a lower
  bound) for the default model (and, with --teacher, all-MiniLM-L6-v2); with
  --leakage, how many pairs of the standard training pool a semantic guard against the
  evaluation sets would drop at 0.9 and 0.95; with --million, ``parasent mine --ann`` of a
  1,000,000-line corpus (every distinct sentence of the shared data, then pairs of them joined
  into one line until there are a million), wall time and peak RSS of the whole command.

    pip install semhash                    # and the peers extra for model2vec's distill
    flock /tmp/parasent-heavy.lock python bench/bench_mine.py --work /tmp/parasent-mine
    flock /tmp/parasent-heavy.lock python bench/bench_mine.py --work /tmp/parasent-mine --million --leakage --teacher
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from harness import peak_rss_mb, run_case

HERE = Path(__file__).resolve()
MULTI30K = "paraphrase_extra/multi30k_task2_en"
IMAGES = 10_000
TOP_K = 10
DEDUP_THRESHOLD = 0.9
THRESHOLDS = (0.6, 0.7, 0.8, 0.85, 0.9, 0.95)
BEST = (1_000, 5_000, 20_000)  # precision of the best N pairs: models compared at one count


# --- the corpora -----------------------------------------------------------------------------
def captions(data_dir: Path, work: Path) -> tuple[Path, Path]:
    """50,000 captions (the first 10,000 images of Multi30k's train split, 5 captions each),
    shuffled with a fixed seed, and the image of each line."""
    corpus, images = work / "captions.txt", work / "captions-images.npy"
    if corpus.is_file() and images.is_file():
        return corpus, images
    lines, image = [], []
    for k in range(1, 6):
        with gzip.open(data_dir / MULTI30K / f"train.{k}.en.gz", "rt", encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                if number == IMAGES:
                    break
                lines.append(" ".join(line.split()))
                image.append(number)
    order = np.random.default_rng(0).permutation(len(lines))
    corpus.write_text("".join(lines[i] + "\n" for i in order), encoding="utf-8")
    np.save(images, np.asarray(image)[order])
    return corpus, images


def quora(data_dir: Path, work: Path) -> tuple[Path, Path]:
    """The questions of the Quora pairs (BiMPM's dev and test split), each once, and a group per
    question: the questions linked by pairs labelled duplicate share one (the others are alone,
    though some are duplicates nobody labelled: precision here is a lower bound)."""
    corpus, groups = work / "quora.txt", work / "quora-groups.npy"
    if corpus.is_file() and groups.is_file():
        return corpus, groups
    index: dict[str, int] = {}
    parent: list[int] = []

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for name in ("dev", "test"):
        with gzip.open(
            data_dir / "paraphrase_extra/quora_bimpm" / f"{name}.tsv.gz", "rt", encoding="utf-8"
        ) as handle:
            for line in handle:
                label, *questions = line.rstrip("\n").split("\t")[:3]
                ids = []
                for question in questions:
                    question = " ".join(question.split())
                    if question not in index:
                        index[question] = len(parent)
                        parent.append(len(parent))
                    ids.append(index[question])
                if label == "1":
                    parent[find(ids[0])] = find(ids[1])
    corpus.write_text("".join(q + "\n" for q in index), encoding="utf-8")
    np.save(groups, np.asarray([find(i) for i in range(len(parent))]))
    return corpus, groups


def million(data_dir: Path, work: Path, size: int = 1_000_000) -> tuple[Path, str]:
    """Every distinct sentence of the shared data (running text, paraphrase and caption sets,
    the training pools' texts), then lines of two of them joined, drawn with a fixed seed,
    until there are ``size``; and how it was made."""
    path = work / f"million-{size}.txt"
    note = work / f"million-{size}.json"
    if path.is_file() and note.is_file():
        return path, json.loads(note.read_text())["how"]
    from parasent.data.training_text.corpus import read_corpus
    from parasent.data.training_text.unlabelled import SOURCES, unlabelled_text

    seen: dict[str, None] = {}
    for group in SOURCES:
        for _, text in unlabelled_text(data_dir, group):
            seen.setdefault(" ".join(text.split()))
    for document in read_corpus(data_dir, "standard")[0]:
        for sentence in document.sentences:
            seen.setdefault(" ".join(sentence.split()))
    distinct = [t for t in seen if len(t) > 3][:size]
    rng = np.random.default_rng(0)
    joined = set(distinct)
    while len(joined) < size:
        a, b = rng.integers(0, len(distinct), 2)
        joined.add(f"{distinct[a]} {distinct[b]}")
    lines = distinct + sorted(joined - set(distinct))[: size - len(distinct)]
    lines = [lines[i] for i in rng.permutation(len(lines))]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    how = (
        f"{len(distinct):,} distinct sentences of the shared data (text groups {', '.join(SOURCES)}; running "
        f"text), then {size - len(distinct):,} lines of two of them joined (seeded), shuffled"
    )
    note.write_text(json.dumps({"how": how}))
    return path, how


# --- the cases (each in its own process) -------------------------------------------------------
def _timed(work) -> dict:
    started = time.perf_counter()
    result = work() or {}
    return {**result, "seconds": time.perf_counter() - started, "peak_rss_mb": peak_rss_mb()}


def case_parasent_mine(args: argparse.Namespace) -> dict:
    from parasent.cli import main

    argv = ["mine", args.corpus, "-o", args.out, "--model", args.model, "--top-k", str(TOP_K), "--quiet"]
    argv += ["--threshold", str(args.threshold), "--overwrite"] + (["--ann"] if args.ann else [])
    return _timed(lambda: {"code": main(argv)})


def case_st_mine(args: argparse.Namespace) -> dict:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.util import paraphrase_mining

    sentences = Path(args.corpus).read_text(encoding="utf-8").splitlines()

    def work() -> dict:
        model = SentenceTransformer(args.model, device="cpu")
        pairs = paraphrase_mining(model, sentences, top_k=TOP_K)
        np.save(args.out, np.asarray(pairs, dtype=np.float64).reshape(-1, 3))  # score, i, j
        return {"pairs": len(pairs)}

    return _timed(work)


def case_numpy_top1(args: argparse.Namespace) -> dict:
    import parasent

    sentences = Path(args.corpus).read_text(encoding="utf-8").splitlines()

    def work() -> dict:
        vectors = parasent.load(args.model).encode(sentences)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        best = np.empty(len(vectors), dtype=np.int64)
        for start in range(0, len(vectors), 1000):
            scores = vectors[start : start + 1000] @ vectors.T
            scores[np.arange(len(scores)), np.arange(start, start + len(scores))] = -np.inf
            best[start : start + 1000] = scores.argmax(axis=1)
        return {"rows": len(best)}

    return _timed(work)


def case_parasent_dedup(args: argparse.Namespace) -> dict:
    from parasent.cli import main

    argv = ["dedup", args.corpus, "-o", args.out, "--model", args.model, "--quiet", "--overwrite"]
    argv += ["--threshold", str(args.threshold), "--removed", args.out + ".removed.tsv"]
    result = _timed(lambda: {"code": main(argv)})
    result["kept"] = len(Path(args.out).read_text(encoding="utf-8").splitlines())
    return result


def case_semhash(args: argparse.Namespace) -> dict:
    from model2vec import StaticModel
    from semhash import SemHash

    sentences = Path(args.corpus).read_text(encoding="utf-8").splitlines()

    def work() -> dict:
        model = StaticModel.from_pretrained(args.model)
        result = SemHash.from_records(records=sentences, model=model).self_deduplicate(
            threshold=args.threshold
        )
        Path(args.out).write_text("".join(t + "\n" for t in result.selected), encoding="utf-8")
        return {"kept": len(result.selected)}

    return _timed(work)


def case_ann_recall(args: argparse.Namespace) -> dict:
    import parasent
    from parasent.corpus.ann import ann_neighbours
    from parasent.corpus.neighbours import exact_neighbours, unit_vectors

    sentences = Path(args.corpus).read_text(encoding="utf-8").splitlines()
    vectors = unit_vectors(parasent.load(args.model).encode(sentences))
    started = time.perf_counter()
    exact = exact_neighbours(vectors, TOP_K, unit=True)
    exact_s = time.perf_counter() - started
    started = time.perf_counter()
    approximate = ann_neighbours(lambda: iter([vectors]), len(vectors), vectors.shape[1], TOP_K, -np.inf)
    ann_s = time.perf_counter() - started
    found = sum(
        len(set(a) & set(e)) for a, e in zip(approximate.ids.tolist(), exact.ids.tolist(), strict=True)
    )
    return {
        "recall": found / exact.ids.size,
        "exact_s": exact_s,
        "ann_s": ann_s,
        "peak_rss_mb": peak_rss_mb(),
    }


def _encoder(name: str):
    if name == "teacher":
        from sentence_transformers import SentenceTransformer

        from parasent.distillation.teacher import resolve_teacher_path

        model = SentenceTransformer(str(resolve_teacher_path("auto")), device="cpu")
        return lambda texts: model.encode(texts, batch_size=64, convert_to_numpy=True)
    import parasent

    model = parasent.load(name)
    return model.encode


def case_precision(args: argparse.Namespace) -> dict:
    from parasent.corpus.mining import mine_vectors

    sentences = Path(args.corpus).read_text(encoding="utf-8").splitlines()
    group = np.load(args.images)
    vectors = _encoder(args.model)(sentences)
    pairs = mine_vectors(vectors, top_k=TOP_K, threshold=min(THRESHOLDS))
    same = group[pairs.first] == group[pairs.second]
    sizes = np.bincount(group)
    positives = int((sizes * (sizes - 1) // 2).sum())  # the pairs within a group
    rows = {}
    for threshold in THRESHOLDS:
        kept = pairs.scores >= threshold
        rows[str(threshold)] = {
            "pairs": int(kept.sum()),
            "precision": float(same[kept].mean()) if kept.any() else 0.0,
            "recall": float(same[kept].sum() / positives),
        }
    best = {str(n): float(same[:n].mean()) for n in BEST if n <= len(same)}
    return {"thresholds": rows, "best": best}


def case_leakage(args: argparse.Namespace) -> dict:
    import parasent
    from parasent.corpus.dedup import KeptSet
    from parasent.corpus.neighbours import unit_vectors
    from parasent.data.registry.catalog import suite_datasets
    from parasent.data.training_text.pools import build_pool, protocol_exclusions
    from parasent.support.paths import resolve_data_dir

    root = resolve_data_dir(args.data_dir)
    forbidden, forbidden_pairs = protocol_exclusions(root, "standard")  # the guard of identical texts
    pairs, _ = build_pool(root, "standard", forbidden=forbidden, forbidden_pairs=forbidden_pairs)
    model = parasent.load()
    evaluation = sorted(
        {text for suite in ("transfer", "validation") for record in suite_datasets(suite)
         for pair in record.load(root) for text in (pair.s1, pair.s2)}
    )  # fmt: skip
    sides = sorted({text for pair in pairs for text in (pair.s1, pair.s2)})
    reference = KeptSet.of(unit_vectors(model.encode(evaluation)))
    best = np.concatenate(
        [
            reference.best(unit_vectors(model.encode(sides[i : i + 4096])))[0]
            for i in range(0, len(sides), 4096)
        ]
    )
    score = dict(zip(sides, best.tolist(), strict=True))
    result = {"pairs": len(pairs), "sentences": len(sides), "evaluation_sentences": len(evaluation)}
    for threshold in (0.9, 0.95):
        lost = [p for p in pairs if max(score[p.s1], score[p.s2]) >= threshold]
        by_source: dict[str, int] = {}
        for pair in lost:
            by_source[pair.source] = by_source.get(pair.source, 0) + 1
        result[str(threshold)] = {"pairs": len(lost), "by_source": by_source}
    return result


CASES = {
    "parasent-mine": case_parasent_mine,
    "st-mine": case_st_mine,
    "numpy-top1": case_numpy_top1,
    "parasent-dedup": case_parasent_dedup,
    "semhash": case_semhash,
    "ann-recall": case_ann_recall,
    "precision": case_precision,
    "leakage": case_leakage,
}


# --- the runner ---------------------------------------------------------------------------------
def words_only_export(work: Path) -> Path:
    """The default model's word rows as a sentence-transformers StaticEmbedding directory."""
    out = work / "st-words"
    if not out.is_dir():
        command = [
            sys.executable,
            "-m",
            "parasent",
            "export",
            "--words-only",
            "--format",
            "sentence-transformers",
        ]
        subprocess.run([*command, "--dtype", "float32", str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


def model2vec_peers(work: Path, skip: list[str]) -> dict[str, Path]:
    """model2vec's distill of the default's teacher (bench_peers.py's build), and the default's
    word rows as a model2vec model: the SemHash rows."""
    peers = {}
    if "m2v-distill" not in skip:
        out = work / "m2v-distill"
        if not out.is_dir():
            run_case(str(HERE.parent / "bench_peers.py"), ["--case", "model2vec", "--out", str(out)])
        peers["model2vec distill of all-MiniLM-L6-v2"] = out
    out = work / "m2v-words"
    if not out.is_dir():
        command = [sys.executable, "-m", "parasent", "export", "--words-only", "--format", "model2vec"]
        subprocess.run([*command, "--dtype", "float32", str(out)], check=True, stdout=subprocess.DEVNULL)
    peers["the default's word rows as model2vec"] = out
    return peers


def same_pairs(tsv: Path, theirs: Path, threshold: float | None = None) -> str:
    """Whether parasent's pairs (a TSV of mine) are sentence-transformers' (score, i, j), those
    at or above ``threshold`` when given: the same set, or one that differs only among pairs
    of equal score (a tie at a row's k-th place, broken by the lower line in parasent and
    arbitrarily by torch.topk) or within 1e-6 of the threshold (float rounding of torch and numpy)."""
    rows = [r.split("\t") for r in tsv.read_text(encoding="utf-8").splitlines()[1:]]
    ours = {(int(r[1]) - 1, int(r[2]) - 1): float(r[0]) for r in rows}
    other = {
        (int(i), int(j)): s for s, i, j in np.load(theirs).tolist() if threshold is None or s >= threshold
    }
    if ours.keys() == other.keys():
        return "identical"
    apart = (ours.keys() - other.keys()) | (other.keys() - ours.keys())
    edge = {p for p in apart if threshold is not None and abs(ours.get(p, other.get(p)) - threshold) <= 1e-6}
    rest = apart - edge
    mine = sorted(v for p, v in ours.items() if p not in edge)
    theirs_scores = sorted(v for p, v in other.items() if p not in edge)
    if not rest or np.allclose(mine, theirs_scores, atol=2e-6):
        ties = len(rest - other.keys())
        return f"identical but {ties} pair(s) of equal score tied at a row's 10th place, {len(edge)} at the threshold"
    return f"DIFFERENT: {len(rest)} pair(s)"


def case(argv: list[str]) -> dict:
    """A case in its own process; ``process_s``: its whole life, interpreter and imports included."""
    started = time.perf_counter()
    result = run_case(str(HERE), argv)
    return {**result, "process_s": time.perf_counter() - started}


def rounds(cases: dict[str, list[str]], count: int) -> dict[str, dict]:
    """Every case ``count`` times, in turn (a, b, c, a, b, c, ...), so that a slow spell of this
    shared machine falls on each in turn; per case its fastest round and every round's
    seconds (load to result), and its largest peak RSS."""
    runs: dict[str, list[dict]] = {name: [] for name in cases}
    for _ in range(count):
        for name, argv in cases.items():
            runs[name].append(case(argv))
    best = {}
    for name, results in runs.items():
        fastest = min(results, key=lambda r: r["seconds"])
        best[name] = {
            **fastest,
            "process_s": min(r["process_s"] for r in results),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in results),
            "all_s": sorted(r["seconds"] for r in results),
        }
    return best


def row(label: str, result: dict, note: str = "") -> str:
    spread = "-".join(f"{s:.1f}" for s in (result["all_s"][0], result["all_s"][-1]))
    return (
        f"| {label} | {result['process_s']:.2f} | {result['seconds']:.2f} ({spread}) | "
        f"{result['peak_rss_mb']:.0f} | {note} |"
    )


HEADER = (
    "| case | seconds, whole process | seconds, load to result (range over rounds) | peak RSS MB | |\n"
    "|---|---|---|---|---|"
)


def mining_table(work: Path, corpus: Path, count: int) -> None:
    st_model = str(words_only_export(work))
    text = ["--corpus", str(corpus)]
    best = rounds(
        {
            "ours": [
                "--case",
                "parasent-mine",
                "--model",
                st_model,
                "--threshold",
                "-1",
                "--out",
                str(work / "ours.tsv"),
                *text,
            ],
            "theirs": ["--case", "st-mine", "--model", st_model, "--out", str(work / "st.npy"), *text],
            "ours-0.8": [
                "--case",
                "parasent-mine",
                "--model",
                st_model,
                "--out",
                str(work / "ours-0.8.tsv"),
                *text,
            ],
            "loop": ["--case", "numpy-top1", "--model", st_model, *text],
            "default": [
                "--case",
                "parasent-mine",
                "--model",
                "default",
                "--out",
                str(work / "default.tsv"),
                *text,
            ],
        },
        count,
    )
    ours, theirs, loop, default = (best[name] for name in ("ours", "theirs", "loop", "default"))
    same = same_pairs(work / "ours.tsv", work / "st.npy")
    same_cut = same_pairs(work / "ours-0.8.tsv", work / "st.npy", 0.8)
    print(f"\n## Mining {corpus.name}: top {TOP_K} of each line, each pair once; best of {count} rounds\n")
    print(HEADER)
    print(row("parasent mine, exact, no threshold", ours, f"pairs against sentence-transformers': {same}"))
    print(
        row(
            "parasent mine, exact, --threshold 0.8 (the default)",
            best["ours-0.8"],
            f"against sentence-transformers' pairs of 0.8 and more: {same_cut}",
        )
    )
    print(row("sentence-transformers paraphrase_mining", theirs, f"{theirs['pairs']:,} pairs"))
    print(row("numpy top-1 loop (blocks of 1,000 rows)", loop, "top 1 only"))
    print(row("parasent mine, the default model, --threshold 0.8", default, "as a user runs it"))
    for name, label in (("ours", "no threshold"), ("ours-0.8", "--threshold 0.8")):
        mine = best[name]
        print(
            f"\nparasent mine ({label}) against paraphrase_mining: {theirs['process_s'] / mine['process_s']:.1f}x "
            f"as fast as a whole process, {theirs['seconds'] / mine['seconds']:.1f}x from load to result; against "
            f"the numpy loop: {loop['process_s'] / mine['process_s']:.2f}x and {loop['seconds'] / mine['seconds']:.2f}x."
        )
    print("The first four rows use the same vectors: StaticEmbedding over the default's word rows.")


def dedup_table(work: Path, corpus: Path, skip: list[str], count: int) -> None:
    options = ["--corpus", str(corpus), "--threshold", str(DEDUP_THRESHOLD)]
    cases = {
        "ours": ["--case", "parasent-dedup", "--model", "default", "--out", str(work / "kept.txt"), *options]
    }
    labels = {"ours": "parasent dedup (the default model)"}
    for label, path in model2vec_peers(work, skip).items():
        out = str(work / f"semhash-{path.name}.txt")
        cases[path.name] = ["--case", "semhash", "--model", str(path), "--out", out, *options]
        labels[path.name] = f"SemHash self_deduplicate, {label}"
    best = rounds(cases, count)
    print(f"\n## Dedup {corpus.name} at {DEDUP_THRESHOLD}; best of {count} rounds\n")
    print(HEADER.replace("| |", "| kept |"))
    for name, result in best.items():
        print(row(labels[name], result, f"{result['kept']:,}"))


def quality_tables(work: Path, corpus: Path, images: Path, teacher: bool, data_dir: Path) -> None:
    recall = run_case(str(HERE), ["--case", "ann-recall", "--model", "default", "--corpus", str(corpus)])
    print(
        f"\n--ann recall@{TOP_K} against the exact lists: {recall['recall']:.4f} (exact {recall['exact_s']:.1f} s, "
        f"graph {recall['ann_s']:.1f} s, vectors already encoded)"
    )
    models = [("default", "parasent default"), *([("teacher", "all-MiniLM-L6-v2")] if teacher else [])]
    sets = [
        ("captions of one image (Multi30k, 50,000)", corpus, images),
        ("Quora duplicates (BiMPM dev+test)", *quora(data_dir, work)),
    ]
    for name, path, groups in sets:
        print(f"\n## Precision of mined pairs: {name}; top 10, at or above the threshold\n")
        print("| model | " + " | ".join(f"{t}" for t in THRESHOLDS) + " | precision of the best N |")
        print("|---|" + "---|" * (len(THRESHOLDS) + 1))
        for model, label in models:
            result = run_case(str(HERE), ["--case", "precision", "--model", model, "--corpus", str(path),
                                          "--images", str(groups)])  # fmt: skip
            cells = [
                f"{r['precision']:.3f} ({r['pairs']:,} pairs, recall {r['recall']:.2f})"
                for r in result["thresholds"].values()
            ]
            best = ", ".join(f"best {int(n):,}: {p:.3f}" for n, p in result["best"].items())
            print(f"| {label} | " + " | ".join(cells) + f" | {best} |", flush=True)


def million_row(work: Path, data_dir: Path) -> None:
    path, how = million(data_dir, work)
    command = [
        sys.executable,
        "-m",
        "parasent",
        "mine",
        str(path),
        "--ann",
        "-o",
        str(work / "million-pairs.tsv"),
    ]
    command += ["--overwrite", "--quiet"]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    report = process.stderr.read().decode()
    if status != 0:
        raise SystemExit(f"parasent mine --ann failed: {report[-2000:]}")
    print(f"\n## parasent mine --ann, 1,000,000 lines ({how})\n")
    print(f"{seconds:.0f} s, peak RSS {usage.ru_maxrss / 1024:.0f} MB, {os.cpu_count()} cores")
    print("\n".join(report.strip().splitlines()[:3]))


def leakage_table(data_dir: str | None) -> None:
    result = run_case(str(HERE), ["--case", "leakage", *(["--data-dir", data_dir] if data_dir else [])])
    print(
        f"\n## Semantic leakage: standard pool pairs within a cosine of the evaluation sets "
        f"({result['pairs']:,} pairs, {result['sentences']:,} sentences; {result['evaluation_sentences']:,} "
        "evaluation sentences; the default model)\n"
    )
    for threshold in ("0.9", "0.95"):
        lost = result[threshold]
        sources = ", ".join(f"{k} {v:,}" for k, v in sorted(lost["by_source"].items()))
        print(f"- at {threshold}: {lost['pairs']:,} pairs would go ({sources})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=sorted(CASES))
    parser.add_argument("--corpus")
    parser.add_argument("--images")
    parser.add_argument("--model", default="default")
    parser.add_argument("--out")
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--ann", action="store_true")
    parser.add_argument("--data-dir")
    parser.add_argument("--work", default="/tmp/parasent-bench-mine", help="corpora and peers (kept)")
    parser.add_argument(
        "--skip", action="append", default=[], choices=["mine", "dedup", "quality", "m2v-distill"]
    )
    parser.add_argument(
        "--teacher", action="store_true", help="also the teacher's precision (encodes on CPU)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the timed cases, taken in turn")
    parser.add_argument("--million", action="store_true", help="also mine 1,000,000 lines with --ann")
    parser.add_argument("--leakage", action="store_true", help="also the leakage report of the standard pool")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(CASES[args.case](args)))
        return
    from parasent.support.paths import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    corpus, images = captions(data_dir, work)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the start")
    if "mine" not in args.skip:
        mining_table(work, corpus, args.rounds)
    if "dedup" not in args.skip:
        dedup_table(work, corpus, args.skip, args.rounds)
    if "quality" not in args.skip:
        quality_tables(work, corpus, images, args.teacher, data_dir)
    if args.leakage:
        leakage_table(args.data_dir)
    if args.million:
        million_row(work, data_dir)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
