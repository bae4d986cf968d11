"""The activation functions the papers tune over, by name (stored in model configs)."""

from __future__ import annotations

from collections.abc import Callable

import torch


def _identity(x: torch.Tensor) -> torch.Tensor:
    return x


ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "tanh": torch.tanh,
    "relu": torch.relu,
    "linear": _identity,
}


def activation(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {name!r}") from None


def check_choice(option: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{option} must be one of {', '.join(choices)}, got {value!r}")
    return value
