import numpy as np
import pytest
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from parasent.core.model import load
from parasent.distillation.pieces import input_embeddings, sif_piece_model
from parasent.errors import ModelFormatError

pytestmark = pytest.mark.core

PIECES = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "the",
    "man",
    "dog",
    "big",
    "huge",
    "house",
    "road",
    "on",
    "is",
    ".",
    "##s",
]


@pytest.fixture()
def teacher_dir(tmp_path):
    """A transformer directory as far as this recipe reads it: a WordPiece tokenizer.json and
    safetensors weights with the input embedding table."""
    directory = tmp_path / "teacher"
    directory.mkdir()
    tokenizer = Tokenizer(models.WordPiece({p: i for i, p in enumerate(PIECES)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.save(str(directory / "tokenizer.json"))
    table = np.random.default_rng(0).normal(size=(len(PIECES), 8)).astype(np.float32)
    save_file(
        {"embeddings.word_embeddings.weight": table, "other.weight": np.ones(3, np.float32)},
        str(directory / "model.safetensors"),
    )
    return directory


def test_sif_piece_model_weights_frequent_pieces_down(teacher_dir, tmp_path):
    texts = ["the man is on the road .", "the dog is big .", "the house"] * 20
    model = sif_piece_model(teacher_dir, texts, sif_a=1e-2)
    table = input_embeddings(teacher_dir)
    vocab = model.tokenizer.tokenizer.get_vocab()
    norms = np.linalg.norm(np.asarray(model.weights["embedding.weight"]), axis=1) / np.linalg.norm(
        table, axis=1
    )
    assert norms[vocab["the"]] < norms[vocab["big"]] < norms[vocab["huge"]]  # 80, 20, 0 occurrences
    # the average of the weighted pieces, no special tokens, read back from an int8 file
    model.save(tmp_path / "m", dtype="int8")
    again = load(tmp_path / "m")
    expected = np.asarray(model.weights["embedding.weight"])[[vocab["big"], vocab["dog"], vocab["##s"]]].mean(
        axis=0
    )
    got = again.encode("Big dogs")
    assert got @ expected / np.linalg.norm(got) / np.linalg.norm(expected) > 0.999
    assert model.metadata["recipe"] == "sif-pieces"


def test_missing_weights_is_a_format_error(tmp_path):
    with pytest.raises(ModelFormatError, match="model.safetensors"):
        input_embeddings(tmp_path)
