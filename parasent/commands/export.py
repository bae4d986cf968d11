"""``parasent export``: a model in another library's format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from parasent.commands.common import (
    MODEL_HELP,
    add_data_dir,
    add_overwrite,
    default_model,
    refuse_existing_dir,
)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export",
        help="write a model for another library (sentence-transformers, model2vec)",
        description="Write a model as a sentence-transformers directory (SentenceTransformer(DIR) "
        "loads it and encodes the same vectors: a StaticEmbedding where one reproduces the model, else "
        "parasent's own module, word bigrams, int8 weights and a contextual model's composition included, "
        "which needs parasent installed) or "
        "a model2vec directory (words and pretrained tokenizers only; see --words-only).",
    )
    parser.add_argument("directory", help="directory to write")
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument(
        "--format", default="sentence-transformers", choices=["sentence-transformers", "model2vec"]
    )
    parser.add_argument(
        "--dtype",
        choices=["float32", "float16", "int8"],
        help="weights (default: as the model holds them where the format can, else float32; "
        "int8 for sentence-transformers writes parasent's module)",
    )
    parser.add_argument("--truncate-dim", type=int, help="keep the first N dimensions")
    parser.add_argument(
        "--words-only",
        action="store_true",
        help="a model with word bigrams: export its word rows alone, for model2vec (which averages one "
        "tokenizer's tokens); the bigrams are lost and the result encodes differently from the model",
    )
    parser.add_argument(
        "--evaluate",
        action="store_true",
        help="score the exported vectors on the transfer suite and put the scores in its card "
        "(without it the card carries no scores)",
    )
    add_data_dir(parser, "the STS data --evaluate scores the export on")
    add_overwrite(parser, "DIR even when it is a non-empty directory that is not a model directory")


def run(args: argparse.Namespace) -> int:
    from parasent.core.model import load
    from parasent.core.model_formats.export import stored_dtype

    refuse_existing_dir(
        args.directory, "DIRECTORY", overwrite=args.overwrite, foreign=_foreign, inputs=[args.model]
    )
    model = load(args.model or default_model())
    # the suite's data read before any write: a directory that lacks it leaves no export behind
    transfer_suite = _transfer_suite(args.data_dir) if args.evaluate else None
    dtype = args.dtype
    if args.words_only:
        from parasent.core.compaction import words_only
        from parasent.core.encoder_registry import is_static_model
        from parasent.core.model_formats.export import dropped_by_words_only
        from parasent.errors import ModelFormatError

        if not is_static_model(model):  # its refusal alone, not a note on what would be dropped first
            raise ModelFormatError(
                f"--words-only keeps an averaging model's word rows; {model.encoder_config['name']!r} is not "
                "static (--format sentence-transformers exports it whole, as parasent's module)"
            )

        if dtype is None and args.format == "model2vec":
            dtype = stored_dtype(model)  # as the source held it (the words-only table is float32)
        model = words_only(model)
        dropped = dropped_by_words_only(model)
        if dropped:
            print(
                f"--words-only: dropped the model's {' and '.join(dropped)}; the export averages words "
                "alone (words outside its vocabulary skipped), so its vectors differ from the model's and "
                "the model's scores do not apply to it (--evaluate measures them; --format "
                "sentence-transformers keeps every row)",
                file=sys.stderr,
            )
    from parasent.core.model_formats.export import lost_in_format

    path = _export(model, args, dtype, transfer=None)
    for note in lost_in_format(model, args.format):  # after the export: never a note before a refusal
        print(note, file=sys.stderr)
    if args.evaluate:
        transfer = _evaluate_export(path, transfer_suite)
        path = _export(model, args, dtype, transfer=transfer, overwrite=True)  # the same files, scored card
        mean = 100 * sum(transfer.values()) / len(transfer)
        print(
            f"exported vectors: transfer mean Pearson x100 {mean:.2f} over {len(transfer)} sets (in its card)"
        )
    print(f"wrote {_describe(path)} to {path}")
    return 0


def _export(model, args: argparse.Namespace, dtype: str | None, *, transfer, overwrite: bool = False) -> Path:
    from parasent.errors import DirectoryInUseError

    try:
        return model.export(
            args.directory,
            format=args.format,
            dtype=dtype,
            truncate_dim=args.truncate_dim,
            overwrite=args.overwrite or overwrite,
            transfer=transfer,
        )
    except DirectoryInUseError as exc:
        if not Path(args.directory).is_dir():
            raise
        raise _with_hint(exc) from None


def _with_hint(exc: Exception) -> Exception:
    """The library's refusal of a directory, with the option that replaces it anyway."""
    from parasent.errors import DirectoryInUseError

    return DirectoryInUseError(
        f"{str(exc).removesuffix(')')} or pass --overwrite to replace everything in it)"
    )


def _transfer_suite(data_dir: str | None):
    """The transfer suite's evaluator, its sets read now: a data directory that lacks them is
    refused before the export writes anything."""
    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.support.paths import resolve_data_dir

    return SimilarityEvaluator("transfer", resolve_data_dir(data_dir))


def _evaluate_export(path: Path, transfer_suite) -> dict[str, float]:
    """Pearson r per transfer set of the directory as written, read back (parasent reads every export)."""
    from parasent.core.model import load

    report = transfer_suite(load(path), name=str(path))
    # the report's figures are x100; a card's transfer table holds Pearson's r, as a model's metadata does
    return {name: float(score) / 100 for name, score in report.log_values().items()}


def _describe(path: Path) -> str:
    """What the directory holds, read back from it: format, units, width, weights."""
    from parasent.core.encoder_registry import is_static_model
    from parasent.core.model import load
    from parasent.core.model_card import units
    from parasent.core.model_formats.export import PARASENT_MODULE_DIR

    model = load(path)
    inner = path / PARASENT_MODULE_DIR
    held = units(model.tokenizer, composed=not is_static_model(model))
    if inner.is_dir():
        note = f"{_weights_dtype(inner)}; parasent's module: load it where parasent is installed"
        load_line = f'SentenceTransformer("{path}", trust_remote_code=True)'
        return (
            f"a sentence-transformers model ({held} x {model.dim}, {note}, with "
            f"{load_line}: sentence-transformers imports parasent's module class only with trust_remote_code)"
        )
    kind = "model2vec" if (path / "config.json").is_file() else "sentence-transformers"
    return f"a {kind} model ({held} x {model.dim}, {_weights_dtype(path)})"


def _weights_dtype(directory: Path) -> str:
    from parasent.core.stored_weights import read_weights

    tensors = read_weights(directory / "model.safetensors")
    if any(t.dtype == np.int8 for t in tensors.values()):
        return "int8"
    return "float16" if any(t.dtype == np.float16 for t in tensors.values()) else "float32"


def _foreign(directory: Path) -> None:
    """A directory holding what a model directory does not: refused, and named, by the library's check."""
    from parasent.errors import DirectoryInUseError
    from parasent.support.staging import check_replaceable

    try:
        check_replaceable(directory, model=True, overwrite=False)
    except DirectoryInUseError as exc:
        raise _with_hint(exc) from None
