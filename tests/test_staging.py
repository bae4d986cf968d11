import pytest

from parasent.staging import staged_directory


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
