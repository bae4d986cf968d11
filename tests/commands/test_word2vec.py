import pytest

from parasent import load
from parasent.cli import main

pytest.importorskip("gensim")


def test_word2vec_baseline_is_an_averaging_model_over_the_same_words(mini_data_dir, tmp_path, capsys):
    for arch in ("cbow", "skipgram"):
        out = tmp_path / arch
        args = ["word2vec", "--data-dir", str(mini_data_dir), "--out", str(out), "--arch", arch, "--quiet"]
        assert main(args + ["--dim", "8", "--min-count", "1", "--epochs", "2"]) == 0
        model = load(out)
        assert model.dim == 8 and model.tokenizer.unknown == "skip"
        assert model.metadata["word2vec"]["arch"] == arch
        assert model.metadata["word2vec"]["alpha"] == (0.05 if arch == "cbow" else 0.025)
        assert "car" in model.tokenizer.vocabulary()
    a = load(tmp_path / "cbow").encode(["the big car"])
    again_dir = tmp_path / "again"
    main(
        [
            "word2vec",
            "--data-dir",
            str(mini_data_dir),
            "--out",
            str(again_dir),
            "--quiet",
            "--dim",
            "8",
            "--min-count",
            "1",
            "--epochs",
            "2",
        ]
    )
    assert (load(again_dir).encode(["the big car"]) == a).all()  # one worker and a seed: reproducible
