"""The shipped default model on text it was not built for: other scripts and languages,
gibberish, typos and re-spellings. Pairs written for this test, none from any data set."""

import numpy as np
import pytest

from parasent import load

pytestmark = pytest.mark.core

# Unrelated pairs made of words outside the model's (English) vocabulary.
UNRELATED_UNKNOWN = [
    ("Москва большой город.", "Кошка спит на диване."),
    ("Я люблю читать книги зимой.", "Поезд опоздал на два часа."),
    ("Сегодня идёт сильный дождь.", "Мой брат работает врачом."),
    ("我喜欢在公园里散步。", "他的汽车是红色的。"),
    ("今天的天气非常好。", "这本书很难理解。"),
    ("猫在沙发上睡觉。", "银行明天不开门。"),
    ("Η θάλασσα είναι γαλάζια.", "Ο δάσκαλος γράφει στον πίνακα."),
    ("Το τρένο φεύγει στις οκτώ.", "Μου αρέσει ο ζεστός καφές."),
    ("zzqx qqvv", "xxyyzz"),
    ("blorf snazzit wuggle", "quimble frontax"),
    ("Der Kühlschrank summt leise.", "Wir fahren morgen nach Hamburg."),
    ("El perro ladra por la noche.", "Mi abuela cocina muy bien."),
    ("東京は大きい都市です。", "私は毎朝コーヒーを飲みます。"),
    ("서울은 아름다운 도시입니다.", "나는 사과를 좋아해요."),
    ("القطة تنام على الأريكة.", "ذهبت إلى السوق صباحا."),
    ("Сніг падає на дахи.", "Вона грає на скрипці."),
]
# Pairs that differ only by misspelt or re-spelt words.
RESPELT = [
    ("I love my guitar.", "I love my guitr."),
    ("The government failed.", "The goverment failed."),
    ("Flights to Kyiv resumed.", "Flights to Kiev resumed."),
    ("She received a letter.", "She recieved a letter."),
    ("A great restaurant downtown.", "A great restarant downtown."),
    ("A talented musician.", "A talented musicain."),
    ("See you tomorrow.", "See you tommorow."),
    ("A colorful neighborhood.", "A colourful neighbourhood."),
    ("The athlete won.", "The athelete won."),
    ("The committee agreed.", "The comittee agreed."),
    ("He is slicing an onion.", "He is slicing an onoin."),
    ("The children laughed.", "The childern laughed."),
]


@pytest.fixture(scope="module")
def default():
    return load()


def cosines(model, pairs):
    return np.array([model.similarity_pairwise(a, b) for a, b in pairs])


def test_unrelated_unknown_text_is_not_one_sentence(default):
    scores = cosines(default, UNRELATED_UNKNOWN)
    assert scores.max() < 0.999, [
        pair for pair, s in zip(UNRELATED_UNKNOWN, scores, strict=True) if s >= 0.999
    ]
    assert scores.mean() <= 0.6


def test_misspelt_and_respelt_words_stay_close(default):
    assert cosines(default, RESPELT).mean() >= 0.70


def test_text_with_no_known_unit_is_the_zero_vector(default):
    assert default.tokenizer.unknown == "pieces" and default.languages == ["en"]
    nothing = "\U0001f642\U0001f642 \u2603"
    assert not default.encode(nothing).any()
    assert default.similarity_pairwise(nothing, nothing) == 0.0
    assert default.similarity_pairwise(nothing, "A man plays a guitar.") == 0.0
    assert default.coverage("Кошка спит на диване.").share < 0.5 < default.coverage("A cat sleeps.").share


def test_a_script_the_pieces_lack_is_unknown_but_its_punctuation_is_not(default):
    """Georgian has no piece in the teacher's vocabulary: its words contribute nothing, so a
    Georgian text is the zero vector, and one ending in a full stop is the full stop's vector
    (two such texts score 1.0: docs/default-model.md names this limit)."""
    a, b = "ქალაქი ძალიან ლამაზია", "ძაღლი ეზოში თამაშობს"
    assert default.coverage(a).unknown == 3 and default.similarity_pairwise(a, b) == 0.0
    np.testing.assert_allclose(default.encode(a + "."), default.encode("."), rtol=1e-6)
