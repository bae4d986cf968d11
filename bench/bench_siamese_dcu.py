"""Benchmark of the Siamese CBOW and DCU training paths: the optimizer step of sparse AdaDelta against
torch's dense AdaDelta (the embedding gradient made dense) at two vocabulary sizes, and
Siamese CBOW training throughput on the standard corpus. Each case runs in its own
subprocess so that its peak RSS is its own. Prints a table.

    python bench/bench_siamese_dcu.py                 # 50k and 500k words, 300 dimensions
    python bench/bench_siamese_dcu.py --vocab 50000   # one size
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from harness import peak_rss_mb, print_table, run_case


def case_adadelta(args: argparse.Namespace) -> dict:
    """Steps/s of one AdaDelta step on a (vocab x dim) embedding whose gradient touches
    ``rows`` random rows (a batch of 100 pairs touches about 1,000-2,000 distinct words)."""
    import torch

    from parasent.training.adadelta import SparseAdadelta

    torch.manual_seed(0)
    weight = torch.nn.Parameter(torch.randn(args.vocab, args.dim) * 0.1)
    optimizer = SparseAdadelta([weight]) if args.kind == "sparse" else torch.optim.Adadelta([weight])
    generator = torch.Generator().manual_seed(0)

    def gradient() -> torch.Tensor:
        rows = torch.randint(0, args.vocab, (args.rows,), generator=generator)
        grad = torch.sparse_coo_tensor(rows.unsqueeze(0), torch.randn(args.rows, args.dim), weight.shape)
        return grad if args.kind == "sparse" else grad.to_dense()  # dense: what torch's AdaDelta needs

    for _ in range(args.warmup):
        weight.grad = gradient()
        optimizer.step()
    rates = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        for _ in range(args.steps):
            weight.grad = gradient()
            optimizer.step()
        rates.append(args.steps / (time.perf_counter() - started))
    return {"steps_per_s": statistics.median(rates), "runs": rates, "peak_rss_mb": peak_rss_mb()}


def case_siamese(args: argparse.Namespace) -> dict:
    """Examples/s of Siamese CBOW training steps (batch 100, n = 2, 300 dimensions)."""
    import torch

    from parasent.data.training_text.corpus import read_corpus
    from parasent.encoders.word_averaging import WordAveraging
    from parasent.objectives.siamese_cbow import SiameseCBOWLoss
    from parasent.text import WordTokenizer, build_vocabulary, count_words
    from parasent.training.documents import DocumentData
    from parasent.training.optim import build_optimizer

    documents, _ = read_corpus(args.data_dir, "standard")
    counts = count_words(s for d in documents for s in d.sentences)
    tokenizer = WordTokenizer.from_vocabulary(build_vocabulary([], counts, min_count=5), unknown="skip")
    data = DocumentData.from_documents(documents, tokenizer, num_negatives=2)
    encoder = WordAveraging(tokenizer.vocab_size, args.dim)
    encoder.set_embeddings(torch.randn(tokenizer.vocab_size, args.dim) * 0.01)
    objective = SiameseCBOWLoss(encoder)
    optimizer = build_optimizer(encoder, "sgd", 0.1)
    batches = data.batches(0, 1, 100)

    def step() -> None:
        optimizer.zero_grad()
        loss, _ = objective(next(batches), 1)
        loss.backward()
        optimizer.step()

    for _ in range(args.warmup):
        step()
    rates = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        for _ in range(args.steps):
            step()
        rates.append(args.steps * 100 / (time.perf_counter() - started))
    return {
        "examples_per_s": statistics.median(rates),
        "runs": rates,
        "vocab": tokenizer.vocab_size,
        "sentences": data.num_sentences,
        "peak_rss_mb": peak_rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--vocab", type=int, nargs="+", default=[50_000, 500_000])
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--rows", type=int, default=1500, help="distinct rows in a step's gradient")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--case", choices=["adadelta", "siamese"], help=argparse.SUPPRESS)
    parser.add_argument("--kind", choices=["sparse", "dense"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    from parasent.support.paths import resolve_data_dir

    args.data_dir = str(resolve_data_dir(args.data_dir))
    if args.case:
        args.vocab = args.vocab[0]
        print(json.dumps(case_adadelta(args) if args.case == "adadelta" else case_siamese(args)))
        return
    common = ["--data-dir", args.data_dir, "--dim", str(args.dim), "--warmup", str(args.warmup)]
    common += ["--repeats", str(args.repeats)]
    rows = []
    for vocab in args.vocab:
        for kind in ("sparse", "dense"):
            result = run_case(
                __file__,
                ["--case", "adadelta", "--kind", kind, "--vocab", str(vocab), "--rows", str(args.rows)]
                + ["--steps", str(args.steps), *common],
            )
            name = "parasent SparseAdadelta" if kind == "sparse" else "torch Adadelta, dense gradient"
            rows.append(
                (
                    f"AdaDelta step, {name}, {vocab:,} words x {args.dim}, {args.rows:,} rows touched",
                    f"{result['steps_per_s']:,.1f} steps/s",
                    f"{result['peak_rss_mb']:,.0f} MB",
                )
            )
    result = run_case(__file__, ["--case", "siamese", "--steps", str(args.steps * 4), *common])
    rows.append(
        (
            f"Siamese CBOW training, {result['vocab']:,} words x {args.dim}, batch 100, n = 2, SGD",
            f"{result['examples_per_s']:,.0f} examples/s",
            f"{result['peak_rss_mb']:,.0f} MB",
        )
    )
    print_table(rows)


if __name__ == "__main__":
    main()
