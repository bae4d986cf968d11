from parasent.cli import main
from parasent.experiments.compare import read_runs


def test_compare_ppdb_table_trains_both_selections(mini_data_dir, tmp_path, capsys):
    out = tmp_path / "table3"
    args = ["compare", "--ppdb-table", "--data-dir", str(mini_data_dir), "--out", str(out), "--quiet"]
    args += ["--vectors", "wordvecs/mini16.txt.gz", "--variants", "pp", "--epochs", "2", "--seeds", "1"]
    assert main([*args, "--max-pairs", "150"]) == 0
    printed = capsys.readouterr().out
    assert "| model | PPDB dev (oracle), PPDB sel." in printed and "| PP |" in printed
    ppdb, sts = read_runs(out / "ppdb-selection"), read_runs(out / "sts-selection")
    assert ppdb[0].config["validation"] == "ppdb-dev" and sts[0].config["validation"] == "validation"
    assert ppdb[0].config["protocol"] == sts[0].config["protocol"] == "ppdb"
    # the PPDB-selected run's dev score is its selection score (the oracle column)
    dev = ppdb[0].extra["ppdb-dev"]
    assert abs(dev["aggregates"][dev["primary_metric"]] - ppdb[0].validation) < 1e-6
    assert {"ppdb-dev", "ppdb-test"} <= set(sts[0].extra)
    assert (out / "table3.md").read_text().startswith("| model |")


def test_compare_protocol_and_extra_suites(mini_data_dir, tmp_path, capsys):
    out = tmp_path / "c"
    args = ["compare", "--data-dir", str(mini_data_dir), "--out", str(out), "--quiet", "--protocol", "ppdb"]
    args += ["--vectors", "wordvecs/mini16.txt.gz", "--variants", "pp", "--epochs", "1", "--seeds", "1"]
    assert main([*args, "--max-pairs", "100", "--also-evaluate", "ppdb"]) == 0
    assert "best epoch on ppdb-dev (protocol ppdb" in capsys.readouterr().out
    assert read_runs(out)[0].extra["ppdb"]["primary_metric"] == "ppdb_mean_spearman"


def test_compare_never_writes_into_a_folder_of_the_users(mini_data_dir, tmp_path, capsys):
    """compare replaced a table.md of the user's in --out (it has no --overwrite)."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "table.md").write_text("# my own notes\n")
    argv = f"compare --data-dir {mini_data_dir} --out {out} --preset ci --variants pp".split()
    assert main(argv) == 2
    assert "holds table.md and no earlier comparison" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["table.md"] and (
        out / "table.md"
    ).read_text() == "# my own notes\n"


def test_a_baseline_file_that_is_not_a_comparisons_is_named(tmp_path):
    import pytest

    from parasent.experiments.compare import _cached_baseline

    (tmp_path / "baseline.json").write_text("my baseline\n")
    with pytest.raises(ValueError, match=r"baseline.json: not the baseline record of a comparison"):
        _cached_baseline(tmp_path / "baseline.json")


def test_a_comparison_stopped_in_its_first_run_is_continued_not_refused(tmp_path):
    """Before its first run finishes a comparison has no runs.jsonl, only its baseline and the
    run's folder (its checkpoint): that is compare's own, to continue."""
    import pytest

    from parasent.commands.compare import _check_comparison_dir
    from parasent.errors import OptionError
    from parasent.experiments.variants import all_variants

    out = tmp_path / "cmp"
    (out / all_variants()[0].key / "seed-1").mkdir(parents=True)
    (out / "baseline.json").write_text("{}\n")
    _check_comparison_dir(out, ppdb=False)
    (out / "notes.txt").write_text("mine\n")
    with pytest.raises(OptionError, match="holds notes.txt and no earlier comparison"):
        _check_comparison_dir(out, ppdb=False)
