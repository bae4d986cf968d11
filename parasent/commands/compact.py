"""``parasent compact``: a smaller copy of an averaging model (pruned, reduced, int8/float16)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parasent.commands.common import (
    MODEL_HELP,
    add_data_dir,
    add_overwrite,
    default_model,
    refuse_existing_dir,
)
from parasent.support.validation import non_negative_int, positive_int

FREQUENCIES = "wordfreq/enwiki_vocab_min200.txt.gz"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "compact",
        help="a smaller copy of an averaging model: pruned vocabulary, fewer dimensions, int8/float16",
        description="Keep the most frequent words, optionally project on fewer dimensions, and store the "
        "weights as float16 or int8 with per-row scales (see docs/default-model.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser, "the frequency list, running text and STS sets compaction ranks and scores with")
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument("--out", required=True, help="model directory to write")
    add_overwrite(parser, "what is at --out (an earlier model, or a directory of other files)")
    parser.add_argument("--vocab", type=positive_int, help="words that keep their own vector (default: all)")
    parser.add_argument(
        "--pruned",
        default="nearest",
        choices=["nearest", "unk"],
        help="the other words: share their nearest kept word's vector (stored once), or become [UNK]",
    )
    parser.add_argument(
        "--bigrams",
        type=non_negative_int,
        help="word-bigram models: bigrams that keep their row, the most used in --corpus (default: all)",
    )
    parser.add_argument(
        "--trigrams",
        type=non_negative_int,
        help="models with word trigrams: trigrams that keep their row, the most used in --corpus (default: all)",
    )
    parser.add_argument("--dim", type=positive_int, help="dimensions to keep (default: all)")
    parser.add_argument("--dtype", default="int8", choices=["float32", "float16", "int8"])
    parser.add_argument(
        "--frequencies", default=FREQUENCIES, help="word-count list ranking the words (under --data-dir)"
    )
    parser.add_argument(
        "--corpus",
        default="standard",
        help="running text whose word counts also rank words (punctuation, numbers); 'none' for none",
    )
    parser.add_argument(
        "--record",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="provenance recorded in the model's metadata (build.KEY)",
    )


def _corpus_sentences(data_dir: Path, corpus: str) -> list[str] | None:
    if corpus == "none":
        return None
    from parasent.data.training_text.corpus import read_corpus

    documents, _ = read_corpus(data_dir, corpus)
    return [s for document in documents for s in document.sentences]


def run(args: argparse.Namespace) -> int:
    from parasent.core.compaction import compact
    from parasent.core.model import load
    from parasent.data.readers.wordfreq import read_word_frequencies
    from parasent.support.paths import resolve_data_dir

    refuse_existing_dir(
        args.out, "--out", overwrite=args.overwrite, inputs=[args.model, args.corpus, args.frequencies]
    )
    data_dir = resolve_data_dir(args.data_dir)
    frequencies = Path(args.frequencies)
    if not frequencies.is_file():
        frequencies = data_dir / args.frequencies
    from parasent.text.vocab import count_words

    model = load(args.model or default_model())
    sentences = _corpus_sentences(data_dir, args.corpus)
    small = compact(
        model,
        vocab=args.vocab,
        dim=args.dim,
        probabilities=read_word_frequencies(frequencies).probabilities(),
        text_counts=count_words(sentences) if sentences is not None else None,
        pruned=args.pruned,
        bigrams=args.bigrams,
        trigrams=args.trigrams,
        texts=sentences,
    )
    record = {}
    for item in args.record:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--record {item!r}: expected KEY=VALUE")
        record[key] = value
    small.metadata["compaction"] = {
        **small.metadata.get("compaction", {}),
        "source": str(args.model or default_model()),
        "vocab": args.vocab,
        "pruned": args.pruned,
        "dim": args.dim,
        "bigrams": args.bigrams,
        **({"trigrams": args.trigrams} if args.trigrams is not None else {}),
        "dtype": args.dtype,
        "frequencies": args.frequencies,
        "corpus": args.corpus,
    }
    if record:
        small.metadata["build"] = {**small.metadata.get("build", {}), **record}
    path = small.save(args.out, dtype=args.dtype, overwrite=args.overwrite)
    size = sum(p.stat().st_size for p in path.iterdir() if p.is_file())
    print(
        f"wrote {path}: {small.tokenizer.vocab_size} tokens x {small.dim} ({args.dtype}), "
        f"{size / 1e6:.1f} MB on disk",
        file=sys.stderr,
    )
    return 0
