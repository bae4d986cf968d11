"""A classifier of the user's own labels (``head train --data``): the path of the SST head with
the classes a file names, predicted from the command line and from Python."""

from __future__ import annotations

import random

import numpy as np
import pytest

import parasent
from parasent.cli import main

TOPICS = {
    "sport": ["the team won the match", "a great goal in the final minute", "the striker scored twice",
              "fans cheered at the stadium", "the coach praised the players"],
    "food": ["the soup was delicious", "we baked fresh bread", "a spicy curry with rice",
             "the chef made a tasty salad", "dessert was chocolate cake"],
    "weather": ["heavy rain is expected tomorrow", "a sunny and warm afternoon", "snow fell all night",
                "strong winds and thunderstorms", "the forecast says clouds and drizzle"],
}  # fmt: skip


def topic_lines(count: int, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        label = rng.choice(sorted(TOPICS))
        first, second = rng.sample(TOPICS[label], 2)
        lines.append(f"{first} and {second}\t{label}")
    return "\n".join(lines) + "\n"


def test_a_classifier_of_your_labels_trains_predicts_and_loads(tmp_path, capsys):
    data = tmp_path / "topics.tsv"
    data.write_text(topic_lines(240, seed=1))
    out = tmp_path / "run"
    assert main(["head", "train", "--data", str(data), "--out", str(out), "--epochs", "3", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "topics.tsv" in printed and "dev" in printed
    accuracy = float(printed.strip().splitlines()[-1].split()[-1])
    assert accuracy >= 90.0, printed
    inputs = tmp_path / "inputs.txt"
    inputs.write_text("the goalkeeper saved a penalty\nit will rain and be cold\n")
    assert main(["head", "predict", "--model", str(out), str(inputs), "--proba"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split("\t")[0] for line in lines] == ["sport", "weather"]
    assert lines[0].split("\t")[1].startswith("food:")  # classes in sorted order
    model = parasent.load(out)
    assert list(model.classes_) == ["food", "sport", "weather"]
    assert (
        model.head.standardized and float(model.head.weights["scale"].min()) > 0
    )  # on the training texts' scale
    assert model.predict(["a bowl of noodle soup"])[0] == "food"
    proba = model.predict_proba(["a bowl of noodle soup", "snow and wind"])
    assert proba.shape == (2, 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert model.encode(["a sentence"]).shape == (1, model.get_sentence_embedding_dimension())


def test_bad_label_files_are_one_line_errors(tmp_path, capsys):
    one_class = tmp_path / "one.tsv"
    one_class.write_text("good film\tpos\nfine movie\tpos\n")
    assert main(["head", "train", "--data", str(one_class), "--out", str(tmp_path / "a"), "--quiet"]) == 2
    assert "a classifier needs at least 2" in capsys.readouterr().err
    data = tmp_path / "two.tsv"
    data.write_text(topic_lines(40, seed=2))
    dev = tmp_path / "dev.tsv"
    dev.write_text("a cold morning\tweather\nthe market fell\tfinance\n")
    code = main(
        [
            "head",
            "train",
            "--data",
            str(data),
            "--validation",
            str(dev),
            "--out",
            str(tmp_path / "b"),
            "--quiet",
        ]
    )
    assert code == 2 and "'finance' not among the training labels" in capsys.readouterr().err
    broken = tmp_path / "broken.tsv"
    broken.write_text("good film\tpos\nno tab here\n")
    assert main(["head", "train", "--data", str(broken), "--out", str(tmp_path / "c"), "--quiet"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"parasent: error: {broken}:2: expected 'text<TAB>label', found no tab"
    )
    pairs = tmp_path / "pairs.tsv"  # a labelled pairs file given as labelled texts
    pairs.write_text("1\ta cat sat\ta cat is sitting\n0\tthe dog ran\tstocks fell\n")
    assert main(["head", "train", "--data", str(pairs), "--out", str(tmp_path / "d"), "--quiet"]) == 2
    assert capsys.readouterr().err.strip().endswith(f"{pairs}:1: expected 'text<TAB>label', found 3 fields")
    unique = tmp_path / "unique.tsv"
    unique.write_text("".join(f"text {i}\tlabel {i}\n" for i in range(5)))
    assert main(["head", "train", "--data", str(unique), "--out", str(tmp_path / "e"), "--quiet"]) == 2
    assert "5 classes for 5 texts, 5 of them named once" in capsys.readouterr().err
    scores = tmp_path / "scores.tsv"  # round 4: float "labels" made a 356-class classifier
    scores.write_text("".join(f"text {i}\t{(i * 37 % 101) / 20:.2f}\n" for i in range(600)))  # 101 values
    assert main(["head", "train", "--data", str(scores), "--out", str(tmp_path / "s"), "--quiet"]) == 2
    assert "they read as numbers: scores, not classes" in capsys.readouterr().err
    nul = tmp_path / "nul.tsv"
    nul.write_text("good film\tpos\nbad film\tne\x00g\n")
    assert main(["head", "train", "--data", str(nul), "--out", str(tmp_path / "n"), "--quiet"]) == 2
    assert f"{nul}:2: label 'ne\\x00g' holds a control character" in capsys.readouterr().err
    few = tmp_path / "few.tsv"  # one text per class: none can be held out to choose the epoch on
    few.write_text("good film\tpos\nbad film\tneg\n")
    assert main(["head", "train", "--data", str(few), "--out", str(tmp_path / "f"), "--quiet"]) == 2
    assert "0 text(s) held out of 2 to choose the epoch on" in capsys.readouterr().err
    assert not any((tmp_path / name).exists() for name in "def")  # a refused run leaves no directory


def test_a_classifier_does_not_save_its_sentence_model_without_its_head(tmp_path):
    data = tmp_path / "topics.tsv"
    data.write_text(topic_lines(60, seed=3))
    assert (
        main(
            ["head", "train", "--data", str(data), "--out", str(tmp_path / "run"), "--epochs", "1", "--quiet"]
        )
        == 0
    )
    model = parasent.load(tmp_path / "run")
    with pytest.raises(AttributeError, match="without the head"):
        model.save(tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_the_universal_setting_reads_raw_vectors_and_learns(tmp_path, capsys):
    """Standardizing a trained encoder's output would scale its rows' gradients by 1 / spread
    (movie reviews fell to chance): only frozen features are standardized."""
    data = tmp_path / "topics.tsv"
    data.write_text(topic_lines(240, seed=2))
    out = tmp_path / "run"
    argv = ["head", "train", "--data", str(data), "--setting", "universal", "--out", str(out)]
    assert main([*argv, "--epochs", "3", "--quiet"]) == 0
    accuracy = float(capsys.readouterr().out.strip().splitlines()[-1].split()[-1])
    assert accuracy >= 90.0
    assert not parasent.load(out).head.standardized
