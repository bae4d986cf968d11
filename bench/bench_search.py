"""Benchmark of exact search on a saved index against bare numpy on the same array.

Builds an index of N sentences (running text of the data directory, default 100,000 lines)
with the shipped default model, then times, per query, ``load_index(DIR).search([q])``
(encoding the query included) against ``V @ q`` + ``argpartition`` + sorting the top k on the
index's own vectors with the query vector already encoded (numpy's best case). Prints the
median milliseconds of each and their ratio, and one JSON line.

    python bench/bench_search.py                  # 100,000 sentences, 200 queries, top 10
    python bench/bench_search.py --sentences 20000 --queries 50
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np


def running_text(data_dir: Path) -> Iterator[str]:
    """Non-empty lines of the data directory's running text (its corpus/ folder), in file order."""
    for path in sorted((data_dir / "corpus").rglob("*")):
        if path.suffix not in (".gz", ".txt") or not path.is_file():
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                text = " ".join(line.split())
                if len(text) > 3:
                    yield text


def corpus_lines(data_dir: Path, count: int) -> list[str]:
    lines = []
    while len(lines) < count:  # a small data directory is cycled (numbered, so lines stay distinct)
        before = len(lines)
        for text in running_text(data_dir):
            lines.append(text if before == 0 else f"{text} {before}")
            if len(lines) == count:
                break
        if len(lines) == before:
            raise SystemExit(f"no running text under {data_dir / 'corpus'}")
    return lines


def median_ms(times: list[float]) -> float:
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--data-dir")
    args = parser.parse_args()

    import parasent
    from parasent.corpus.index import build_index, load_index
    from parasent.support.paths import resolve_data_dir

    lines = corpus_lines(resolve_data_dir(args.data_dir), args.sentences)
    rng = np.random.default_rng(0)
    queries = [lines[i] for i in rng.choice(len(lines), size=args.queries, replace=False)]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.txt"
        corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
        start = time.perf_counter()
        build_index(parasent.load(), corpus, Path(tmp) / "index", progress=False)
        build_s = time.perf_counter() - start
        index = load_index(Path(tmp) / "index")
        matrix = index.vectors  # the same array both ways
        k = args.top_k
        ours, bare, encode = [], [], []
        agree = 0
        for round_ in range(2):  # the first round warms the page cache and the code paths
            for text in queries:
                start = time.perf_counter()
                hits = index.search([text], top_k=k, exact=True)[0]
                ours.append(time.perf_counter() - start)
                start = time.perf_counter()
                vector = index.model.encode([text], normalize_embeddings=True)[0]
                encode.append(time.perf_counter() - start)
                start = time.perf_counter()
                scores = matrix @ vector
                top = np.argpartition(-scores, k)[:k]
                top = top[np.argsort(-scores[top])]
                bare.append(time.perf_counter() - start)
                # the same scores (ids may differ among tied duplicates of a line)
                agree += round_ == 1 and np.allclose([h["score"] for h in hits], scores[top], atol=1e-5)
            if round_ == 0:
                ours, bare, encode = [], [], []
    result = {
        "sentences": len(lines),
        "dim": int(matrix.shape[1]),
        "queries": len(queries),
        "top_k": k,
        "build_s": round(build_s, 2),
        "index_search_ms": round(median_ms(ours), 2),
        "numpy_ms": round(median_ms(bare), 2),
        "query_encode_ms": round(median_ms(encode), 3),
        "ratio": round(median_ms(ours) / median_ms(bare), 2),
        "same_top_k": f"{agree}/{len(queries)}",
    }
    print(
        f"{result['sentences']} sentences x {result['dim']} d, top {k}, median of {len(queries)} queries:\n"
        f"  load_index(DIR).search([q]) (encoding q included)  {result['index_search_ms']:8.2f} ms\n"
        f"  numpy V @ q + argpartition (q already encoded)      {result['numpy_ms']:8.2f} ms\n"
        f"  ratio {result['ratio']:.2f}x; same top {k} on {result['same_top_k']} queries; "
        f"index built in {result['build_s']:.1f} s"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
