"""``parasent similarity``: cosine similarity of two sentences."""

from __future__ import annotations

import argparse
import sys

from parasent.commands.common import MODEL_HELP, default_model, text_argument


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("similarity", help="cosine similarity of two sentences")
    parser.add_argument("sentence1")
    parser.add_argument("sentence2")
    parser.add_argument("--model", help=MODEL_HELP)


def run(args: argparse.Namespace) -> int:
    from parasent.core.model import load

    first, second = text_argument(args.sentence1, "sentence1"), text_argument(args.sentence2, "sentence2")
    model = load(args.model or default_model())
    vectors = model.encode([first, second])
    print(f"{float(model.similarity_pairwise(vectors[:1], vectors[1:])[0]):.4f}")
    for name, text, vector in zip(("sentence1", "sentence2"), (first, second), vectors, strict=True):
        if not vector.any():  # the cosine of a zero vector is 0 whatever the other text
            print(
                f"note: {name} {text[:60]!r} has no unit the model knows: its vector is zero", file=sys.stderr
            )
    return 0
