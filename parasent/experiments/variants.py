"""The encoders the papers compare, as the columns of the comparison table.

Each variant is an encoder with its hyperparameters and the training options that differ
from the base run's, chosen with ``parasent tune`` on STS 2016 validation from the grids
of the papers (Wieting et al. 2016 Sec. 4.2.1; Jiao et al. 2018 Sec. 4.1; CHARAGRAM
supplement Sec. 2). Each encoder declares its variants in its record of the experiments'
settings (:class:`parasent.experiments.encoder_settings.ComparisonVariant`), so a new encoder
brings its column with it; here they become :class:`Variant`\\ s, in registry order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parasent.encoders import ENCODERS
from parasent.experiments.encoder_settings import settings_of


@dataclass(frozen=True)
class Variant:
    key: str  # command-line name
    label: str  # column header, as in the papers' tables
    encoder: str
    options: dict[str, Any] = field(default_factory=dict)  # encoder hyperparameters
    overrides: dict[str, Any] = field(default_factory=dict)  # training options


def all_variants() -> list[Variant]:
    """Every registered encoder's variants, in registry order (read when asked, so an encoder
    registered at run time is compared too)."""
    return [
        Variant(spec.key, spec.label, entry.name, dict(spec.options), dict(spec.overrides))
        for entry in ENCODERS.values()
        for spec in settings_of(entry.name).variants
    ]


def select_variants(keys: list[str] | None) -> list[Variant]:
    variants = all_variants()
    if not keys:
        return variants
    by_key = {v.key: v for v in variants}
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        raise KeyError(f"unknown variant(s) {', '.join(unknown)} (known: {', '.join(by_key)})")
    return [by_key[k] for k in keys]
