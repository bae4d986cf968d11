"""The one archive extraction: names and kinds checked before a byte is written, bytes counted."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from parasent.errors import ArchiveError
from parasent.support.archives import ExpansionBudget, open_archive, safe_member_name

pytestmark = pytest.mark.core


@pytest.mark.parametrize(
    ("name", "safe"),
    [("a/b.txt", "a/b.txt"), ("a/./b.txt", "a/b.txt"), ("a//b.txt", "a/b.txt"), ("./a", "a")],
)
def test_safe_names_are_normalised(tmp_path, name, safe):
    assert safe_member_name(tmp_path, name) == safe


@pytest.mark.parametrize(
    "name", ["../x", "a/../../x", "a/..", "/etc/x", "C:/x", "a\\..\\x", "a\0b", "", "./"]
)
def test_names_that_could_leave_the_folder_are_refused(tmp_path, name):
    with pytest.raises(ArchiveError, match="unsafe member name"):
        safe_member_name(tmp_path, name)


def _tar(tmp_path, kind: bytes, name: str = "a/x") -> object:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = "/etc/passwd"
        archive.addfile(info)
    path = tmp_path / "t.tgz"
    path.write_bytes(buffer.getvalue())
    return path


@pytest.mark.parametrize(
    "kind", [tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE]
)
def test_link_and_device_members_refuse_the_whole_archive(tmp_path, kind):
    with pytest.raises(ArchiveError, match="is a link or a device"), open_archive(_tar(tmp_path, kind)):
        pass


def test_members_stream_within_the_budget_and_the_budget_is_shared(tmp_path):
    path = tmp_path / "z.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("d/a.bin", bytes(3 << 20))
        archive.writestr("d/b.bin", bytes(3 << 20))
        archive.writestr("e/c.bin", b"c")
    budget = ExpansionBudget(5 << 20)
    with open_archive(path) as opened:
        assert sorted(opened.under("d/")) == [("d/a.bin", "a.bin"), ("d/b.bin", "b.bin")]
        opened.copy("d/a.bin", tmp_path / "out/a.bin", budget)
        assert (tmp_path / "out/a.bin").stat().st_size == 3 << 20
        with pytest.raises(ArchiveError, match="'d/b.bin' expands beyond the 5242880 bytes"):
            opened.copy("d/b.bin", tmp_path / "out/b.bin", budget)
        assert (tmp_path / "out/b.bin").stat().st_size <= 5 << 20  # stopped at the bound, not read whole


def test_a_web_page_is_named_as_such(tmp_path):
    page = tmp_path / "data.zip"
    page.write_text("\n <!DOCTYPE html><html><title>Sign in</title></html>")
    with pytest.raises(
        ArchiveError,
        match="neither a zip nor a tar archive but a web page",
    ):
        with open_archive(page):
            pass
