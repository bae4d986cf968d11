"""The teacher's embeddings in a narrower student's space, so a student of another width can
regress onto them (cosine regression, in-batch InfoNCE) instead of matching cosines alone.

A compacted model (the shipped default: 256 dimensions, reduced from the teacher's 384 by a
PCA it does not keep) was distilled in the teacher's space and then rotated and cut. An
orthonormal map A (teacher_dim x student_dim, A^T A = I) that best carries the teacher's unit
vectors T onto the student's S of the same sentences is given by the orthogonal Procrustes
solution, A = U V^T for U Sigma V^T = svd(T^T S) (Schonemann 1966; for a non-square A it
maximises the agreement trace(A^T T^T S)). T A is then an isometric projection
of the teacher's vectors: cosines within the kept subspace are the teacher's, and the student's
own basis is respected, so training starts near its optimum instead of chasing a rotation.
"""

from __future__ import annotations

import numpy as np

from parasent.core.inference import normalize_rows


def fit_alignment(teacher: np.ndarray, student: np.ndarray) -> np.ndarray:
    """``(teacher_dim, student_dim)`` with orthonormal columns that best agree ``T A`` with ``S``
    (the largest ``trace(A^T T^T S)``; the least-squares fit when T spreads alike in every
    direction), over unit rows ``T`` (teacher) and ``S`` (student) of the same sentences."""
    if teacher.shape[0] != student.shape[0] or teacher.shape[1] < student.shape[1]:
        raise ValueError(
            f"alignment needs the same sentences and a teacher at least as wide as the student, got "
            f"{teacher.shape} and {student.shape}"
        )
    t, s = normalize_rows(teacher), normalize_rows(student)
    u, _, vt = np.linalg.svd(t.T.astype(np.float64) @ s.astype(np.float64), full_matrices=False)
    return (u @ vt).astype(np.float32)
