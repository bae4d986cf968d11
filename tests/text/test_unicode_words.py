"""The split of any script in numpy (parasent.text.unicode_words) against the tokenizers pipeline."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parasent.text import WordTokenizer, unicode_words
from parasent.text.tokenizer import FAST_PATH_MIN_TEXTS, character_classes, pre_tokenize, words_at
from parasent.text.unicode_words import ALONE, OTHER, SPACE, WORD, CharacterClasses

pytestmark = pytest.mark.core

# Characters the two lowercasings or the split could treat differently: final sigma, a capital
# whose lowercase is two characters, combining marks, letters without case, digits of other
# scripts, spaces and punctuation outside ASCII, a symbol outside the basic plane, controls.
TRICKY = (
    "ΟΔΟΣ Σίσυφος ὈΔΥΣΣΕΎΣ İstanbul STRASSE Straße ǅ ﬁ ﬀ café CAFÉ naïve e\u0301 日本語 ß ẞ "
    "٣٤ ١٢ Ⅻ ½ ² \u00a0 \u2003 \u3000 \u200b \u2028 \u0085 \u180e “quoted” ‘it’s’ — – … € ¿¡ "
    "😀👍🏽 \U0001d400 \x1c \x1f \x7f \u00ad \ufeff Ωμέγα ΑΘΗΝΑ Ⓐ ⓐ"
)
WORDS = ["café", "naïve", "straße", "日本語", "οδοσ", "σίσυφος", "istanbul", "i̇stanbul", "“", "—", "😀"]


def pipeline_ids(tokenizer: WordTokenizer, texts: list[str]) -> list[list[int]]:
    return [e.ids for e in tokenizer.tokenizer.encode_batch(texts, add_special_tokens=False)]


def fast_ids(tokenizer: WordTokenizer, texts: list[str]) -> list[list[int]]:
    batch = (texts * (FAST_PATH_MIN_TEXTS // len(texts) + 1))[: max(FAST_PATH_MIN_TEXTS, len(texts))]
    tokenized = tokenizer.encode_batch(batch)  # a batch this large takes the numpy path
    assert tokenizer._ids is not None
    return [tokenized.sentence(i).tolist() for i in range(len(texts))]


def test_tricky_characters_give_the_pipelines_ids():
    tokenizer = WordTokenizer.from_vocabulary(WORDS + ["the", "quoted", "it", "s"])
    texts = TRICKY.split(" ") + [TRICKY, "plain ascii", "Ο ΔΡΟΜΟΣ: café, “the” quoted…"]
    assert fast_ids(tokenizer, texts) == pipeline_ids(tokenizer, texts)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list(TRICKY) + list("aB1_.,' \t")), max_size=14),
        min_size=1,
        max_size=20,
    )
)
def test_random_texts_of_tricky_characters_give_the_pipelines_ids(texts):
    tokenizer = WordTokenizer.from_vocabulary(WORDS)
    assert fast_ids(tokenizer, texts) == pipeline_ids(tokenizer, texts)


def test_words_at_are_the_pipelines_words():
    texts = ["plain words", "Ο ΔΡΟΜΟΣ: café, “the” end…", "日本語のテキスト ＡＢＣ", "x\0y é"]
    which, ranks = zip(
        *[(i, k) for i, text in enumerate(texts) for k in range(len(pre_tokenize(text)))], strict=True
    )
    found = words_at(texts, np.array(which), np.array(ranks))
    assert found == [word for text in texts for word in pre_tokenize(text)]


def test_the_classes_learnt_from_the_pipeline():
    classes = character_classes()
    points = np.array([ord(c) for c in "aé日 \u00a0—“\x00😀"], dtype=np.uint32)
    assert classes.classes(points).tolist() == [WORD, WORD, WORD, SPACE, SPACE, ALONE, ALONE, ALONE, ALONE]


def test_texts_the_split_cannot_serve_are_left_to_the_pipeline():
    # a character the normalizer lowers otherwise, or one of no class, leaves its text out; a
    # text holding the separator or a lone surrogate too (the pipeline names the bad text)
    def normalize(text: str) -> str:
        return text.replace("Ж", "zh").lower()

    def pre_tokenize_probe(text: str) -> list[str]:
        return [text] if "ж" in text else pre_tokenize(text)

    classes = CharacterClasses(normalize, lambda text: pre_tokenize_probe(text) if "¤" not in text else ["?"])
    texts = ["Жук", "é ok", "a¤b", "nul\0é", "bad\udc80é", "ünï"]
    found = unicode_words.split(texts, classes)
    assert found.kept.tolist() == [1, 5]
    assert unicode_words.words_at(found, np.array([0, 0, 1]), np.array([0, 1, 0])) == ["é", "ok", "ünï"]
    assert classes.classes(np.array([ord("¤")], dtype=np.uint32)).tolist() == [OTHER]


def test_a_lone_surrogate_is_still_named():
    tokenizer = WordTokenizer.from_vocabulary(WORDS)
    fast_ids(tokenizer, ["warm the lookup"])
    with pytest.raises(ValueError, match="text 2 \\(index 1\\) is not valid Unicode"):
        tokenizer.encode_batch(["fine é", "bad\udc80é"] + ["x"] * FAST_PATH_MIN_TEXTS)


def test_a_stored_vocabulary_splits_any_script_as_the_pipeline(tmp_path):
    # the default model's case: tokenizer.json is never read, the words are found by hash
    from parasent.core.model import SentenceModel, load
    from parasent.core.stored_weights import EMBEDDING_KEY
    from parasent.text.word_pieces import piece_token

    pieces = [piece_token(p) for p in ("caf", "##é", "日", "##本", "σ", "##ο")]
    tokenizer = WordTokenizer.from_vocabulary(WORDS + pieces, unknown="pieces")
    table = np.random.default_rng(0).normal(size=(tokenizer.vocab_size, 4)).astype(np.float32)
    model = SentenceModel(
        tokenizer,
        {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 4},
        {EMBEDDING_KEY: table},
    )
    loaded = load(model.save(tmp_path / "model"))
    texts = TRICKY.split(" ") + [TRICKY, "CAFÉS σοσ 日本人"]
    batch = loaded.tokenizer.encode_batch(texts * (FAST_PATH_MIN_TEXTS // len(texts) + 1))
    assert loaded.tokenizer._pipeline is None
    for i, text in enumerate(texts):
        assert (
            batch.sentence(i).tolist()
            == WordTokenizer(tokenizer.tokenizer, unknown="pieces").encode_batch([text]).ids.tolist()
        )


def test_a_mostly_ascii_batch_splits_whole_and_puts_the_others_in_place(monkeypatch):
    # few texts outside ASCII (the usual batch): the whole batch as UTF-8 bytes, those texts
    # split again and put back in their places; a lone surrogate still named in the batch
    from parasent.text import tokenizer as module

    tokenizer = WordTokenizer.from_vocabulary(WORDS + ["plain", "text", "the"])
    fast_ids(tokenizer, ["warm the lookup"])
    taken = []
    real = WordTokenizer._encode_mixed
    monkeypatch.setattr(WordTokenizer, "_encode_mixed", lambda self, *a: taken.append(1) or real(self, *a))
    texts = ["plain text", "", "the cafe"] * 100 + ["ΟΔΟΣ “naïve” — 日本語", "   ", "Σ"]
    assert len(texts) // module.MIXED_SHARE >= sum(not t.isascii() for t in texts)
    batch = tokenizer.encode_batch(texts)
    assert taken and [batch.sentence(i).tolist() for i in range(len(texts))] == pipeline_ids(tokenizer, texts)
    with pytest.raises(ValueError, match="text 303 \\(index 302\\) is not valid Unicode"):
        tokenizer.encode_batch(texts[:302] + ["bad\udc80é"])
