import json

import numpy as np
import pytest

from parasent.core.vector_files import NPY_HEADER_BYTES, _write_npy, npy_header, write_vectors


class Model:
    """Rows ``[i, len(text)]``: enough to see order, count and normalisation."""

    dim = 2

    def __init__(self):
        self.calls = []

    def encode(self, texts, batch_size, normalize_embeddings):
        self.calls.append((len(texts), normalize_embeddings))
        rows = np.array([[float(i), float(len(t))] for i, t in enumerate(texts)], dtype=np.float32)
        return (
            rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
            if normalize_embeddings
            else rows
        )


def test_the_npy_header_has_its_reserved_size_and_numpy_reads_the_file(tmp_path):
    header = npy_header(5, 3)
    assert len(header) == NPY_HEADER_BYTES
    path = tmp_path / "v.npy"
    path.write_bytes(header + np.arange(15, dtype="<f4").tobytes())
    assert np.load(path).shape == (5, 3)


def test_a_killed_encode_leaves_no_file_numpy_reads(tmp_path):
    """The header is written last: a run killed mid-way leaves bytes no .npy reader accepts."""

    class Bar:
        def update(self, n):
            pass

    def chunks():
        yield ["a", "b"], np.ones((2, 3), np.float32)
        raise KeyboardInterrupt  # a kill

    partial = tmp_path / ".out.npy.tmp-123"
    with open(partial, "wb") as handle, pytest.raises(KeyboardInterrupt):
        _write_npy(handle, chunks(), 3, Bar())
    with pytest.raises(ValueError):
        np.load(partial)


@pytest.mark.parametrize("fmt", ["npy", "jsonl", "txt", "tsv"])
def test_every_format_holds_one_row_per_line_in_chunks(tmp_path, fmt):
    model, counted = Model(), []

    class Bar:
        def update(self, n):
            counted.append(n)

    path = tmp_path / f"v.{fmt}"
    lines = ["a", "bb", "", "dddd", "e"]
    assert (
        write_vectors(model, iter(lines), str(path), fmt, batch_size=2, normalize=True, progress=Bar()) == 5
    )
    assert model.calls == [(2, True), (2, True), (1, True)] and counted == [2, 2, 1]
    if fmt == "npy":
        rows = np.load(path)
    elif fmt == "jsonl":
        records = [json.loads(r) for r in path.read_text(encoding="utf-8").splitlines()]
        assert [r["text"] for r in records] == lines
        rows = np.array([r["embedding"] for r in records])
    else:
        rows = np.loadtxt(path, delimiter={"txt": " ", "tsv": "\t"}[fmt], ndmin=2)
    assert rows.shape == (5, 2) and np.allclose(np.linalg.norm(rows[[1, 3, 4]], axis=1), 1, atol=1e-5)


def test_blank_lines_are_counted_whatever_their_vector():
    """A DAN gives the empty sentence its biases: its blank lines were not counted."""
    from parasent.core.vector_files import ZeroRowTally

    texts = ["a cat", "", "🎉", "  "]
    averaging, dan = ZeroRowTally(), ZeroRowTally()
    averaging(texts, np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]))
    dan(texts, np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 0.0], [0.5, 0.5]]))
    assert averaging.notes()[0] == "2 blank line(s) encoded as zero vectors (one row per line)"
    assert dan.notes()[0] == "2 blank line(s) encoded as the empty sentence's vector (one row per line)"
    assert (
        averaging.notes()[1]
        == dan.notes()[1]
        == ("1 line(s) with no unit the model knows encoded as zero vectors (the first, line 3: '🎉')")
    )
