"""A user's file that is a domain test split, scored by a model whose training may have seen it."""

import shutil

import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel, model_record
from parasent.core.model_card import GUARD_KEY, KEPT_OUT_KEY, domain_tests_kept_out
from parasent.data.readers.records import TrainingPair
from parasent.errors import DataNotFoundError
from parasent.evaluation.domain_tests import domain_tests_of, leak_warnings
from parasent.evaluation.file_pairs import evaluate_pairs
from parasent.text.word_vectors import read_word_vectors

WORDS = ["car", "automobile", "vehicle", "dog", "puppy", "road", "street", "eat", "house", "tiny"]
TEST_PAIRS = [(i % 2, f"the {WORDS[i % 10]} {i}", f"a {WORDS[(i * 3) % 10]} {i}") for i in range(24)]
GUARDED = {GUARD_KEY: "on", "pool": {"domain_tests": ["msrp/test"]}}


@pytest.fixture
def data_with_msrp_test(mini_data_dir, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(mini_data_dir, root)
    (root / "paraphrase/msrp/test.tsv").write_text("".join(f"{y}\t{a}\t{b}\n" for y, a, b in TEST_PAIRS))
    return root


def _model(mini_data_dir, metadata):
    return SentenceModel.from_vectors(
        read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz"), metadata=metadata
    )


def test_a_file_holding_a_splits_pairs_is_counted_as_the_guard_compares(data_with_msrp_test, monkeypatch):
    as_written = [TrainingPair(a, b, "mine", float(y)) for y, a, b in TEST_PAIRS]
    retyped = [TrainingPair(a.upper() + " !", b, "mine", float(y)) for y, a, b in TEST_PAIRS]
    assert domain_tests_of(as_written, data_with_msrp_test) == {"msrp/test": 24}
    assert domain_tests_of(retyped, data_with_msrp_test) == {"msrp/test": 24}
    other = [TrainingPair(f"other {i}", f"text {i}", "mine", 1.0) for i in range(60)]
    assert domain_tests_of(as_written[:10] + other, data_with_msrp_test) == {"msrp/test": 10}  # 10 of 70
    assert (
        domain_tests_of(as_written[:5] + other, data_with_msrp_test) == {}
    )  # under a tenth: the user's file
    with pytest.raises(DataNotFoundError, match="missing"):  # a directory named and wrong is said
        domain_tests_of(as_written, data_with_msrp_test / "missing")
    monkeypatch.setenv("PARASENT_DATA", str(data_with_msrp_test / "missing"))
    with pytest.raises(DataNotFoundError, match="PARASENT_DATA"):
        domain_tests_of(as_written)


@pytest.mark.parametrize(
    ("metadata", "why"),
    [
        (
            {"training": {}},
            "trained before the leakage guard covered",
        ),  # the shipped default, built before 2026-11-29
        ({GUARD_KEY: "on", "pool": {"read": {}}}, "trained before the leakage guard covered"),
        ({GUARD_KEY: "suites", "pool": {}}, "the leakage guard on the evaluation suites only"),
        ({GUARD_KEY: "off"}, "the leakage guard off"),
        ({GUARD_KEY: "on", "pool": {"domain_tests": []}}, "its data directory lacked the split"),
        ({GUARD_KEY: "on", KEPT_OUT_KEY: []}, "its data directory lacked the split"),
        (
            {**GUARDED, "base_model": {"name": "default", KEPT_OUT_KEY: []}},
            "whose training did not keep it out",
        ),
        ({**GUARDED, "base_model": {"name": "m2v"}}, "it continues m2v, whose record does not say"),
        (
            {GUARD_KEY: "on", KEPT_OUT_KEY: [], "training": {"data": {"prepared": "prep/"}}},
            "its prepared pairs do not record",
        ),
        (
            {
                GUARD_KEY: "on",
                KEPT_OUT_KEY: [],
                "pool": {"leakage_guard": "on", "domain_tests": []},
                "training": {"data": {"prepared": "prep/"}},
            },
            "its data directory lacked the split when its pairs were prepared",
        ),
        (  # prepared with the split kept out, trained where the data directory lacked it
            {
                GUARD_KEY: "on",
                KEPT_OUT_KEY: [],
                "pool": {"leakage_guard": "on", "domain_tests": ["msrp/test"]},
                "training": {"data": {"prepared": "prep/"}},
            },
            "its data directory lacked the split when it was trained",
        ),
        ({"training": {}, "corpus": {}, GUARD_KEY: "on", KEPT_OUT_KEY: ["msrp/test"]}, None),  # Siamese CBOW
    ],
)
def test_a_model_whose_training_did_not_keep_the_split_out_is_warned_and_told_why(metadata, why):
    class Model:
        pass

    model = Model()
    model.metadata = metadata
    if why is None:  # its record says it kept the split out, whatever it trained on
        assert leak_warnings(model, {"msrp/test": 30}, 40) == []
        return
    (warning,) = leak_warnings(model, {"msrp/test": 30}, 40)
    assert (
        "30 of these 40 pairs are msrp/test's" in warning and why in warning and "not comparable" in warning
    )


def test_a_model_that_kept_the_split_out_or_records_no_training_is_not_warned():
    class Model:
        metadata = GUARDED

    class Continued:
        metadata = {**GUARDED, "base_model": {"name": "clean", KEPT_OUT_KEY: ["msrp/test", "paws_wiki/test"]}}

    class Imported:  # another library's model: nothing is known of its training text
        metadata = {"format": "model2vec"}

    for model in (Model(), Continued(), Imported(), object()):
        assert leak_warnings(model, {"msrp/test": 40}, 40) == []
    assert leak_warnings(Model(), {"paws_wiki/test": 40}, 40)  # a split it did not keep out


def test_what_a_model_kept_out_carries_to_the_model_that_continues_it(mini_data_dir, tmp_path):
    _model(mini_data_dir, GUARDED).save(tmp_path / "clean")
    _model(mini_data_dir, {GUARD_KEY: "suites"}).save(tmp_path / "suites")
    assert model_record(tmp_path / "clean")[KEPT_OUT_KEY] == ["msrp/test"]
    assert model_record(tmp_path / "suites")[KEPT_OUT_KEY] == []
    continued = {**GUARDED, "base_model": model_record(tmp_path / "clean")}
    assert domain_tests_kept_out(continued) == ["msrp/test"]
    assert domain_tests_kept_out({**GUARDED, "base_model": model_record(tmp_path / "suites")}) == []


def test_evaluate_pairs_warns_on_a_domain_test_split_the_model_may_have_seen(
    mini_data_dir, data_with_msrp_test, tmp_path, capsys
):
    pairs = tmp_path / "msrp-test.tsv"
    shutil.copy(data_with_msrp_test / "paraphrase/msrp/test.tsv", pairs)
    seen = _model(mini_data_dir, {GUARD_KEY: "suites"})
    report = evaluate_pairs(seen, f"{pairs}:labelled", data_dir=data_with_msrp_test)
    assert (
        len(report.warnings) == 1 and "warning: 24 of these 24 pairs are msrp/test's" in report.format_table()
    )
    assert report.to_dict()["warnings"] == report.warnings
    assert (
        evaluate_pairs(
            _model(mini_data_dir, GUARDED), f"{pairs}:labelled", data_dir=data_with_msrp_test
        ).warnings
        == []
    )
    seen.save(tmp_path / "seen")
    _model(mini_data_dir, GUARDED).save(tmp_path / "clean")
    argv = ["evaluate", "--pairs", f"{pairs}:labelled", "--data-dir", str(data_with_msrp_test)]
    assert main([*argv, "--model", str(tmp_path / "seen")]) == 0
    assert "the leakage guard on the evaluation suites only" in capsys.readouterr().out
    assert main([*argv, "--model", str(tmp_path / "clean"), "--model", str(tmp_path / "seen")]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")]
    assert len(printed) == 1 and printed[0].startswith(
        f"warning: {tmp_path / 'seen'}: 24 of these 24 pairs are msrp/test's"
    )
    assert main([*argv, "--model", str(tmp_path / "seen"), "--model", str(tmp_path / "seen")]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")]
    assert len(printed) == 1  # the same model given twice is warned once


def test_evaluate_pairs_takes_a_models_name_as_the_command_does(data_with_msrp_test, tmp_path):
    import parasent

    pairs = tmp_path / "msrp-test.tsv"
    shutil.copy(data_with_msrp_test / "paraphrase/msrp/test.tsv", pairs)
    by_name = evaluate_pairs("default", f"{pairs}:labelled", data_dir=data_with_msrp_test)
    assert by_name.figures == evaluate_pairs(parasent.load(), f"{pairs}:labelled").figures
    assert by_name.model == "default"


def test_evaluate_pairs_on_the_models_own_training_file_says_it_is_in_sample(mini_data_dir, tmp_path, capsys):
    """`evaluate --pairs` on the file a model was trained on printed its figures as any other's."""
    lines = [
        f"a {w} car went fast\tthe {w} automobile drove quickly" for w in ("red", "big", "old", "new", "blue")
    ]
    lines += [
        f"the {w} dog sat\ta {w} puppy was sitting" for w in ("small", "brown", "tired", "happy", "black")
    ]
    train_file = tmp_path / "mine.tsv"
    train_file.write_text("\n".join(lines) + "\n")
    run = tmp_path / "run"
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(run), "--pool", "none", "--pairs", str(train_file),
            "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "1", "--batch-size", "4", "--quiet"]  # fmt: skip
    assert main(args) == 0
    same_bytes = tmp_path / "copy.tsv"
    shutil.copy(train_file, same_bytes)
    other = tmp_path / "other.tsv"
    other.write_text("\n".join(reversed(lines)) + "\n")
    (warning,) = evaluate_pairs(str(run), str(same_bytes)).warnings  # its bytes, under another name
    assert (
        warning.startswith("copy.tsv is the file this model was trained on (--pairs ")
        and "in-sample" in warning
    )
    assert evaluate_pairs(str(run), str(other)).warnings == []
    assert evaluate_pairs("default", str(train_file)).warnings == []  # the shipped model did not train on it
    capsys.readouterr()
    assert main(["evaluate", "--pairs", str(train_file), "--model", str(run)]) == 0
    assert "warning: mine.tsv is the file this model was trained on" in capsys.readouterr().out
