import numpy as np
import pytest

from parasent.core.compaction import compact, prune_vocabulary, reduce_dimension, word_ranking
from parasent.core.inference import cosine_rows
from parasent.core.model import SentenceModel, load
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


def test_sharing_gives_each_dropped_word_its_nearest_kept_words_vector(model):
    from parasent.core.compaction import share_vocabulary

    scores = word_ranking(model.tokenizer.vocabulary(), PROBABILITIES)
    shared = share_vocabulary(model, 4, scores)
    vocabulary = model.tokenizer.vocabulary()
    assert shared.tokenizer.vocabulary() == vocabulary  # every word still has its own token
    table, before = shared.weights["embedding.weight"], model.weights["embedding.weight"]
    kept = ["the", "a", "man", "cat", "runs", ".", ","]  # 4 best-scored words and one-character tokens
    unit = before / np.maximum(np.linalg.norm(before, axis=1, keepdims=True), 1e-12)
    for word in ("jogs", "aardvark", "zymurgy"):
        row = vocabulary.index(word)
        nearest = max(kept, key=lambda k: float(unit[row] @ unit[vocabulary.index(k)]))
        np.testing.assert_array_equal(table[row], before[vocabulary.index(nearest)])
    for word in [*kept, "[PAD]", "[UNK]"]:
        np.testing.assert_array_equal(table[vocabulary.index(word)], before[vocabulary.index(word)])


def test_shared_compaction_stores_distinct_rows_once_and_loads_the_whole_table(model, tmp_path, monkeypatch):
    monkeypatch.setattr("parasent.core.stored_weights.SHARE_MIN_BYTES", 0)  # a toy table shares too
    small = compact(model, vocab=4, dim=8, probabilities=PROBABILITIES)
    assert small.tokenizer.vocab_size == model.tokenizer.vocab_size
    for dtype in ("int8", "float16", "float32"):
        path = small.save(tmp_path / dtype, dtype=dtype)
        again = load(path)
        config = __import__("json").loads((path / "config.json").read_text())
        assert config["format"] == 3
        from safetensors.numpy import load_file

        stored = load_file(str(path / "model.safetensors"))
        distinct = np.unique(small.weights["embedding.weight"], axis=0)
        assert (
            stored["embedding.weight"].shape[0] == len(distinct) == 8
        )  # 7 kept, one zero row for [PAD] and [UNK]
        assert len(stored["embedding.weight.row_index"]) == model.tokenizer.vocab_size
        sentences = ["the man runs .", "a zymurgy cat", "jogs"]
        assert np.all(cosine_rows(again.encode(sentences), small.encode(sentences)) > 0.999)
    unk = compact(model, vocab=4, dim=8, probabilities=PROBABILITIES, pruned="unk")
    assert unk.tokenizer.vocab_size == 9  # the 7 kept, [PAD] and [UNK]
    with pytest.raises(ValueError, match="pruned"):
        compact(model, vocab=4, dim=8, probabilities=PROBABILITIES, pruned="drop")


def test_a_bigram_model_keeps_its_most_used_bigrams_and_never_shares_them(model):
    from parasent.core.compaction import bigram_ranking
    from parasent.text.word_bigrams import JOINER, WordBigramTokenizer

    pairs = [("the", "man"), ("man", "runs"), ("a", "cat"), ("cat", "jogs")]
    tokenizer = WordBigramTokenizer.from_words(model.tokenizer, pairs)
    words = np.asarray(model.weights["embedding.weight"])
    grams = np.random.default_rng(5).normal(size=(4, 24)).astype(np.float32)
    grams[3] *= 100  # the largest row, but never in the text: ranked last
    config = dict(model.encoder_config, vocab_size=tokenizer.vocab_size)
    bigrams = SentenceModel(tokenizer, config, {"embedding.weight": np.vstack([words, grams])})
    texts = ["the man runs", "the man runs .", "a cat", "a cat"]
    scores = bigram_ranking(bigrams, texts)
    assert scores[: len(words)].sum() == 0 and scores[-1] == 0 and (scores[-4:-1] > 0).all()
    small = compact(bigrams, vocab=4, dim=None, probabilities=PROBABILITIES, bigrams=2, texts=texts)
    vocabulary = small.tokenizer.vocabulary()
    kept = [t for t in vocabulary if JOINER in t]
    assert len(kept) == 2 and f"cat{JOINER}jogs" not in kept
    assert vocabulary[: len(words)] == model.tokenizer.vocabulary()  # every word keeps its token
    note = small.metadata["compaction"]  # words counted apart from the bigrams
    assert (note["kept_words"], note["shared_from"], note["kept_bigrams"]) == (
        9,
        len(words),
        2,
    )  # 4 best, "a", ".", ",", [PAD], [UNK]
    table = small.weights["embedding.weight"]
    for gram in kept:  # a kept bigram keeps its own row
        np.testing.assert_array_equal(table[vocabulary.index(gram)], grams[tokenizer.vocabulary().index(gram) - len(words)])  # fmt: skip
    row = vocabulary.index("zymurgy")  # a dropped word shares a kept word's row, never a bigram's
    assert any(np.array_equal(table[row], words[i]) for i in range(len(words)))
    whole = compact(bigrams, vocab=None, dim=8, probabilities=PROBABILITIES)
    assert whole.tokenizer.vocab_size == tokenizer.vocab_size  # bigrams=None keeps them all
    from parasent.core.compaction import words_only

    plain = words_only(bigrams)
    assert (
        type(plain.tokenizer) is WordTokenizer
        and plain.tokenizer.vocabulary() == model.tokenizer.vocabulary()
    )
    np.testing.assert_array_equal(plain.encode(texts), model.encode(texts))
    assert words_only(model) is model


def test_a_trigram_model_keeps_its_most_used_trigrams_and_never_shares_them(model):
    from parasent.core.compaction import prune_trigrams, trigram_ranking, words_only
    from parasent.core.model_formats.export import dropped_by_words_only
    from parasent.text.word_bigrams import JOINER, WordBigramTokenizer

    pairs = [("the", "man"), ("a", "cat")]
    triples = [("the", "man", "runs"), ("man", "runs", "."), ("a", "cat", "jogs")]
    tokenizer = WordBigramTokenizer.from_words(model.tokenizer, pairs, triples)
    words = np.asarray(model.weights["embedding.weight"])
    grams = np.random.default_rng(5).normal(size=(5, 24)).astype(np.float32)
    grams /= np.linalg.norm(grams, axis=1, keepdims=True)  # equal norms: the text decides
    grams[4] *= 100  # the largest row, but never in the text: ranked last
    config = dict(model.encoder_config, vocab_size=tokenizer.vocab_size)
    full = SentenceModel(tokenizer, config, {"embedding.weight": np.vstack([words, grams])})
    texts = ["the man runs", "the man runs .", "a cat", "a cat"]
    scores = trigram_ranking(full, texts)
    assert scores[: len(words) + 2].sum() == 0 and scores[-1] == 0 and scores[-3] > scores[-2] > 0
    small = compact(full, vocab=4, dim=None, probabilities=PROBABILITIES, trigrams=1, texts=texts)
    vocabulary = small.tokenizer.vocabulary()
    assert [t for t in vocabulary if JOINER in t] == [
        f"the{JOINER}man",
        f"a{JOINER}cat",
        f"the{JOINER}man{JOINER}runs",
    ]
    assert vocabulary[: len(words)] == model.tokenizer.vocabulary()  # every word keeps its token
    note = small.metadata["compaction"]
    assert (note["trigrams_from"], note["kept_trigrams"], note["shared_from"]) == (3, 1, len(words))
    table = small.weights["embedding.weight"]
    np.testing.assert_array_equal(table[-1], grams[2])  # a kept trigram keeps its own row
    np.testing.assert_array_equal(table[-3:-1], grams[:2])  # and the bigrams theirs
    row = vocabulary.index("zymurgy")  # a dropped word shares a kept word's row, never a trigram's
    assert any(np.array_equal(table[row], words[i]) for i in range(len(words)))
    fewer_bigrams = compact(full, vocab=None, dim=None, probabilities=PROBABILITIES, bigrams=1, texts=texts)
    assert fewer_bigrams.tokenizer.trigram_ids.tolist() == [len(words) + 1, len(words) + 2, len(words) + 3]
    assert len(fewer_bigrams.tokenizer.bigram_ids) == 1  # --bigrams alone keeps every trigram
    np.testing.assert_array_equal(fewer_bigrams.encode(texts[:1]), full.encode(texts[:1]))  # its bigram kept
    plain = words_only(full)
    assert (
        type(plain.tokenizer) is WordTokenizer
        and plain.tokenizer.vocabulary() == model.tokenizer.vocabulary()
    )
    np.testing.assert_array_equal(plain.encode(texts), model.encode(texts))
    assert dropped_by_words_only(plain) == ["2 word bigrams", "3 word trigrams"]
    with pytest.raises(ValueError, match="needs a model with word trigrams"):
        prune_trigrams(words_only(full), 1, scores)


def pieces_model() -> SentenceModel:
    from parasent.core.stored_weights import EMBEDDING_KEY
    from parasent.text.word_bigrams import WordBigramTokenizer
    from parasent.text.word_pieces import piece_token

    words = ["a", "man", "plays", "the", "guitar", "dog", "runs", "park", "."]
    pieces = [piece_token(p) for p in ["gui", "##tr", "z", "##q"]]
    base = WordTokenizer.from_vocabulary(words + pieces, unknown="pieces")
    tokenizer = WordBigramTokenizer.from_words(base, [("the", "guitar"), ("dog", "runs")])
    table = np.random.default_rng(0).normal(size=(tokenizer.vocab_size, 8)).astype(np.float32)
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 8}
    return SentenceModel(tokenizer, config, {EMBEDDING_KEY: table})


def test_pieces_keep_their_rows_through_compaction_and_leave_with_words_only():
    from parasent.core.compaction import words_only

    model = pieces_model()
    probabilities = {w: 1 / (i + 1) for i, w in enumerate(["a", "the", "man", "dog"])}
    small = compact(model, vocab=2, dim=None, probabilities=probabilities)
    table, before = (
        np.asarray(small.weights["embedding.weight"]),
        np.asarray(model.weights["embedding.weight"]),
    )
    vocabulary = model.tokenizer.vocabulary()
    for token in ("[p]gui", "[p]##tr", "[p]z", "[p]##q"):  # own rows, never shared
        row = vocabulary.index(token)
        np.testing.assert_array_equal(table[row], before[row])
    plain = words_only(model)
    assert plain.tokenizer.unknown == "skip" and not any(
        t.startswith("[p]") for t in plain.tokenizer.vocabulary()
    )
    assert plain.metadata["compaction"] == {"bigrams_dropped": 2, "pieces_dropped": 4}
    np.testing.assert_allclose(
        plain.encode("a man plays the guitr"), model.encode("a man plays the"), rtol=1e-6
    )
