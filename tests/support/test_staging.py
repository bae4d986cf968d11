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
