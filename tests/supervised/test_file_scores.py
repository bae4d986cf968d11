"""A classifier scored on the user's labelled file (``head evaluate MODEL --data FILE``): accuracy,
macro F1 and the confusion matrix of a hand-made classifier whose every prediction is known,
against hand-computed figures and scikit-learn's, predicted with numpy alone."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.supervised.file_scores import score_file
from parasent.supervised.model import SupervisedModel
from parasent.text.word_vectors import WordVectors

LABELS = ["blue", "green", "red"]
# text, the file's label; the classifier predicts a text's most frequent colour word
LINES = [("red", "red"), ("red", "red"), ("green", "green"), ("blue", "blue"), ("blue", "green"),
         ("red green red", "red"), ("green", "red"), ("blue blue green", "blue")]  # fmt: skip
GOLD = [2, 2, 1, 0, 1, 2, 2, 0]
PREDICTED = [2, 2, 1, 0, 0, 2, 1, 0]
CONFUSION = [[2, 0, 0], [1, 1, 0], [0, 1, 3]]  # rows: the file's label; columns: the prediction
MACRO_F1 = 100 * (2 * 2 / 5 + 2 * 1 / 4 + 2 * 3 / 7) / 3  # per class 2 tp / (predicted + present)


@pytest.fixture()
def classifier(tmp_path):
    """A colour word's one-hot vector, averaged; a head whose hidden and output layers pass the
    largest coordinate through: the class of the text's most frequent colour word."""
    from safetensors.numpy import save_file

    directory = tmp_path / "colours"
    SentenceModel.from_vectors(WordVectors(LABELS, np.eye(3, dtype=np.float32))).save(directory)
    weights = {
        "hidden.weight": 10 * np.eye(3, dtype=np.float32),
        "hidden.bias": np.full(3, -5.0, dtype=np.float32),
        "output.weight": 10 * np.eye(3, dtype=np.float32),
        "output.bias": np.zeros(3, dtype=np.float32),
    }
    save_file(weights, str(directory / "head.safetensors"))
    shape = {"kind": "sentence", "input_dim": 3, "hidden_dim": 3, "classes": 3}
    info = {"format": 1, "head": shape, "task": "colours", "classes_from": "file", "labels": LABELS}
    (directory / "head.json").write_text(json.dumps(info))
    return directory


@pytest.fixture()
def data(tmp_path):
    path = tmp_path / "colours.tsv"
    path.write_text("".join(f"{text}\t{label}\n" for text, label in LINES))
    return path


def test_figures_are_the_hand_computed_ones(classifier, data):
    model = SupervisedModel.load(classifier)
    assert list(model.predict([text for text, _ in LINES])) == [LABELS[k] for k in PREDICTED]
    report = score_file(model, data, name="colours")
    assert report.accuracy == pytest.approx(75.0)
    assert report.macro_f1 == pytest.approx(MACRO_F1)
    assert report.confusion.tolist() == CONFUSION


def test_figures_equal_scikit_learns(classifier, data):
    metrics = pytest.importorskip("sklearn.metrics")
    report = score_file(SupervisedModel.load(classifier), data)
    assert report.accuracy == pytest.approx(100 * metrics.accuracy_score(GOLD, PREDICTED))
    assert report.macro_f1 == pytest.approx(100 * metrics.f1_score(GOLD, PREDICTED, average="macro"))
    assert report.confusion.tolist() == metrics.confusion_matrix(GOLD, PREDICTED).tolist()


def test_scoring_needs_no_torch(classifier, data):
    """The numpy path of ``parasent.load(classifier)``: nothing of torch imported."""
    code = (
        "import sys\nsys.modules['torch'] = None\n"
        "from parasent.supervised.file_scores import score_file\n"
        "from parasent.supervised.model import SupervisedModel\n"
        f"report = score_file(SupervisedModel.load({str(classifier)!r}), {str(data)!r})\n"
        "print(report.accuracy, report.confusion.tolist())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch' and sys.modules[m] is not None))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"75.0 {CONFUSION}", "[]"]


def test_the_command_scores_without_torch(classifier, data):
    """`parasent head evaluate` built the head command's options from the training defaults,
    whose module imported torch: the core install could not run it. The option names now come
    from torch-free modules (objectives/names.py, training/optim_names.py)."""
    code = (
        "import sys\nsys.modules['torch'] = None\n"
        "from parasent.cli import main\n"
        f"code = main(['head', 'evaluate', {str(classifier)!r}, '--data', {str(data)!r}])\n"
        "sys.exit(code)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "accuracy  75.00" in result.stdout


def test_the_command_prints_the_table_and_json(classifier, data, tmp_path, capsys):
    out = tmp_path / "scores.json"
    assert main(["head", "evaluate", str(classifier), "--data", str(data), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "accuracy  75.00" in printed and f"macro F1  {MACRO_F1:.2f}" in printed
    assert "label \\ predicted  blue  green  red  texts" in printed
    assert "green                 1      1    0      2" in printed
    saved = json.loads(out.read_text())
    assert saved["confusion_matrix"] == CONFUSION and saved["labels"] == LABELS and saved["n"] == 8
    assert main(["head", "evaluate", str(classifier), "--data", str(data), "--json", str(out)]) == 2
    assert "exists; not replacing it" in capsys.readouterr().err


def test_labels_the_classifier_does_not_know_are_one_line_naming_them(classifier, tmp_path, capsys):
    other = tmp_path / "other.tsv"
    other.write_text("red\tred\nblue\tteal\ngreen\tcyan\n")
    assert main(["head", "evaluate", str(classifier), "--data", str(other)]) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        f"parasent: error: {other}: label(s) 'cyan', 'teal' not among the classifier's classes (blue, green, red)"
    )
    assert main(["head", "evaluate", str(classifier), "--data", str(other), "--split", "dev"]) == 2
    assert "--split scores a split of the head's task" in capsys.readouterr().err


def test_a_lenient_read_says_what_it_skipped(classifier, data, capsys):
    """`head evaluate --lenient` skipped bad lines without saying how many."""
    data.write_text(data.read_text() + "a line without its label\n")
    assert main(["head", "evaluate", str(classifier), "--data", str(data)]) == 2
    capsys.readouterr()
    assert main(["head", "evaluate", str(classifier), "--data", str(data), "--lenient"]) == 0
    printed = capsys.readouterr().out
    assert "accuracy  75.00" in printed and "skipped 1 malformed line(s)" in printed


def test_a_classifier_of_ones_own_labels_asks_for_a_file_not_a_split(classifier, capsys):
    assert main(["head", "evaluate", str(classifier)]) == 2
    err = capsys.readouterr().err
    assert "a classifier of your own labels" in err and "--data FILE" in err and "known: )" not in err
