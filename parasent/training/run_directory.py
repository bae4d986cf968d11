"""A training run's directory: what may be written there before any work starts.

A run writes ``OUT/model``, ``OUT/checkpoint.safetensors`` and ``OUT/log.jsonl``; it never
replaces what a user has there without being asked (``--resume`` continues the run there,
``--overwrite`` starts over, keeping the earlier model as ``OUT/model.previous`` until the new
run finishes), and a model directory is never taken for a run directory. The
command line and :func:`parasent.training.fit.fit` check the same way, here.
"""

from __future__ import annotations

from pathlib import Path

CHECKPOINT_FILE = "checkpoint.safetensors"  # RUN/checkpoint.safetensors (the trainer writes it)


def check_output_dir(path: str | None, option: str) -> None:
    """Fail before any work when an output directory names an existing file."""
    from pathlib import Path

    from parasent.errors import OptionError

    if path is not None and Path(path).exists() and not Path(path).is_dir():
        raise OptionError(f"{option} {path}: exists and is not a directory")


def check_run_dir(path: str, option: str, *, resume: bool, overwrite: bool, start: str | None = None) -> None:
    """Fail before any work when a training run would replace what is in ``path``: a model
    directory (a run writes OUT/model, checkpoint and log beside it), the model the run starts
    from (``start``, a model or run directory or a shipped model's name: ``--overwrite`` would set
    it aside before it was read), or, without ``--resume`` or ``--overwrite``, a directory that
    holds anything (an earlier run's model, the user's files)."""
    from pathlib import Path

    from parasent.core.model import CONFIG_FILE, WEIGHTS_FILE
    from parasent.errors import OptionError
    from parasent.support.paths import holds
    from parasent.support.runlock import LOCK_FILE

    check_output_dir(path, option)
    target = Path(path)
    if start is not None and holds(target, start):
        raise OptionError(
            f"{option} {path}: holds the model this run starts from ({start}); write the run to another directory"
        )
    if (target / CONFIG_FILE).is_file() and (target / WEIGHTS_FILE).is_file():
        raise OptionError(
            f"{option} {path}: is a model directory; {option} names a run directory (its best model goes to "
            f"{option}/model)"
        )
    if resume or overwrite or not target.is_dir():
        return
    held = sorted(entry.name for entry in target.iterdir() if entry.name != LOCK_FILE)
    if held:
        shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
        resumable = (target / CHECKPOINT_FILE).is_file()
        # the command line's flags, or the Python API's keywords (fit(..., resume=True))
        resume_it, overwrite_it = (
            ("--resume", "--overwrite") if option.startswith("-") else ("resume=True", "overwrite=True")
        )
        how = (
            f"{resume_it} continues the run there, {overwrite_it} starts over in it (its model kept as model.previous until the new run finishes)"
            if resumable
            else "no run to resume there (no checkpoint: not a run, or one stopped before its first checkpoint); "
            f"{overwrite_it} trains in it (writing {MODEL_DIR}/, {CHECKPOINT_FILE} and log.jsonl; the rest is left as it is)"
        )
        raise OptionError(f"{option} {path}: holds {shown}; {how}, or choose another {option}")


MODEL_DIR = "model"  # RUN/model: the run's best model so far
PREVIOUS_MODEL_DIR = "model.previous"  # an earlier run's model, kept while a run over it goes on


def set_aside_model(out_dir: str | Path) -> Path | None:
    """Before a fresh run in ``out_dir`` (``--overwrite``) writes its first model: keep the
    earlier run's ``model/`` as ``model.previous/`` until this run finishes
    (:func:`drop_previous_model`), so a run killed early never leaves only its untrained start.
    If ``model.previous/`` is already there, an earlier ``--overwrite`` run did not finish: it
    stays, and that run's unfinished ``model/`` goes. Returns the kept folder, if any."""
    import shutil

    out = Path(out_dir)
    model, previous = out / MODEL_DIR, out / PREVIOUS_MODEL_DIR
    if previous.is_dir() and not previous.is_symlink():
        if model.is_dir() and not model.is_symlink():
            shutil.rmtree(model)
        return previous
    if model.is_dir() and not model.is_symlink():
        model.rename(previous)
        return previous
    return None


def drop_previous_model(out_dir: str | Path) -> None:
    """A run finished: the model it replaced goes (the user asked for ``--overwrite``). It is
    renamed away first, so that a ``model.previous/`` there always means a run that did not
    finish: one killed while deleting it leaves a hidden folder, removed the next time."""
    import os
    import shutil

    out = Path(out_dir)
    previous = out / PREVIOUS_MODEL_DIR
    if previous.is_dir() and not previous.is_symlink():
        previous.rename(out / f".{PREVIOUS_MODEL_DIR}.drop-{os.getpid()}")
    for dropped in out.glob(f".{PREVIOUS_MODEL_DIR}.drop-*"):
        shutil.rmtree(dropped, ignore_errors=True)
