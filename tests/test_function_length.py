"""No function of the package is 80 lines or longer (ruff's C901 bounds their branching)."""

import ast
from pathlib import Path

import parasent

LIMIT = 80


def test_no_function_reaches_the_limit():
    package = Path(parasent.__file__).parent
    long = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.end_lineno - node.lineno >= LIMIT
            ):
                long.append(f"{path.relative_to(package.parent)}:{node.lineno} {node.name}")
    assert not long, "functions of 80 lines or more: " + ", ".join(long)
