import json

import numpy as np
import pytest

from parasent.cli import main


def test_evaluate_vectors_writes_json(mini_data_dir, tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main(
        [
            "evaluate",
            "--vectors",
            str(mini_data_dir / "wordvecs/mini16.txt.gz"),
            "--suite",
            "transfer",
            "--json",
            str(out),
            "--data-dir",
            str(mini_data_dir),
        ]
    )
    assert code == 0
    result = json.loads(out.read_text())
    assert len(result["datasets"]) == 21
    assert set(result["datasets"][0]) >= {"name", "n", "pearson", "spearman"}
    assert result["datasets"][0]["name"] == "sts2012/MSRpar" and result["datasets"][0]["n"] == 40
    assert "transfer_mean_pearson" in result["aggregates"]
    assert "transfer mean over 21 sets" in capsys.readouterr().out


def test_train_encode_similarity(mini_data_dir, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    assert (
        main(
            [
                "train",
                "--data-dir",
                str(mini_data_dir),
                "--out",
                str(run),
                "--vectors",
                "wordvecs/mini16.txt.gz",
                "--epochs",
                "2",
                "--batch-size",
                "16",
                "--quiet",
            ]
        )
        == 0
    )
    assert "best validation" in capsys.readouterr().out
    sentences = tmp_path / "in.txt"
    sentences.write_text("a big car\nthe large automobile\n\n")
    assert main(["encode", str(sentences), "--model", str(run), "-o", str(tmp_path / "v.npy")]) == 0
    vectors = np.load(tmp_path / "v.npy")
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32
    assert (
        main(["encode", str(sentences), "--model", str(run), "-o", str(tmp_path / "v.jsonl"), "--normalize"])
        == 0
    )
    rows = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert rows[1]["text"] == "the large automobile" and len(rows[1]["embedding"]) == 16
    capsys.readouterr()
    monkeypatch.setenv("PARASENT_MODEL", str(run))
    assert main(["similarity", "a big car", "a big car"]) == 0
    assert capsys.readouterr().out.strip() == "1.0000"


def test_bad_input_reports_path_and_line(tmp_path, capsys):
    vectors = tmp_path / "v.txt"
    vectors.write_text("the 1 2\ncat 3\n")
    assert main(["evaluate", "--vectors", str(vectors), "--data-dir", str(tmp_path)]) == 2
    assert f"{vectors}:2: expected a word and 2 numbers" in capsys.readouterr().err


def test_missing_data_dir_says_how_to_fix(tmp_path, capsys):
    assert main(["evaluate", "--vectors", "x", "--data-dir", str(tmp_path / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_missing_model_is_an_error(tmp_path, capsys):
    assert main(["similarity", "a", "b", "--model", str(tmp_path / "none")]) == 2
    assert "not a model directory" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["train", "evaluate", "encode", "similarity", "distill", "export"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: parasent" in capsys.readouterr().out


def test_encode_streams_stdin_to_npy(tmp_path, monkeypatch, capsys):
    import io

    from parasent.core.model import SentenceModel
    from parasent.text import WordTokenizer

    tokenizer = WordTokenizer.from_vocabulary(["a", "b"])
    table = np.arange(tokenizer.vocab_size * 2, dtype=np.float32).reshape(-1, 2)
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 2}
    SentenceModel(tokenizer, config, {"embedding.weight": table}).save(tmp_path / "m")
    monkeypatch.setattr("sys.stdin", io.StringIO("a\nb\na b\n\nb"))
    out = tmp_path / "v.npy"
    assert main(["encode", "-", "--model", str(tmp_path / "m"), "-o", str(out), "--batch-size", "2"]) == 0
    vectors = np.load(out)
    assert vectors.shape == (5, 2)
    np.testing.assert_allclose(vectors[2], (table[2] + table[3]) / 2)
    assert vectors[3].tolist() == [0.0, 0.0]
    assert "encoded 5 sentence(s)" in capsys.readouterr().err


def test_lenient_mode_skips_and_reports(mini_data_dir, tmp_path, capsys):
    vectors = tmp_path / "v.txt"
    vectors.write_text("the 1 2\ncat 3\ndog 4 5\n")
    assert main(["evaluate", "--vectors", str(vectors), "--data-dir", str(mini_data_dir), "--lenient"]) == 0
    assert "skipped 1 malformed line(s)" in capsys.readouterr().err
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a big car\ta large automobile\nbroken line\nthe quick dog\tthe fast puppy\n")
    run = tmp_path / "run"
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(run), "--pool", "none", "--pairs", str(pairs),
            "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "1", "--quiet"]  # fmt: skip
    assert main(args) == 2
    assert f"{pairs}:2: expected 's1<TAB>s2'" in capsys.readouterr().err
    assert main([*args, "--lenient"]) == 0
    assert "skipped 1 malformed line(s)" in capsys.readouterr().out


def test_train_options_of_the_encoders(mini_data_dir, tmp_path, capsys):
    run = tmp_path / "dan"
    args = [
        "train",
        "--data-dir",
        str(mini_data_dir),
        "--out",
        str(run),
        "--vectors",
        "wordvecs/mini16.txt.gz",
    ]
    args += ["--epochs", "1", "--batch-size", "16", "--quiet", "--encoder", "dan", "--dropout", "0.1"]
    args += ["--encoder-option", "layers=2", "--encoder-option", "activation=relu", "--lambda-c", "1e-4"]
    assert main(args) == 0
    config = json.loads((run / "model" / "config.json").read_text())
    assert config["encoder"] == {
        "name": "dan",
        "vocab_size": config["encoder"]["vocab_size"],
        "embedding_dim": 16,
        "layers": 2,
        "activation": "relu",
        "init": "random",
    }
    assert config["metadata"]["training"]["encoder"]["dropout"] == 0.1
    more = ["train", "--data-dir", str(mini_data_dir), "--out", str(tmp_path / "more"), "--epochs", "1"]
    more += ["--batch-size", "16", "--quiet", "--encoder", "dan", "--init-model", str(run)]
    assert main(more) == 0
    assert "best validation" in capsys.readouterr().out
    assert main(args[:-2] + ["--encoder-option", "nonsense", "--overwrite"]) == 2
    assert "expected KEY=VALUE" in capsys.readouterr().err
    assert main(args) == 2  # the finished run is kept: --resume or --overwrite
    assert f"--out {run}: holds checkpoint.safetensors, log.jsonl, model; --resume" in capsys.readouterr().err
    (
        run / "checkpoint.safetensors"
    ).unlink()  # a run killed before its first checkpoint: --resume cannot help
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "no run to resume there (no checkpoint" in err and "--resume continues" not in err
    assert main([*args, "--out", str(run / "model"), "--overwrite"]) == 2
    assert "is a model directory" in capsys.readouterr().err


def test_tune_command(mini_data_dir, tmp_path, capsys):
    out = tmp_path / "tune"
    args = [
        "tune",
        "--data-dir",
        str(mini_data_dir),
        "--out",
        str(out),
        "--vectors",
        "wordvecs/mini16.txt.gz",
    ]
    args += ["--epochs", "1", "--batch-size", "16", "--quiet", "--encoder", "rnn"]
    args += ["--grid", "encoder_options.activation=tanh,relu", "--grid", "lambda_c=1e-4"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "| rank | trial | encoder_options.activation | lambda_c |" in printed and "best: trial" in printed
    trials = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    assert [t["config"]["encoder"]["options"]["activation"] for t in trials] == ["tanh", "relu"]
    assert all(
        t["config"]["objective"]["lambda_c"] == 1e-4 and t["config"]["encoder"]["name"] == "rnn"
        for t in trials
    )


def test_compare_command(mini_data_dir, tmp_path, capsys):
    out = tmp_path / "compare"
    args = [
        "compare",
        "--data-dir",
        str(mini_data_dir),
        "--out",
        str(out),
        "--vectors",
        "wordvecs/mini16.txt.gz",
    ]
    args += ["--variants", "pp", "charagram", "--epochs", "1", "--seeds", "1", "--quiet"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "| dataset | avg. mini16.txt.gz | PP | CHARAGRAM |" in printed and "total time" in printed
    assert (out / "table.md").read_text().startswith("| dataset |")


def test_train_help_names_every_encoder(capsys):
    from parasent.encoders import ENCODERS

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in ENCODERS)
