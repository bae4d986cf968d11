"""``parasent teacher-pass``: the teacher pass of a distilled run, on one process or on N.

It takes ``parasent train``'s options, runs only the teacher pass of that run into the teacher
cache (sentence targets, contextual sums; the word states of a run with ``--teacher-tokens``) and stops; ``parasent train`` with the same options
then finds it cached. ``--ranks N`` starts N processes through torchrun on this machine, each
passing its share of the sentences; under a torchrun of your own (several machines, one GPU
per process with ``--device cuda``) leave ``--ranks`` out.
"""

from __future__ import annotations

import argparse

from parasent.commands.common import add_data_dir, add_quiet, add_threads, use_threads
from parasent.commands.config_options import add_config_options, config_from_args

HELP = "the teacher pass of a distilled run on its own, on one process or N (--ranks N)"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "teacher-pass",
        help=HELP,
        description="Run the teacher pass of the training run these options describe (its sentence "
        "targets and contextual word and piece sums; with --teacher-tokens, each word's state) into the teacher cache, on one process or shared by "
        "--ranks N processes; `parasent train` with the same options then finds it cached.",
    )
    add_data_dir(parser, "the teacher text and evaluation sets")
    add_threads(parser)
    parser.add_argument(
        "--ranks",
        type=int,
        default=1,
        help="processes on this machine (started through torchrun; under your own torchrun leave it at 1)",
    )
    add_quiet(parser)
    add_config_options(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from parasent.support.validation import check_device, check_number
    from parasent.training.distributed import launched

    check_number("--ranks", args.ranks, "positive")
    use_threads(args)
    config = config_from_args(args, say=print)
    check_device(config.device)
    if args.ranks > 1 and not launched():
        return _launch(args.ranks, sys.argv[1:])
    from parasent.training.run import teacher_pass

    teacher_pass(config, args.data_dir, progress=not args.quiet)
    return 0


def _launch(ranks: int, argv: list[str]) -> int:
    """This command again in ``ranks`` processes under torchrun (``--standalone``: this machine)."""
    import subprocess
    import sys

    rest = _without_ranks(argv)
    launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks)]
    return subprocess.run([*launcher, "-m", "parasent", *rest], check=False).returncode


def _without_ranks(argv: list[str]) -> list[str]:
    """``argv`` without its ``--ranks N`` / ``--ranks=N``."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--ranks":
            skip = True
        elif not arg.startswith("--ranks="):
            out.append(arg)
    return out
