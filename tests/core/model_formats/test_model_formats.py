import pytest

from parasent.core.model_formats import FORMATS, model_format


def test_directory_formats_are_a_registry_of_converters():
    converter = model_format("sentence-transformers")
    assert set(FORMATS) == {"sentence-transformers", "model2vec"}
    assert all(callable(getattr(converter, name)) for name in ("detect", "read", "write"))
    with pytest.raises(
        ValueError, match="unknown model format 'onnx' \\(known: sentence-transformers, model2vec\\)"
    ):
        model_format("onnx")
