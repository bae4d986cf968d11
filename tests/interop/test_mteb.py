"""The MTEB adapter passes mteb's encoder protocol and runs an mteb STS task built from local
files (no hub): mteb's cosine Spearman equals the one computed from parasent's own cosines."""

import csv

import numpy as np
import pytest
from scipy.stats import spearmanr

from parasent.core.model import SentenceModel
from parasent.interop.mteb import MTEBEncoder
from parasent.text.word_vectors import WordVectors

WORDS = ["a", "man", "woman", "is", "playing", "guitar", "piano", "the", "cat", "dog", "runs", "sleeps"]


@pytest.fixture()
def model():
    table = np.random.default_rng(7).normal(size=(len(WORDS), 16)).astype(np.float32)
    return SentenceModel.from_vectors(WordVectors(WORDS, table), metadata={"languages": ["eng-Latn"]})


def write_pairs(path, n=60):
    rng = np.random.default_rng(0)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, delimiter="\t")
        out.writerow(["sentence1", "sentence2", "score"])
        for _ in range(n):
            s1 = " ".join(rng.choice(WORDS, size=rng.integers(2, 6)))
            s2 = " ".join(rng.choice(WORDS, size=rng.integers(2, 6)))
            out.writerow([s1, s2, f"{rng.uniform(0, 5):.2f}"])


def local_sts_task(path):
    mteb = pytest.importorskip("mteb")
    from parasent.interop.mteb import local_sts_task as task_of

    return mteb, task_of(path, name="ParasentLocalSTS"), columns_of(path)


def columns_of(path):
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [r["sentence1"] for r in rows], [r["sentence2"] for r in rows], [float(r["score"]) for r in rows]


def test_protocol_and_metadata(model):
    models = pytest.importorskip("mteb.models")
    encoder = MTEBEncoder(model, name="parasent/tiny")
    assert isinstance(encoder, models.EncoderProtocol)
    meta = encoder.mteb_model_meta
    assert meta.name == "parasent/tiny" and meta.embed_dim == 16 and meta.languages == ["eng-Latn"]
    assert meta.revision == MTEBEncoder(model).revision and len(meta.revision) == 12  # digest of the weights
    batches = [{"text": ["a man", "a cat"]}, {"text": ["the dog"]}]
    vectors = encoder.encode(
        batches, task_metadata=None, hf_split="test", hf_subset="default", prompt_type=None
    )
    np.testing.assert_allclose(vectors, model.encode(["a man", "a cat", "the dog"]))
    assert encoder.similarity(vectors, vectors).shape == (3, 3)
    np.testing.assert_allclose(encoder.similarity_pairwise(vectors, vectors), 1, rtol=1e-5)


def test_an_mteb_sts_task_from_local_files(model, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    write_pairs(tmp_path / "pairs.tsv")
    mteb, task, (left, right, gold) = local_sts_task(tmp_path / "pairs.tsv")
    result = mteb.evaluate(MTEBEncoder(model), task, cache=None, show_progress_bar=False)
    score = result.task_results[0].scores["test"][0]
    expected = spearmanr(gold, model.similarity_pairwise(left, right)).statistic
    assert score["cosine_spearman"] == pytest.approx(expected, abs=1e-6)
    assert score["main_score"] == pytest.approx(expected, abs=1e-6)


def test_the_offline_mteb_run_of_the_docs_works_as_written(tmp_path, monkeypatch, capsys):
    """docs/ecosystem.md's offline block, run as a user would in a folder holding pairs.tsv."""
    pytest.importorskip("mteb")
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "ecosystem.md").read_text()
    block = re.search(r"<!-- offline -->\n```python\n(.*?)```", page, re.S).group(1)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    write_pairs(tmp_path / "pairs.tsv")
    exec(compile(block, "docs/ecosystem.md", "exec"), {})
    import parasent

    left, right, gold = columns_of(tmp_path / "pairs.tsv")
    expected = spearmanr(gold, parasent.load().similarity_pairwise(left, right)).statistic
    assert float(capsys.readouterr().out.split()[-1]) == pytest.approx(expected, abs=1e-6)
