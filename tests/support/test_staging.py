import pytest

from parasent.support.staging import staged_directory


def test_a_finished_write_replaces_the_directory(tmp_path):
    target = tmp_path / "models" / "m"
    with staged_directory(target) as staging:
        (staging / "a.txt").write_text("one")
    with staged_directory(target) as staging:
        (staging / "b.txt").write_text("two")
    assert sorted(p.name for p in target.iterdir()) == ["b.txt"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["m"]  # no staging or old copy left


def test_a_failed_write_leaves_the_old_directory_whole(tmp_path):
    target = tmp_path / "m"
    with staged_directory(target) as staging:
        (staging / "a.txt").write_text("one")
    with pytest.raises(RuntimeError), staged_directory(target) as staging:
        (staging / "half.txt").write_text("half")
        raise RuntimeError("killed")
    assert [p.name for p in target.iterdir()] == ["a.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def _killed_between_renames(path, pid: int = 999_999_999) -> None:
    """What a save killed between its two renames leaves: the new version complete in
    ``.NAME.tmp-PID``, the previous in ``.NAME.old-PID``, no ``NAME``."""
    staging = path.with_name(f".{path.name}.tmp-{pid}")
    staging.mkdir()
    (staging / "version").write_text("new")
    path.rename(path.with_name(f".{path.name}.old-{pid}"))


def test_a_kill_between_the_renames_is_recovered(tmp_path):
    from parasent.support.staging import recover_directory

    path = tmp_path / "model"
    path.mkdir()
    (path / "version").write_text("old")
    _killed_between_renames(path)
    assert not path.exists()
    assert recover_directory(path)
    assert (path / "version").read_text() == "new"


def test_leftovers_of_dead_writers_are_cleaned_on_the_next_write(tmp_path):
    from parasent.support.staging import staged_directory

    path = tmp_path / "model"
    path.mkdir()
    (path / "version").write_text("old")
    _killed_between_renames(path)
    with staged_directory(path) as staging:  # restores, then replaces
        (staging / "version").write_text("newest")
    assert (path / "version").read_text() == "newest"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_a_plain_file_is_never_replaced(tmp_path):
    import pytest

    from parasent.errors import ParasentError
    from parasent.support.staging import staged_directory

    path = tmp_path / "notes"
    path.write_text("keep me")
    with pytest.raises(ParasentError, match="not a directory"):
        with staged_directory(path):
            pass
    assert path.read_text() == "keep me"


def test_atomic_file_keeps_the_previous_file_on_failure(tmp_path):
    import pytest

    from parasent.support.staging import atomic_file

    path = tmp_path / "out.txt"
    path.write_text("previous")
    with pytest.raises(RuntimeError):
        with atomic_file(path) as handle:
            handle.write("partial")
            raise RuntimeError("killed")
    assert path.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    with atomic_file(path) as handle:
        handle.write("new")
    assert path.read_text() == "new"


# -- claiming a target, fsync, one temporary name per process ------------------------------


@pytest.fixture(params=["renameat2", "fallback"])
def rename_kind(request, monkeypatch):
    """Each test runs with renameat2 (Linux) and with the fallback other platforms get."""
    from parasent.support import staging

    if request.param == "fallback":
        monkeypatch.setattr(staging, "_renameat2", lambda: None)
    elif staging._renameat2() is None:
        pytest.skip("no renameat2 here")
    return request.param


def test_rename_no_replace_keeps_what_is_there(tmp_path, rename_kind):
    from parasent.support.staging import rename_no_replace

    (tmp_path / "new").write_text("new")
    (tmp_path / "taken").write_text("someone's")
    with pytest.raises(FileExistsError):
        rename_no_replace(tmp_path / "new", tmp_path / "taken")
    assert (tmp_path / "taken").read_text() == "someone's" and (tmp_path / "new").read_text() == "new"
    rename_no_replace(tmp_path / "new", tmp_path / "free")
    assert (tmp_path / "free").read_text() == "new" and not (tmp_path / "new").exists()
    (tmp_path / "dir").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "f").write_text("theirs")
    with pytest.raises(FileExistsError):
        rename_no_replace(tmp_path / "dir", tmp_path / "other")
    with pytest.raises(FileExistsError):
        rename_no_replace(tmp_path / "dir", tmp_path / "taken")
    rename_no_replace(tmp_path / "dir", tmp_path / "moved")
    assert (tmp_path / "moved").is_dir() and (tmp_path / "other" / "f").read_text() == "theirs"


def test_a_file_another_writer_made_meanwhile_is_kept(tmp_path, rename_kind):
    """A write without overwrite claims its target: a file that appeared while it ran (another
    process's result) stays, and the write fails in one line naming it."""
    from parasent.errors import OutputExistsError
    from parasent.support.staging import atomic_file

    path = tmp_path / "out.jsonl"
    with pytest.raises(
        OutputExistsError, match="another process wrote this file while this one ran"
    ) as caught:
        with atomic_file(path, overwrite=False) as handle:
            handle.write("mine\n")
            path.write_text("theirs\n")  # the other writer finishes first
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
    assert path.read_text() == "theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]
    with atomic_file(path) as handle:  # overwrite (the default of a replacing write)
        handle.write("mine\n")
    assert path.read_text() == "mine\n"


def test_a_directory_another_writer_made_meanwhile_is_kept(tmp_path, rename_kind):
    from parasent.errors import OutputExistsError

    path = tmp_path / "model"
    with pytest.raises(OutputExistsError, match="another process wrote this directory"):
        with staged_directory(path, model=True, overwrite=False) as staging:
            (staging / "config.json").write_text("mine")
            path.mkdir()
            (path / "config.json").write_text("theirs")
    assert (path / "config.json").read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_a_directory_replaced_meanwhile_is_not_replaced_again(tmp_path, rename_kind):
    """What was checked is what is replaced: a directory another writer swapped in after the
    check is not the one this write was allowed to replace."""
    import shutil

    from parasent.errors import OutputExistsError

    path = tmp_path / "model"
    path.mkdir()
    (path / "config.json").write_text("old")
    with pytest.raises(OutputExistsError):
        with staged_directory(path, overwrite=False) as staging:
            (staging / "config.json").write_text("mine")
            shutil.rmtree(path)
            path.mkdir()
            (path / "config.json").write_text("theirs")
    assert (path / "config.json").read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    with staged_directory(path, overwrite=False) as staging:  # checked now: replaced
        (staging / "config.json").write_text("mine")
    assert (path / "config.json").read_text() == "mine"


def test_overwrite_replaces_whatever_is_there(tmp_path):
    path = tmp_path / "index"
    with staged_directory(path, overwrite=True) as staging:
        (staging / "a").write_text("mine")
        path.mkdir()
        (path / "b").write_text("theirs")
    assert [p.name for p in path.iterdir()] == ["a"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index"]


def test_staged_writes_are_on_the_disk_before_their_rename(tmp_path, monkeypatch):
    """Every staged file is fsynced before the rename that publishes it, and its directory
    after: a power loss leaves the old version or the new, never an empty file."""
    import os

    from parasent.support import staging

    events = []
    real_fsync, real_replace, real_rename = os.fsync, os.replace, staging.rename_no_replace

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("rename", str(a))), real_replace(a, b)))
    monkeypatch.setattr(
        staging, "rename_no_replace", lambda a, b: (events.append(("rename", str(a))), real_rename(a, b))
    )
    path = tmp_path / "out.txt"
    with staging.atomic_file(path) as handle:
        handle.write("data")
    tmp = str(tmp_path / f".out.txt.tmp-{os.getpid()}")  # the temporary name carries the pid
    assert events == [("fsync", tmp), ("rename", tmp), ("fsync", str(tmp_path))]
    events.clear()
    with staging.staged_directory(tmp_path / "m", overwrite=False) as folder:
        (folder / "weights").write_text("w")
    folder = str(tmp_path / f".m.tmp-{os.getpid()}")
    assert events == [
        ("fsync", f"{folder}/weights"),
        ("fsync", folder),
        ("rename", folder),
        ("fsync", str(tmp_path)),
    ]


def test_a_signal_during_the_renames_waits_for_them(tmp_path):
    """SIGTERM between a swap's two renames would leave no NAME: it takes effect after them."""
    import os
    import signal

    from parasent.support.staging import signals_deferred

    received = []
    previous = signal.signal(signal.SIGTERM, lambda *_: received.append("handled"))
    try:
        with signals_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            assert received == []
        assert received == ["handled"]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_run_file_is_never_written_into_a_fifo(tmp_path):
    """Results and settings of a run: a FIFO there would block the run (an output the user names,
    ``--json /dev/stdout``, is written into instead)."""
    import os

    from parasent.errors import SpecialFileError
    from parasent.support.staging import write_run_file
    from tests.fuzz.mutate import time_limit

    os.mkfifo(tmp_path / "results.json")
    with time_limit(10), pytest.raises(SpecialFileError, match="results.json: a FIFO"):
        write_run_file(tmp_path / "results.json", "{}")
    write_run_file(tmp_path / "settings.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "settings.json"]


def test_a_full_disk_inside_a_staged_directory_names_the_directory(tmp_path):
    """A file staged inside a model's staging folder (the int8 vocabulary) runs out of room: the
    one line names the model's path, not the staging folder's file (the fuzz found it at one
    file size limit in a thousand)."""
    import errno

    from parasent.errors import DiskFullError
    from parasent.support.staging import atomic_file

    path = tmp_path / "model"
    with pytest.raises(DiskFullError) as caught:
        with staged_directory(path, needs_bytes=2000) as staging:
            with atomic_file(staging / "vocabulary.safetensors", "wb"):
                raise OSError(errno.EFBIG, "File too large")
    message = str(caught.value)
    assert message.startswith(f"{path}: over the file size limit (the write needs about 0.0 MB")
    assert ".tmp-" not in message and sorted(p.name for p in tmp_path.iterdir()) == []


def test_swap_in_directory_replaces_a_folder_and_leaves_no_leftover(tmp_path):
    """data fetch swapped its verified folders in by hand, without the no-replace rename; it
    now goes through the one swap (support/staging.py)."""
    from parasent.support.staging import swap_in_directory

    place, staged = tmp_path / "corpus", tmp_path / "staged"
    place.mkdir()
    (place / "old.txt").write_text("old")
    staged.mkdir()
    (staged / "new.txt").write_text("new")
    swap_in_directory(staged, place)
    assert sorted(p.name for p in place.iterdir()) == ["new.txt"] and not staged.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]  # no .old- or .tmp- left
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    swap_in_directory(fresh, tmp_path / "absent")  # nothing there yet: claimed
    assert (tmp_path / "absent").is_dir()
