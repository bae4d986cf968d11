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


def test_an_earlier_model_is_kept_unasked_and_an_empty_corpus_is_one_line(mini_data_dir, tmp_path, capsys):
    out = tmp_path / "w2v"
    args = ["word2vec", "--data-dir", str(mini_data_dir), "--out", str(out), "--quiet", "--dim", "8"]
    args += ["--min-count", "1", "--epochs", "1"]
    assert main(args) == 0
    before = (out / "model.safetensors").read_bytes()
    assert main(args + ["--seed", "2"]) == 2
    assert "pass --overwrite to replace it" in capsys.readouterr().err
    assert (out / "model.safetensors").read_bytes() == before
    assert main(args + ["--seed", "2", "--overwrite"]) == 0
    assert (out / "model.safetensors").read_bytes() != before
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    argv = [
        "word2vec",
        "--data-dir",
        str(mini_data_dir),
        "--corpus",
        str(empty),
        "--out",
        str(tmp_path / "e"),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "nothing to train word2vec on" in err and "Traceback" not in err
