"""Where a model save or an export may write: a model directory holding model files alone is
replaced; a directory with anything else is refused (listing it) unless ``overwrite``; a
symbolic link is written through to its directory, a dangling one refused; a full disk is
one line naming the path and the space, the previous version whole."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel, load
from parasent.errors import DirectoryInUseError, DiskFullError, ParasentError
from parasent.support.staging import foreign_entries
from parasent.text.word_vectors import WordVectors


@pytest.fixture()
def model():
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "on", "mat"]
    return SentenceModel.from_vectors(WordVectors(words, rng.normal(size=(5, 6)).astype(np.float32)))


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def test_export_refuses_a_project_with_a_config_json_and_lists_what_it_holds(model, tmp_path, capsys):
    model.save(tmp_path / "m")
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "config.json").write_text('{"app": 1}')
    (project / "src" / "main.py").write_text("precious")
    assert main(["export", "--model", str(tmp_path / "m"), str(project)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config.json, src/" in err and "--overwrite" in err
    assert (project / "src" / "main.py").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m", "proj"]  # no staging left


@pytest.mark.parametrize("write", ["save", "sentence-transformers", "model2vec"])
def test_a_model_directory_with_a_foreign_file_is_refused(model, tmp_path, write):
    target = tmp_path / "d"
    model.export(target)  # a sentence-transformers directory
    (target / "notes.txt").write_text("mine")
    (target / ".git").mkdir()
    with pytest.raises(DirectoryInUseError, match=r"\.git/, notes\.txt"):
        model.save(target) if write == "save" else model.export(target, write)
    assert (target / "notes.txt").read_text() == "mine"
    assert foreign_entries(target) == [".git/", "notes.txt"]


def test_every_format_replaces_every_other(model, tmp_path):
    target = tmp_path / "d"
    for write in ["save", "sentence-transformers", "model2vec", "save", "model2vec", "sentence-transformers"]:
        model.save(target) if write == "save" else model.export(target, write)
        assert foreign_entries(target) == []
        assert np.allclose(load(target).encode(["the cat"]), model.encode(["the cat"]), atol=1e-6)


def test_a_module_folder_may_hold_model_files_only(model, tmp_path):
    target = tmp_path / "d"
    model.export(target)
    (target / "1_Normalize").mkdir()
    (target / "1_Normalize" / "config.json").write_text("{}")
    assert foreign_entries(target) == []
    (target / "1_Normalize" / "run.sh").write_text("echo")
    assert foreign_entries(target) == ["1_Normalize/run.sh"]


def test_a_directory_of_model_file_names_that_is_no_model_is_refused(model, tmp_path):
    target = tmp_path / "d"
    target.mkdir()
    (target / "config.json").write_text('{"app": 1}')
    with pytest.raises(DirectoryInUseError, match="config.json"):
        model.save(target)
    model.save(target, overwrite=True)  # the user's say
    assert load(target).tokenizer.vocab_size == model.tokenizer.vocab_size


def test_export_writes_through_a_symbolic_link(model, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    model.export(link)
    assert link.is_symlink() and (real / "modules.json").is_file()
    model.export(link, "model2vec")  # and again, over the model now there
    assert link.is_symlink() and json.loads((real / "config.json").read_text())["model_type"] == "model2vec"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]  # no .link.old-PID


def test_a_dangling_link_is_refused_before_writing(model, tmp_path, capsys):
    model.save(tmp_path / "m")
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "nowhere")
    assert main(["export", "--model", str(tmp_path / "m"), str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["link", "m"]


def test_a_loop_of_links_is_refused(model, tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(DirectoryInUseError, match="a loop of symbolic links"):
        model.export(tmp_path / "a")


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


class SafetensorError(Exception):
    """What safetensors raises when its write fails (its own type, the OS error in the text)."""


def _safetensors_no_space(*args, **kwargs):
    raise SafetensorError(
        'Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "No space left on device" })'
    )


@pytest.mark.parametrize("failure", [_no_space, _safetensors_no_space])
@pytest.mark.parametrize("write", ["save", "export"])
def test_a_full_disk_is_one_line_and_the_previous_version_stays(
    model, tmp_path, monkeypatch, capsys, failure, write
):
    import safetensors.numpy

    from parasent.support import mmap_weights

    target = tmp_path / "d"
    model.save(target) if write == "save" else model.export(target)
    before = {p.name: p.read_bytes() for p in target.iterdir() if p.is_file()}
    monkeypatch.setattr(safetensors.numpy, "save_file", failure)  # export's writes
    monkeypatch.setattr(mmap_weights, "save_sorted", failure)  # save's streamed weights
    with pytest.raises(
        DiskFullError, match=r"d: no space left on the device \(the write needs about 0\.0 MB, .* free\)"
    ):
        model.save(target) if write == "save" else model.export(target)
    assert {p.name: p.read_bytes() for p in target.iterdir() if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_a_full_disk_while_checkpointing_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    from parasent.training import checkpoint

    path = tmp_path / "checkpoint.safetensors"
    checkpoint.save_checkpoint(path, {"w": torch.ones(3)})
    monkeypatch.setattr(checkpoint, "save_file", _safetensors_no_space)
    with pytest.raises(DiskFullError, match="checkpoint.safetensors: no space left"):
        checkpoint.save_checkpoint(path, {"w": torch.zeros(3)})
    assert checkpoint.load_checkpoint(path)["w"].tolist() == [1.0, 1.0, 1.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.safetensors"]


def _can_mount() -> bool:
    if not shutil.which("unshare") or sys.platform != "linux":
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    return probe.returncode == 0


SMALL_FS = """
mount -t tmpfs -o size={size} tmpfs "$1"
{setup}
{python} -m parasent {command} ; echo "rc=$?"
ls -a "$1" {listing}
"""


def _in_small_fs(tmp_path, size, command, setup="", listing=""):
    mount = tmp_path / "mnt"
    mount.mkdir()
    script = SMALL_FS.format(size=size, python=sys.executable, command=command, setup=setup, listing=listing)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(mount)], capture_output=True, text=True, env=env
    )


@pytest.mark.skipif(not _can_mount(), reason="needs unshare to mount a small tmpfs")
def test_export_onto_a_real_full_filesystem(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(4000)]
    SentenceModel.from_vectors(WordVectors(words, rng.normal(size=(4000, 64)).astype(np.float32))).save(
        tmp_path / "m"
    )
    # room for one export (about 1.1 MB), not for a second beside it
    run = _in_small_fs(
        tmp_path,
        "1600k",
        f'export --model {tmp_path / "m"} "$1/e"; {sys.executable} -m parasent export --model {tmp_path / "m"} "$1/e" --overwrite',
        listing='"$1/e"',
    )
    assert "rc=2" in run.stdout, run.stdout + run.stderr
    errors = [line for line in run.stderr.splitlines() if line]
    assert len(errors) == 1 and "/e: no space left on the device (the write needs about 1.0 MB" in errors[0]
    assert "Traceback" not in run.stderr
    listing = run.stdout.split()
    assert ".e.tmp-" not in run.stdout and "model.safetensors" in listing and "modules.json" in listing


@pytest.mark.skipif(not _can_mount(), reason="needs unshare to mount a read-only filesystem")
def test_export_under_a_read_only_parent_is_one_line(tmp_path, model):
    model.save(tmp_path / "m")
    run = _in_small_fs(
        tmp_path,
        "1m",
        f'export --model {tmp_path / "m"} "$1/e"',
        setup='mount -o remount,ro "$1"',
    )
    assert "rc=2" in run.stdout and "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"parasent: error: {tmp_path / 'mnt'}: not writable (a model is written beside its final path, then renamed)"
    ]


def test_an_unwritable_parent_is_named(model, tmp_path, monkeypatch):
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(ParasentError, match="not writable"):
        model.save(tmp_path / "m")
