import json

import pytest

from parasent.cli import main


def test_head_train_evaluate_predict(task_data_dir, tmp_path, capsys):
    run = tmp_path / "run"
    args = [
        "head",
        "train",
        "--data-dir",
        str(task_data_dir),
        "--out",
        str(run),
        "--task",
        "sick-relatedness",
    ]
    args += [
        "--vectors",
        "wordvecs/mini16.txt.gz",
        "--epochs",
        "2",
        "--lr",
        "0.05",
        "--hidden",
        "8",
        "--quiet",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "best dev epoch" in out and "dev" in out and "test" in out and "mse" in out
    results = json.loads((run / "results.json").read_text())
    assert main(["head", "evaluate", str(run), "--split", "test", "--data-dir", str(task_data_dir)]) == 0
    shown = capsys.readouterr().out
    assert f"{results['test']['pearson']:.2f}" in shown
    assert main(["head", "predict", str(run), "a big car", "the large automobile"]) == 0
    score, distribution = capsys.readouterr().out.strip().split("\t")
    assert 1 <= float(score) <= 5 and distribution.startswith("1:")
    assert main(["head", "predict", str(run), "only one"]) == 2
    assert "sick-relatedness takes two sentences" in capsys.readouterr().err
    inputs = tmp_path / "pairs.txt"
    inputs.write_text("a big car\tthe large automobile\n\tthe large automobile\nmy car\ta car\n")
    assert main(["head", "predict", "--model", str(run), str(inputs)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 3  # a prediction for every line, as before
    assert "note: first sentences: 1 blank line(s)" in captured.err
    assert "second sentences" not in captured.err and len(captured.err.splitlines()) == 1


def test_head_train_needs_init_for_universal(task_data_dir, tmp_path, capsys):
    code = main(
        ["head", "train", "--data-dir", str(task_data_dir), "--out", str(tmp_path), "--setting", "universal"]
    )
    assert code == 2 and "needs init" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["train", "evaluate", "predict"])
def test_head_help(action, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["head", action, "--help"])
    assert exit_info.value.code == 0 and "usage: parasent head" in capsys.readouterr().out


def test_head_train_plot_draws_the_dev_curve(task_data_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "dev.png"
    args = ["head", "train", "--data-dir", str(task_data_dir), "--out", str(tmp_path / "run"), "--task",
            "sst-binary", "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "2", "--hidden", "8", "--quiet",
            "--plot", str(png)]  # fmt: skip
    assert main(args) == 0
    assert f"plot: {png}" in capsys.readouterr().out
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
