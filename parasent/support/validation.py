"""Checking numeric options and device names before any work starts, in one place.

Every command validates its options here, so that ``--batch-size 0``, ``--clip -1`` or
``--device bogus`` fail at once with one line naming the option, never after minutes of
work (or, worse, by silently doing something else: a negative clip reverses gradients).
Argparse ``type=`` functions and dataclass checks share the same rules.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping
from typing import Any

from parasent.errors import OptionError

# Rules: "positive" (> 0), "count" (a whole number > 0), "non-negative" (>= 0), "fraction"
# ([0, 1)), "probability" ([0, 1]), "cosine" ([-1, 1]).
RULES: dict[str, tuple[Callable[[float], bool], str]] = {
    "positive": (lambda v: v > 0, "must be > 0"),
    "count": (lambda v: isinstance(v, int) and v > 0, "must be a positive integer"),
    "non-negative": (lambda v: v >= 0, "must be >= 0"),
    "fraction": (lambda v: 0 <= v < 1, "must be in [0, 1)"),
    "probability": (lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    "cosine": (lambda v: -1 <= v <= 1, "must be a cosine, in [-1, 1]"),
}


def check_number(name: str, value: Any, rule: str, *, optional: bool = False) -> None:
    """Raise :class:`OptionError` unless ``value`` is a finite number obeying ``rule``
    (``None`` passes when ``optional``)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise OptionError(f"{name} must be a finite number, got {value!r}")
    test, reason = RULES[rule]
    if not test(value):
        raise OptionError(f"{name} {reason}, got {value!r}")


def check_numbers(values: Any, rules: Mapping[str, str], *, prefix: str = "") -> None:
    """Check the attributes of ``values`` (a config dataclass) named in ``rules``:
    ``{"clip": "positive?"}`` where a trailing ``?`` means None is allowed."""
    for name, rule in rules.items():
        optional = rule.endswith("?")
        check_number(prefix + name, getattr(values, name), rule.rstrip("?"), optional=optional)


def _argparse_type(rule: str, kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        try:
            check_number("value", value, rule)
        except OptionError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("value ")) from None
        return value

    parse.__name__ = f"{rule.replace('-', '_')}_{kind.__name__}"
    return parse


# argparse ``type=`` for options: ``--batch-size 0`` is a usage error (exit 2) before anything runs.
positive_int = _argparse_type("positive", int)
non_negative_int = _argparse_type("non-negative", int)
probability = _argparse_type("probability", float)
cosine = _argparse_type("cosine", float)
positive_seconds = _argparse_type("positive", float)

DEVICE_TYPES = ("cpu", "cuda", "mps")


def is_cpu_device(device: object) -> bool:
    """Whether ``device`` means the CPU: None, ``"cpu"``, ``"cpu:0"`` or ``torch.device("cpu")``
    (told by its name, so that no torch is imported to ask)."""
    return device is None or str(device).partition(":")[0] == "cpu"


def resolve_device(name: str) -> str:
    """The device a run uses for ``--device name``: ``auto`` is CUDA where there is one, else
    the CPU; any other name is checked (:func:`check_device`) and kept."""
    check_device(name)  # "bogus", or cuda on a machine without it: one clear line, before any work
    if name != "auto":
        return name
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def check_device(name: str | None, option: str = "--device") -> None:
    """Refuse a device that does not exist here before any work: ``bogus``, or ``cuda`` on a
    machine without CUDA (torch would fail only at the first tensor moved)."""
    if name is None or name == "auto":
        return
    kind, _, index = str(name).partition(":")
    if kind not in DEVICE_TYPES or (index and not index.isdecimal()):
        raise OptionError(f"{option} {name!r}: not a device (cpu, cuda, cuda:N, mps or auto)")
    if kind == "cpu":
        return
    import torch

    if kind == "cuda":
        if not torch.cuda.is_available():
            raise OptionError(f"{option} {name!r}: CUDA is not available on this machine (use cpu or auto)")
        if index and int(index) >= torch.cuda.device_count():
            raise OptionError(f"{option} {name!r}: only {torch.cuda.device_count()} CUDA device(s) here")
    elif kind == "mps" and not torch.backends.mps.is_available():
        raise OptionError(f"{option} {name!r}: MPS is not available on this machine (use cpu or auto)")
