"""The package's import layers: nothing imports upward, and no two parts import each other.

The order below is the one place the layers are defined (docs/architecture.md describes it).
Every ``import`` and ``from ... import`` of the package is walked, those inside functions
included: a deferred import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import parasent

#: From the bottom: a part may import its own layer's parts and any layer below it.
LAYERS: list[set[str]] = [
    {"errors", "support"},  # leaf helpers: every exception; files, directories, locks, the run log
    {"models"},  # the models shipped inside the package (data, no code)
    {"text"},  # tokenizers, featurizers, vocabularies
    {"data", "encoders", "paraphrase"},  # readers and the registry; encoder modules
    {"core", "interop", "util"},  # the numpy core; other libraries' formats; sentence-transformers' util
    {"evaluation", "objectives", "distillation"},
    {"training"},  # the stages and the loop
    {
        "experiments",
        "analysis",
        "supervised",
        "sts",
        "baselines",
        "serve",
        "ray",
    },  # the papers' systems; the service; Ray Data
    {"commands", "cli", "__main__"},  # the command line: parse, call the library, print
]
PACKAGE = Path(parasent.__file__).parent


def _part(module: str) -> str | None:
    """``parasent.data.pools`` -> ``data``; the package root itself has no layer."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "parasent" else None


def _imports() -> list[tuple[str, str, str]]:
    """(importing file, importing part, imported module) for every parasent import."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent)
        module = ".".join(part for part in relative.with_suffix("").parts if part != "__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith("parasent.") and _part(module) is not None:
                    found.append((str(relative), _part(module), name))
    return found


def _layer(part: str) -> int:
    for index, layer in enumerate(LAYERS):
        if part in layer:
            return index
    raise AssertionError(f"parasent.{part} is in no layer: add it to LAYERS in {__file__}")


def test_every_part_of_the_package_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if not p.name.startswith("_")}
    parts = {p for p in parts if (PACKAGE / p).is_dir() or (PACKAGE / f"{p}.py").is_file()}
    for part in parts - {"py"}:
        _layer(part)


def test_no_upward_imports():
    upward = [
        f"{where}: parasent.{part} (layer {_layer(part)}) imports {name} (layer {_layer(_part(name))})"
        for where, part, name in _imports()
        if _layer(_part(name)) > _layer(part)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycles_between_parts():
    edges: dict[str, set[str]] = {}
    for _, part, name in _imports():
        if _part(name) != part:
            edges.setdefault(part, set()).add(_part(name))

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in edges.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    cycles = sorted(f"{a} <-> {b}" for a, targets in edges.items() for b in targets if reaches(b, a, {b}))
    assert not cycles, "import cycles: " + ", ".join(cycles)


def test_library_code_never_imports_commands():
    offending = [
        f"{where} imports {name}"
        for where, part, name in _imports()
        if _part(name) == "commands" and part not in ("commands", "cli")
    ]
    assert not offending, "\n".join(offending)


def test_the_walk_sees_deferred_imports():
    # model.py defers its safetensors and mmap imports into functions: the walk must see them
    assert any(
        where.endswith("model.py") and name == "parasent.support.mmap_weights"
        for where, _, name in _imports()
    )
