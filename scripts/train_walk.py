"""Follow one pair from ``parasent train`` to the optimizer step and on to the end of the run,
and count its climbs two ways.

The walk is measured, not drawn: the command runs in this process under a profiler that notes
every call of a function of the package (module bodies, that is imports, are not calls) until
the first ``OptimizerSet.step`` returns. The files are listed in the order the walk first enters
them (a function called while a module is imported, a decorator or a registry record, is not
part of the walk). A *room* is a part of the layer table of docs/architecture.md: a top folder
(``data/``, ``training/``, ``support/``) or a root module (``cli``); the count with every folder
a room (``data/readers/`` apart from ``data/registry/``), and with ``support/`` (layer 0's leaf
helpers) as the floor under every room rather than a room, are printed beside it. A *climb back*
is a file in a room the walk had already entered and left for another one: a reader following
the listing goes back to that room. A *step up* is a file whose layer (the order of the layer
table, ``LAYERS`` of tests/test_layers.py, ``support/`` and ``errors`` as layer 0) is above the
layer of the file before it: the count a reviewer gets by reading the listing against the table.

Both counts are printed for the path to the first optimizer step and for the whole run
(validation, the model and the checkpoint saved), and every file of the walk is listed.

    python scripts/train_walk.py                      # the walk of docs/architecture.md
    python scripts/train_walk.py --init-model default  # a fine-tuning run
    python scripts/train_walk.py --strict              # support/'s climbs back marked too
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import parasent
from parasent.cli import main as cli_main

PACKAGE = Path(parasent.__file__).resolve().parent
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.test_layers import LAYERS  # noqa: E402 - the one place the order is defined


class Stop(Exception):
    """Raised when the first optimizer step has returned."""


class Walk:
    def __init__(self, to_end: bool) -> None:
        self.files: list[Path] = []
        self.entered_by: list[str] = []
        self.seen: set[Path] = set()
        self.to_end = to_end
        self.stepped = False
        self.to_step = 0  # how many of ``files`` the walk entered before the first step returned

    def profile(self, frame, event, arg) -> None:  # noqa: ANN001 - sys.setprofile's signature
        code = frame.f_code
        if event == "return" and code.co_name == "step" and code.co_filename.endswith("training/optim.py"):
            if not self.stepped:
                self.to_step = len(self.files)
            self.stepped = True
            if not self.to_end:
                raise Stop
        if event != "call" or code.co_name == "<module>":
            return
        path = Path(code.co_filename)
        if path in self.seen or PACKAGE not in path.parents or importing(frame):
            return
        self.seen.add(path)
        self.files.append(path)
        caller = frame.f_back
        where = Path(caller.f_code.co_filename) if caller is not None else None
        self.entered_by.append(
            f"{code.co_name} from {where.name}:{caller.f_code.co_name}" if where is not None else code.co_name
        )


def importing(frame) -> bool:  # noqa: ANN001 - a frame object
    """Whether ``frame`` runs while a module is imported (a decorator, a registry record):
    the import is not the walk."""
    frame = frame.f_back
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") != "__main__":
            return True
        frame = frame.f_back
    return False


def part(path: Path) -> str:
    """The part of docs/architecture.md's layer table a file belongs to: its top folder under
    the package (``data/``, ``training/``), or the module itself at the root (``cli``)."""
    inside = path.relative_to(PACKAGE).parts
    return inside[0] if len(inside) > 1 else path.stem


def folder(path: Path) -> str:
    return str(path.parent.relative_to(PACKAGE.parent))


FLOOR = {"support", "errors"}


def climbs(files: list[Path], room=part, floor: bool = True) -> list[int]:  # noqa: ANN001 - part or folder
    """Indices of the files that re-enter a room left before; with ``floor``, the leaf helpers
    of layer 0 (``support/``, ``errors``) are the floor under every room, not a room."""
    left: set[str] = set()
    found, current = [], None
    for i, path in enumerate(files):
        if floor and part(path) in FLOOR:
            continue
        here = room(path)
        if here != current:
            if here in left:
                found.append(i)
            if current is not None:
                left.add(current)
            current = here
    return found


def layer(path: Path) -> int:
    """The layer of a file: the index of its part in ``LAYERS`` (``support/`` and ``errors``: 0)."""
    return next(index for index, parts in enumerate(LAYERS) if part(path) in parts)


def steps_up(files: list[Path]) -> list[int]:
    """Indices of the files whose layer is above the layer of the file before them."""
    return [i for i in range(1, len(files)) if layer(files[i]) > layer(files[i - 1])]


def counts(files: list[Path]) -> dict[str, int]:
    """The climbs of a walk, each way of counting."""
    return {
        "rooms re-entered (parts, support/ as the floor)": len(climbs(files)),
        "rooms re-entered (parts, support/ a room)": len(climbs(files, floor=False)),
        "rooms re-entered (folders, support/ as the floor)": len(climbs(files, folder)),
        "rooms re-entered (folders, support/ a room)": len(climbs(files, folder, floor=False)),
        "steps up the layer order (support/ as layer 0)": len(steps_up(files)),
    }


def report(walk: Walk, strict: bool = False) -> str:
    """Every file of the walk in the order entered, its climbs marked, then the counts for the
    path to the first optimizer step and, when followed, for the whole run."""
    back, up = set(climbs(walk.files, floor=not strict)), set(steps_up(walk.files))
    lines = []
    for i, path in enumerate(walk.files):
        if i == walk.to_step and walk.to_end:
            lines.append("     -- the first optimizer step --")
        marks = (["climb back"] if i in back else []) + ([f"up to layer {layer(path)}"] if i in up else [])
        mark = f"  <- {', '.join(marks)}" if marks else ""
        lines.append(f"{i + 1:3d}  {path.relative_to(PACKAGE.parent)}  ({walk.entered_by[i]}){mark}")
    walks = [("to the first optimizer step", walk.files[: walk.to_step])]
    walks += [("the whole run", walk.files)] if walk.to_end else []
    for where, files in walks:
        lines.append(
            f"{where}: {len(files)} files, {len({part(p) for p in files})} parts, "
            f"{len({folder(p) for p in files})} folders"
        )
        lines += [f"  {name}: {count}" for name, count in counts(files).items()]
    return "\n".join(lines)


def follow(
    data_dir: str | None, *, to_end: bool = False, init_model: str | None = None, options: list[str] = ()
) -> Walk:
    """Run ``parasent train`` (one epoch of at most 2,000 pairs: the paper's recipe, or a
    fine-tuning of ``init_model`` on 200 pairs of its own; then ``options``) under the profiler."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["train", "--out", f"{tmp}/run", "--quiet", "--epochs", "1", "--max-pairs", "2000"]
        argv += ["--data-dir", data_dir] if data_dir else []
        if init_model:
            pairs = Path(tmp) / "pairs.tsv"
            pairs.write_text("".join(f"a cat sat on mat {i}\ta cat is on the mat {i}\n" for i in range(200)))
            argv += ["--init-model", init_model, "--pairs", str(pairs)]
        else:
            argv += ["--recipe", "paper"]
        argv += list(options)
        walk = Walk(to_end)
        sys.setprofile(walk.profile)
        try:
            cli_main(argv)
        except Stop:
            pass
        finally:
            sys.setprofile(None)
    return walk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--to-step", action="store_true", help="stop at the first optimizer step")
    parser.add_argument("--strict", action="store_true", help="mark support/'s climbs back too")
    parser.add_argument("--init-model", default=None, help="a fine-tuning walk from this model")
    args = parser.parse_args()
    walk = follow(args.data_dir, to_end=not args.to_step, init_model=args.init_model)
    print(report(walk, strict=args.strict))
    return 0 if walk.stepped else 1


if __name__ == "__main__":
    raise SystemExit(main())
