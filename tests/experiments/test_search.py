import json

import pytest

from parasent.experiments.search import (
    BEST_FILE,
    TRIALS_FILE,
    apply_values,
    format_trials,
    grid_points,
    grid_search,
    paper_grid,
)
from parasent.training.config import TrainConfig


def test_paper_grid_per_encoder():
    grid = paper_grid("word_averaging")
    assert "lambda_c" not in grid and grid["delta"] == [0.4, 0.6, 0.8]
    assert paper_grid("identity_rnn")["lambda_c"] == [1000.0, 100.0, 10.0, 1.0]
    assert paper_grid("lstm")["encoder_options.output_gate"] == [True, False]
    assert "lambda_w" not in paper_grid("charagram") and paper_grid("charagram")["delta"] == [0.4]


def test_points_and_values():
    grid = {"delta": [0.4, 0.6], "encoder_options.activation": ["tanh", "relu"], "batch_size": [25, 50, 100]}
    points = grid_points(grid, None, 0)
    assert len(points) == 12 and len({json.dumps(p, sort_keys=True) for p in points}) == 12
    sample = grid_points(grid, 5, seed=3)
    assert len(sample) == 5 and sample == grid_points(grid, 5, seed=3) and all(p in points for p in sample)
    config = apply_values(TrainConfig.from_flat(encoder="rnn"), points[-1])
    assert (
        config.encoder.options == {"activation": "relu"}
        and config.batch_size == 100
        and config.objective.delta == 0.6
    )
    shared = apply_values(TrainConfig.from_flat(encoder="charagram"), {"lambda_c": 1e-5})
    assert shared.objective.lambda_w == 1e-5  # one lambda for every parameter of a character model
    with pytest.raises(ValueError, match="unknown grid key"):
        apply_values(TrainConfig(), {"momentum": 0.9})


def test_search_selects_by_validation_and_resumes(mini_data_dir, tmp_path, monkeypatch):
    base = TrainConfig.from_flat(vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16, seed=2)
    grid = {"delta": [0.4, 0.8], "negatives": ["max"]}
    results = grid_search(base, grid, tmp_path / "s", data_dir=mini_data_dir, say=lambda _: None)
    assert len(results) == 2
    assert results[0].validation >= results[1].validation
    lines = (tmp_path / "s" / TRIALS_FILE).read_text().splitlines()
    assert [json.loads(line)["result"]["values"]["delta"] for line in lines] == [0.4, 0.8]
    assert json.loads(lines[0])["config"]["objective"]["delta"] == 0.4
    best = json.loads((tmp_path / "s" / BEST_FILE).read_text())
    assert (
        best["validation"] == results[0].validation
        and (tmp_path / "s" / f"trial-{best['index']:03d}").is_dir()
    )
    # finished trials are not rerun
    from parasent.training import run as run_module

    monkeypatch.setattr(run_module, "train", lambda *a, **k: pytest.fail("reran a finished trial"))
    again = grid_search(base, grid, tmp_path / "s", data_dir=mini_data_dir, say=lambda _: None)
    assert [t.index for t in again] == [t.index for t in results]
    table = format_trials(again)
    assert table.splitlines()[0].startswith("| rank | trial | delta | negatives | STS 2016 (validation)")
    with pytest.raises(ValueError, match="validation"):
        grid_search(TrainConfig.from_flat(validation=None), grid, tmp_path / "x", data_dir=mini_data_dir)


def test_search_selects_on_ppdb_dev_under_the_ppdb_protocol(mini_data_dir, tmp_path):
    base = TrainConfig.preset(vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16, protocol="ppdb")
    results = grid_search(
        base, {"delta": [0.4, 0.8]}, tmp_path / "s", data_dir=mini_data_dir, say=lambda _: None
    )
    scores = [
        json.loads(line)["validation"]["ppdb-dev_mean_spearman"]
        for t in results
        for line in (tmp_path / "s" / f"trial-{t.index:03d}" / "log.jsonl").read_text().splitlines()
        if json.loads(line)["event"] == "epoch"
    ]
    assert sorted(t.validation for t in results) == sorted(scores)
    assert "| PPDB dev (Spearman) |" in format_trials(results)


def test_a_diverging_trial_is_recorded_and_the_search_goes_on(mini_data_dir, tmp_path):
    base = TrainConfig.from_flat(vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16)
    said: list[str] = []
    results = grid_search(base, {"lr": [1e38, 0.05]}, tmp_path / "s", data_dir=mini_data_dir, say=said.append)
    # the progress line numbers a trial as the table and its folder do
    assert 'trial 0 (1 of 2, trial-000): {"lr": 1e+38}' in said
    assert {t.index for t in results} == {0, 1} and results[1].index == 0
    assert [t.values["lr"] for t in results] == [0.05, 1e38]  # the failure ranks last
    assert results[1].validation is None and "loss became" in results[1].error
    assert "failed: " in format_trials(results)


def test_paper_grid_has_frozen_word_vectors_and_clipping_for_the_paper_encoders():
    for encoder in ("projection", "dan", "rnn", "identity_rnn", "lstm"):
        grid = paper_grid(encoder)
        assert grid["freeze_words"] == [False, True] and grid["clip"] == [None, 1.0]
    assert "freeze_words" not in paper_grid("word_averaging")  # footnote 16: all models but word averaging
    assert paper_grid("word_averaging")["clip"] == [None, 1.0]
    grid = {"lambda_w": [1e-5, 1e-6], "freeze_words": [False, True]}
    points = grid_points(grid, None, 0)  # frozen vectors: lambda_w does nothing, one point not two
    assert points == [
        {"lambda_w": 1e-5, "freeze_words": False},
        {"lambda_w": 1e-5, "freeze_words": True},
        {"lambda_w": 1e-6, "freeze_words": False},
    ]
    frozen = apply_values(TrainConfig.from_flat(encoder="dan"), {"freeze_words": True, "clip": 1.0})
    assert frozen.encoder.freeze_words and frozen.clip == 1.0
