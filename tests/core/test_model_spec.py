import pytest

from parasent.core.model_spec import load_model_spec, split_label
from parasent.errors import DataNotFoundError, ModelFormatError


def test_labels():
    assert split_label("PP=runs/pp") == ("PP", "runs/pp")
    assert split_label("runs/a=b") == (None, "runs/a=b")
    assert split_label("vectors:x.txt") == (None, "vectors:x.txt")


def test_vectors_relative_to_the_data_dir(mini_data_dir):
    named = load_model_spec("vectors:wordvecs/mini16.txt.gz", mini_data_dir)
    assert named.label == "avg mini16.txt.gz" and named.model.dim == 16
    assert load_model_spec("G=vectors:wordvecs/mini16.txt.gz", mini_data_dir).label == "G"
    with pytest.raises(DataNotFoundError):
        load_model_spec("vectors:nope.txt", mini_data_dir)
    with pytest.raises(ModelFormatError):
        load_model_spec(str(mini_data_dir / "nope"), mini_data_dir)
