"""What a written file may record of a path: relative paths as given, absolute ones made
relative to the working directory or cut to their name (a model's metadata, docs/adapt.md)."""

from __future__ import annotations

from parasent.support.paths import portable, portable_path


def test_absolute_paths_become_relative_or_their_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert portable_path("runs/ft") == "runs/ft"
    assert portable_path(tmp_path / "runs" / "ft") == "runs/ft"
    assert portable_path("/elsewhere/data/pairs.tsv") == "pairs.tsv"


def test_portable_rewrites_paths_inside_strings_and_leaves_text_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    metadata = {
        "pair_files": [[f"{tmp_path}/mine.tsv", "sts"]],
        "validation": f"{tmp_path}/dev.tsv:labelled",
        "build": {"data": "standard pool + the teacher text of /srv/shared/data", "epochs": 8},
        "text": "and/or sts2012/MSRvid file:/x/y.txt ./here",
    }
    assert portable(metadata) == {
        "pair_files": [["mine.tsv", "sts"]],
        "validation": "dev.tsv:labelled",
        "build": {"data": "standard pool + the teacher text of data", "epochs": 8},
        "text": "and/or sts2012/MSRvid file:y.txt ./here",
    }


def test_holds_sees_the_directory_itself_what_lies_inside_and_links(tmp_path):
    from parasent.support.paths import holds

    run = tmp_path / "run"
    (run / "model").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "link").symlink_to(run / "model")
    assert holds(run, run) and holds(run, run / "model") and holds(run, tmp_path / "link")
    assert not holds(run / "model", run)  # the output inside the input replaces nothing of it
    assert not holds(run, tmp_path / "other")
    assert not holds(run, "default")  # a shipped model's name, not a path here
    assert not holds(tmp_path / "new", run)  # an output not there yet holds nothing
