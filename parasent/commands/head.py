"""``parasent head``: supervised heads on sentence encoders (train, evaluate, predict)."""

from __future__ import annotations

import argparse
import sys

from parasent.commands.common import (
    RUN_OVERWRITE,
    add_data_dir,
    add_json_output,
    add_lenient,
    add_overwrite,
    add_plot,
    add_quiet,
    add_threads,
    check_output_file,
    check_plot,
    report_stream,
    text_argument,
    write_json,
)


def head_default(option: str):
    """The default of a head option, from :class:`HeadConfig` (the one source of truth)."""
    from dataclasses import MISSING, fields

    from parasent.supervised.head_config import HeadConfig

    for f in fields(HeadConfig):
        if f.name == option:
            return None if f.default is MISSING else f.default
    raise KeyError(option)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "head",
        help="supervised heads: a classifier of your own labels, SICK relatedness/entailment, SST sentiment",
        description="Train and use the classifiers of Tai et al. (2015) on sentence encoders, "
        "from scratch, from a universal paraphrastic model, or on frozen features; --data FILE trains one "
        "on your own text<TAB>label lines (docs/adapt.md).",
    )
    actions = parser.add_subparsers(dest="head_command", required=True, metavar="ACTION")

    train = actions.add_parser(
        "train",
        help="train a head; prints dev and test figures",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    _add_train_options(train)

    evaluate = actions.add_parser(
        "evaluate",
        help="score a trained head on a split of its task, or a classifier on your labelled file (--data)",
    )
    add_data_dir(evaluate, "the split of the task to score")
    evaluate.add_argument("model", help="head run or model directory")
    evaluate.add_argument(
        "--split", choices=["train", "dev", "test"], help="the task's split (default: test)"
    )
    evaluate.add_argument(
        "--data",
        metavar="FILE",
        help="score a classifier on your own text<TAB>label lines instead: accuracy, macro F1 and the "
        "confusion matrix (its labels must be the classifier's)",
    )
    add_lenient(evaluate, "--data")
    add_json_output(evaluate, "the figures (with --data)")

    predict = actions.add_parser(
        "predict",
        help="predict: each line of FILE (--model DIR FILE), or one sentence or pair (DIR SENTENCE...)",
    )
    predict.add_argument("--model", help="head run or model directory; then FILE holds one input a line")
    predict.add_argument(
        "inputs",
        nargs="*",
        help="FILE ('-' or none: stdin) with --model; else DIR and one sentence (two for a pair)",
    )
    predict.add_argument("--proba", action="store_true", help="also print each class's probability")


def _add_train_options(train: argparse.ArgumentParser) -> None:
    """The options of ``head train``."""
    add_data_dir(train, "the supervised task's train and dev splits")
    add_threads(train)
    train.add_argument(
        "--task",
        help="sick-relatedness (default), sick-entailment, sst-binary; not with --data (its own classes)",
    )
    train.add_argument(
        "--data",
        metavar="FILE",
        help="your own classes instead of --task: text<TAB>label lines, any labels (default setting: "
        "features of the shipped model)",
    )
    train.add_argument(
        "--validation",
        metavar="FILE",
        help="with --data: text<TAB>label lines to select the epoch on (default: --held-out of --data)",
    )
    train.add_argument(
        "--held-out", type=float, default=head_default("held_out"), help="with --data: the share held out"
    )
    train.add_argument(
        "--setting",
        choices=["scratch", "universal", "features"],
        help="scratch: new encoder from --vectors; universal: start from --init and regularise back "
        "to it; features: --init frozen, only the head learns (default: features with --data, else scratch)",
    )
    train.add_argument(
        "--init",
        help="trained model/run directory, or vectors:PATH (universal, features; default with --data: the shipped model)",
    )
    train.add_argument("--out", required=True, help="run directory: model/ (encoder + head), checkpoint, log")
    train.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    add_overwrite(train, RUN_OVERWRITE)
    add_plot(train, "the dev figure (accuracy; Pearson for relatedness) per epoch, the chosen epoch marked")
    train.add_argument("--encoder", default=head_default("encoder"), help="encoder name (scratch)")
    train.add_argument(
        "--vectors", default=head_default("vectors"), help="initial word vectors (scratch); 'none'"
    )
    train.add_argument("--dim", type=int, help="embedding dimension (scratch with --vectors none)")
    train.add_argument(
        "--min-count", type=int, default=head_default("min_count"), help="task words kept (scratch)"
    )
    train.add_argument("--hidden", type=int, default=head_default("hidden_dim"), help="hidden layer size")
    train.add_argument("--epochs", type=int, help="default: 10, or 20 for features (the papers')")
    train.add_argument("--batch-size", type=int, default=head_default("batch_size"))
    train.add_argument("--optimizer", choices=["adagrad", "adam", "sgd"], default=head_default("optimizer"))
    train.add_argument("--lr", type=float, help="learning rate (default: 0.05 AdaGrad, 0.001 Adam)")
    train.add_argument(
        "--lambda-w",
        type=float,
        default=head_default("lambda_w"),
        help="pull of word vectors to their initial values",
    )
    train.add_argument(
        "--lambda-c",
        type=float,
        default=head_default("lambda_c"),
        help="L2 on composition parameters (to the universal ones in that setting)",
    )
    train.add_argument(
        "--lambda-s", type=float, default=head_default("lambda_s"), help="L2 on the classifier"
    )
    train.add_argument("--clip", type=float, help="clip the gradient norm to this value")
    train.add_argument("--max-examples", type=int, help="train on a seeded subsample (reduced runs)")
    train.add_argument("--seed", type=int, default=head_default("seed"))
    train.add_argument("--checkpoint-every", type=int, default=head_default("checkpoint_every"))
    train.add_argument("--device", default=head_default("device"), help="cpu, cuda, or auto")
    add_quiet(train)


def run(args: argparse.Namespace) -> int:
    if args.head_command == "train":
        return _train(args)
    if args.head_command == "evaluate":
        return _evaluate(args)
    return _predict(args)


def _evaluate(args: argparse.Namespace) -> int:
    """A head on a split of its task, or (``--data``) a classifier on the user's labelled file."""
    from parasent.errors import OptionError
    from parasent.supervised.model import SupervisedModel

    if args.data is None:
        if args.json or args.lenient:
            raise OptionError(f"{'--json' if args.json else '--lenient'} goes with --data FILE")
        from parasent.supervised.evaluate import TaskEvaluator
        from parasent.support.paths import resolve_data_dir

        model = SupervisedModel.load(args.model)
        if not model.task.splits:  # a classifier of the user's own labels: no split of ours to score
            raise OptionError(
                f"{args.model}: a classifier of your own labels ({model.task.name}): score it on a labelled "
                "file with --data FILE"
            )
        report = TaskEvaluator(model.task, args.split or "test", resolve_data_dir(args.data_dir))
        print(report(model.sentence_model, model.head, name=args.model).format_table())
        return 0
    if args.split:
        raise OptionError("--split scores a split of the head's task; --data scores your file: give one")
    check_output_file(args.json, "--json", overwrite=args.overwrite, inputs=[args.data])
    from parasent.supervised.file_scores import score_file

    scores = score_file(SupervisedModel.load(args.model), args.data, name=args.model, lenient=args.lenient)
    print(scores.format_table(), file=report_stream(args.json))
    if args.json:
        write_json(args.json, scores.to_dict(), overwrite=args.overwrite)
    return 0


def _predict(args: argparse.Namespace) -> int:
    """One line per input: the prediction, and with ``--proba`` (or for one sentence given on the
    command line) each class's probability."""
    from parasent.supervised.model import SupervisedModel, read_inputs

    if args.model is None:
        if len(args.inputs) < 2:
            raise ValueError("head predict: give --model DIR [FILE], or DIR and a sentence")
        sentences = [text_argument(text, "SENTENCE") for text in args.inputs[1:]]
        model, rows, spread = SupervisedModel.load(args.inputs[0]), [sentences], True
    else:
        if len(args.inputs) > 1:
            raise ValueError("head predict --model DIR takes one FILE (or stdin)")
        model = SupervisedModel.load(args.model)
        rows, spread = read_inputs(args.inputs[0] if args.inputs else "-", model.task), args.proba
    from parasent.core.vector_files import ZeroRowTally

    # a file's lines that could not be read are counted and named by line (sentences given as
    # arguments are the user's own words, in view)
    tallies = [ZeroRowTally() for _ in range(2 if model.task.kind == "pair" else 1)] if args.model else []
    for line in model.prediction_lines(rows, probabilities=spread, watches=tallies):
        print(line)
    for side, tally in zip(("first sentences: ", "second sentences: "), tallies, strict=False):
        for note in tally.notes():  # a prediction from no text is the head's bias alone: said, not hidden
            print(
                f"note: {side if len(tallies) == 2 else ''}{note}; their predictions say nothing of them",
                file=sys.stderr,
            )
    return 0


def _train(args: argparse.Namespace) -> int:
    from parasent.commands.common import check_run_dir, use_threads
    from parasent.supervised.head_config import HeadConfig
    from parasent.support.validation import check_device

    check_run_dir(args.out, "--out", resume=args.resume, overwrite=args.overwrite, start=args.init)
    check_plot(args, inputs=[args.data, args.validation])
    check_device(args.device)
    use_threads(args)
    from parasent.supervised.evaluate import format_reports
    from parasent.supervised.run import train_head

    config = HeadConfig(
        data=args.data,
        validation_data=args.validation,
        held_out=args.held_out,
        task=args.task,
        setting=args.setting,
        init=args.init,
        encoder=args.encoder,
        vectors=None if args.vectors is None or args.vectors.lower() == "none" else args.vectors,
        dim=args.dim,
        min_count=args.min_count,
        hidden_dim=args.hidden,
        epochs=args.epochs,
        batch_size=args.batch_size,
        optimizer=args.optimizer,
        lr=args.lr,
        lambda_w=args.lambda_w,
        lambda_c=args.lambda_c,
        lambda_s=args.lambda_s,
        clip=args.clip,
        max_examples=args.max_examples,
        seed=args.seed,
        checkpoint_every=args.checkpoint_every,
        device=args.device,
    )
    result = train_head(config, args.out, data_dir=args.data_dir, resume=args.resume, progress=not args.quiet)
    print(f"best dev epoch {result.state.best_epoch}; model (encoder + head) in {result.model_path}")
    print(format_reports([r for r in (result.dev, result.test) if r is not None], model=args.out))
    if args.plot:
        from parasent.analysis.plots import epoch_curves

        label = (
            f"dev of {result.dev.task}"
            if args.validation or not args.data
            else f"held-out {args.held_out:.0%}"
        )
        epoch_curves(
            result.state.history,
            args.plot,
            best_epoch=result.state.best_epoch,
            label=label,
            overwrite=args.overwrite,
        )
        print(f"plot: {args.plot}")
    return 0
