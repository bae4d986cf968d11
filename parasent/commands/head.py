"""``parasent head``: supervised heads on sentence encoders (train, evaluate, predict)."""

from __future__ import annotations

import argparse

from parasent.commands.common import add_data_dir, text_argument


def head_default(option: str):
    """The default of a head option, from :class:`HeadConfig` (the one source of truth)."""
    from dataclasses import MISSING, fields

    from parasent.supervised.config import HeadConfig

    for f in fields(HeadConfig):
        if f.name == option:
            return None if f.default is MISSING else f.default
    raise KeyError(option)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "head",
        help="supervised heads: SICK relatedness/entailment, SST sentiment (Wieting et al. Sec. 4.4)",
        description="Train and use the classifiers of Tai et al. (2015) on sentence encoders, "
        "from scratch, from a universal paraphrastic model, or on frozen features.",
    )
    actions = parser.add_subparsers(dest="head_command", required=True, metavar="ACTION")

    train = actions.add_parser(
        "train",
        help="train a head; prints dev and test figures",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(train, "the supervised task's train and dev splits")
    train.add_argument(
        "--task", default=head_default("task"), help="sick-relatedness, sick-entailment, sst-binary"
    )
    train.add_argument(
        "--setting",
        choices=["scratch", "universal", "features"],
        default=head_default("setting"),
        help="scratch: new encoder from --vectors; universal: start from --init and regularise back "
        "to it; features: --init frozen, only the head learns",
    )
    train.add_argument("--init", help="trained model/run directory, or vectors:PATH (universal, features)")
    train.add_argument("--out", required=True, help="run directory: model/ (encoder + head), checkpoint, log")
    train.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
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
    train.add_argument("--quiet", action="store_true", help="no progress bars")

    evaluate = actions.add_parser("evaluate", help="score a trained head on a split of its task")
    add_data_dir(evaluate, "the split of the task to score")
    evaluate.add_argument("model", help="head run or model directory")
    evaluate.add_argument("--split", default="test", choices=["train", "dev", "test"])

    predict = actions.add_parser("predict", help="predict for one sentence (SST) or one pair (SICK)")
    predict.add_argument("model", help="head run or model directory")
    predict.add_argument("sentences", nargs="+", help="one sentence, or two for a pair task")


def run(args: argparse.Namespace) -> int:
    if args.head_command == "train":
        return _train(args)
    if args.head_command == "evaluate":
        from parasent.supervised.evaluate import TaskEvaluator
        from parasent.supervised.model import SupervisedModel
        from parasent.support.paths import resolve_data_dir

        model = SupervisedModel.load(args.model)
        report = TaskEvaluator(model.task, args.split, resolve_data_dir(args.data_dir))
        print(report(model.sentence_model, model.head, name=args.model).format_table())
        return 0
    from parasent.supervised.model import SupervisedModel

    sentences = [text_argument(text, "SENTENCES") for text in args.sentences]
    model = SupervisedModel.load(args.model)
    expected = 2 if model.task.kind == "pair" else 1
    if len(sentences) != expected:
        raise ValueError(f"{model.task.name} takes {expected} sentence(s), got {len(sentences)}")
    second = [sentences[1]] if expected == 2 else None
    prediction = model.predict([sentences[0]], second)[0]
    probabilities = model.probabilities([sentences[0]], second)[0]
    shown = f"{prediction:.4f}" if model.task.loss == "kl" else str(prediction)
    spread = " ".join(f"{label}:{p:.3f}" for label, p in zip(model.task.labels, probabilities, strict=True))
    print(f"{shown}\t{spread}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from parasent.commands.common import check_output_dir
    from parasent.supervised.config import HeadConfig
    from parasent.support.validation import check_device

    check_output_dir(args.out, "--out")
    check_device(args.device)
    from parasent.supervised.evaluate import format_reports
    from parasent.supervised.run import train_head

    config = HeadConfig(
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
    print(format_reports([result.dev, result.test], model=args.out))
    return 0
