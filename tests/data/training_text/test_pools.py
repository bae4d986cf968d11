import gzip

import pytest

from parasent.data.training_text.leakage import normalize_for_leakage, pair_key
from parasent.data.training_text.pools import (
    POOLS,
    TrainingPair,
    build_pool,
    evaluation_sentences,
    filter_pairs,
    read_pair_file,
)


def test_filter_drops_leaked_duplicate_and_empty():
    forbidden = {normalize_for_leakage("A man is playing a guitar.")}
    pairs = [
        TrainingPair("a man is playing a guitar .", "someone plays guitar", "msrp"),
        TrainingPair("big", "large", "lex"),
        TrainingPair("large", "big", "lex"),  # the same pair reversed
        TrainingPair("Big", "Large", "lex"),  # the same pair in another case
        TrainingPair(" ", "x", "lex"),
        TrainingPair("small", "little", "lex"),
    ]
    kept, report = filter_pairs(pairs, forbidden)
    assert [(p.s1, p.s2) for p in kept] == [("big", "large"), ("small", "little")]
    assert report.leaked["msrp"] == 1 and report.total_leaked == 1
    assert report.duplicates == 2 and report.empty == 1
    assert "dropped 1 pair(s)" in report.summary()


def test_standard_pool_on_mini_data(mini_data_dir):
    pairs, report = build_pool(mini_data_dir, "standard")
    sources = {p.source for p in pairs}
    assert sources == {"ppdb-human", "ppdb-lexical", "twitter-url", "msrp"}
    assert set(report.read) == {s.group for s in POOLS["standard"].sources}
    # human pairs below 4 and twitter pairs labelled 0 are not positives
    assert report.read["twitter-url"] < 20 + 200 + 1
    forbidden = evaluation_sentences(mini_data_dir)
    assert all(normalize_for_leakage(p.s1) not in forbidden for p in pairs)


def test_standard_pool_drops_pairs_that_leak(mini_data_dir, tmp_path):
    from parasent.data.registry.catalog import SIMILARITY

    leaked = SIMILARITY["sts2013/FNWN"].load(mini_data_dir)[0].s1
    extra = tmp_path / "mine.tsv"
    extra.write_text(f"{leaked.upper()}\tsomething\nfresh words\tnew words\n")
    pairs, report = build_pool(mini_data_dir, None, files=[(extra, "tsv")])
    assert [(p.s1, p.s2) for p in pairs] == [("fresh words", "new words")]
    assert report.leaked["file:mine.tsv"] == 1


def test_read_pair_file_formats(tmp_path):
    path = tmp_path / "ppdb.txt"
    path.write_text("[NP] ||| a b ||| c ||| S=1 ||| 0-0\n")
    assert [(p.s1, p.s2) for p in read_pair_file(path, "ppdb")] == [("a b", "c")]
    path = tmp_path / "lab.tsv"
    path.write_text("1\ta\tb\n0\tc\td\n")
    assert len(list(read_pair_file(path, "labelled"))) == 1
    path.write_text("1\ta\tb\n7\tc\td\n")  # dropped unseen before, as a 0 is
    with pytest.raises(Exception, match=r"lab.tsv:2: label 7 is not 0 or 1"):
        list(read_pair_file(path, "labelled"))


def test_scored_pairs_are_kept_from_the_threshold_up():
    pairs = [
        TrainingPair("a", "b", "sts", 4.0),
        TrainingPair("c", "d", "sts", 3.79),
        TrainingPair("e", "f", "lex"),  # unscored pairs are never thresholded
    ]
    kept, report = filter_pairs(pairs, set(), min_score=3.8)
    assert [p.s1 for p in kept] == ["a", "e"]
    assert (
        report.below_score["sts"] == 1 and "below the paraphrase threshold (score < 3.8)" in report.summary()
    )


def test_sts2012_train_pool_uses_its_threshold(mini_data_dir):
    pairs, report = build_pool(mini_data_dir, "sts2012-train")
    assert pairs and all(p.score >= 3.8 for p in pairs)
    assert report.min_score == 3.8 and sum(report.below_score.values()) > 0
    lower, _ = build_pool(mini_data_dir, "sts2012-train", min_score=3.0)
    assert len(lower) > len(pairs)


def test_sts_pair_files_are_scored(tmp_path, mini_data_dir):
    path = tmp_path / "mine.tsv"
    path.write_text("4.5\tone sentence\tanother one\n1.0\tfar\tapart\n")
    assert [p.score for p in read_pair_file(path, "sts")] == [4.5, 1.0]
    pairs, _ = build_pool(mini_data_dir, None, files=[(path, "sts")], min_score=4.0)
    assert [(p.s1, p.s2) for p in pairs] == [("one sentence", "another one")]


def test_task_pairs_are_excluded_in_either_order():
    task = {pair_key(normalize_for_leakage("the movie"), normalize_for_leakage("this video"))}
    pairs = [
        TrainingPair("This video", "the movie", "ppdb-human"),
        TrainingPair("the movie", "a film", "twitter-url"),
        TrainingPair("big", "large", "lex"),
    ]
    kept, report = filter_pairs(pairs, {normalize_for_leakage("large")}, forbidden_pairs=task)
    assert [(p.s1, p.s2) for p in kept] == [("the movie", "a film")]
    assert report.excluded["ppdb-human"] == 1 and report.leaked["lex"] == 1
    assert "1 pair(s) of the PPDB task" in report.summary() and report.to_dict()["excluded"] == {
        "ppdb-human": 1
    }


def test_ppdb_protocol_pool_has_no_pavlick_pair(mini_data_dir):
    from parasent.data.registry.catalog import SIMILARITY
    from parasent.data.training_text.pools import protocol_exclusions

    standard, none = protocol_exclusions(mini_data_dir, "standard")
    assert none == set() and standard == evaluation_sentences(mini_data_dir)
    forbidden, task = protocol_exclusions(mini_data_dir, "ppdb")
    test_phrases = {normalize_for_leakage(p.s1) for p in SIMILARITY["ppdb2015/ppdb-test"].load(mini_data_dir)}
    assert standard | test_phrases <= forbidden and task
    pairs, report = build_pool(mini_data_dir, "standard", forbidden=forbidden, forbidden_pairs=task)
    assert report.read["ppdb-human"] > 0 and report.kept["ppdb-human"] == 0
    assert report.excluded["ppdb-human"] > 0 and "a phrase with the PPDB test half" in report.summary()
    assert not {normalize_for_leakage(s) for p in pairs for s in (p.s1, p.s2)} & test_phrases
    with pytest.raises(ValueError, match="unknown protocol"):
        protocol_exclusions(mini_data_dir, "paper")


@pytest.mark.slow
@pytest.mark.data
def test_ppdb_protocol_pool_on_the_shared_data(shared_data_dir):
    from parasent.data.registry.catalog import SIMILARITY
    from parasent.data.training_text.pools import protocol_exclusions

    forbidden, task = protocol_exclusions(shared_data_dir, "ppdb")
    pairs, report = build_pool(shared_data_dir, "standard", forbidden=forbidden, forbidden_pairs=task)
    assert report.kept["ppdb-human"] == 0 and report.excluded["ppdb-lexical"] > 0
    test = SIMILARITY["ppdb2015/ppdb-test"].load(shared_data_dir)
    phrases = {normalize_for_leakage(s) for p in test for s in (p.s1, p.s2)}
    texts = [(normalize_for_leakage(p.s1), normalize_for_leakage(p.s2)) for p in pairs]
    assert not any(a in phrases or b in phrases or pair_key(a, b) in task for a, b in texts)
    assert 20_000 < len(pairs) < report.total_kept + 1


def test_a_pair_file_without_its_format_is_read_as_what_it_holds(tmp_path):
    from parasent.data.training_text.pools import resolve_pair_spec

    files = {
        "plain.tsv": "a cat sat\na cat was sitting\n",
        "labels.tsv": "1\ta cat sat\ta cat was sitting\n0\ta dog ran\tstocks fell\n",
        "scores.tsv": "4.5\ta cat sat\ta cat was sitting\n0.2\ta dog ran\tstocks fell\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text.replace("sat\na", "sat\ta") if name == "plain.tsv" else text)
    assert resolve_pair_spec(str(tmp_path / "plain.tsv"))[1] == "tsv"
    assert resolve_pair_spec(str(tmp_path / "labels.tsv"))[1] == "labelled"
    assert resolve_pair_spec(str(tmp_path / "scores.tsv"))[1] == "sts"
    assert resolve_pair_spec(f"{tmp_path / 'scores.tsv'}:tsv")[1] == "tsv"  # a named format wins
    assert resolve_pair_spec(str(tmp_path / "missing.tsv")) == (str(tmp_path / "missing.tsv"), "tsv")


def test_a_ranked_file_of_one_score_is_plain_pairs_or_refused(mini_data_dir, tmp_path):
    import pytest

    def ranked(name, lines, fmt):
        path = tmp_path / name
        path.write_text("".join(f"{line}\n" for line in lines))
        return build_pool(mini_data_dir, None, files=[(path, fmt)], ranked=True, forbidden=set())

    pairs, report = ranked("pos.tsv", ["1\ta cat\ta kitten", "1\ta dog\ta puppy"], "labelled")
    assert [p.score for p in pairs] == [None, None]  # paraphrases: Eq. 1, not a ranking of equals
    assert report.notes == [
        "pos.tsv: every pair is labelled 1: trained as paraphrase pairs (Eq. 1, negatives from the batch)"
    ]
    assert report.notes[0] in report.summary()
    pairs, report = ranked("both.tsv", ["1\ta cat\ta kitten", "0\ta dog\ta car"], "labelled")
    assert [p.score for p in pairs] == [1.0, 0.0] and report.notes == []
    with pytest.raises(ValueError, match="neg.tsv: every pair is labelled 0"):
        ranked("neg.tsv", ["0\ta cat\ta car", "0\ta dog\ta tree"], "labelled")
    with pytest.raises(
        ValueError, match="sts.tsv: every pair has the score 4: ranking and correlation need different scores"
    ):
        ranked("sts.tsv", ["4\ta cat\ta kitten", "4\ta dog\ta puppy"], "sts")


def test_a_file_of_which_nothing_is_kept_is_said_in_one_line(mini_data_dir, tmp_path):
    from parasent.data.training_text.leakage import normalize_for_leakage

    path = tmp_path / "mine.tsv"
    path.write_text("a cat sat\ta cat is sitting\nthe dog ran\ta dog was running\n")
    forbidden = {normalize_for_leakage("a cat sat"), normalize_for_leakage("a dog was running")}
    pairs, report = build_pool(mini_data_dir, None, files=[(path, "tsv")], forbidden=forbidden)
    assert pairs == [] and report.summary().splitlines()[-1] == (
        "mine.tsv: none of its 2 pair(s) is kept (2 share a sentence with an evaluation set; the others "
        "repeat pairs read before them, have an empty side, or score below the threshold); the leakage guard "
        "dropped 2 of mine.tsv's 2 pair(s) (they share a sentence with the transfer suite, STS 2016 or a domain "
        "test split); to train on them anyway, --leakage-guard suites if they are a domain test split's (the "
        "transfer and STS 2016 figures stay comparable, the domain's do not), else --leakage-guard off (the "
        "model's transfer and STS 2016 figures are then marked not comparable)"
    )
    kept, report = build_pool(mini_data_dir, None, files=[(path, "tsv")], forbidden=set())
    assert len(kept) == 2 and "none of its" not in report.summary()


def test_a_file_with_no_pairs_in_it_is_refused(mini_data_dir, tmp_path):
    from parasent.errors import DataNotFoundError

    empty, bad = tmp_path / "empty.tsv", tmp_path / "bad.tsv"
    empty.write_text("\n\n")
    bad.write_text("a cat sat\nno tab here either\n")
    with pytest.raises(
        DataNotFoundError,
        match=r"empty\.tsv: no pairs in it \(it is empty or blank, or holds a header line alone\)",
    ):
        build_pool(mini_data_dir, "standard", files=[(empty, "tsv")], forbidden=set())  # not the pool alone
    with pytest.raises(DataNotFoundError, match=r"bad\.tsv: no pairs in it \(skipped 2 malformed line"):
        build_pool(mini_data_dir, None, files=[(bad, "tsv")], forbidden=set(), lenient=True)
    negatives = tmp_path / "negatives.tsv"
    negatives.write_text("0\ta cat sat\tstocks fell\n0\ta dog ran\tit rained\n")
    with pytest.raises(DataNotFoundError, match=r"negatives\.tsv: no pairs in it \(no pair labelled 1"):
        build_pool(mini_data_dir, None, files=[(negatives, "labelled")], forbidden=set())


def test_the_guard_keeps_the_domain_test_splits_out_of_training(mini_data_dir, tmp_path):
    """docs/adapt.md measures fine-tuning on MSRP, Twitter URL, PAWS-Wiki and Quora test: a pair
    of the standard pool that is a test pair (MSRP's and Twitter URL's positives were read from
    both splits) is dropped, and the test splits' sentences join the guard, wherever they are held."""
    import shutil

    from parasent.data.registry.catalog import DOMAIN_TESTS

    assert set(DOMAIN_TESTS) == {"msrp/test", "twitter-url/test", "paws_wiki/test", "quora_bimpm/test"}
    before, _ = build_pool(mini_data_dir, "standard")
    seen = next(p for p in before if p.source == "msrp")
    root = tmp_path / "data"
    shutil.copytree(mini_data_dir, root)
    (root / "paraphrase/msrp/test.tsv").write_text(
        f"1\t{seen.s1}\t{seen.s2}\n0\tan unseen sentence\tanother one\n"
    )
    quora = root / "paraphrase_extra/quora_bimpm"
    quora.mkdir(parents=True)
    with gzip.open(quora / "test.tsv.gz", "wt") as handle:
        handle.write("0\tWhat is a quora question?\tWhy ask?\t1\n")
    forbidden = evaluation_sentences(root)
    assert {
        normalize_for_leakage(t) for t in (seen.s1, "an unseen sentence", "What is a quora question?")
    } <= forbidden
    assert evaluation_sentences(mini_data_dir) | {normalize_for_leakage(seen.s1)} <= forbidden
    after, report = build_pool(root, "standard")
    assert (seen.s1, seen.s2) not in {(p.s1, p.s2) for p in after} and report.leaked["msrp"] >= 1
    assert len(after) < len(before)


def test_the_suites_guard_leaves_the_domain_test_splits_in(mini_data_dir, tmp_path):
    """`--leakage-guard suites` is the guard the shipped default was built with: the protocol's
    suites alone, so that scripts/build_default.sh reproduces it; `on` adds the domain tests."""
    import shutil

    from parasent.data.training_text.pools import protocol_exclusions

    root = tmp_path / "data"
    shutil.copytree(mini_data_dir, root)
    (root / "paraphrase/msrp/test.tsv").write_text("1\tan msrp test sentence\tits paraphrase\n")
    on, _ = protocol_exclusions(root)
    suites, _ = protocol_exclusions(root, domains=False)
    assert suites == evaluation_sentences(mini_data_dir)
    assert on - suites == {
        normalize_for_leakage("an msrp test sentence"),
        normalize_for_leakage("its paraphrase"),
    }


def test_the_domain_tests_held_are_the_ones_whose_files_the_directory_has(mini_data_dir, tmp_path):
    import shutil

    from parasent.data.training_text.pools import held_domain_tests

    assert held_domain_tests(mini_data_dir) == []
    root = tmp_path / "data"
    shutil.copytree(mini_data_dir, root)
    (root / "paraphrase/msrp/test.tsv").write_text("1\ta\tb\n")
    assert held_domain_tests(root) == ["msrp/test"]
