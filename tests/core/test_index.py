import json
import os

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.index import build_index, load_index
from parasent.core.model import SentenceModel
from parasent.data.vectors import WordVectors
from parasent.errors import DataFormatError, ModelFormatError

WORDS = ["a", "man", "is", "playing", "guitar", "the", "cat", "sat", "on", "mat", "dog", "runs", "music"]
CORPUS = [
    "a man is playing guitar",
    "the cat sat on the mat",
    "a dog runs",
    "",
    "music",
    "the dog sat on a mat",
]


@pytest.fixture()
def model():
    rng = np.random.default_rng(0)
    return SentenceModel.from_vectors(
        WordVectors(WORDS, rng.normal(size=(len(WORDS), 10)).astype(np.float32))
    )


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    return path


def test_index_answers_like_search_over_the_corpus(model, corpus, tmp_path):
    path = build_index(model, corpus, tmp_path / "idx", batch_size=2, progress=False)
    assert {p.name for p in path.iterdir()} >= {"index.json", "vectors.safetensors", "texts.txt", "model"}
    assert not any(p.suffix in (".pkl", ".pickle", ".bin") for p in path.rglob("*"))
    assert oct(os.stat(path / "vectors.safetensors").st_mode & 0o777) != "0o600"
    index = load_index(path)
    assert len(index) == len(CORPUS) and index.texts == CORPUS
    np.testing.assert_allclose(index.vectors, model.encode(CORPUS, normalize_embeddings=True), rtol=1e-6)
    hits = index.search(["a man playing music", "cat on a mat"], top_k=3)
    expected = model.search(["a man playing music", "cat on a mat"], CORPUS, top_k=3)
    assert [[h["corpus_id"] for h in q] for q in hits] == [[h["corpus_id"] for h in q] for q in expected]
    assert hits[1][0]["text"] == CORPUS[hits[1][0]["corpus_id"]]


def test_an_index_normalises_its_corpus_once_not_per_query(model, corpus, tmp_path, monkeypatch):
    from parasent.core import inference, semantic_search

    path = build_index(model, corpus, tmp_path / "idx", progress=False)
    index = load_index(path)
    normalised = []
    real = inference.normalize_rows
    monkeypatch.setattr(semantic_search, "normalize_rows", lambda m: normalised.append(len(m)) or real(m))
    hits = index.search(["a man playing music"], top_k=2)
    assert normalised == [1]  # the query alone, never the corpus vectors
    assert hits[0][0]["score"] == pytest.approx(
        model.similarity("a man playing music", CORPUS[hits[0][0]["corpus_id"]])[0, 0], abs=1e-5
    )
    info = json.loads((path / "index.json").read_text())
    (path / "index.json").write_text(json.dumps({**info, "normalized": False}))
    raw = load_index(path)  # an index of raw vectors: normalised once, at load
    np.testing.assert_allclose(np.linalg.norm(raw.vectors[[0, 1]], axis=1), 1, rtol=1e-5)


def test_ann_graph_finds_the_exact_neighbours(model, corpus, tmp_path):
    pytest.importorskip("usearch")
    index = load_index(build_index(model, corpus, tmp_path / "idx", ann=True, progress=False))
    assert index.ann is not None
    approximate = index.search("the cat sat", top_k=2)
    exact = index.search("the cat sat", top_k=2, exact=True)
    assert [h["corpus_id"] for h in approximate[0]] == [h["corpus_id"] for h in exact[0]]
    assert approximate[0][0]["score"] == pytest.approx(exact[0][0]["score"], abs=1e-4)


def test_bad_corpora_and_broken_indexes(model, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\xfe broken\n")
    with pytest.raises(DataFormatError, match="bad.txt:2: not UTF-8"):
        build_index(model, bad, tmp_path / "idx", progress=False)
    assert not (tmp_path / "idx").exists()  # nothing half-written
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(DataFormatError, match="empty corpus"):
        build_index(model, empty, tmp_path / "idx", progress=False)
    with pytest.raises(ModelFormatError, match="index.json: missing"):
        load_index(tmp_path)


def test_index_and_query_commands(model, corpus, tmp_path, capsys):
    model.save(tmp_path / "m")
    out = tmp_path / "idx"
    assert main(["index", str(corpus), "-o", str(out), "--model", str(tmp_path / "m")]) == 0
    capsys.readouterr()
    assert main(["query", str(out), "the cat sat on the mat", "-k", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].split("\t")[3] == "the cat sat on the mat"
    assert main(["query", str(out), "a dog runs", "--json", "-k", "1"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["query"] == "a dog runs" and record["hits"][0]["text"] == "a dog runs"
    assert main(["query", str(tmp_path / "nowhere"), "x"]) == 2
    assert "index.json: missing" in capsys.readouterr().err


def test_ann_without_usearch_fails_in_one_line_before_encoding(model, corpus, tmp_path, monkeypatch, capsys):
    import sys

    from parasent.core.model import SentenceModel

    model.save(tmp_path / "m")
    monkeypatch.setitem(sys.modules, "usearch", None)
    monkeypatch.setitem(sys.modules, "usearch.index", None)
    encoded = []
    monkeypatch.setattr(SentenceModel, "iter_encode", lambda *a, **k: encoded.append(1) or iter(()))
    assert (
        main(["index", str(corpus), "-o", str(tmp_path / "idx"), "--model", str(tmp_path / "m"), "--ann"])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "parasent: error: approximate search needs usearch, which the core install lacks: install parasent[ann]"
    )
    assert not encoded and not (tmp_path / "idx").exists()
    from parasent.errors import MissingDependencyError

    with pytest.raises(MissingDependencyError, match=r"parasent\[ann\]"):
        build_index(model, corpus, tmp_path / "idx", ann=True, progress=False)
    assert not encoded


def test_directory_outputs_refuse_stdout(model, corpus, tmp_path, capsys):
    assert main(["index", str(corpus), "-o", "-"]) == 2
    assert "cannot go to stdout" in capsys.readouterr().err
