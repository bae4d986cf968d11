"""Models side by side on a user's pairs (``evaluate --pairs F --model A --model B``): each
model's figures are those it scores alone, and its speed is measured on the file's sentences."""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from parasent.cli import main
from parasent.evaluation.file_pairs import evaluate_pairs
from parasent.evaluation.side_by_side import TimedEncoder, pairs_side_by_side


class HashModel:
    """A stand-in model: a fixed random vector per word (the same in every process), averaged."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def encode(self, texts, batch_size=32, **_):
        out = []
        for text in texts:
            words = text.split() or [""]
            vectors = [
                np.random.default_rng(zlib.crc32(f"{self.seed}:{w}".encode())).normal(size=8) for w in words
            ]
            out.append(np.mean(vectors, axis=0))
        return np.asarray(out, dtype=np.float32)


@pytest.fixture()
def pairs_file(tmp_path):
    lines = [f"{i % 2}\tthe cat {i} sat\t{'the cat' if i % 2 else 'a dog'} {i} sat down" for i in range(40)]
    path = tmp_path / "p.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_each_model_scores_as_it_does_alone_and_is_timed(pairs_file):
    models = [("a", HashModel(1)), ("b", HashModel(2))]
    result = pairs_side_by_side(models, f"{pairs_file}:labelled")
    for (name, model), report in zip(models, result.reports, strict=True):
        assert report.figures == evaluate_pairs(model, f"{pairs_file}:labelled", name=name).figures
    assert all(rate > 0 for rate in result.rates)
    table = result.format_table()
    assert "sentences/s" in table and table.count("\na ") == 1 and table.count("\nb ") == 1
    ((delta, error),) = result.differences  # b against a, paired on the same pairs
    assert delta == pytest.approx(result.reports[1].primary - result.reports[0].primary) and error > 0
    verdict = "more than" if abs(delta) > error else "within"
    assert (
        f"b - a: {delta:+.2f} +- {error:.2f} (the standard error of the difference on these pairs; {verdict} the noise)"
        in table
    )


def test_timed_encoder_counts_texts():
    timed = TimedEncoder(HashModel(0))
    timed.encode(["a b", "c"], batch_size=4)
    timed.encode(["d"])
    assert timed.texts == 3 and timed.seconds > 0 and timed.rate > 0


def test_the_command_puts_models_side_by_side(pairs_file, tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = [
        "evaluate",
        "--pairs",
        str(pairs_file),
        "--model",
        "default",
        "--model",
        "default",
        "--json",
        str(out),
    ]
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert table.count("\ndefault ") == 2 and "average precision" in table
    models = json.loads(out.read_text())["models"]
    assert len(models) == 2 and models[0]["figures"] == models[1]["figures"]
    assert models[0]["sentences_per_second"] > 0
    assert models[1]["difference_from_first"] == 0.0 and models[1]["difference_standard_error"] == 0.0
    assert "difference default - default: +0.00 +- 0.00" in table and "within the noise" in table


def test_several_models_on_a_suite_are_one_line(capsys):
    assert main(["evaluate", "--model", "default", "--model", "default"]) == 2
    assert "parasent compare-models" in capsys.readouterr().err
