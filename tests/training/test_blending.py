"""The last stage of a contextual fine-tune: the trained composition pulled back toward its start
(parasent/training/blending.py) to the point of best held-out figure that keeps STS 2016."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.core.composition import COMPOSITION_KEYS
from parasent.core.model import load
from parasent.errors import CheckpointError
from parasent.training.blending import BLEND_KEY, GRID, BlendPoint, blend_run, blended, choose
from parasent.training.config import TrainConfig
from parasent.training.features_stage import compose_rows
from parasent.training.fine_tuning import finished_lines
from parasent.training.run import train
from tests.training.test_fine_tuning import jargon_pairs

PROBE = ["the cat chased the dog", "the dog chased the cat", "a blorf of the snibbet"]


def drawn(seed: int, hidden: int = 5, attention: int = 0):
    """The default's rows under a composition whose correction is drawn too (a trained stand-in)."""
    options = {"hidden": hidden, **({"attention": attention} if attention else {})}
    model = compose_rows(load("default"), "contextual", options, seed=seed)
    rng = np.random.default_rng(seed)
    for key in ("shift.weight", "shift.bias", "gate.weight", "gate.bias"):
        model.weights[key] = (0.05 * rng.standard_normal(model.weights[key].shape)).astype(np.float32)
    return model


def test_the_best_figure_within_the_noise_is_chosen_and_a_tie_goes_to_the_start():
    points = (
        BlendPoint(0.0, 40.0, 77.0, 0.0),
        BlendPoint(0.5, 50.0, 76.7, 0.4),  # 0.3 below the start: within one standard error
        BlendPoint(1.0, 60.0, 75.0, 0.8),  # 2.0 below: 2.5 standard errors
    )
    assert choose(points, 77.0, within=1.0).alpha == 0.5
    assert choose(points, 77.0, within=3.0).alpha == 1.0
    assert choose(points, 77.0, within=0.0).alpha == 0.0
    assert choose(points, None, within=0.0).alpha == 1.0  # STS 2016 not measured: the figure alone
    unknown = (BlendPoint(0.0, 40.0, 77.0, None), BlendPoint(1.0, 60.0, 76.9, None))
    assert choose(unknown, 77.0, within=1.0).alpha == 0.0  # an unknown error allows no drop
    tied = (BlendPoint(0.0, 50.0, 77.0, 0.0), BlendPoint(1.0, 50.0, 77.0, 0.1))
    assert choose(tied, 77.0, within=1.0).alpha == 0.0


def test_the_standard_check_scores_as_the_suite_and_its_error_grows_with_the_difference(mini_data_dir):
    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.training.blending import StandardCheck

    suite = SimilarityEvaluator("validation", mini_data_dir)
    check = StandardCheck(suite)
    average, trained = load("default"), drawn(seed=1)
    base = check.cosines(average)
    assert abs(check.figure(base) - suite(average).primary) < 1e-9
    assert check.paired_error(base, base) == 0.0
    near = check.paired_error(check.cosines(blended(average, trained, 0.2)), base)
    far = check.paired_error(check.cosines(trained), base)
    assert 0.0 < near < far


def test_blending_an_encoder_without_a_composition_is_refused():
    import pytest

    with pytest.raises(ValueError, match="blend_within pulls a trained composition back: 'word_averaging'"):
        TrainConfig.preset("margin", recipe="finetune", init_model="default", vectors=None, blend_within=1.0)
    with pytest.raises(ValueError, match="toward the model it continues: it needs --init-model"):
        TrainConfig.preset("margin", encoder="contextual", vectors=None, dim=16, blend_within=1.0)


def test_the_start_always_qualifies_though_alpha_0_is_rounded_apart_from_it():
    """The line's alpha 0 is the start up to float rounding: measured against itself, never refused."""
    points = (BlendPoint(0.0, 40.0, 76.99999997, 0.0), BlendPoint(1.0, 60.0, 70.0, 1.0))
    assert choose(points, 77.0, within=0.0).alpha == 0.0


@pytest.mark.parametrize("attention", [0, 4])
def test_the_line_runs_from_the_start_to_the_trained_model(attention):
    average, trained = load("default"), drawn(seed=1, attention=attention)
    assert np.allclose(blended(average, trained, 0.0).encode(PROBE), average.encode(PROBE), atol=1e-6)
    assert np.allclose(blended(average, trained, 1.0).encode(PROBE), trained.encode(PROBE), atol=1e-6)
    halfway = blended(average, trained, 0.5).encode(PROBE)
    assert not np.allclose(halfway, trained.encode(PROBE), atol=1e-4)
    start = drawn(seed=2, attention=attention)  # a contextual start: every composition weight moves
    between = blended(start, trained, 0.25)
    assert ("attend.weight" in trained.weights) == bool(attention)
    for key in (key for key in COMPOSITION_KEYS if key in trained.weights):
        expected = 0.75 * start.weights[key] + 0.25 * trained.weights[key]
        assert np.allclose(between.weights[key], expected, atol=1e-6), key
    assert np.allclose(blended(start, trained, 0.0).encode(PROBE), start.encode(PROBE), atol=1e-6)


def test_a_contextual_fine_tune_blends_within_the_tolerance_and_records_it_once(tmp_path, mini_data_dir):
    pairs = tmp_path / "jargon.tsv"
    pairs.write_text(jargon_pairs(400, seed=3))
    config = TrainConfig.preset(
        "margin", recipe="finetune", init_model="default", vectors=None, encoder="contextual",
        encoder_options={"hidden": 16}, teacher=None, pair_files=[[str(pairs), "labelled"]], epochs=4, lr=1e-2,
    )  # fmt: skip
    assert config.blend_within == 1.0  # the recipe's contextual layer
    config = config.replace(blend_within=3.0)  # the mini STS 2016 is a few pairs: its errors are wide
    said: list[str] = []
    result = train(config, tmp_path / "run", data_dir=mini_data_dir, progress=False, say=said.append)
    blend = result.blend
    assert blend is not None and [p.alpha for p in blend.points] == list(GRID)
    kept = blend.point(blend.alpha)
    admissible = [p for p in blend.points if blend.start_general - p.general <= 3.0 * p.error]
    assert kept in admissible and all(p.selecting <= kept.selecting for p in admissible)
    assert blend.standard() == (
        blend.start_general,
        kept.general,
    )  # the run's STS 2016 line, not encoded again
    assert 0.0 < blend.alpha < 1.0  # here the held-out figure peaks short of the trained model
    assert blend.lines("held-out")[0].startswith(f"blend: {blend.alpha:.1f} of the way")
    assert any(
        "its rows kept as they are (--freeze-words" in line for line in said
    )  # not "training the rows"
    finished = finished_lines(config, result, mini_data_dir)[0]
    gained = next(line for line in finished if line.startswith("held-out: "))
    assert (
        f"-> {kept.selecting:.2f}" in gained and "the model written" in gained
    )  # not the best epoch's figure
    model = load(tmp_path / "run")
    assert model.metadata[BLEND_KEY]["alpha"] == blend.alpha
    assert len(model.metadata[BLEND_KEY]["points"]) == len(GRID)
    assert model.metadata["validation"] == kept.selecting  # the figure of the model written
    again = blend_run(config, result.model_path, lambda m: None, mini_data_dir, result.state.best_epoch)
    assert again == blend  # blended already: a resumed run that found no better epoch keeps it, and says so
    assert np.allclose(load(tmp_path / "run").encode(PROBE), model.encode(PROBE))
    resumed = train(
        config, tmp_path / "run", data_dir=mini_data_dir, resume=True, progress=False, say=said.append
    )
    assert resumed.blend == blend  # a finished run resumed reports the model written, not the best epoch's
    again_said = finished_lines(config, resumed, mini_data_dir)[0]
    assert any(line.startswith("held-out: ") and f"-> {kept.selecting:.2f}" in line for line in again_said)
    with pytest.raises(
        CheckpointError,
        match=r"blend_within \(--blend-within\); .* train again \(another --out, or --overwrite\)",
    ):
        train(config.replace(blend_within=1.0), tmp_path / "run", data_dir=mini_data_dir, resume=True)
