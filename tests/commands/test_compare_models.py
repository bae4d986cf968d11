import json

from parasent.cli import main


def test_compare_prints_the_table_and_json(mini_data_dir, tmp_path, capsys):
    vectors = mini_data_dir / "wordvecs/mini16.txt.gz"
    run = tmp_path / "run"
    assert (
        main(
            [
                "train",
                "--data-dir",
                str(mini_data_dir),
                "--out",
                str(run),
                "--quiet",
                "--epochs",
                "1",
                "--vectors",
                str(vectors),
                "--batch-size",
                "16",
            ]
        )
        == 0
    )
    capsys.readouterr()
    out = tmp_path / "cmp.json"
    code = main(
        [
            "compare-models",
            f"glove=vectors:{vectors}",
            f"trained={run}",
            "--reference",
            "glove",
            "--suite",
            "sts2014",
            "--data-dir",
            str(mini_data_dir),
            "--json",
            str(out),
            "--markdown",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith("| dataset | n | glove | trained | p (trained) |")
    result = json.loads(out.read_text())
    assert [m["name"] for m in result["models"]] == ["glove", "trained"]
    assert "wilcoxon_p" in result["models"][1]["datasets"][0]
    assert len(result["models"][0]["datasets"]) == 6
