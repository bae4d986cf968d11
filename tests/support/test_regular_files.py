"""Files a model directory names, checked before they are opened: a FIFO would block the load,
a link to /dev/zero read without end, an oversized JSON file be read whole."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel, load
from parasent.errors import ParasentError, SpecialFileError
from parasent.support.regular_files import copy_regular, read_regular, regular_size, sha256_of
from parasent.text.word_vectors import WordVectors


@pytest.fixture()
def model():
    rng = np.random.default_rng(0)
    return SentenceModel.from_vectors(WordVectors(["the", "cat"], rng.normal(size=(2, 4)).astype(np.float32)))


def _load_within(path, seconds=20):
    """``load(path)``'s exception, failing the test (not hanging it) if it blocks."""
    outcome = {}

    def run():
        try:
            load(path)
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        # unblock the reader so the daemon thread can end, then fail
        for name in os.listdir(path):
            try:
                os.close(os.open(path / name, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        pytest.fail(f"load({path}) blocked")
    return outcome.get("error")


@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
@pytest.mark.parametrize(
    ("layout", "name"),
    [
        ("parasent", "config.json"),
        ("parasent", "tokenizer.json"),
        ("parasent", "model.safetensors"),
        ("sentence-transformers", "modules.json"),
        ("sentence-transformers", "tokenizer.json"),
        ("sentence-transformers", "model.safetensors"),
        ("model2vec", "config.json"),
    ],
)
def test_a_special_file_in_a_model_directory_is_named_not_opened(model, tmp_path, layout, name, special):
    path = tmp_path / "m"
    model.save(path) if layout == "parasent" else model.export(path, layout)
    (path / name).unlink()
    if special == "fifo":
        os.mkfifo(path / name)
    else:
        (path / name).symlink_to("/dev/zero")
    error = _load_within(path)
    assert isinstance(error, ParasentError), repr(error)
    kind = "a FIFO" if special == "fifo" else "a character device"
    assert f"{path / name}: {kind}" in str(error)


def test_an_oversized_config_json_in_a_sentence_transformers_directory_is_not_read(model, tmp_path):
    path = tmp_path / "st"
    model.export(path)
    with open(path / "config.json", "wb") as handle:  # 200 MB, sparse: nothing is written
        handle.truncate(200 << 20)
    with pytest.raises(SpecialFileError, match=r"config.json: 209715200 bytes, more than the 16777216"):
        load(path)
    with pytest.raises(SpecialFileError, match="more than the 16777216"):
        read_regular(path / "config.json", max_bytes=16 << 20)


def test_the_command_line_names_a_fifo_model_file(model, tmp_path, capsys):
    path = tmp_path / "m"
    model.save(path)
    (path / "config.json").unlink()
    os.mkfifo(path / "config.json")
    assert main(["similarity", "a", "b", "--model", str(path)]) == 2
    assert (
        capsys.readouterr().err
        == f"parasent: error: {path / 'config.json'}: a FIFO (named pipe), not a regular file; not reading it\n"
    )


def test_regular_size_says_what_a_path_is(tmp_path):
    (tmp_path / "f").write_text("abc")
    assert regular_size(tmp_path / "f") == 3
    with pytest.raises(SpecialFileError, match="a directory"):
        regular_size(tmp_path)
    os.mkfifo(tmp_path / "p")
    assert regular_size(tmp_path / "p", stream_ok=True) == 0
    with pytest.raises(SpecialFileError, match="FIFO"):
        regular_size(tmp_path / "p")
    with pytest.raises(FileNotFoundError):
        regular_size(tmp_path / "missing")


def test_the_caps_in_the_robustness_page_are_the_code_s():
    from pathlib import Path

    from parasent.core.model_checks import MAX_JSON_BYTES, TOKENIZER_BYTES_BASE, TOKENIZER_BYTES_PER_ENTRY
    from parasent.support import lines
    from parasent.text.tokenizer import WORD_PATTERN

    page = (Path(__file__).resolve().parents[2] / "docs" / "robustness.md").read_text()
    assert f"more than the {MAX_JSON_BYTES} such a file may have" in page and MAX_JSON_BYTES == 16 << 20
    assert TOKENIZER_BYTES_BASE == 4 << 20 and TOKENIZER_BYTES_PER_ENTRY == 2048
    assert "over 4 MiB + 2 KiB per vocabulary entry" in page
    assert lines.MAX_GZIP_RATIO == 100 and lines.GZIP_RATIO_FLOOR_BYTES == 1 << 20
    assert "expands more than 100 times, once past 1 MiB" in page and lines.GZIP_RATIO_VAR in page
    assert WORD_PATTERN.replace("|", "\\|") in page


def test_a_copy_gives_the_sha256_of_its_bytes_and_refuses_what_is_no_regular_file(tmp_path):
    import hashlib

    source = tmp_path / "a.json"
    source.write_bytes(b"x" * 3_000_000)
    assert copy_regular(source, tmp_path / "b.json") == hashlib.sha256(source.read_bytes()).hexdigest()
    assert (tmp_path / "b.json").read_bytes() == source.read_bytes()
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(SpecialFileError, match="a FIFO"):
        copy_regular(tmp_path / "fifo", tmp_path / "c.json")
    with pytest.raises(SpecialFileError, match="a FIFO"):
        sha256_of(tmp_path / "fifo")


# -- the files of a run directory and of the teacher cache -------------------------------


def _special(path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:  # a sparse file past every cap
        with open(path, "wb") as handle:
            handle.truncate(300 << 20)


def _run_files(root):
    """name -> (the file, what reads or appends it): every file of a run directory and of the
    teacher cache that parasent opens."""
    from parasent.distillation.cache import EmbeddingCache, _read_keys, _read_sums
    from parasent.support.filememo import MEMO_FILE, remembered
    from parasent.support.runlock import LOCK_FILE, run_lock
    from parasent.support.sweep import RUN_CONFIG, RUNS_FILE, Sweep
    from parasent.training.checkpoint import load_checkpoint

    def lock():
        with run_lock(root / "run"):
            pass

    def memo():
        (root / "weights").write_text("w")
        assert remembered(root / "weights", "fact", lambda: "computed") == "computed"

    return {
        "runs.jsonl": (root / "sweep" / RUNS_FILE, lambda: Sweep(root / "sweep")),
        "run settings": (
            root / "sweep" / "k" / RUN_CONFIG,
            lambda: Sweep(root / "sweep").run("k", {"a": 1}, lambda _: {"r": 1}),
        ),
        "lock": (root / "run" / LOCK_FILE, lock),
        "checkpoint": (
            root / "run" / "checkpoint.safetensors",
            lambda: load_checkpoint(root / "run" / "checkpoint.safetensors"),
        ),
        "cache shard": (
            root / "cache" / "ns" / "1-1.safetensors",
            lambda: EmbeddingCache(root / "cache", "ns"),
        ),
        "contextual keys": (root / "sums.safetensors", lambda: _read_keys(root / "sums.safetensors")),
        "contextual sums": (root / "sums.safetensors", lambda: _read_sums(root / "sums.safetensors")),
        "file memo": (root / "cache-dir" / MEMO_FILE, memo),
    }


NAMES = [
    "runs.jsonl",
    "run settings",
    "lock",
    "checkpoint",
    "cache shard",
    "contextual keys",
    "contextual sums",
]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "sparse-300MB"])
@pytest.mark.parametrize("name", NAMES)
def test_run_and_cache_files_that_are_no_regular_files_are_refused(tmp_path, name, kind):
    """The model directory's rules for every file of a run directory and of the teacher cache:
    a FIFO (it blocked), a link to /dev/zero (read without end) or an oversized file is one
    error naming the file, before it is opened."""
    pytest.importorskip("torch")
    from tests.fuzz.mutate import time_limit

    path, read = _run_files(tmp_path)[name]
    if kind == "sparse-300MB" and name == "lock":
        pytest.skip("a lock is a file of any size: never read whole")
    _special(path, kind)
    if kind == "sparse-300MB" and name in ("checkpoint", "cache shard", "contextual keys", "contextual sums"):
        with time_limit(20), pytest.raises(ParasentError, match=str(path)):  # not safetensors: refused
            read()
        return
    with time_limit(20), pytest.raises(SpecialFileError) as caught:
        read()
    assert str(caught.value).startswith(f"{path}: ") and "\n" not in str(caught.value)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "sparse-300MB"])
def test_a_file_memo_that_is_no_regular_file_is_no_memo(tmp_path, monkeypatch, kind):
    """``$PARASENT_CACHE/file-memo.json`` is a cache: a FIFO or a device there is passed over
    (computed again), never opened."""
    from tests.fuzz.mutate import time_limit

    monkeypatch.setenv("PARASENT_CACHE", str(tmp_path / "cache-dir"))
    path, read = _run_files(tmp_path)["file memo"]
    _special(path, kind)
    with time_limit(20):
        read()
