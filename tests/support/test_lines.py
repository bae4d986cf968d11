"""Input files: a FIFO or a device given where a file is read is named (not "no such file");
``encode`` reads a FIFO as a stream; a gzip decompression bomb is refused after its first
megabyte; blank lines are skipped by the readers and counted by ``encode``."""

from __future__ import annotations

import gzip
import os
import threading

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.data.readers.pairs import read_text_pairs
from parasent.errors import CorruptFileError, DataNotFoundError, OptionError, SpecialFileError
from parasent.support.lines import GZIP_RATIO_FLOOR_BYTES, LineReader, open_binary
from parasent.text.word_vectors import WordVectors


@pytest.fixture()
def model(tmp_path):
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "dog"]
    path = tmp_path / "m"
    SentenceModel.from_vectors(WordVectors(words, rng.normal(size=(4, 6)).astype(np.float32))).save(path)
    return str(path)


def _blank_bomb(path, lines=8 << 20):
    path.write_bytes(gzip.compress(b"\n" * lines, 9))
    return path


def test_a_gzip_of_blank_lines_is_refused_after_its_first_megabyte(tmp_path):
    bomb = _blank_bomb(tmp_path / "pairs.tsv.gz")
    assert bomb.stat().st_size < 16_000
    with pytest.raises(
        CorruptFileError, match=r"pairs.tsv.gz: gzip expands more than 100 times .* \(after line"
    ):
        list(read_text_pairs(bomb))
    reader = LineReader(bomb)
    with pytest.raises(CorruptFileError):
        for number, _ in reader:
            assert number <= 2 * GZIP_RATIO_FLOOR_BYTES  # refused within about a megabyte of lines


def test_the_cap_can_be_lifted_and_blank_lines_are_skipped(tmp_path, monkeypatch):
    bomb = _blank_bomb(tmp_path / "pairs.tsv.gz", lines=3 << 20)
    monkeypatch.setenv("PARASENT_MAX_GZIP_RATIO", "0")
    assert list(read_text_pairs(bomb)) == []
    monkeypatch.setenv("PARASENT_MAX_GZIP_RATIO", "x")
    with pytest.raises(OptionError, match="PARASENT_MAX_GZIP_RATIO"):
        open_binary(bomb)


def test_ordinary_gzip_text_is_read(tmp_path):
    path = tmp_path / "pairs.tsv.gz"
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(5000)]
    text = "".join(
        f"{' '.join(rng.choice(words, 6))}\t{' '.join(rng.choice(words, 6))}\n" for _ in range(50_000)
    )
    path.write_bytes(gzip.compress(text.encode()))
    assert len(list(read_text_pairs(path))) == 50_000


def test_encode_refuses_a_bomb_without_leaving_a_file(model, tmp_path, capsys):
    bomb = _blank_bomb(tmp_path / "in.txt.gz")
    assert main(["encode", "--model", model, str(bomb), "-o", str(tmp_path / "out.npy")]) == 2
    assert "decompression bomb" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt.gz", "m"]


def test_encode_counts_blank_lines(model, tmp_path, capsys):
    (tmp_path / "in.txt").write_text("the cat\n\n   \nsat\n")
    assert main(["encode", "--model", model, str(tmp_path / "in.txt"), "-o", str(tmp_path / "o.npy")]) == 0
    assert "2 blank line(s) encoded as zero vectors" in capsys.readouterr().err
    vectors = np.load(tmp_path / "o.npy")
    assert vectors.shape == (4, 6) and not vectors[1:3].any()


@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
def test_a_special_input_file_is_named(tmp_path, special, monkeypatch):
    from parasent.support import pipes

    monkeypatch.setattr(pipes, "PIPE_WAIT_S", 0.2)  # a FIFO nothing writes to: refused, not waited on
    path = tmp_path / "pairs.tsv"
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(SpecialFileError, match="FIFO" if special == "fifo" else "character device"):
        list(read_text_pairs(path))
    with pytest.raises(DataNotFoundError, match="no such file"):
        list(read_text_pairs(tmp_path / "missing.tsv"))


def test_encode_reads_a_fifo_as_a_stream(model, tmp_path):
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as handle:
            handle.write(gzip.compress(b"the cat\na dog\n"))

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    assert main(["encode", "--model", model, str(fifo), "-o", str(tmp_path / "o.npy")]) == 0
    writer.join(10)
    assert np.load(tmp_path / "o.npy").shape == (2, 6)


def test_encode_refuses_a_device_and_a_fifo_for_workers(model, tmp_path, capsys):
    assert main(["encode", "--model", model, "/dev/zero"]) == 2
    assert "/dev/zero: a character device" in capsys.readouterr().err
    os.mkfifo(tmp_path / "p")
    assert (
        main(
            ["encode", "--model", model, str(tmp_path / "p"), "--workers", "2", "-o", str(tmp_path / "o.npy")]
        )
        == 2
    )
    assert "give it to '-' on stdin" in capsys.readouterr().err


def test_count_lines_counts_a_last_line_without_its_newline(tmp_path):
    import gzip

    from parasent.support.lines import count_lines

    path = tmp_path / "a.txt"
    for content, expected in [(b"", 0), (b"a\n", 1), (b"a\nb", 2), (b"a\r\n\nb\n", 3)]:
        path.write_bytes(content)
        assert count_lines(path) == expected
    words = [f"{i:x}" for i in np.random.default_rng(0).integers(0, 1 << 40, 200_000)]
    path.write_bytes(gzip.compress("\n".join(words).encode()))  # more than one block once decompressed
    assert count_lines(path) == 200_000
    path.write_bytes(gzip.compress(b"x\n" * 2_500_000))  # a bomb: refused as when it is read
    with pytest.raises(CorruptFileError, match="decompression bomb"):
        count_lines(path)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_wide_unicode_is_named_not_read_as_latin_1(tmp_path, encoding):
    """The running-text reader decoded UTF-16 with its BOM as latin-1 (every other byte NUL)."""
    from parasent.errors import DataFormatError
    from parasent.support.lines import LineReader

    path = tmp_path / "text.txt"
    text = "Un homme joue de la guitare.\nSomeone plays.\n"
    path.write_bytes(("\ufeff" + text).encode(encoding) if encoding != "utf-16" else text.encode(encoding))
    with pytest.raises(DataFormatError, match="text.txt:1: UTF-16 or UTF-32 text"):
        list(LineReader(path, fallback_encoding="latin-1"))
    path.write_text(text, encoding="utf-8-sig")  # UTF-8 with its BOM: read, the mark dropped
    assert [t for _, t in LineReader(path)] == text.splitlines()
