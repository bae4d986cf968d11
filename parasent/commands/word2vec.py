"""``parasent word2vec``: the word2vec baselines of Siamese CBOW, as averaging models."""

from __future__ import annotations

import argparse

from parasent.commands.common import add_data_dir, add_overwrite, add_quiet


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "word2vec",
        help="train word2vec (gensim) on running text and save the averaging model (baseline)",
        description="word2vec skip-gram or CBOW on a corpus, with the word2vec tool's defaults "
        "(Kenter et al. 2016, Sec. 3.2); the model averages the vectors, skipping unknown words. "
        "Needs gensim: pip install parasent[word2vec].",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser, "the running text word2vec trains on and the evaluation sets")
    parser.add_argument("--out", required=True, help="model directory to write")
    add_overwrite(parser, "what is at --out (an earlier model, or a directory of other files)")
    parser.add_argument(
        "--corpus",
        default="standard",
        help="a named corpus (standard, gutenberg, movie_reviews, state_union) or PATH[:sentences|wrapped|paragraphs]",
    )
    parser.add_argument("--arch", choices=["cbow", "skipgram"], default="cbow")
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--min-count", type=int, default=5)
    parser.add_argument("--sample", type=float, default=1e-5)
    parser.add_argument("--negative", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--alpha", type=float, help="initial rate (default: 0.05 cbow, 0.025 skipgram)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="threads (more is faster, not reproducible)")
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    from parasent.baselines.word2vec import Word2VecConfig, train_word2vec
    from parasent.commands.common import check_output_dir, refuse_existing_dir
    from parasent.core.model import SentenceModel
    from parasent.data.training_text.corpus import iter_sentences, read_corpus
    from parasent.data.training_text.pools import evaluation_sentences
    from parasent.support.paths import resolve_data_dir
    from parasent.support.validation import check_number

    check_output_dir(args.out, "--out")
    refuse_existing_dir(args.out, "--out", overwrite=args.overwrite, inputs=[args.corpus])
    for name in ("dim", "window", "negative", "epochs", "workers"):
        check_number(f"--{name}", getattr(args, name), "positive")
    check_number("--min-count", args.min_count, "non-negative")
    check_number("--sample", args.sample, "non-negative")
    check_number("--alpha", args.alpha, "positive", optional=True)
    check_number("--seed", args.seed, "non-negative")
    root = resolve_data_dir(args.data_dir)
    documents, report = read_corpus(root, args.corpus, forbidden=evaluation_sentences(root))
    print(report.summary())
    config = Word2VecConfig(
        arch=args.arch,
        dim=args.dim,
        window=args.window,
        min_count=args.min_count,
        sample=args.sample,
        negative=args.negative,
        epochs=args.epochs,
        alpha=args.alpha,
        seed=args.seed,
        workers=args.workers,
    )
    vectors = train_word2vec(iter_sentences(documents), config, progress=not args.quiet)
    metadata = {"baseline": "word2vec", "word2vec": config.to_dict(), "corpus": report.to_dict()}
    SentenceModel.from_vectors(vectors, metadata=metadata).save(args.out, overwrite=args.overwrite)
    print(f"done: {len(vectors)} words x {vectors.dim}; model in {args.out}")
    return 0
