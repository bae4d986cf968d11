import json

import pytest

from parasent.cli import main
from parasent.training.config import TrainConfig
from parasent.training.run import train

VECTORS = "vectors:wordvecs/mini16.txt.gz"


@pytest.fixture(scope="module")
def trained(mini_data_dir, tmp_path_factory):
    run = tmp_path_factory.mktemp("pp") / "run"
    train(
        TrainConfig.from_flat(vectors="wordvecs/mini16.txt.gz", epochs=2, batch_size=16, seed=1),
        run,
        data_dir=mini_data_dir,
        progress=False,
        say=lambda _: None,
    )
    return str(run)


def analyze(data_dir, *args):
    return main(["analyze", *args, "--data-dir", str(data_dir)])


def test_length_and_significance(mini_data_dir, trained, tmp_path, capsys):
    assert (
        analyze(
            mini_data_dir, "length", f"PP={trained}", f"avg={VECTORS}", "--json", str(tmp_path / "l.json")
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "max length" in out and "PP" in out and "avg" in out
    assert len(json.loads((tmp_path / "l.json").read_text())["bins"]) == 7
    assert analyze(mini_data_dir, "significance", trained, VECTORS, "--suite", "sts2014") == 0
    out = capsys.readouterr().out
    assert "sts2014/images" in out and "Wilcoxon signed-rank" in out


def test_markdown_tables(mini_data_dir, trained, capsys):
    assert analyze(mini_data_dir, "length", f"PP={trained}", f"avg={VECTORS}", "--markdown") == 0
    lines = capsys.readouterr().out.splitlines()
    table = [line for line in lines if line.startswith("|")]
    assert table[0] == "| max length | pairs | PP | avg |" and table[1] == "|---|---:|---:|---:|"
    assert len(table) == 2 + 7 and lines[0].startswith("Pearson r x100 by the max number of tokens")
    assert analyze(mini_data_dir, "norm-weights", trained, "--markdown") == 0
    assert "| model | transfer mean pearson |" in capsys.readouterr().out


def test_oov_words_norm_weights(mini_data_dir, trained, capsys):
    assert analyze(mini_data_dir, "oov", trained, "--min-count", "5") == 0
    out = capsys.readouterr().out
    assert "count<5 %" in out and "twitter2015/test" in out
    assert analyze(mini_data_dir, "oov", trained, "--reference", "p75") == 0
    assert "dev. from p75" in capsys.readouterr().out
    assert (
        analyze(mini_data_dir, "words", f"PP={trained}", f"init={VECTORS}", "--words", "car,Happy", "-k", "3")
        == 0
    )
    out = capsys.readouterr().out
    assert "happy" in out and "PP nearest neighbours" in out and "largest L2 norm" in out
    assert analyze(mini_data_dir, "norm-weights", trained) == 0
    out = capsys.readouterr().out
    assert "initial vectors x L1 norm of trained vectors" in out and "1 / training frequency" in out


def test_errors(mini_data_dir, trained, tmp_path, capsys):
    assert analyze(mini_data_dir, "errors", f"PP={trained}", f"avg={VECTORS}", "--select", "2") == 0
    out = capsys.readouterr().out
    assert "sts2014/images#" in out and "*" in out
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("4.2\ta big car\ta large automobile\n0.5\tthe dog\ta small house\n")
    assert analyze(mini_data_dir, "errors", trained, VECTORS, "--pairs-file", str(pairs)) == 0
    assert "a large automobile" in capsys.readouterr().out
    assert (
        analyze(mini_data_dir, "errors", trained, VECTORS, "--index", "sts2015/images#2,sts2014/images#40")
        == 0
    )
    out = capsys.readouterr().out
    assert out.index("sts2015/images#2") < out.index("sts2014/images#40")
    assert analyze(mini_data_dir, "errors", trained, VECTORS, "--index", "sts2014/images#41") == 2
    assert "has 40 pairs; pair 41 does not exist" in capsys.readouterr().err
    assert analyze(mini_data_dir, "errors", trained) == 2
    assert "at least two models" in capsys.readouterr().err


def test_learning_curve_command(mini_data_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    args = ["learning-curve", "--out", str(tmp_path), "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "1"]
    args += [
        "--smallest",
        "1000",
        "--suite",
        "sts2012",
        "--batch-size",
        "16",
        "--orders",
        "random",
        "--quiet",
    ]
    assert analyze(mini_data_dir, *args) == 0
    out = capsys.readouterr().out
    assert "random" in out and "baseline averaged mini16.txt.gz" in out
    assert (tmp_path / "learning_curve.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "analysis", ["length", "oov", "learning-curve", "words", "norm-weights", "errors", "significance"]
)
def test_analyze_help(analysis, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["analyze", analysis, "--help"])
    assert exit_info.value.code == 0 and "usage: parasent analyze" in capsys.readouterr().out
