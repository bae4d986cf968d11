import gzip

import pytest

from parasent.data.training_text.unlabelled import unlabelled_text
from parasent.errors import DataNotFoundError


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def test_groups_read_every_format_family(tmp_path):
    extra = tmp_path / "paraphrase_extra"
    _write(extra / "quora_bimpm/dev.tsv.gz", "1\tHow do I cook rice?\tWhat is the way to cook rice?\t7\n")
    _write(extra / "paws_wiki/dev.tsv.gz", "id\tsentence1\tsentence2\tlabel\n1\tA b c.\tC b a.\t0\n")
    _write(extra / "wikisplit/tune.tsv.gz", "Long one , and more .\tLong one . <::::> And more .\n")
    _write(extra / "onestopenglish/ELE-INT.txt", "Simple line .\nHarder line .\n\nNext one .\n")
    _write(extra / "flickr8k/Flickr8k.token.txt.gz", "1.jpg#0\tA dog runs .\n1.jpg#1\tA dog is running .\n")
    with pytest.raises(DataNotFoundError, match="quora_paragen"):
        list(unlabelled_text(tmp_path, "extended"))  # a missing family is named, not skipped
    for pattern in ["quora_paragen/dev.q1", "turkcorpus/tune.8turkers.tok.norm", "turkcorpus/tune.8turkers.tok.turk.0",
                    "asset/asset.valid.orig", "wikianswers_paralex/val.q1", "scitail/dev.txt"]:  # fmt: skip
        _write(
            extra / pattern,
            "Premise here .\tHypothesis here .\tentails\n" if "scitail" in pattern else "x y .\n",
        )
    got = list(unlabelled_text(tmp_path, "extended"))
    texts = [t for _, t in got]
    assert "How do I cook rice?" in texts and "What is the way to cook rice?" in texts
    assert "sentence1" not in texts and "C b a." in texts  # header skipped
    assert "Long one ." in texts and "And more ." in texts and "Long one , and more ." in texts
    assert "" not in texts and "Next one ." in texts
    assert "Premise here ." in texts and "entails" not in texts
    assert {s for s, _ in got} >= {"quora_bimpm", "paws_wiki", "wikisplit", "onestopenglish", "scitail"}
    _write(extra / "multi30k_task2_en/train.1.en.gz", "Two men talk .\n")
    _write(extra / "snli/validation.tsv.gz", "premise\thypothesis\tlabel\nA man sits .\tA person sits .\t0\n")
    captions = [t for _, t in unlabelled_text(tmp_path, "captions")]
    assert captions == [
        "A dog runs .",
        "A dog is running .",
        "Two men talk .",
        "A man sits .",
        "A person sits .",
    ]
    with pytest.raises(ValueError, match="unknown text group"):
        list(unlabelled_text(tmp_path, "everything"))


def test_lines_that_are_not_utf8_are_read_as_latin1(tmp_path):
    extra = tmp_path / "paraphrase_extra/multi30k_task2_en"
    extra.mkdir(parents=True)
    with gzip.open(extra / "train.1.en.gz", "wb") as handle:
        handle.write(b"caf\xe9 au lait .\n")
    _write(tmp_path / "paraphrase_extra/flickr8k/Flickr8k.token.txt.gz", "1.jpg#0\tA cat .\n")
    _write(tmp_path / "paraphrase_extra/snli/test.tsv.gz", "premise\thypothesis\tlabel\n")
    assert "café au lait ." in [t for _, t in unlabelled_text(tmp_path, "captions")]


def test_labelled_all_reads_both_sides_of_every_pair_whatever_its_label(tmp_path):
    _write(
        tmp_path / "paraphrase/twitter_url_corpus/train.tsv.gz", "0\ta tweet\tan unrelated tweet\n1\tx\ty\n"
    )
    _write(tmp_path / "paraphrase/msrp/test.tsv", "0\tnews one .\tnews two .\n")
    got = list(unlabelled_text(tmp_path, "labelled-all"))
    assert got == [
        ("twitter-url-all", "a tweet"),
        ("twitter-url-all", "an unrelated tweet"),
        ("twitter-url-all", "x"),
        ("twitter-url-all", "y"),
        ("msrp-all", "news one ."),
        ("msrp-all", "news two ."),
    ]
