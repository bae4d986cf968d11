import json

import pytest

from parasent.cli import main
from parasent.sts.system import STSEnsemble

pytest.importorskip("sklearn")


def test_sts_system_fine_tunes_fits_and_reports(mini_data_dir, tmp_path, capsys):
    raw = tmp_path / "raw"
    assert (
        main(
            [
                "train",
                "--data-dir",
                str(mini_data_dir),
                "--out",
                str(raw),
                "--quiet",
                "--epochs",
                "2",
                "--vectors",
                "wordvecs/mini16.txt.gz",
                "--batch-size",
                "16",
            ]
        )
        == 0
    )
    capsys.readouterr()
    out = tmp_path / "dcu"
    code = main(
        [
            "sts-system",
            "--data-dir",
            str(mini_data_dir),
            "--model",
            str(raw),
            "--out",
            str(out),
            "--epochs",
            "2",
            "--quiet",
            "--sweep",
            "3.5:4:0.5",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    for column in ("raw", "task-internal", "synthetic", "lexical only", "ensemble", "fusion", "TRANSDUCTIVE"):
        assert column in printed
    results = json.loads((out / "results.json").read_text())
    assert [m["name"] for m in results["comparison"]["models"]][-1] == "fusion"
    assert [s["threshold"] for s in results["sweep"]] == [3.5, 4.0]
    means = {m["name"]: m["mean_pearson"] for m in results["comparison"]["models"]}
    assert means["ensemble"] > 20  # the regressor learns the gold scale from the training pairs
    ensemble = STSEnsemble.load(out / "ensembles" / "fusion", mini_data_dir)
    scores = ensemble.predict([("a big car", "a large automobile"), ("a dog", "the road")])
    assert scores.shape == (2,) and ((scores >= 0) & (scores <= 5)).all()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--threshold", "9"], "threshold (--threshold) must be within the gold scores' 0-5"),
        (["--synthetic", "file:missing.txt"], "missing.txt: no such file"),
        (["--synthetic", "python:nowhere_module:f"], "paraphrase generator 'python:nowhere_module:f'"),
    ],
)
def test_impossible_options_stop_before_any_fine_tuning(extra, message, mini_data_dir, tmp_path, capsys):
    out = tmp_path / "dcu"
    argv = ["sts-system", "--data-dir", str(mini_data_dir), "--model", "default", "--out", str(out), *extra]
    assert main(argv) == 2
    assert message in capsys.readouterr().err and not out.exists()


def test_the_caption_names_each_ensemble_once_without_the_synthetic_model():
    from parasent.sts.pipeline import SystemResults

    caption = SystemResults(None, 3.8, 1, None).legend()  # type: ignore[arg-type]
    assert (
        "/ =" not in caption and "lexical only / ensemble (raw + task-internal cosines) = gradient" in caption
    )
