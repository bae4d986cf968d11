"""Helpers shared by the command modules."""

from __future__ import annotations

import argparse
import os

DEFAULT_RUN = "runs/default"
MODEL_ENV = "PARASENT_MODEL"
MODEL_HELP = f"model or run directory (default: ${MODEL_ENV}, else the shipped default model)"


def default_model() -> str:
    """``$PARASENT_MODEL``, else ``default``: the compact model shipped inside the package."""
    return os.environ.get(MODEL_ENV) or "default"


def train_default(option: str):
    """The default of a training option, from :class:`TrainConfig` (the one source of truth)."""
    from dataclasses import fields

    from parasent.training.config import TrainConfig

    field = {f.name: f for f in fields(TrainConfig)}[option]
    return field.default_factory() if callable(field.default_factory) else field.default


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", help="shared data directory (default: $PARASENT_DATA, else ../shared/data)"
    )
