"""The README stays short and its links to docs/ resolve."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    "architecture.md",
    "adding-an-encoder.md",
    "adding-a-dataset.md",
    "default-model.md",
    "default-model-levers.md",
    "default-model-peers.md",
    "default-model-history.md",
    "benchmarks.md",
]


def test_readme_is_short_and_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 250
    head = "\n".join(lines[:8])
    assert "bash scripts/run.sh" in head and "bash scripts/test.sh" in head


def test_every_relative_link_of_the_docs_resolves():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert all((ROOT / "docs" / page).is_file() for page in PAGES)
    broken = []
    for path in files:
        for target in re.findall(r"\]\(([^)#:]+\.md)\)", path.read_text()):
            if not (path.parent / target).is_file():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_every_module_path_the_docs_name_exists():
    """A path like `core/model.py` or `parasent/text/tokenizer.py:WordTokenizer` in the README or
    docs/ names a file of the package, the tests or the scripts (the adding-an-encoder recipe's
    `my_encoder` files are the ones a reader writes)."""
    pattern = re.compile(r"`((?:parasent/)?[a-z_]+/[a-z_/]+\.py)(?::[A-Za-z_.]+)?`")
    missing = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for named in sorted(set(pattern.findall(path.read_text()))):
            if "my_encoder" in named:
                continue
            candidates = [ROOT / named, ROOT / "parasent" / named]
            if not any(candidate.is_file() for candidate in candidates):
                missing.append(f"{path.relative_to(ROOT)}: {named}")
    assert not missing, missing


def test_the_install_page_lists_every_extra():
    """docs/install.md's table has a row for each extra of pyproject.toml."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    rows = set(re.findall(r"^\| `([a-z0-9-]+)` \|", (ROOT / "docs" / "install.md").read_text(), re.M))
    assert set(extras) <= rows, sorted(set(extras) - rows)


def test_the_default_model_page_is_one_a_user_reads():
    """The recipe, the figures and how to rebuild, in at most 300 lines; the lever table, the
    peers and the history are pages of their own, linked from it."""
    page = (ROOT / "docs" / "default-model.md").read_text(encoding="utf-8")
    assert len(page.splitlines()) <= 300
    for other in ("default-model-levers.md", "default-model-peers.md", "default-model-history.md"):
        assert f"]({other})" in page
