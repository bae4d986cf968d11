"""``parasent prepare``: tokenize pair files once into memory-mapped shards for ``train --prepared``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parasent.commands.common import (
    add_data_dir,
    add_overwrite,
    add_quiet,
    refuse_existing_dir,
    refuse_stdout,
)

DEFAULT_VECTORS = "wordvecs/glove50_4k.txt.gz"  # the margin objective's default (TrainConfig.vectors)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "prepare",
        help="tokenize pair files (any size, streaming) into memory-mapped shards for train --prepared",
        description="Filter (no leakage with the evaluation sets, no duplicates), tokenize and shard "
        "paraphrase pairs once; `parasent train --prepared DIR` then trains from the shards with memory "
        "bounded by the shard size.",
    )
    parser.add_argument(
        "pairs", nargs="+", metavar="FILE[:FORMAT]",
        help="pair files; FORMAT is tsv (s1<TAB>s2), labelled, ppdb or sts; not named: read from the file",
    )  # fmt: skip
    parser.add_argument("-o", "--out", required=True, help="the prepared directory to write")
    add_overwrite(parser, "--out when it holds an earlier prepared set, or other files")
    add_data_dir(parser, "the training pool and word vectors to prepare")
    parser.add_argument(
        "--vectors",
        default=DEFAULT_VECTORS,
        help="initial word vectors whose words come first in the vocabulary, as in train "
        f"('none': training words only; default: {DEFAULT_VECTORS})",
    )
    parser.add_argument(
        "--min-count", type=int, default=1, help="training words below this count map to [UNK]"
    )
    parser.add_argument(
        "--unknown", choices=["vector", "skip"], default="vector", help="out-of-vocabulary words"
    )
    parser.add_argument("--min-score", type=float, help="scored (sts) pairs count from this gold score up")
    parser.add_argument(
        "--shard-pairs", type=int, default=1_000_000, help="pairs per shard (default: 1000000)"
    )
    parser.add_argument(
        "--leakage-guard", choices=["on", "suites", "off"], default="on",
        help="which test sets' sentences the pairs are filtered of, as train's option of that name (on: the "
        "transfer suite, STS 2016 and the domain test splits; suites: the first two; off: none); train "
        "--prepared takes the prepared set with the same guard only",
    )  # fmt: skip
    parser.add_argument("--lenient", action="store_true", help="skip (and count) malformed lines")
    add_quiet(parser)


def parse_pair_files(values: list[str]) -> list[tuple[str, str]]:
    """``FILE[:FORMAT]`` values as ``(path, format)``; a suffix that is no format is part of the
    path, and a format not named is read from the file."""
    from parasent.data.training_text.pools import resolve_pair_spec

    return [resolve_pair_spec(value) for value in values]


def run(args: argparse.Namespace) -> int:

    refuse_stdout(args.out, "--out", "a prepared data set")
    refuse_existing_dir(
        args.out, "--out", overwrite=args.overwrite, foreign=_foreign, inputs=[*args.pairs, args.vectors]
    )

    from tqdm.auto import tqdm

    from parasent.data.registry.catalog import DOMAIN_TESTS
    from parasent.data.training_text.pools import evaluation_sentences, held_domain_tests
    from parasent.data.training_text.prepare import prepare_pairs
    from parasent.errors import DataNotFoundError
    from parasent.support.paths import resolve_data_dir
    from parasent.text.word_vectors import read_word_vectors

    root = resolve_data_dir(args.data_dir)
    words: list[str] = []
    if args.vectors.lower() != "none":
        path = Path(args.vectors).expanduser()
        path = path if path.is_file() else root / args.vectors
        if not path.is_file():
            raise DataNotFoundError(
                f"--vectors {args.vectors}: not a file, nor under the data directory {root}"
            )
        words = read_word_vectors(path).words
    guard = args.leakage_guard
    domains = DOMAIN_TESTS if guard == "on" else ()
    held = held_domain_tests(root, domains)
    _say_guard(guard, root, held)
    bar = tqdm(desc="prepare (2 passes)", unit="pair", disable=args.quiet or None)
    result = prepare_pairs(
        parse_pair_files(args.pairs),
        args.out,
        forbidden=set() if guard == "off" else evaluation_sentences(root, domains=domains),
        guard=guard,
        domain_tests=held,
        vocabulary_words=words,
        min_count=args.min_count,
        unknown=args.unknown,
        min_score=args.min_score,
        shard_pairs=args.shard_pairs,
        lenient=args.lenient,
        progress=bar.update,
        overwrite=args.overwrite,
    )
    bar.close()
    manifest, report = result.manifest, result.manifest["filter"]
    print(
        f"prepared {manifest['pairs']} pair(s), {manifest['tokens']} token(s) in {len(manifest['shards'])} "
        f"shard(s) to {result.directory}; vocabulary {manifest['tokenizer_config']['vocab_size']}; dropped "
        f"{sum(report['leaked'].values())} leaked, {report['duplicates']} duplicate(s), {report['empty']} empty",
        file=sys.stderr,
    )
    for line in report["skipped"]:
        print(line, file=sys.stderr)
    return 0


def _say_guard(guard: str, root: Path, held: list[str]) -> None:
    """What the guard leaves in, said as train says it (a model trained on the set inherits it)."""
    from parasent.data.training_text.pools import unguarded_note

    if guard != "on":
        kept = (
            "a domain test split"
            if guard == "suites"
            else "the transfer suite, STS 2016 or a domain test split"
        )
        print(
            f"leakage guard {guard}: pairs sharing a sentence with {kept} are kept; a model trained on them is not "
            "comparable there",
            file=sys.stderr,
        )
    elif note := unguarded_note(root, held):
        print(note, file=sys.stderr)


def _foreign(directory) -> None:
    """A directory holding what a prepared set does not: refused, and named, by the library's check."""
    from parasent.data.training_text.shards import owned_by_shards
    from parasent.support.staging import check_replaceable

    check_replaceable(directory, model=False, overwrite=False, owns=owned_by_shards)
