"""Configuration fields that carry their command-line option: every section of a run's
configuration (``parasent.training.config``, ``parasent.distillation.teacher_config``) declares its
fields with :func:`option`, and ``parasent.commands.config_options`` generates the flags from
the metadata, so a help text is written once, beside its field."""

from __future__ import annotations

from dataclasses import MISSING, field
from typing import Any


def option(default: Any = MISSING, *, help: str = "", flat: str | None = None, **cli: Any) -> Any:
    """A configuration field with what its command-line option needs: ``help``, the ``flat``
    name when it differs from the field's, and argparse keywords (``choices``, ``metavar``,
    ``flag``, ``action``; ``cli=False`` keeps it off the command line). A list or dict default
    is copied per instance."""
    metadata = {"help": help, "flat": flat, **cli}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=metadata)
    return field(default=default, metadata=metadata)
