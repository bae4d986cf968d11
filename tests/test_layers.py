"""The package's import layers: nothing imports upward, no two parts import each other, and no
module imports itself through others.

The order below is the one place the layers are defined (docs/architecture.md describes it).
Every ``import`` and ``from ... import`` of the package is walked, those inside functions
included: a deferred import is still a dependency. A module named in a string, as the
registries do (``"parasent.encoders.lstm:LSTM"``, for :func:`importlib.import_module`), is
imported by name: it is an import too.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import parasent

#: From the bottom: a part may import its own layer's parts and any layer below it.
LAYERS: list[set[str]] = [
    {"errors", "support"},  # leaf helpers: every exception; files, directories, locks, the run log
    {"models"},  # the models shipped inside the package (data, no code)
    {"text"},  # tokenizers, featurizers, vocabularies, word vector files
    {"core", "interop"},  # the numpy core: the model and its formats; other libraries' formats
    {"corpus", "util"},  # the corpus tools built on the model; sentence-transformers' util
    {"data", "encoders", "paraphrase"},  # readers and the data registry; the torch encoders
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
#: A whole string that names a module (``parasent.a.b``) or an object in one (``parasent.a.b:C``).
MODULE_STRING = re.compile(r"(parasent(?:\.\w+)+)(?::[\w.]+)?")


@dataclass(frozen=True)
class Import:
    where: str  # the importing file, relative to the package's parent
    line: int
    module: str  # the importing module (a package is its ``__init__``)
    name: str  # the imported module
    type_checking: bool  # under ``if TYPE_CHECKING:``


def _module_name(path: Path, root: Path = PACKAGE.parent) -> str:
    relative = path.relative_to(root).with_suffix("")
    return ".".join(part for part in relative.parts if part != "__init__")


def _modules(package: Path) -> dict[str, Path]:
    """Every module of ``package`` (a folder named ``parasent``) by its dotted name."""
    return {_module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}


MODULES = _modules(PACKAGE)


def _part(module: str) -> str | None:
    """``parasent.data.training_text.pools`` -> ``data``; the package root itself has no layer."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "parasent" else None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes: prose that names a module does not import it."""
    nodes = [
        tree,
        *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))),
    ]
    return {
        id(node.body[0].value)
        for node in nodes
        if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }


def _targets(
    node: ast.AST, module: str, is_package: bool, docstrings: set[int], modules: dict[str, Path] = MODULES
) -> list[str]:
    """The package's modules that ``node`` imports. ``from parasent.x import y`` imports the
    submodule ``parasent.x.y`` when there is one (not the package ``parasent.x``, whose
    ``__init__`` would otherwise seem to depend on every module that imports a sibling)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: resolved against the importing package
            package = module.split(".")
            package = package[: len(package) - node.level + (1 if is_package else 0)]
            base = ".".join([*package, *([base] if base else [])])
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
        match = MODULE_STRING.fullmatch(node.value)
        if match and match.group(1) in modules:
            return [match.group(1)]
    return []


def _walk(tree: ast.AST, type_checking: bool = False):
    """Every node with whether it sits under ``if TYPE_CHECKING:`` (its ``else`` runs)."""
    yield tree, type_checking
    for field, value in ast.iter_fields(tree):
        children = value if isinstance(value, list) else [value]
        guarded = type_checking or (
            isinstance(tree, ast.If) and field == "body" and _is_type_checking(tree.test)
        )
        for child in children:
            if isinstance(child, ast.AST):
                yield from _walk(child, guarded)


def _registry_imports() -> list[Import]:
    """The encoder registry names each encoder's module relative to ``parasent.encoders``
    (``"lstm:LSTM"``), which imports it by name when the encoder is built."""
    from parasent.core.encoder_registry import ENCODERS

    where = str((PACKAGE / "encoders" / "__init__.py").relative_to(PACKAGE.parent))
    return [
        Import(where, 0, "parasent.encoders", f"parasent.encoders.{entry.target.partition(':')[0]}", False)
        for entry in ENCODERS.values()
    ]


def _file_imports(modules: dict[str, Path], root: Path) -> list[Import]:
    """Every import of a module of ``modules`` (files under ``root``) written in their files."""
    found = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        where = str(path.relative_to(root))
        for node, type_checking in _walk(tree):
            for name in _targets(node, module, path.name == "__init__.py", docstrings, modules):
                if name == "parasent" or name.startswith("parasent."):
                    found.append(Import(where, node.lineno, module, name, type_checking))
    return found


def _all_imports() -> list[Import]:
    """Every import of a package module by a package module."""
    return _registry_imports() + _file_imports(MODULES, PACKAGE.parent)


def _imports() -> list[tuple[str, str, str]]:
    """(importing file, importing part, imported module) for every parasent import."""
    return [(i.where, _part(i.module), i.name) for i in _all_imports() if _part(i.module) and _part(i.name)]


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


#: What the numpy core builds on: the core is the floor every other part stands on.
CORE_BELOW = {"core", "errors", "support", "text", "models"}


def _planted(root: Path, files: dict[str, str]) -> list[Import]:
    """The imports of a package of ``files`` (path under ``root`` -> text), written there."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return _file_imports(_modules(root / "parasent"), root)


def _core_reaching_up(imports: list[Import]) -> list[str]:
    """The imports of a core module of anything but what the core builds on, or of the root."""
    return [
        f"{found.where}:{found.line} imports {found.name}"
        for found in imports
        if _part(found.module) == "core" and (found.name == "parasent" or _part(found.name) not in CORE_BELOW)
    ]


def test_the_core_imports_only_text_support_and_errors():
    """Not the corpus tools, the data readers, the torch encoders, training or the teacher: not
    at runtime, not by name, not under ``if TYPE_CHECKING:`` (a type-only import still draws the
    core above them), and not the package root (``parasent.__version__`` read from above)."""
    offending = _core_reaching_up(_all_imports())
    assert not offending, "\n".join(offending)


def test_the_corpus_tools_stand_on_the_core_and_the_core_never_imports_them(tmp_path):
    """``corpus/`` is the layer above the model: it imports the core, and an import of it by the
    core (deferred, or for a type only) is found, planted in a package of its own."""
    assert _layer("corpus") == _layer("core") + 1 and "corpus" not in CORE_BELOW
    assert any(_part(found.module) == "corpus" and _part(found.name) == "core" for found in _all_imports())
    files = {
        "parasent/__init__.py": "",
        "parasent/core/__init__.py": "",
        "parasent/core/model.py": (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
            "    from parasent.corpus.mining import MinedPairs\n\n"
            "def search():\n    from parasent.corpus import index\n\n    return index\n"
        ),
        "parasent/corpus/__init__.py": "",
        "parasent/corpus/index.py": "from parasent.core.model import search\n",
        "parasent/corpus/mining.py": "class MinedPairs:\n    pass\n",
    }
    planted = _planted(tmp_path, files)
    assert [line.split(" imports ")[1] for line in _core_reaching_up(planted)] == [
        "parasent.corpus.mining",
        "parasent.corpus.index",
    ]


def test_only_the_top_layers_read_the_package_root():
    """The root wires the layers (``parasent.load``, the torch side of the core): a part below
    the papers' systems that read it would depend on everything the root imports."""
    systems = _layer("serve")
    offending = [
        f"{found.where}:{found.line} imports the package root"
        for found in _all_imports()
        if found.name == "parasent" and _part(found.module) and _layer(_part(found.module)) < systems
    ]
    assert not offending, "\n".join(offending)


def test_library_code_never_imports_commands():
    offending = [
        f"{where} imports {name}"
        for where, part, name in _imports()
        if _part(name) == "commands" and part not in ("commands", "cli")
    ]
    assert not offending, "\n".join(offending)


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module, or of one that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1 or node in edges.get(node, ()):
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return components


def _module_cycles(imports: list[Import]) -> list[str]:
    """The loops among modules, each with the imports that close it."""
    edges: dict[str, set[str]] = {}
    lines: dict[tuple[str, str], str] = {}
    for found in imports:
        if found.module != found.name:
            edges.setdefault(found.module, set()).add(found.name)
            lines.setdefault((found.module, found.name), f"{found.where}:{found.line}")
    return [
        " -> ".join(component)
        + "\n"
        + "\n".join(
            f"    {lines[a, b]}: {a} imports {b}"
            for a in component
            for b in sorted(edges[a])
            if b in component
        )
        for component in _strongly_connected(edges)
    ]


def test_no_import_cycles_between_modules():
    """No module reaches itself through the imports of others, within one part or across parts.

    Deferred imports (inside functions), imports by name and imports under ``if TYPE_CHECKING:``
    all count: the first two run, and a type-only loop is a loop of meaning (each module's
    types are written in terms of the other's), whatever Python does with it.

    ``from parasent.x import y`` with ``y`` a submodule imports ``parasent.x.y``, not the
    package. A module's import of a name of a package it is inside (``from parasent.encoders
    import encoder_name`` in ``parasent.encoders.base``) is an edge like any other: the name
    exists only once the package's ``__init__`` has run, and when that ``__init__`` imports the
    module (by name, as the encoders' registry does), the two reach each other.
    """
    cycles = _module_cycles(_all_imports())
    assert not cycles, "import cycles among modules:\n" + "\n".join(cycles)


def test_a_loop_through_a_package_s_init_is_found(tmp_path):
    """The loop the encoders had (the package imports each encoder by name, each encoder its
    base class, the base class a name of the package), planted in a package of its own."""
    files = {
        "parasent/__init__.py": "",
        "parasent/encoders/__init__.py": (
            "import importlib\n\nTARGET = 'parasent.encoders.lstm:LSTM'\n\n"
            "def encoder_name(cls):\n    return cls.__name__\n"
        ),
        "parasent/encoders/base.py": "from parasent.encoders import encoder_name\n\nclass Encoder:\n    pass\n",
        "parasent/encoders/lstm.py": "from parasent.encoders.base import Encoder\n\nclass LSTM(Encoder):\n    pass\n",
    }
    planted = _planted(tmp_path, files)
    cycles = _module_cycles(planted)
    assert len(cycles) == 1 and cycles[0].startswith(
        "parasent.encoders -> parasent.encoders.base -> parasent.encoders.lstm"
    ), cycles
    (tmp_path / "parasent/encoders/base.py").write_text("class Encoder:\n    pass\n", encoding="utf-8")
    assert not _module_cycles(_file_imports(_modules(tmp_path / "parasent"), tmp_path))


def test_the_walk_sees_deferred_imports():
    # stored_weights.py defers its mmap import into read_weights: the walk must see it
    assert any(
        where.endswith("stored_weights.py") and name == "parasent.support.mmap_weights"
        for where, _, name in _imports()
    )


def test_the_walk_sees_imports_by_name():
    # the encoder registry names its modules as "module:Class" strings, imported by name by
    # parasent.encoders; other registries name "parasent.x.y:Class" in full
    assert any(
        found.module == "parasent.encoders" and found.name == "parasent.encoders.lstm"
        for found in _all_imports()
    )


def test_the_cycle_finder_finds_cycles():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}, "e": {"a"}}
    assert _strongly_connected(edges) == [["a", "b", "c"], ["d"]]
