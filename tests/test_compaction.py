import numpy as np
import pytest

from parasent.compaction import compact, prune_vocabulary, reduce_dimension, word_ranking
from parasent.inference import cosine_rows
from parasent.model import SentenceModel, load
from parasent.text import WordTokenizer
from parasent.text.pretrained import PretrainedTokenizer

pytestmark = pytest.mark.core

WORDS = ["the", "a", "man", "cat", "runs", "jogs", "aardvark", "zymurgy", ".", ","]
PROBABILITIES = {
    "the": 0.05,
    "a": 0.04,
    "man": 0.01,
    "cat": 0.008,
    "runs": 0.005,
    "jogs": 0.001,
    "aardvark": 1e-7,
}


@pytest.fixture()
def model():
    tokenizer = WordTokenizer.from_vocabulary(WORDS)
    table = np.random.default_rng(0).normal(size=(tokenizer.vocab_size, 24)).astype(np.float32)
    table[0] = 0.0
    table[1] = 0.0  # [UNK] contributes nothing: a pruned word then only counts in the length
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 24}
    return SentenceModel(tokenizer, config, {"embedding.weight": table}, metadata={"trained": "yes"})


def test_ranking_takes_the_larger_of_list_and_text():
    scores = word_ranking(["the", ".", "zymurgy"], {"the": 0.05}, {".": 30, "the": 70})
    assert scores.tolist() == pytest.approx([0.7, 0.3, 0.0])


def test_pruning_keeps_frequent_words_punctuation_and_specials(model):
    scores = word_ranking(model.tokenizer.vocabulary(), PROBABILITIES)
    small = prune_vocabulary(model, 3, scores)
    # "a", "." and "," are single characters: kept whatever their rank
    assert small.tokenizer.vocabulary() == ["[PAD]", "[UNK]", "the", "a", "man", "cat", ".", ","]
    kept = ["the man .", "a man , the man"]
    np.testing.assert_allclose(small.encode(kept), model.encode(kept), rtol=1e-6)
    # a pruned word becomes [UNK] (here a zero row): the direction of the sentence is unchanged
    assert cosine_rows(small.encode(["the cat runs"]), model.encode(["the cat"]))[0] == pytest.approx(1.0)
    assert small.metadata["trained"] == "yes" and small.metadata["compaction"]["kept_words"] == 8


def test_dimension_reduction_keeps_cosines_of_frequent_sentences(model, tmp_path):
    scores = word_ranking(model.tokenizer.vocabulary(), PROBABILITIES)
    same = reduce_dimension(model, 24, scores)
    assert same is model
    reduced = reduce_dimension(model, 12, scores)
    assert reduced.dim == 12 and reduced.encoder_config["embedding_dim"] == 12
    a = ["the man runs", "a cat jogs", "the cat", "a man"]
    b = ["a man jogs", "the cat runs", "a man", "the cat"]
    # the kept directions fit the weighted table best: cosines move, but stay correlated
    full, low = (
        cosine_rows(model.encode(a), model.encode(b)),
        cosine_rows(reduced.encode(a), reduced.encode(b)),
    )
    assert np.corrcoef(full, low)[0, 1] > 0.5
    with pytest.raises(ValueError):
        reduce_dimension(model, 25)


def test_compact_then_int8_round_trip(model, tmp_path):
    small = compact(model, vocab=4, dim=8, probabilities=PROBABILITIES)
    small.save(tmp_path / "small", dtype="int8")
    again = load(tmp_path / "small")
    assert again.dim == 8 and again.tokenizer.vocab_size == small.tokenizer.vocab_size
    sentences = ["the man runs .", "a cat"]
    assert np.all(cosine_rows(again.encode(sentences), small.encode(sentences)) > 0.999)


def test_pruning_refuses_a_pretrained_tokenizer(model):
    tokenizer = PretrainedTokenizer(model.tokenizer.tokenizer)
    other = SentenceModel(tokenizer, model.encoder_config, model.weights)
    with pytest.raises(ValueError, match="pruning"):
        prune_vocabulary(other, 2, np.zeros(tokenizer.vocab_size))
    assert reduce_dimension(other, 8).dim == 8  # reduction applies to any averaging model
