"""The version is written once (parasent/support/version.py, re-exported as parasent.__version__): pyproject.toml reads it, the changelog's
newest entry and the README's wheel name follow it."""

import re
import sys
from pathlib import Path

import pytest

import parasent

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_reads_the_version_from_the_package():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib is Python >= 3.11")
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "parasent.support.version.__version__"
    }


def test_the_changelog_and_readme_name_the_version():
    entries = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert entries and entries[0] == parasent.__version__
    head = "\n".join((ROOT / "README.md").read_text().splitlines()[:16])
    assert "pip install ." in head and "python -m build" in head
    assert f"parasent-{parasent.__version__}-py3-none-any.whl" in head
    assert re.search(r"pip install parasent .*released name", head)
