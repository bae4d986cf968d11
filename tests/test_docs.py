"""The README stays short and its links to docs/ resolve."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    "architecture.md",
    "adding-an-encoder.md",
    "adding-a-dataset.md",
    "default-model.md",
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
