import pytest

from parasent.training.config import OBJECTIVE_PRESETS, TrainConfig


def test_siamese_cbow_preset_follows_the_paper():
    config = TrainConfig.preset("siamese-cbow")
    assert config.objective == "siamese-cbow" and config.corpus == "standard" and config.pool is None
    assert (config.dim, config.init_std, config.min_count, config.batch_size) == (300, 0.01, 5, 100)
    assert (config.num_negatives, config.optimizer, config.lr_schedule) == (2, "sgd", "linear")
    assert config.vectors is None and config.unknown == "skip"
    assert TrainConfig.preset("siamese-cbow", epochs=3).epochs == 3
    assert TrainConfig.preset("margin") == TrainConfig()
    assert set(OBJECTIVE_PRESETS) == {"margin", "siamese-cbow"}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"objective": "skip-thought"}, "objective must be one of"),
        (
            {"objective": "siamese-cbow", "corpus": None, "pool": None, "vectors": None, "dim": 8},
            "set a corpus",
        ),
        ({"objective": "siamese-cbow", "corpus": "standard", "vectors": None, "dim": 8}, "--pool none"),
        ({"corpus": "standard"}, "running text"),
        ({"lr_schedule": "cosine"}, "lr_schedule"),
        ({"num_negatives": 0}, "num_negatives"),
        ({"init_model": "runs/x"}, "init_model brings its own vectors"),
    ],
)
def test_inconsistent_options_are_rejected(options, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**options)


def test_old_checkpoint_configs_still_load():
    saved = TrainConfig().to_dict()
    for key in ("objective", "corpus", "num_negatives", "init_std", "lr_schedule", "init_model"):
        saved.pop(key)
    assert TrainConfig.from_dict(saved).objective == "margin"


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("clip", -1.0, "clip must be > 0"),
        ("clip", 0.0, "clip must be > 0"),
        ("lr", float("nan"), "lr must be a finite number"),
        ("dim", -5, "dim must be > 0"),
        ("max_pairs", 0, "max_pairs must be > 0"),
        ("seed", -1, "seed must be >= 0"),
        ("delta", -0.1, "delta must be >= 0"),
        ("encoder_options", {"foo": "bar"}, "has no such option"),
        ("encoder_options", {"layers": -1}, "sizes must be in"),
    ],
)
def test_bad_numbers_fail_before_any_work(option, value, message):
    from parasent.errors import OptionError

    overrides = {"encoder": "dan"} if option == "encoder_options" else {}
    with pytest.raises(OptionError, match=message):
        TrainConfig(**{**overrides, option: value})
