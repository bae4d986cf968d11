"""docs/architecture.md stays true: its layer table is ``LAYERS``, its exception table is
``parasent/errors.py`` (and no exception class lives elsewhere), its featurizer kinds are the
ones a model directory may name."""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import parasent
from parasent import errors
from parasent.text.featurizers import KINDS
from tests.test_layers import LAYERS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(parasent.__file__).parent
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _table(header: str) -> list[list[str]]:
    """The rows of the markdown table whose header line starts with ``header``, as cells."""
    lines = PAGE[PAGE.index(header) :].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _names(cell: str) -> set[str]:
    return {name.rstrip("/") for name in re.findall(r"`([^`]+)`", cell)}


def test_the_layer_table_is_LAYERS():
    rows = _table("| layer | parts |")
    assert [int(row[0]) for row in rows] == list(range(len(LAYERS)))
    for row, layer in zip(rows, LAYERS, strict=True):
        assert _names(row[1]) == layer, f"layer {row[0]}: the page says {row[1]}, LAYERS says {sorted(layer)}"


def test_every_layer_is_a_folder_or_a_module_of_the_package():
    for part in set().union(*LAYERS):
        assert (PACKAGE / part).is_dir() or (PACKAGE / f"{part}.py").is_file(), part


def test_the_package_root_holds_at_most_ten_modules():
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(modules) <= 10, modules


def _exception_classes_of_errors_module() -> set[str]:
    return {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }


def test_the_exception_table_is_errors_py():
    documented = set().union(*(_names(row[0]) for row in _table("| exception | raised for |")))
    assert documented == _exception_classes_of_errors_module()


def test_no_exception_class_is_defined_outside_errors_py():
    known = _exception_classes_of_errors_module() | {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    elsewhere = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {
                    base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                    for base in node.bases
                }
                if bases & known:
                    elsewhere.append(f"{path.relative_to(PACKAGE.parent)}: class {node.name}")
    assert not elsewhere, elsewhere


def test_the_featurizer_kinds_are_the_ones_a_model_may_name():
    documented = set().union(*(_names(row[0]) for row in _table("| featurizer kind |")))
    assert documented == set(KINDS)
