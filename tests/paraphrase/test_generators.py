import sys

import pytest

from parasent.errors import DataFormatError
from parasent.paraphrase import LexicalSubstitution, PairFileGenerator, build_generator, synthetic_pairs


def test_lexical_substitution_replaces_words_with_synonyms_reproducibly():
    generator = LexicalSubstitution.from_pairs([("big", "large"), ("car", "automobile"), ("car", "vehicle")])
    [[one]], [[again]] = generator.generate(["A big car."]), generator.generate(["A big car."])
    assert one == again  # a function of the sentence and the seed, not of call order
    words = one.split()
    assert words[0] == "a" and words[-1] == "."
    assert words[1] in {"big", "large"} and words[2] in {"car", "automobile", "vehicle"}
    assert words[1:3] != ["big", "car"]  # at least one word changed
    assert generator.generate(["Nothing to change here"]) == [[]]
    several = LexicalSubstitution.from_pairs(
        [("car", "automobile"), ("car", "vehicle")], variants=5, rate=1.0
    )
    assert set(several.generate(["car"])[0]) == {"automobile", "vehicle"}


def test_ppdb_generator_reads_the_lexical_file(mini_data_dir):
    generator = build_generator("ppdb", mini_data_dir)
    [[paraphrase]] = generator.generate(["the big house"])
    assert paraphrase != "the big house" and paraphrase.startswith("the ")


def test_pair_file_generator_matches_normalised_sentences(tmp_path):
    path = tmp_path / "pivot.tsv"
    path.write_text("A man plays.\tSomeone is playing.\nA man plays.\tA guy plays.\n")
    generator = build_generator(f"file:{path}")
    assert generator.generate(["a man plays .", "unseen"]) == [["Someone is playing.", "A guy plays."], []]
    path.write_text("no tab here\n")
    with pytest.raises(DataFormatError, match="pivot.tsv:1"):
        PairFileGenerator(path)


def test_python_generator_plugs_in_any_function(tmp_path, monkeypatch):
    (tmp_path / "my_mt.py").write_text(
        "def round_trip(sentences):\n"
        "    return [[s if s.startswith('same') else s + ' indeed'] for s in sentences]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    generator = build_generator("python:my_mt:round_trip")
    pairs = synthetic_pairs(generator, ["a dog", "a dog", "  ", "same thing"], label="validation")
    # duplicates and blanks are dropped; a paraphrase equal to its sentence makes no pair
    assert [(p.s1, p.s2) for p in pairs] == [("a dog", "a dog indeed")]
    assert pairs[0].source == "synthetic:my_mt:round_trip@validation"
    sys.modules.pop("my_mt", None)
    with pytest.raises(ValueError, match="unknown paraphrase generator"):
        build_generator("babelfish")
