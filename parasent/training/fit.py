"""Training from Python: ``fit(model, pairs, objective=..., out=...)``, what ``parasent train`` does.

sentence-transformers users write a trainer over a model, a loss object and a dataset; here::

    from parasent.training.fit import fit
    from parasent.objectives.margin import MarginObjective

    fit("default", [("a man plays guitar", "someone plays the guitar"), ...], out="runs/mine")
    fit(None, "pairs.tsv", objective=MarginObjective(delta=0.6), out="runs/pp", epochs=5, pool="none")

The command line is a thin layer over the same stages (:func:`parasent.training.run.train`):
``fit`` turns its arguments into the :class:`~parasent.training.config.TrainConfig` the flags
would give (the same recipes: ``finetune`` when it continues a model on your pairs, ``paper`` or
``distilled`` otherwise), and an ``objective`` given as an object (anything with
``build(encoder, data)``, :class:`~parasent.training.protocols.ObjectiveFactory`) replaces the
configured one. Pairs given as a list are written to ``OUT/fit-pairs.tsv`` first, so the run
records what it read, as a file's run does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from parasent.training.config import AUTO_RECIPE, TrainConfig, flat_name, resolve_recipe, typed_value
from parasent.training.fine_tuning import finished_lines
from parasent.training.protocols import ObjectiveFactory
from parasent.training.run import TrainResult, train
from parasent.training.run_directory import CHECKPOINT_FILE, MODEL_DIR, check_run_dir
from parasent.training.trainer import LOG_FILE

PAIRS_FILE = "fit-pairs.tsv"  # a list of pairs handed to fit, as the run read it (a name of fit's own)


def fit(
    model: Any = None,
    pairs: str | Path | Sequence[Sequence[Any]] | None = None,
    *,
    out: str | Path,
    objective: str | ObjectiveFactory = "margin",
    recipe: str = AUTO_RECIPE,
    data_dir: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    say: Callable[[str], None] = print,
    **options: Any,
) -> TrainResult:
    """Train into the run directory ``out`` (best model in ``out/model``) and return the result.

    ``model``: a model to continue (a directory, a shipped name such as ``"default"``, or a
    loaded model that has its directory); None trains a new one. ``pairs``: a file
    ``FILE[:FORMAT]``, a list of ``(s1, s2)`` or ``(s1, s2, score)`` (0/1 labels or graded
    scores), or None for the standard pool. A continued model trains on the pairs alone; a new
    one on them beside the standard pool, as ``parasent train --pairs`` does (``pool="none"``:
    the pairs alone). ``objective``: a registered name (``margin``,
    ``siamese-cbow``) or an object whose ``build(encoder, data)`` gives the loss module.
    ``options``: any training option by its flat name (``epochs``, ``lr``, ``batch_size``,
    ``validation``, ``encoder``...), as ``parasent train --help`` lists them."""
    start = None if model is None else _model_path(model)
    check_run_dir(str(out), "out", resume=resume, overwrite=overwrite, start=start)
    specs = {flat_name(spec): spec for _, spec in TrainConfig.option_fields()}
    typed = {  # 'none' as on the command line (validation="none": the last epoch)
        key: typed_value(specs[key], value) if key in specs else value for key, value in options.items()
    }
    if model is not None:
        typed.setdefault("init_model", start)
        typed.setdefault("vectors", None)
    if not isinstance(objective, str | ObjectiveFactory):
        raise ValueError(
            f"objective: {objective!r} is neither a registered name nor an object with build(encoder, data)"
        )
    made = not Path(out).exists()
    wrote = False
    if pairs is not None:
        spec, wrote = _pairs_spec(pairs, Path(out), resume=resume)
        typed["pair_files"] = [spec]
    name = objective if isinstance(objective, str) else "margin"
    factory = None if isinstance(objective, str) else objective
    said = _keyword_names(specs, say)
    try:
        config = _config(out, name, recipe, typed, resume=resume)
        result = train(
            config, out, data_dir=data_dir, resume=resume, progress=progress, say=said, objective=factory
        )
    except BaseException as exc:
        if wrote:
            _drop_unread_pairs(Path(out), made, resumed=resume)
        if isinstance(exc, Exception) and len(exc.args) == 1 and isinstance(exc.args[0], str):
            exc.args = (_as_keywords(exc.args[0], specs),)  # the advice in fit's own terms
        raise
    for line in finished_lines(config, result, data_dir)[0]:  # what `parasent train` prints after the run
        said(line)
    return result


_FLAG = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def _as_keywords(text: str, specs: dict[str, Any]) -> str:
    """``text`` with each training flag it names (``--held-out``) as fit's keyword (``held_out``):
    the stages advise in the command line's terms, which a Python caller did not type. A flag of
    a command line quoted whole (``parasent evaluate --model ...``) stays as it is."""

    flags = {spec.metadata.get("flag") or "--" + name.replace("_", "-"): name for name, spec in specs.items()}
    flags.update({"--pairs": "pairs", "--resume": "resume", "--overwrite": "overwrite"})  # fit's own

    def keyword(match: re.Match[str]) -> str:
        clause = re.split(r"[;(]", text[: match.start()])[-1]
        return match.group(0) if "parasent " in clause else flags.get(match.group(0), match.group(0))

    def once(match: re.Match[str]) -> str:  # "lr (--lr)" is "lr", not "lr (lr)"
        return match.group(1) if flags.get(match.group(2)) == match.group(1) else match.group(0)

    return _FLAG.sub(keyword, re.sub(r"\b(\w+) \((--[a-z0-9-]+)\)", once, text))


def _keyword_names(specs: dict[str, Any], say: Callable[[str], None]) -> Callable[[str], None]:
    return lambda line: say(_as_keywords(line, specs))


def _drop_unread_pairs(out: Path, made: bool, *, resumed: bool) -> None:
    """A run that failed before its first checkpoint leaves nothing of fit's own in ``out``: the
    pairs file fit wrote there would make the retry's ``out`` a directory of other files. A
    refused resume removes the pairs file it wrote (the run there did not start from one)."""
    if resumed:
        (out / PAIRS_FILE).unlink(missing_ok=True)
        return
    if (out / CHECKPOINT_FILE).exists() or (out / MODEL_DIR).exists():
        return
    (out / PAIRS_FILE).unlink(missing_ok=True)
    if made:
        (out / LOG_FILE).unlink(missing_ok=True)  # the log of a run that kept nothing, in a folder fit made
        try:
            out.rmdir()  # only if empty: nothing else was there or written
        except OSError:
            pass


def _config(
    out: str | Path, objective: str, recipe: str, typed: dict[str, Any], *, resume: bool
) -> TrainConfig:
    """The run's options: a resumed run's own, from its checkpoint, with those given on top (as
    ``parasent train --resume`` reads them: ``recipe`` is not read again, it may have changed
    since the run started), else the recipe's with those given."""
    checkpoint = Path(out) / CHECKPOINT_FILE
    if resume and checkpoint.is_file():
        from parasent.training.checkpoint import resumed_options  # torch: a resume only

        return resumed_options(checkpoint, {**typed, "objective": objective})
    return TrainConfig.preset(
        objective, recipe=resolve_recipe(recipe, objective, typed), **_with_encoder(typed)
    )


def _model_path(model: Any) -> str:
    if isinstance(model, str | Path):
        return str(model)
    path = getattr(model, "path", None)
    if path is None:
        raise ValueError(
            "fit continues a model from its directory: save it first (model.save(path)) and pass the path"
        )
    return str(path)


def _with_encoder(typed: dict[str, Any]) -> dict[str, Any]:
    """A continued model's own encoder unless one is given (as the command line reads it)."""
    from parasent.core.model import encoder_of

    held = encoder_of(typed["init_model"]) if typed.get("init_model") and "encoder" not in typed else None
    return typed if held is None else {**typed, "encoder": held}


def _pairs_spec(
    pairs: str | Path | Sequence[Sequence[Any]], out: Path, *, resume: bool = False
) -> tuple[list[str], bool]:
    """``[path, format]`` of the pairs: a file as named (format read from it when not given),
    or a list written to ``out/fit-pairs.tsv`` in the format its rows imply (a name of fit's own:
    a user's ``pairs.tsv`` is never touched); and whether this call wrote that file (a failed run
    removes only a file it wrote). A resumed run must be handed the pairs it started with."""
    if isinstance(pairs, str | Path):
        from parasent.data.training_text.pools import resolve_pair_spec

        return list(resolve_pair_spec(str(pairs))), False
    rows = [tuple(row) for row in pairs]
    if not rows or len({len(row) for row in rows}) > 1 or len(rows[0]) not in (2, 3):
        raise ValueError("pairs: a list of (s1, s2) or of (s1, s2, score), all of one shape")
    for i, row in enumerate(rows):
        if any(not isinstance(text, str) or "\t" in text or "\n" in text for text in row[:2]):
            raise ValueError(f"pairs[{i}]: {row!r}: each sentence a string without tabs or newlines")
    fmt = "tsv" if len(rows[0]) == 2 else _scores_format([_score(row[2], i) for i, row in enumerate(rows)])
    data, path = "".join(_line(row, fmt) for row in rows).encode("utf-8"), out / PAIRS_FILE
    if resume and path.is_file():
        if path.read_bytes() != data:
            raise ValueError(
                f"out {out}: resume=True continues the run on the pairs it started with ({PAIRS_FILE}), "
                "not these: overwrite=True starts over on them"
            )
        return [str(path), fmt], False
    out.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)  # bytes: the same on every platform, as a resume compares them
    return [str(path), fmt], True


def _scores_format(scores: list[float]) -> str:
    """``labelled`` or ``sts`` for a list's scores, by the rule a file's are read by
    (:func:`parasent.data.training_text.pools.scores_format`); a stray score among labels 0 and 1,
    or classes that could be scores (0/1/2), refused naming the pair."""
    from parasent.data.training_text.pools import AMBIGUOUS, scores_format

    fmt = scores_format([str(int(score)) if score.is_integer() else repr(score) for score in scores])
    others = [i for i, score in enumerate(scores) if score not in (0.0, 1.0)]
    if fmt == "labelled" and others:
        i = others[0]
        raise ValueError(f"pairs[{i}]: score {scores[i]:g} among labels 0 and 1: a label is 0 or 1")
    if fmt == AMBIGUOUS:
        seen = ", ".join(f"{score:g}" for score in sorted(set(scores)))
        raise ValueError(
            f"pairs[{others[0]}]: the scores take only the values {seen}: class labels (NLI's 0/1/2?) or "
            "similarity scores? labels are 0 and 1; graded scores: write them to FILE and pass FILE:sts"
        )
    return fmt


def _score(value: Any, i: int) -> float:
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"pairs[{i}]: score {value!r} is not a number") from None
    if not math.isfinite(score):
        raise ValueError(f"pairs[{i}]: score {value!r} is not a finite number")
    return score


def _line(row: tuple[Any, ...], fmt: str) -> str:
    if fmt == "tsv":
        return f"{row[0]}\t{row[1]}\n"
    score = float(row[2])
    shown = str(int(score)) if fmt == "labelled" else repr(score)
    return f"{shown}\t{row[0]}\t{row[1]}\n"
