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


def test_the_guard_names_itself_and_its_switch_only_where_it_took_most_of_a_file():
    from parasent.data.training_text.leakage import GUARD_SWITCH, guard_note

    note = guard_note("SICK_train.txt", 4439, 4500)
    assert "the leakage guard dropped 4439 of SICK_train.txt's 4500 pair(s)" in note and GUARD_SWITCH in note
    assert guard_note("mine.txt", 10, 20, "sentence(s)") == "" and guard_note("empty.txt", 0, 0) == ""


def test_the_guards_note_names_what_its_state_keeps_out_and_the_switch_that_keeps_figures_comparable():
    from parasent.data.training_text.leakage import guard_note

    on = guard_note("msrp-train.tsv", 30, 40)
    assert "a domain test split" in on and "--leakage-guard suites" in on and "--leakage-guard off" in on
    suites = guard_note("msrp-train.tsv", 30, 40, state="suites")
    assert "(they share a sentence with the transfer suite or STS 2016)" in suites
    assert "--leakage-guard suites" not in suites and "--leakage-guard off" in suites


def test_a_copy_with_combining_accents_or_compatibility_forms_is_the_same_text():
    """A test sentence written in NFD (e followed by a combining acute) or with a ligature slipped
    past the guard: both keys are of the NFKC form."""
    import unicodedata

    text = "Zoë's café ﬁnally opened in Malmö."
    for copy in (unicodedata.normalize("NFD", text), text.replace("ﬁ", "fi")):
        assert leakage_key(copy) == leakage_key(text) == normalize_for_leakage(copy)
