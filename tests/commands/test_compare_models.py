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


def test_compare_models_on_your_pairs_is_evaluates_side_by_side_table(tmp_path, capsys):
    import pytest

    from parasent.core.model import load
    from parasent.evaluation.side_by_side import pairs_side_by_side

    lines = [f"{i % 2}\tthe cat {i} sat\t{'the cat' if i % 2 else 'a dog'} {i} sat down" for i in range(40)]
    pairs = tmp_path / "p.tsv"
    pairs.write_text("\n".join(lines) + "\n")
    out = tmp_path / "side.json"
    argv = ["compare-models", "--pairs", str(pairs), "default", "again=default", "--json", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("pairs: p.tsv:labelled (40 labelled pairs); headline: average precision")
    assert "\ndefault " in printed and "\nagain " in printed and "sentences/s" in printed
    result = json.loads(out.read_text())
    expected = pairs_side_by_side([("default", load("default"))], str(pairs)).reports[0].figures
    assert [m["model"] for m in result["models"]] == ["default", "again"]
    assert result["models"][0]["figures"] == expected
    assert main([*argv[:-2], "--reference", "again"]) == 2
    assert "--reference: a suite's options" in capsys.readouterr().err
    pytest.importorskip("matplotlib")
    png = tmp_path / "side.png"
    assert main([*argv[:-2], "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
