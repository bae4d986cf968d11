from parasent.text.sentences import paragraphs_by_blank_lines, paragraphs_by_lines, split_sentences


def test_splits_at_terminal_punctuation_before_a_capital():
    assert split_sentences("It rained. We stayed in! Did you? Yes.") == [
        "It rained.",
        "We stayed in!",
        "Did you?",
        "Yes.",
    ]


def test_abbreviations_and_initials_do_not_end_a_sentence():
    text = "Mr. Weston met Dr. Perry at St. Paul's. Harry S. Truman spoke. The U.S. Army came."
    assert split_sentences(text) == [
        "Mr. Weston met Dr. Perry at St. Paul's.",
        "Harry S. Truman spoke.",
        "The U.S. Army came.",
    ]


def test_quotes_brackets_digits_and_lowercase_continuations():
    text = 'He said "Go!" Then he left. (It was late.) 3 men came. It cost 5 dollars. etc. and so on'
    assert split_sentences(text) == [
        'He said "Go!"',
        "Then he left.",
        "(It was late.)",
        "3 men came.",
        "It cost 5 dollars. etc. and so on",
    ]


def test_whitespace_is_normalised_and_empty_text_has_no_sentence():
    assert split_sentences("  One\n two.\tThree  ") == ["One two.", "Three"]
    assert split_sentences(" \n ") == []


def test_paragraph_layouts():
    wrapped = ["First line", "continues here.", "", "", "Second", "paragraph.", ""]
    assert list(paragraphs_by_blank_lines(wrapped)) == ["First line continues here.", "Second paragraph."]
    assert list(paragraphs_by_lines(["One.", " ", "Two."])) == ["One.", "Two."]


def test_splitter_is_linear_on_a_paragraph_without_boundaries():
    """160 KB of "Mr. " (abbreviations, so no boundary) took minutes with a quadratic look-back;
    the guard is a timeout, far above the linear cost."""
    from tests.fuzz.mutate import time_limit

    with time_limit(20):
        sentences = split_sentences("Mr. " * 40_000)
    assert sentences == [("Mr. " * 40_000).strip()]
    assert split_sentences("He met Mr. Smith. Then H. G. Wells left.") == [
        "He met Mr. Smith.",
        "Then H. G. Wells left.",
    ]
