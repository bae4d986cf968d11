"""The teacher's embeddings carried into a narrower student's space: the orthonormal map is
found back when the student is a rotated cut of the teacher, and it keeps cosines within it."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.distillation.alignment import fit_alignment


def test_a_rotated_cut_of_the_teacher_is_found_back():
    rng = np.random.default_rng(0)
    teacher = rng.normal(size=(20000, 12)).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(12, 12)))
    cut = q[:, :5].astype(np.float32)  # orthonormal columns: teacher space -> a 5-d student space
    unit = teacher / np.linalg.norm(teacher, axis=1, keepdims=True)  # the fit is on unit rows
    student = unit @ cut
    align = fit_alignment(teacher, student)
    np.testing.assert_allclose(align.T @ align, np.eye(5), atol=1e-5)
    np.testing.assert_allclose(align, cut, atol=0.05)
    carried = unit @ align
    cosines = (
        np.sum(carried * student, axis=1) / np.linalg.norm(carried, axis=1) / np.linalg.norm(student, axis=1)
    )
    assert cosines.mean() > 0.995


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="at least as wide"):
        fit_alignment(np.ones((4, 3)), np.ones((4, 5)))
    with pytest.raises(ValueError, match="same sentences"):
        fit_alignment(np.ones((4, 8)), np.ones((3, 5)))
