from parasent.data.training_text.leakage import normalize_for_leakage
from parasent.distillation.unlabelled import SPAN_MIN_WORDS, phrase_spans, unlabelled_sentences

LONG = "the quick brown fox jumps over the lazy dog today"


def test_a_span_is_a_contiguous_run_of_half_to_four_fifths_of_the_words():
    sentences = [LONG, "too short to cut", " ".join(["w"] * SPAN_MIN_WORDS)]
    spans = [span for _, span in phrase_spans(sentences * 50, seed=1)]
    assert len(spans) == 100  # the short sentence gives none
    for span in spans[::2]:
        assert f" {span} " in f" {LONG} " and 5 <= len(span.split()) <= 8
    assert len(set(spans[::2])) > 3  # seeded, but not one fixed span
    assert spans == [span for _, span in phrase_spans(sentences * 50, seed=1)]


def test_spans_come_from_the_sources_before_them_and_pass_the_leakage_guard(tmp_path):
    text = tmp_path / "mine.txt"
    text.write_text(f"{LONG}\nanother sentence that is long enough to cut\n")
    forbidden = {normalize_for_leakage(s) for s in ("quick brown fox jumps over", "brown fox jumps over the")}
    sentences, counts = unlabelled_sentences([str(text), "spans:5"], tmp_path, [], forbidden, seed=3)
    spans = sentences[2:]
    assert sentences[:2] == text.read_text().splitlines() and counts["spans"] == len(spans) <= 2
    assert all(normalize_for_leakage(s) not in forbidden for s in sentences)
    only, _ = unlabelled_sentences(["spans", str(text)], tmp_path, [], set())
    assert only == text.read_text().splitlines()  # nothing before it: no spans
