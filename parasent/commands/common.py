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
    """The default of a training option (flat name), from :class:`TrainConfig` (the one source of truth)."""
    from parasent.training.config import TrainConfig

    return TrainConfig().flat()[option]


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", help="shared data directory (default: $PARASENT_DATA, else ../shared/data)"
    )
