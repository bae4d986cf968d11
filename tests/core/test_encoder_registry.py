"""The encoder registry is metadata the core reads: what an entry says of its encoder."""

import dataclasses

import numpy as np

from parasent.core.encoder_registry import ENCODERS, averages_words, word_averaging_names


def test_averaging_words_is_a_property_of_the_record():
    assert ENCODERS["word_averaging"].averages_words and averages_words("word_averaging")
    assert not averages_words("lstm") and not averages_words("charagram") and not averages_words("nope")
    assert word_averaging_names() == "word_averaging"
    chars = dataclasses.replace(ENCODERS["word_averaging"], name="char_average", featurizer="char_ngrams")
    assert chars.static and not chars.averages_words  # an average of character n-grams takes no word bigrams


def test_compaction_follows_the_record_not_a_name(monkeypatch):
    from parasent.core.compaction import reduce_dimension
    from parasent.core.model import SentenceModel
    from parasent.text.word_vectors import WordVectors

    vectors = WordVectors(["a", "man", "dog"], np.eye(3, dtype=np.float32))
    model = SentenceModel.from_vectors(vectors)
    second = dataclasses.replace(ENCODERS["word_averaging"], name="my_average")
    monkeypatch.setitem(ENCODERS, "my_average", second)
    model.encoder_config["name"] = "my_average"
    assert reduce_dimension(model, 2).dim == 2
