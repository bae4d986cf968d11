"""The torch side of a model, as the core sees it: what it needs, installed from above.

The core encodes an averaging model with numpy alone. Any other encoder is a torch module of
:mod:`parasent.encoders`, a layer above the core (it builds on the registry,
:mod:`parasent.core.encoder_registry`, and on torch). The core names here what it needs of that
side -- a module built from the settings a model stores, and the module run over a chunk of
token ids -- and the package root (``parasent/__init__.py``, which Python imports before any
module of the package) installs the encoders' implementation. So the core never imports the
layer above it, and a model is built and encoded the same way whichever layer loaded it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from parasent.text.tokenized import Tokenized


class TorchEncoder(Protocol):
    """What the core uses of a torch encoder (:class:`parasent.encoders.base.Encoder`)."""

    output_dim: int

    def config(self) -> dict[str, Any]: ...

    def state_dict(self) -> Mapping[str, Any]: ...

    def load_state_dict(self, state: Mapping[str, Any]) -> Any: ...

    def to(self, device: Any) -> Any: ...


@dataclass(frozen=True)
class TorchSide:
    """``build(config)``: the module of a model's ``config.json`` ``encoder`` settings (its
    ``name`` a registry entry), randomly initialised; ``encode(module, tokenized, device)``: the
    sentence vectors of a chunk of token ids, as float32 rows in input order."""

    build: Callable[[dict[str, Any]], TorchEncoder]
    encode: Callable[[TorchEncoder, Tokenized, Any], np.ndarray]


_installed: list[TorchSide] = []


def install(side: TorchSide) -> None:
    """Make ``side`` the torch side of every model (the package root calls it once)."""
    _installed[:] = [side]


def torch_side() -> TorchSide:
    """The installed torch side."""
    if not _installed:  # only if parasent/__init__.py did not run, which Python does not allow
        raise RuntimeError("parasent's torch side is not installed (import parasent first)")
    return _installed[0]
