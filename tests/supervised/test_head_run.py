import json

import numpy as np
import pytest

from parasent import load
from parasent.errors import CheckpointError, TrainingInterrupted
from parasent.supervised.head_config import HeadConfig
from parasent.supervised.model import SupervisedModel
from parasent.supervised.run import train_head
from parasent.training.config import TrainConfig
from parasent.training.run import train

VECTORS = "wordvecs/mini16.txt.gz"


def quiet(**kwargs):
    return {"progress": False, "say": lambda _: None, **kwargs}


def head_config(**overrides):
    base = dict(vectors=VECTORS, epochs=4, batch_size=20, hidden_dim=16, optimizer="adam", lr=0.05, seed=2)
    base.update(overrides)
    return HeadConfig(**base)


@pytest.fixture(scope="module")
def paraphrastic(task_data_dir, tmp_path_factory):
    """A small PARAGRAM-PHRASE model trained on the mini pool: the universal parameters."""
    run = tmp_path_factory.mktemp("pp") / "run"
    train(
        TrainConfig.from_flat(vectors=VECTORS, epochs=2, batch_size=16, seed=1),
        run,
        data_dir=task_data_dir,
        **quiet(),
    )
    return run


def test_relatedness_from_scratch_learns_and_reports(task_data_dir, tmp_path):
    result = train_head(
        head_config(task="sick-relatedness"), tmp_path / "run", data_dir=task_data_dir, **quiet()
    )
    history = [h["validation"]["dev_pearson"] for h in result.state.history]
    assert max(history) > history[0] and result.dev.primary == pytest.approx(max(history), abs=1e-3)
    assert result.test.metrics["pearson"] > 45 and result.test.metrics["mse"] > 0
    saved = json.loads((tmp_path / "run/results.json").read_text())
    assert saved["test"]["pearson"] == pytest.approx(result.test.metrics["pearson"])
    assert saved["best_epoch"] == result.state.best_epoch
    model = SupervisedModel.load(tmp_path / "run")
    scores = model.predict(["a big car", "the dog"], ["a large automobile", "a small house"])
    assert scores.shape == (2,) and np.all((scores >= 1) & (scores <= 5))
    assert load(tmp_path / "run").dim == 16  # the fine-tuned encoder is still an embedding model


def test_entailment_and_sentiment_beat_chance(task_data_dir, tmp_path):
    entailment = train_head(
        head_config(task="sick-entailment", epochs=6), tmp_path / "e", data_dir=task_data_dir, **quiet()
    )
    assert entailment.test.metrics["accuracy"] > 60  # majority class (NEUTRAL) is about 60%
    sentiment = train_head(
        head_config(task="sst-binary", epochs=3), tmp_path / "s", data_dir=task_data_dir, **quiet()
    )
    assert sentiment.test.metrics["accuracy"] > 80
    model = SupervisedModel.load(tmp_path / "s")
    assert model.predict(["good great fun"]).tolist() == ["positive"]
    with pytest.raises(ValueError, match="takes one sentence"):
        model.predict(["a"], ["b"])


def test_features_keep_the_encoder_and_universal_starts_from_it(task_data_dir, paraphrastic, tmp_path):
    initial = load(paraphrastic).weights["embedding.weight"]
    features = train_head(
        head_config(setting="features", init=str(paraphrastic), epochs=3),
        tmp_path / "f",
        data_dir=task_data_dir,
        **quiet(),
    )
    assert np.array_equal(load(tmp_path / "f").weights["embedding.weight"], initial)
    assert features.test.metrics["pearson"] > 30
    universal = train_head(
        head_config(setting="universal", init=str(paraphrastic), epochs=2, lambda_w=1e-3),
        tmp_path / "u",
        data_dir=task_data_dir,
        **quiet(),
    )
    tuned = load(tmp_path / "u").weights["embedding.weight"]
    assert tuned.shape == initial.shape and not np.array_equal(tuned, initial)
    assert universal.test.n == features.test.n
    averaged = train_head(
        head_config(setting="features", init=f"vectors:{VECTORS}", epochs=1),
        tmp_path / "v",
        data_dir=task_data_dir,
        **quiet(),
    )
    assert averaged.state.best_epoch == 1


def test_interrupted_head_run_resumes_exactly(task_data_dir, tmp_path, monkeypatch):
    config = head_config(task="sick-relatedness", epochs=3, lambda_w=1e-3)
    train_head(config, tmp_path / "full", data_dir=task_data_dir, **quiet())

    from parasent.training import trainer as trainer_module

    original = trainer_module.Trainer.__init__

    def stopping(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.on_step = lambda t: t.request_stop("test") if t.state.step == 20 else None

    monkeypatch.setattr(trainer_module.Trainer, "__init__", stopping)
    with pytest.raises(TrainingInterrupted):
        train_head(config, tmp_path / "cut", data_dir=task_data_dir, **quiet())
    monkeypatch.setattr(trainer_module.Trainer, "__init__", original)
    train_head(config, tmp_path / "cut", data_dir=task_data_dir, resume=True, **quiet())
    full, cut = SupervisedModel.load(tmp_path / "full"), SupervisedModel.load(tmp_path / "cut")
    for name, value in full.head.weights.items():
        assert np.array_equal(value, cut.head.weights[name]), name
    assert np.array_equal(
        full.sentence_model.weights["embedding.weight"], cut.sentence_model.weights["embedding.weight"]
    )
    with pytest.raises(CheckpointError, match="lambda_s") as refused:
        train_head(
            head_config(task="sick-relatedness", epochs=3, lambda_w=1e-3, lambda_s=0.1),
            tmp_path / "cut",
            data_dir=task_data_dir,
            resume=True,
            **quiet(),
        )
    # what may change is said by flag; a Python-only option (no flag) is not listed as ", ,"
    assert "(only --checkpoint-every, --device, --epochs may change)" in str(refused.value)


def test_config_checks():
    with pytest.raises(ValueError, match="needs init"):
        HeadConfig(setting="universal")
    with pytest.raises(ValueError, match="task must be"):
        HeadConfig(task="nli")
    assert HeadConfig(setting="features", init="x").epochs == 20 and HeadConfig().epochs == 10
    assert HeadConfig().task == "sick-relatedness"
    assert HeadConfig(data="runs/mine.tsv").task == "mine.tsv"  # what the run records: its own classes
    with pytest.raises(ValueError, match="give one"):
        HeadConfig(data="mine.tsv", task="sst-binary")  # never one silently ignored


def test_projected_features_raise_the_dimension_before_the_head(task_data_dir, tmp_path):
    """Wieting et al. Table 6: a projection to a higher dimension learned on paraphrases, frozen."""
    train(
        TrainConfig.from_flat(
            vectors=VECTORS, encoder="projection", encoder_options={"output_dim": 48}, epochs=1, batch_size=16
        ),
        tmp_path / "proj",
        data_dir=task_data_dir,
        **quiet(),
    )
    start = load(tmp_path / "proj").weights
    result = train_head(
        head_config(setting="features", init=str(tmp_path / "proj"), epochs=2),
        tmp_path / "f",
        data_dir=task_data_dir,
        **quiet(),
    )
    model = SupervisedModel.load(tmp_path / "f")
    assert model.head.input_dim == 48 and load(tmp_path / "f").dim == 48
    assert np.array_equal(load(tmp_path / "f").weights["projection.weight"], start["projection.weight"])
    assert result.test.metrics["pearson"] > 20


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_sgd_heads_make_the_lazy_embedding_pull_exact(task_data_dir, tmp_path, monkeypatch, optimizer):
    # as in paraphrastic training (parasent.training.optim.guard_sgd_pulls): under plain SGD a
    # row unseen for k steps gets the closed-form decay, never a pull past its initial value
    from parasent.objectives.regularization import EmbeddingPull

    rates = []
    original = EmbeddingPull.guard_sgd
    monkeypatch.setattr(EmbeddingPull, "guard_sgd", lambda self, lr: rates.append(lr()) or original(self, lr))
    config = head_config(task="sick-relatedness", optimizer=optimizer, lr=0.5, lambda_w=1.0, epochs=1)
    train_head(config, tmp_path / "run", data_dir=task_data_dir, **quiet())
    assert rates == ([0.5] if optimizer == "sgd" else [])
