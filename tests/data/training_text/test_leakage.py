from parasent.data.training_text.leakage import leakage_key, normalize_for_leakage, pair_key


def test_normalization_catches_tokenized_copies():
    assert normalize_for_leakage("Yucaipa owned Dominick's.") == normalize_for_leakage(
        "yucaipa owned dominick 's ."
    )
    assert normalize_for_leakage("Café, 2003!") == "café2003"


def test_leakage_key_matches_the_pool_rule():
    for text in ["Dominick's dog_house, 3 ", "a  b\tc", "Ünïcode wörds!", "under_score"]:
        assert leakage_key(text) == normalize_for_leakage(text)


def test_pair_key_is_order_free():
    assert pair_key("themovie", "thisvideo") == pair_key("thisvideo", "themovie") == ("themovie", "thisvideo")
