"""``parasent similarity``: the cosine of two sentences, and a note where one is unreadable."""

from __future__ import annotations

from parasent.cli import main


def test_a_sentence_of_no_known_unit_gets_a_note_not_a_silent_zero(capsys):
    assert main(["similarity", "😀", "a happy face"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "0.0000\n"
    assert captured.err == "note: sentence1 '😀' has no unit the model knows: its vector is zero\n"
    assert main(["similarity", "a cat", "a kitten"]) == 0
    captured = capsys.readouterr()
    assert float(captured.out) > 0.3 and captured.err == ""
