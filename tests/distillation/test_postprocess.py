import numpy as np
import pytest

from parasent.core.inference import average_rows
from parasent.distillation.postprocess import principal_components, remove_components
from parasent.text.tokenized import Tokenized


def test_folded_removal_equals_removal_after_averaging():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(10, 5)).astype(np.float32) + 2.0  # a strong common direction
    sentences = Tokenized.from_lists([[1, 2, 3], [4, 5], [6], [7, 8, 9, 2], [3, 3]])
    vectors = average_rows(sentences, table)
    components = principal_components(vectors, 2)
    np.testing.assert_allclose(components @ components.T, np.eye(2), atol=1e-5)
    after = vectors - (vectors @ components.T) @ components
    folded = average_rows(sentences, remove_components(table, components))
    np.testing.assert_allclose(folded, after, atol=1e-5)
    # what is left is orthogonal to the removed directions
    assert np.abs(folded @ components.T).max() < 1e-4


def test_needs_enough_vectors():
    with pytest.raises(ValueError):
        principal_components(np.zeros((3, 4)), 1)
    with pytest.raises(ValueError):
        principal_components(np.ones((3, 4)), 0)
