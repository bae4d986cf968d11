"""Sentence encoders behind one interface: the torch modules of the registry's entries.

The registry itself is metadata, in :mod:`parasent.core.encoder_registry` (below the core,
which loads and encodes a model with it), so that ``import parasent`` and numpy inference never
import torch. Here an entry's ``target`` (``module:Class``, a module of this package) becomes
its class, when an encoder is built; the class's registry name is derived from its entry.
Adding an encoder is one new module here plus one entry there (docs/adding-an-encoder.md).
The registry's names are re-exported here, where the rest of the torch side has always read them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from parasent.core.encoder_registry import (
    ENCODERS,
    EncoderEntry,
    default_lambda_c_help,
    encoder_entry,
    encoder_names_help,
)
from parasent.encoders.class_names import class_path_of, encoder_name

if TYPE_CHECKING:
    from parasent.encoders.base import Encoder

__all__ = [
    "ENCODERS",
    "EncoderEntry",
    "build_encoder",
    "check_encoder_options",
    "default_lambda_c_help",
    "encoder_class",
    "encoder_entry",
    "encoder_name",
    "encoder_names_help",
]


def encoder_class(name: str) -> type[Encoder]:
    module_name, class_name = class_path_of(name)
    return getattr(importlib.import_module(module_name), class_name)


def build_encoder(config: dict[str, Any]) -> Encoder:
    """Instantiate from a config as written by :meth:`Encoder.config`."""
    config = dict(config)
    name = config.pop("name")
    return encoder_class(name)(**config)


def check_encoder_options(name: str, options: dict[str, Any]) -> None:
    """Refuse options the encoder does not take, and negative sizes, before anything is built
    (``--encoder-option foo=bar`` would otherwise fail as a TypeError deep in the run)."""
    import inspect

    from parasent.errors import OptionError

    try:
        parameters = inspect.signature(encoder_class(name).__init__).parameters
    except KeyError as exc:
        raise OptionError(exc.args[0]) from None
    known = [p for p in parameters if p not in ("self", "vocab_size", "embedding_dim")]
    if not isinstance(options, dict):  # fit(encoder_options=["layers=2"]): the command line's spelling
        raise OptionError(
            f"encoder options must be a dict of name to value ({{'layers': 2}}), got {type(options).__name__}"
            " (KEY=VALUE strings are the command line's --encoder-option)"
        )
    for key, value in options.items():
        if key not in known:
            raise OptionError(
                f"--encoder-option {key}: {name} has no such option (known: {', '.join(known) or 'none'})"
            )
        _check_option_type(key, value, parameters[key])
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, int | float) and not isinstance(item, bool) and not 0 <= item <= 1_000_000:
                raise OptionError(f"--encoder-option {key}={value}: sizes must be in 0..1000000")


def _check_option_type(key: str, value: Any, parameter: Any) -> None:
    """A value of the kind the option takes (its default's type, else the type its annotation
    names first: an integer for ``hidden``, a word for ``activation``, a list of integers where
    a sequence is allowed; null for the default), so that ``hidden=abc`` is refused in one line,
    not as a TypeError in the run. An integer may be written as a whole float (``16.0``)."""
    import json

    from parasent.errors import OptionError

    kinds = {bool: "true or false", int: "an integer", float: "a number", str: "a word"}
    named = str(parameter.annotation)
    kind = type(parameter.default) if parameter.default is not None else {"int": int}.get(named[:3])
    if isinstance(parameter.default, tuple | list):
        kind = int if "int" in named else None
    sequence = "Sequence" in named or isinstance(parameter.default, tuple | list)
    if isinstance(parameter.default, tuple | list) and not isinstance(value, tuple | list):
        raise OptionError(f"--encoder-option {key}={value}: expected a list (JSON: {key}=[1,2,3])")
    items = list(value) if isinstance(value, tuple | list) and sequence else [value]
    for item in items if kind in kinds and value is not None else []:
        if not _fits(item, kind):
            shown = value if isinstance(value, str) else json.dumps(value)  # as typed
            raise OptionError(f"--encoder-option {key}={shown}: expected {kinds[kind]}")


def _fits(item: Any, kind: type) -> bool:
    if kind is bool:
        return isinstance(item, bool)
    if isinstance(item, bool):
        return False
    if kind is int:
        return isinstance(item, int) or (isinstance(item, float) and item.is_integer())
    if kind is float:
        return isinstance(item, int | float)
    return isinstance(item, kind)
