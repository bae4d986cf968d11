import json

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel, load
from parasent.text import WordTokenizer
from parasent.text.word_vectors import read_word_vectors

pytestmark = pytest.mark.core


def test_compact_writes_a_pruned_int8_model_with_its_provenance(mini_data_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("parasent.core.stored_weights.SHARE_MIN_BYTES", 0)  # a toy table shares too
    vectors = read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz")
    tokenizer = WordTokenizer.from_vocabulary(vectors.words)
    table = np.zeros((tokenizer.vocab_size, vectors.dim), dtype=np.float32)
    table[2:] = vectors.matrix
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": vectors.dim}
    SentenceModel(tokenizer, config, {"embedding.weight": table}).save(tmp_path / "full")
    keep = max(3, tokenizer.vocab_size // 2)
    args = [
        "compact",
        "--model",
        str(tmp_path / "full"),
        "--out",
        str(tmp_path / "small"),
        "--vocab",
        str(keep),
    ]
    args += [
        "--dim",
        "8",
        "--data-dir",
        str(mini_data_dir),
        "--record",
        "commit=abc",
        "--record",
        "recipe=test",
    ]
    assert main(args) == 0
    assert "int8" in capsys.readouterr().err
    small = load(tmp_path / "small")  # every word kept, the dropped ones sharing kept vectors
    assert small.dim == 8 and small.tokenizer.vocab_size == tokenizer.vocab_size
    from safetensors.numpy import load_file

    stored = load_file(str(tmp_path / "small/model.safetensors"))["embedding.weight"]
    assert len(stored) < tokenizer.vocab_size
    assert main(args[:3] + ["--out", str(tmp_path / "unk"), *args[5:], "--pruned", "unk"]) == 0
    assert load(tmp_path / "unk").tokenizer.vocab_size < tokenizer.vocab_size
    metadata = json.loads((tmp_path / "small/config.json").read_text())["metadata"]
    assert metadata["build"] == {"commit": "abc", "recipe": "test"}
    assert metadata["compaction"]["dtype"] == "int8" and metadata["compaction"]["vocab"] == keep
    assert main(args[:-2] + ["--record", "no-equals-sign"]) == 2


def _ngram_model(data_dir, path, **counts):
    """A random word-and-n-gram model of the mini data's words, its n-grams counted in its corpus."""
    from parasent.data.training_text.corpus import read_corpus
    from parasent.text.word_bigrams import WordBigramTokenizer

    vectors = read_word_vectors(data_dir / "wordvecs/mini16.txt.gz")
    words = WordTokenizer.from_vocabulary(vectors.words)
    documents, _ = read_corpus(data_dir, "standard")
    sentences = [s for d in documents for s in d.sentences]
    tokenizer = WordBigramTokenizer.from_texts(words, sentences, min_count=1, **counts)
    table = np.random.default_rng(0).normal(size=(tokenizer.vocab_size, vectors.dim)).astype(np.float32)
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": vectors.dim}
    SentenceModel(tokenizer, config, {"embedding.weight": table}).save(path)
    return words, tokenizer


def test_compact_keeps_the_bigrams_most_used_in_the_corpus(mini_data_dir, tmp_path):
    from parasent.text.word_bigrams import JOINER

    words, _ = _ngram_model(mini_data_dir, tmp_path / "full", max_bigrams=6)
    out = tmp_path / "small"
    argv = ["compact", "--model", str(tmp_path / "full"), "--out", str(out), "--bigrams", "2"]
    assert main([*argv, "--dtype", "float32", "--data-dir", str(mini_data_dir)]) == 0
    small = load(out)
    kept = [t for t in small.tokenizer.vocabulary() if JOINER in t]
    assert len(kept) == 2 and small.tokenizer.vocab_size == words.vocab_size + 2
    assert json.loads((out / "config.json").read_text())["metadata"]["compaction"]["bigrams"] == 2


def test_compact_keeps_the_trigrams_most_used_in_the_corpus(mini_data_dir, tmp_path):
    from parasent.text.word_bigrams import JOINER

    _, tokenizer = _ngram_model(mini_data_dir, tmp_path / "full", max_bigrams=6, max_trigrams=5)
    assert len(tokenizer.trigram_ids) == 5
    out = tmp_path / "small"
    argv = ["compact", "--model", str(tmp_path / "full"), "--out", str(out), "--trigrams", "2"]
    assert main([*argv, "--dtype", "float32", "--data-dir", str(mini_data_dir)]) == 0
    small = load(out)
    assert [t.count(JOINER) for t in small.tokenizer.vocabulary() if JOINER in t] == [1] * 6 + [2] * 2
    assert small.tokenizer.config()["trigrams"] == 2
    assert json.loads((out / "config.json").read_text())["metadata"]["compaction"]["trigrams"] == 2


def test_compact_replaces_nothing_unasked_and_never_its_own_model(tmp_path, capsys):
    from parasent.text.word_vectors import WordVectors

    vectors = WordVectors(["a", "cat", "sat"], np.eye(3, 4, dtype=np.float32))
    SentenceModel.from_vectors(vectors).save(tmp_path / "full")
    SentenceModel.from_vectors(vectors).save(tmp_path / "earlier")
    before = {p.name: p.read_bytes() for p in (tmp_path / "full").iterdir()}
    assert main(["compact", "--model", str(tmp_path / "full"), "--out", str(tmp_path / "earlier")]) == 2
    assert "pass --overwrite to replace it" in capsys.readouterr().err
    argv = ["compact", "--model", str(tmp_path / "full"), "--out", str(tmp_path / "full"), "--overwrite"]
    assert main(argv) == 2
    assert "holds this command's input" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (tmp_path / "full").iterdir()} == before


@pytest.mark.parametrize("option, value", [("--vocab", "-1"), ("--dim", "0"), ("--bigrams", "-2")])
def test_sizes_out_of_range_are_usage_errors(option, value, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["compact", "--out", str(tmp_path / "c"), option, value])
    assert stop.value.code == 2 and f"argument {option}: must be" in capsys.readouterr().err
