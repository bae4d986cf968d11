"""``parasent evaluate``: a model, or averaged vectors, on a similarity suite (STS, PPDB phrases)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from parasent.commands.common import (
    MODEL_HELP,
    add_data_dir,
    add_json_output,
    add_lenient,
    add_plot,
    add_quiet,
    check_output_file,
    check_plot,
    default_model,
    plot_pairs,
    report_stream,
    side_by_side,
    write_json,
)

TEACHER = "teacher"  # --model teacher: the installed teacher, side by side with parasent's models


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "evaluate",
        help="evaluate a model (or averaged vectors) on an STS or PPDB phrase suite, or on your own pairs",
        description="Pearson/Spearman x100 of cosine similarity against gold scores, per dataset and aggregated; "
        "with --pairs, the figures of your own file (docs/adapt.md).",
    )
    add_data_dir(
        parser,
        "the STS / PPDB sets of --suite; with --pairs, the domain test splits a file is checked against",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--model",
        action="append",
        help=MODEL_HELP + "; repeat it with --pairs to put models side by side with their speed "
        "(teacher: the installed teacher, all-MiniLM-L6-v2)",
    )
    source.add_argument(
        "--vectors",
        help="score plain averaging of these word vectors (baseline; a path, or one under the data directory)",
    )
    parser.add_argument(
        "--suite",
        default="transfer",
        help="transfer, validation, sts2012..sts2016, sick, twitter, ppdb (Pavlick et al. 2015 phrase pairs: "
        "ppdb-sample and wiki-sample; Spearman headline), ppdb-dev, ppdb-test, mteb-sts (SICK-R and STS12-16 as "
        "MTEB scores them: the headline is the mean of each task's Spearman over all its pairs), or one dataset name",
    )
    parser.add_argument(
        "--pairs",
        metavar="FILE[:FORMAT]",
        help="score your own pairs instead of a suite: sts (score<TAB>s1<TAB>s2: Pearson, Spearman), labelled "
        "(label<TAB>s1<TAB>s2, 1 = paraphrase: average precision, ROC AUC, the best-F1 threshold) or tsv "
        "(s1<TAB>s2: each s1 finds its s2 among all, top-1 accuracy and MRR); FORMAT read from the file if not given",
    )
    add_json_output(parser, "the results", outputs="--json or --plot")
    add_plot(
        parser,
        "what the --pairs figures come from: labelled pairs' precision-recall curve with the best-F1 "
        "threshold, scored pairs' gold score against cosine, retrieval's ranks of the right answers",
    )
    add_lenient(parser, "--vectors and --pairs")
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    check_output_file(args.json, "--json", overwrite=args.overwrite, inputs=[args.pairs, args.vectors])
    if args.plot and not args.pairs:
        from parasent.errors import OptionError

        raise OptionError("--plot draws the figures of your --pairs; a suite has none to draw")
    check_plot(args, inputs=[args.pairs, args.vectors])
    from parasent.evaluation.evaluator import evaluate
    from parasent.support.paths import resolve_data_dir

    # your --pairs need no data directory (one found is read for the domain tests' warning:
    # evaluation/domain_tests.py); a suite does, and --vectors named under it
    needs_data = not args.pairs or (args.vectors and not Path(args.vectors).expanduser().is_file())
    data_dir = resolve_data_dir(args.data_dir) if needs_data else args.data_dir
    if args.vectors:
        from parasent.core.model import SentenceModel
        from parasent.support.lines import ReadReport
        from parasent.text.word_vectors import read_word_vectors, resolve_vectors_path

        read_report = ReadReport()
        path = resolve_vectors_path(args.vectors, data_dir)  # as given, else under the data directory
        model = SentenceModel.from_vectors(read_word_vectors(path, lenient=args.lenient, report=read_report))
        for line in read_report.notes + ([read_report.summary()] if read_report.skipped else []):
            print(line, file=sys.stderr)
        name = f"average of {args.vectors}"
    elif args.model and len(args.model) > 1:
        from parasent.errors import OptionError

        if not args.pairs:
            raise OptionError(
                "several --model are compared on your --pairs; on a suite: parasent compare-models"
            )
        return side_by_side(args, [(spec, _load(spec)) for spec in args.model])
    else:
        path = args.model[0] if args.model else default_model()
        model = _load(path)
        name = str(path)
    if args.pairs:
        from parasent.evaluation.file_pairs import evaluate_pairs

        report = evaluate_pairs(model, args.pairs, name=name, lenient=args.lenient, data_dir=args.data_dir)
    else:
        report = evaluate(model, args.suite, data_dir, name=name, progress=not args.quiet)
    print(report.format_table(), file=report_stream(args.json))
    plot_pairs(args, [report])
    if args.json:
        write_json(args.json, report.to_dict(), overwrite=args.overwrite)
    return 0


def _load(spec: str) -> Any:
    """A model directory or shipped name, or ``teacher``: the installed teacher (parasent[distill])."""
    if spec == TEACHER:
        from parasent.distillation.teacher import Teacher

        return Teacher("auto", device="cpu")
    from parasent.core.model import load

    return load(spec)
