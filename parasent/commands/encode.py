"""``parasent encode``: sentences (one per line) to .npy or JSONL."""

from __future__ import annotations

import argparse
import json
import sys

from parasent.commands.common import MODEL_HELP, default_model


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("encode", help="encode sentences (one per line) to .npy or JSONL")
    parser.add_argument(
        "input", nargs="?", default="-", help="text file, one sentence per line ('-' = stdin)"
    )
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument(
        "-o", "--output", default="-", help="output path (.npy or .jsonl); '-' = JSONL on stdout"
    )
    parser.add_argument(
        "--format", choices=["npy", "jsonl"], help="output format (default: from the extension)"
    )
    parser.add_argument("--normalize", action="store_true", help="unit-length vectors")
    parser.add_argument("--batch-size", type=int, default=4096)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from parasent.model import load

    model = load(args.model or default_model())
    if args.input == "-":
        sentences = [line.rstrip("\r\n") for line in sys.stdin]
    else:
        with open(args.input, encoding="utf-8") as handle:
            sentences = [line.rstrip("\r\n") for line in handle]
    fmt = args.format or ("npy" if args.output.endswith(".npy") else "jsonl")
    from tqdm.auto import tqdm

    chunks = model.iter_encode(sentences, batch_size=args.batch_size, normalize=args.normalize)
    # A bar on stderr when it is a terminal (tqdm disables itself otherwise).
    chunks = tqdm(
        chunks, total=-(-len(sentences) // args.batch_size), desc="encode", unit="batch", disable=None
    )
    if fmt == "npy":
        if args.output == "-":
            raise SystemExit("parasent: error: .npy output needs a file path (--output FILE.npy)")
        out = np.lib.format.open_memmap(
            args.output, mode="w+", dtype=np.float32, shape=(len(sentences), model.dim)
        )
        row = 0
        for chunk in chunks:
            out[row : row + len(chunk)] = chunk
            row += len(chunk)
        out.flush()
        del out
    else:
        handle = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
        try:
            row = 0
            for chunk in chunks:
                for vector in chunk:
                    handle.write(
                        json.dumps(
                            {"text": sentences[row], "embedding": [round(float(x), 6) for x in vector]}
                        )
                        + "\n"
                    )
                    row += 1
        finally:
            if handle is not sys.stdout:
                handle.close()
    if args.output != "-":
        print(f"encoded {len(sentences)} sentence(s) to {args.output}", file=sys.stderr)
    return 0
