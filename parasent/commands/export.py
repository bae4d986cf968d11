"""``parasent export``: a model in another library's format."""

from __future__ import annotations

import argparse
from pathlib import Path

from parasent.commands.common import MODEL_HELP, default_model


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export",
        help="write a model for another library (sentence-transformers, model2vec)",
        description="Write an averaging model as a sentence-transformers static-embedding directory "
        "(SentenceTransformer(DIR) loads it and encodes the same vectors) or a model2vec directory.",
    )
    parser.add_argument("directory", help="directory to write")
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument(
        "--format", default="sentence-transformers", choices=["sentence-transformers", "model2vec"]
    )
    parser.add_argument(
        "--dtype",
        default="float32",
        choices=["float32", "float16", "int8"],
        help="weights (int8: model2vec only)",
    )
    parser.add_argument("--truncate-dim", type=int, help="keep the first N dimensions")
    parser.add_argument(
        "--words-only",
        action="store_true",
        help="a model with word bigrams: export its word rows alone (the formats average one "
        "tokenizer's tokens; the result encodes differently from the model)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace DIR even when it is a non-empty directory that is not a model directory",
    )


def run(args: argparse.Namespace) -> int:
    from parasent.model import load

    model = load(args.model or default_model())
    from parasent.staging import DirectoryInUseError

    if args.words_only:
        from parasent.compaction import words_only

        model = words_only(model)

    try:
        path = model.export(
            args.directory,
            format=args.format,
            dtype=args.dtype,
            truncate_dim=args.truncate_dim,
            overwrite=args.overwrite,
        )
    except DirectoryInUseError as exc:
        if not Path(args.directory).is_dir():
            raise
        hint = " or pass --overwrite to replace everything in it"
        raise DirectoryInUseError(f"{str(exc).removesuffix(')')}{hint})") from None
    dim = args.truncate_dim or model.dim
    print(
        f"wrote a {args.format} model ({model.tokenizer.vocab_size} tokens x {dim}, {args.dtype}) to {path}"
    )
    return 0
