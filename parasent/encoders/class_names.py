"""Which registry entry an encoder class is, read from the registry's metadata alone.

Apart from :mod:`parasent.encoders` (the package, which imports each entry's module by name
to build it) so that the encoders' base class can name its subclasses without importing the
package that imports them: no module of the encoders reaches itself through the others.
"""

from __future__ import annotations

from parasent.core.encoder_registry import ENCODERS, encoder_entry

#: The package whose modules the registry's ``module:Class`` targets name (this one's).
ENCODERS_PACKAGE = __name__.rpartition(".")[0]


def class_path(target: str) -> tuple[str, str]:
    """An entry's ``module:Class`` as the module's full name and the class's."""
    module, _, name = target.partition(":")
    return f"{ENCODERS_PACKAGE}.{module}", name


def class_path_of(name: str) -> tuple[str, str]:
    """The module and the class of the registered encoder ``name`` (a KeyError names the known ones)."""
    return class_path(encoder_entry(name).target)


def encoder_name(cls: type) -> str:
    """The registry name of an encoder class: that of the entry whose target is the class, or
    else its nearest registered base class (a subclass made for a test is still its base's).
    Declared once, in the entry, so that ``config.json`` and the registry cannot disagree."""
    names: dict[str, str] = {}
    for entry in ENCODERS.values():
        names.setdefault(class_path(entry.target), entry.name)
    for klass in cls.__mro__:
        name = names.get((klass.__module__, klass.__qualname__))
        if name is not None:
            return name
    raise KeyError(f"{cls.__qualname__} is not a registered encoder (parasent.encoders.ENCODERS)")
