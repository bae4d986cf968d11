"""The figures the docs quote of the shipped default model are the model's: its width, its
scores (recorded in its config when it was built), its size on disk, and the scores and size
of its word-rows exports, measured again here. A rebuilt default that changes any of them
fails this test until the docs say the new figure."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "parasent" / "models" / "default"


def shipped() -> dict:
    return json.loads((SHIPPED / "config.json").read_text())


def read(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def quoted(page: str, pattern: str) -> list[str]:
    """Every figure ``pattern`` (one group) captures in ``page``; at least one."""
    found = re.findall(pattern, read(page))
    assert found, f"{page} no longer quotes {pattern!r}: update this test with the docs"
    return found


def test_the_shipped_width_is_the_one_quoted():
    dim = str(shipped()["encoder"]["embedding_dim"])
    assert set(quoted("docs/serving.md", r"parasent serve: model parasent-default \((\d+) d\)")) == {dim}
    assert quoted("README.md", r"(\d+) dimensions, int8\), [\d.]+ MB") == [dim]


def test_the_shipped_scores_and_size_are_the_ones_quoted():
    metadata = shipped()["metadata"]
    transfer = f"{metadata['transfer_mean_pearson']:.2f}"
    validation = f"{metadata['validation_mean_pearson']:.2f}"
    size = f"{sum(p.stat().st_size for p in SHIPPED.iterdir() if p.is_file()) / 1e6:.1f}"
    readme = quoted(
        "README.md",
        r"\*\*shipped in the package\*\*.*?, ([\d.]+) MB \| \*\*([\d.]+)\*\* \| \*\*([\d.]+)\*\* \|",
    )
    assert readme == [(size, transfer, validation)]
    page = quoted(
        "docs/default-model.md",
        r"\*\*shipped: its compact copy\*\*.*?\| \*\*([\d.]+)\*\* \| \*\*([\d.]+)\*\* \| \*\*([\d.]+) MB\*\*",
    )
    assert page == [(transfer, validation, size)]
    changelog = quoted(
        "CHANGELOG.md",
        r"compacted to ([\d.]+) MB with its\s+stored vocabulary, transfer ([\d.]+) .*?STS 2016 ([\d.]+)",
    )
    assert changelog[0] == (size, transfer, validation)
    assert quoted(
        "docs/ecosystem.md", r"the lossless\s+sentence-transformers export ([\d.]+), as the model"
    ) == [transfer]


def test_the_word_rows_exports_are_measured_as_quoted(shared_data_dir, tmp_path):
    import parasent
    from parasent.core.compaction import words_only
    from parasent.evaluation.evaluator import evaluate

    words = words_only(parasent.load())
    table = words.weights["embedding.weight"]
    text = read("docs/ecosystem.md")
    static, size, model2vec = re.search(
        r"words only as a `StaticEmbedding` ([\d.]+) \(a\s+([\d.]+) MB float32 table\); words only for model2vec, "
        r"int8, ([\d.]+)",
        text,
    ).groups()
    assert size == f"{table.shape[0] * table.shape[1] * 4 / 1e6:.1f}"
    assert static == f"{evaluate(words, 'transfer', shared_data_dir).primary:.2f}"
    exported = words.export(tmp_path / "m2v", format="model2vec", dtype="int8")
    assert model2vec == f"{evaluate(parasent.load(exported), 'transfer', shared_data_dir).primary:.2f}"
