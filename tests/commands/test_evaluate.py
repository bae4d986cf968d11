import gzip
import json

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.text.word_vectors import read_word_vectors


def _ratings(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("".join(f"{s}\t[NP]\t{a}\t{b}\t1.0,2.0\n" for s, a, b in rows))


def test_evaluate_model_on_the_ppdb_suite(mini_data_dir, tmp_path, capsys):
    data = tmp_path / "data"
    words = ["car", "automobile", "vehicle", "dog", "puppy", "road", "street", "eat", "house", "tiny"]
    rows = [(5.0 - (i % 4), f"the {words[i % 10]}", f"a {words[(i * 3) % 10]}") for i in range(40)]
    _ratings(data / "paraphrase/ppdb_human_labels/ppdb-sample.tsv.gz", rows)
    _ratings(data / "paraphrase/ppdb_human_labels/wiki-sample.tsv.gz", rows[:25])
    model = SentenceModel.from_vectors(read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz"))
    model.save(tmp_path / "model")
    out = tmp_path / "ppdb.json"
    args = ["evaluate", "--model", str(tmp_path / "model"), "--suite", "ppdb", "--data-dir", str(data)]
    assert main([*args, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pearson spearman" in printed
    lines = {line.split()[0]: line.split() for line in printed.splitlines() if line.startswith("ppdb2015/")}
    assert lines["ppdb2015/ppdb"][1] == "40" and lines["ppdb2015/wiki"][1] == "25"
    result = json.loads(out.read_text())
    by_name = {d["name"]: d for d in result["datasets"]}
    assert float(lines["ppdb2015/ppdb"][-1]) == round(by_name["ppdb2015/ppdb"]["spearman"], 2)
    assert float(lines["ppdb2015/wiki"][-2]) == round(by_name["ppdb2015/wiki"]["pearson"], 2)
    assert (
        result["primary_metric"] == "ppdb_mean_spearman" and "Wikipedia" in by_name["ppdb2015/wiki"]["label"]
    )


def test_json_dash_is_stdout_and_the_table_goes_to_stderr(mini_data_dir, tmp_path, capsys, monkeypatch):
    model = SentenceModel.from_vectors(read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz"))
    model.save(tmp_path / "model")
    monkeypatch.chdir(tmp_path)
    argv = [
        "evaluate",
        "--model",
        str(tmp_path / "model"),
        "--suite",
        "sts2016",
        "--data-dir",
        str(mini_data_dir),
    ]
    assert main([*argv, "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["suite"] == "sts2016" and "pearson spearman" in err
    assert not (tmp_path / "-").exists()  # never a file named '-'


def test_the_data_directory_rule_and_help_are_the_same_for_every_command(capsys, monkeypatch, tmp_path):
    import argparse

    from parasent.cli import COMMANDS
    from parasent.support import paths

    monkeypatch.delenv("PARASENT_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["data", "list", "sts2016"]) in (0, 1)  # 1: the set is not there (a clean machine)
    # data list looks where evaluate reads: the same rule, not a folder of its own
    assert f"{paths.resolve_data_dir()}: " in capsys.readouterr().err
    helps = {}
    for name in COMMANDS:
        parser = argparse.ArgumentParser()
        module = __import__(f"parasent.commands.{name.replace('-', '_')}", fromlist=["register"])
        try:
            module.register(parser.add_subparsers())
        except ModuleNotFoundError:
            continue  # a command whose parser needs an extra
        for action in _all_actions(parser):
            if "--data-dir" in action.option_strings:
                helps.setdefault(action.help, []).append(name)
    assert len(helps) >= 10  # one text per command (and per data/head action), saying what it is for
    assert all(paths.RULE in text for text in helps)


def _all_actions(parser):
    for action in parser._actions:
        yield action
        for sub in getattr(action, "choices", None) or {}:
            if isinstance(action.choices, dict):
                yield from _all_actions(action.choices[sub])


def test_no_data_directory_says_where_it_looked_and_how_to_set_it(monkeypatch, tmp_path):
    import pytest

    from parasent.errors import DataNotFoundError
    from parasent.support import paths

    monkeypatch.delenv("PARASENT_DATA", raising=False)
    monkeypatch.setattr(paths, "default_data_candidates", lambda: [tmp_path / "a", tmp_path / "b"])
    with pytest.raises(DataNotFoundError) as error:
        paths.resolve_data_dir()
    message = str(error.value)
    assert str(tmp_path / "a") in message and "--data-dir" in message and "PARASENT_DATA" in message
    assert "parasent data fetch" in message
    assert paths.data_dir_location() == paths.fetched_data_dir()  # where fetch puts it, evaluate looks last


def test_an_empty_or_blank_evaluation_file_is_named(mini_data_dir, tmp_path, capsys):
    import shutil

    import numpy as np

    from parasent.text.word_vectors import WordVectors

    data = tmp_path / "data"
    shutil.copytree(mini_data_dir, data)
    rng = np.random.default_rng(0)
    model = tmp_path / "m"
    SentenceModel.from_vectors(WordVectors(["the", "car"], rng.normal(size=(2, 4)).astype(np.float32))).save(
        model
    )
    target = data / "sts" / "semeval" / "2012" / "MSRpar.test.tsv"
    for content in ("", "\n  \n\t\n"):
        target.write_text(content)
        code = main(["evaluate", "--model", str(model), "--data-dir", str(data), "--suite", "sts2012/MSRpar"])
        err = capsys.readouterr().err
        assert code == 2 and err == (
            f"parasent: error: {target}: no pairs to evaluate (sts2012/MSRpar: the file is empty or holds only "
            "blank lines)\n"
        )


def test_json_never_replaces_a_file_unasked(mini_data_dir, tmp_path, capsys):
    model = SentenceModel.from_vectors(read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz"))
    model.save(tmp_path / "model")
    out = tmp_path / "notes.json"
    out.write_text("my own notes\n")
    args = [
        "evaluate",
        "--model",
        str(tmp_path / "model"),
        "--suite",
        "sick",
        "--data-dir",
        str(mini_data_dir),
    ]
    assert main([*args, "--json", str(out)]) == 2  # before any work
    error = capsys.readouterr().err.strip().splitlines()
    assert error == [
        f"parasent: error: --json {out}: exists; not replacing it (pass --overwrite to replace it)"
    ]
    assert out.read_text() == "my own notes\n"
    assert main([*args, "--json", str(out), "--overwrite"]) == 0
    assert json.loads(out.read_text())["datasets"]


def test_a_json_file_that_appears_while_the_work_runs_is_kept(tmp_path):
    import pytest

    from parasent.commands.common import write_json
    from parasent.errors import OutputExistsError

    out = tmp_path / "r.json"
    out.write_text("another writer's\n")  # after the check, before the write
    with pytest.raises(OutputExistsError):
        write_json(str(out), {"a": 1}, overwrite=False)
    assert out.read_text() == "another writer's\n" and list(tmp_path.iterdir()) == [out]
    write_json(str(out), {"a": 1}, overwrite=True)
    assert json.loads(out.read_text()) == {"a": 1}


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WORDS = "cat dog man woman car guitar plays runs eats red blue big small house tree".split()


def _pairs_files(directory):
    """A labelled, a scored and an unscored (retrieval) file of 40 pairs each."""
    import random

    rng, files = random.Random(0), {}
    rows = {"labelled": [], "sts": [], "tsv": []}
    for i in range(40):
        first, other = " ".join(rng.sample(WORDS, 5)), " ".join(rng.sample(WORDS, 5))
        rows["labelled"].append(f"{i % 2}\t{first}\t{first if i % 2 else other} now")
        rows["sts"].append(f"{rng.uniform(0, 5):.2f}\t{first}\t{other}")
        rows["tsv"].append(f"{first}\t{first} {i}")
    for name, lines in rows.items():
        files[name] = directory / f"{name}.tsv"
        files[name].write_text("\n".join(lines) + "\n")
    return files


def test_plot_draws_each_kind_of_pairs_as_a_png(tmp_path, capsys):
    import pytest

    pytest.importorskip("matplotlib")
    for fmt, path in _pairs_files(tmp_path).items():
        png = tmp_path / f"{fmt}.png"
        assert main(["evaluate", "--model", "default", "--pairs", f"{path}:{fmt}", "--plot", str(png)]) == 0
        data = png.read_bytes()
        assert data[:8] == PNG_MAGIC and len(data) > 1000, fmt
        assert f"plot: {png}" in capsys.readouterr().out
    two = tmp_path / "two.png"
    argv = ["evaluate", "--model", "default", "--model", "default", "--pairs", str(tmp_path / "labelled.tsv")]
    assert main([*argv, "--plot", str(two)]) == 0 and two.read_bytes()[:8] == PNG_MAGIC


def test_plot_is_refused_before_any_work_where_it_cannot_be_written(tmp_path, capsys, monkeypatch):
    import sys

    files = _pairs_files(tmp_path)
    png = tmp_path / "mine.png"
    png.write_bytes(b"my own figure")
    argv = ["evaluate", "--model", "default", "--pairs", str(files["labelled"])]
    for extra, message in [
        (["--plot", str(png)], f"--plot {png}: exists; not replacing it (pass --overwrite to replace it)"),
        (["--plot", str(tmp_path / "f.pdf")], "the figure is written as PNG; name a file ending in .png"),
        (["--plot", str(tmp_path / "b.png"), "--json", str(tmp_path / "b.png"), "--overwrite"], "both name"),
    ]:
        assert main([*argv, *extra]) == 2
        error = capsys.readouterr().err.strip()
        assert error.count("\n") == 0 and message in error
    assert png.read_bytes() == b"my own figure"
    assert main(["evaluate", "--model", "default", "--suite", "sick", "--plot", str(tmp_path / "s.png")]) == 2
    assert "--plot draws the figures of your --pairs" in capsys.readouterr().err
    named = tmp_path / "pairs.png"  # the input itself, named as the figure
    named.write_text(files["labelled"].read_text())
    assert main(["evaluate", "--pairs", f"{named}:labelled", "--plot", str(named), "--overwrite"]) == 2
    assert "is this command's input" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main([*argv, "--plot", str(tmp_path / "new.png")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("parasent: error: a plot needs matplotlib") and "'.[analysis]'" in error
    assert "Traceback" not in error


def test_your_pairs_need_no_data_directory(mini_data_dir, tmp_path, capsys, monkeypatch):
    """A user who installed the package has their file and no data directory: `evaluate --pairs`
    scores it (a suite still needs the directory, and says so)."""
    import parasent.support.paths as paths

    monkeypatch.delenv(paths.ENV_VAR, raising=False)
    monkeypatch.setattr(paths, "default_data_candidates", lambda: [])
    model = SentenceModel.from_vectors(read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz"))
    model.save(tmp_path / "model")
    pairs = tmp_path / "mine.tsv"
    pairs.write_text("".join(f"{i % 2}\tthe car {i}\ta dog {i}\n" for i in range(20)))
    assert main(["evaluate", "--model", str(tmp_path / "model"), "--pairs", f"{pairs}:labelled"]) == 0
    assert "average precision" in capsys.readouterr().out
    assert main(["evaluate", "--model", str(tmp_path / "model"), "--suite", "sts2016"]) != 0
    assert "no data directory found" in capsys.readouterr().err
