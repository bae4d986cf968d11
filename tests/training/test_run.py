import json

import numpy as np
import pytest

from parasent import load
from parasent.errors import TrainingInterrupted
from parasent.training.config import TrainConfig
from parasent.training.fine_tuning import selection_lines
from parasent.training.run import train


def quiet(**kwargs):
    return dict(progress=False, say=lambda _: None, **kwargs)


def siamese(**overrides):
    options = dict(dim=16, min_count=1, batch_size=16, epochs=4, seed=2)
    options.update(overrides)
    return TrainConfig.preset("siamese-cbow", **options)


def test_siamese_cbow_learns_from_running_text(mini_data_dir, tmp_path):
    result = train(siamese(log_every=1), tmp_path / "run", data_dir=mini_data_dir, **quiet())
    history = [h["validation"]["validation_mean_pearson"] for h in result.state.history]
    assert max(history[1:]) > history[0] + 2  # neighbouring sentences share topics
    assert result.corpus is not None and sum(result.corpus.documents.values()) == 14
    model = load(tmp_path / "run")
    assert model.tokenizer.unknown == "skip" and model.dim == 16
    assert model.metadata["training"]["objective"]["name"] == "siamese-cbow"
    steps = [json.loads(x) for x in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    probabilities = [s["positive_probability"] for s in steps if s["event"] == "step"]
    assert len(probabilities) == result.state.step and np.mean(probabilities[-10:]) > np.mean(
        probabilities[:10]
    )


def test_siamese_cbow_resumes_exactly(mini_data_dir, tmp_path, monkeypatch):
    config = siamese(epochs=2, validation=None)
    full = train(config, tmp_path / "full", data_dir=mini_data_dir, **quiet())
    from parasent.training import trainer as trainer_module

    original = trainer_module.Trainer.__init__

    def stopping(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.on_step = lambda t: t.request_stop("test") if t.state.step == 5 else None

    monkeypatch.setattr(trainer_module.Trainer, "__init__", stopping)
    with pytest.raises(TrainingInterrupted):
        train(config, tmp_path / "cut", data_dir=mini_data_dir, **quiet())
    monkeypatch.setattr(trainer_module.Trainer, "__init__", original)
    resumed = train(config, tmp_path / "cut", data_dir=mini_data_dir, resume=True, **quiet())
    assert resumed.state.step == full.state.step
    a = load(tmp_path / "full").weights["embedding.weight"]
    b = load(tmp_path / "cut").weights["embedding.weight"]
    assert np.array_equal(a, b)


def test_random_init_uses_the_given_std(mini_data_dir, tmp_path):
    train(siamese(epochs=1, validation=None, lr=1e-12), tmp_path / "run", data_dir=mini_data_dir, **quiet())
    table = load(tmp_path / "run").weights["embedding.weight"][2:]
    assert abs(float(table.std()) - 0.01) < 0.002


def test_finetuning_keeps_the_vocabulary_and_reports_synthetic_pairs(mini_data_dir, tmp_path):
    from parasent.sts.system import finetune_config

    train(
        TrainConfig.from_flat(vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16, validation=None),
        tmp_path / "raw",
        data_dir=mini_data_dir,
        **quiet(),
    )
    raw = load(tmp_path / "raw")
    messages = []
    config = finetune_config(tmp_path / "raw", epochs=2, synthetic="ppdb")
    assert (
        config.optimizer.name,
        config.objective.delta,
        config.objective.lambda_w,
        config.objective.negatives,
    ) == (
        "adadelta",
        0.8,
        1e-5,
        "rand",
    )
    result = train(config, tmp_path / "tuned", data_dir=mini_data_dir, progress=False, say=messages.append)
    tuned = load(tmp_path / "tuned")
    assert tuned.tokenizer.vocabulary() == raw.tokenizer.vocabulary()
    assert not np.array_equal(tuned.weights["embedding.weight"], raw.weights["embedding.weight"])
    assert any("TRANSDUCTIVE" in m for m in messages)
    assert tuned.metadata["transductive"] == "validation"
    kept = result.pool.kept
    assert kept["sts2012-train"] > 0 and kept["synthetic:ppdb@validation"] > 0
    assert all(kept[s] == 0 or s.startswith(("sts2012", "synthetic")) for s in kept)


def test_ppdb_protocol_trains_on_no_pavlick_pair_and_selects_on_ppdb_dev(mini_data_dir, tmp_path):
    config = TrainConfig.preset(
        vectors="wordvecs/mini16.txt.gz", epochs=2, batch_size=16, protocol="ppdb", max_pairs=150
    )
    assert config.validation == "ppdb-dev"
    result = train(config, tmp_path / "run", data_dir=mini_data_dir, **quiet())
    assert result.pool.kept["ppdb-human"] == 0 and result.pool.excluded["ppdb-human"] > 0
    scores = [h["validation"]["ppdb-dev_mean_spearman"] for h in result.state.history]
    assert result.state.best_score == max(scores) and len(scores) == 2
    assert load(tmp_path / "run").metadata["training"]["protocol"] == "ppdb"


def test_a_resume_refuses_a_start_that_changed_since_the_run_began(mini_data_dir, tmp_path):
    import shutil

    from safetensors.numpy import load_file, save_file

    from parasent.core.model import SHIPPED_DIR
    from parasent.errors import CheckpointError
    from tests.training.test_fine_tuning import jargon_pairs

    start = tmp_path / "start"
    shutil.copytree(SHIPPED_DIR / "default", start)
    pairs = tmp_path / "jargon.tsv"
    pairs.write_text(jargon_pairs(200, seed=5))
    config = TrainConfig.preset(
        "margin", recipe="finetune", init_model=str(start), vectors=None, teacher=None,
        pair_files=[[str(pairs), "labelled"]], epochs=1,
    )  # fmt: skip
    train(config, tmp_path / "run", data_dir=mini_data_dir, **quiet())
    longer = config.replace(epochs=2)
    train(longer, tmp_path / "run", data_dir=mini_data_dir, resume=True, **quiet())  # the same start
    weights = start / "model.safetensors"
    tensors = load_file(weights)
    name = next(iter(tensors))
    tensors[name] = tensors[name].copy()
    tensors[name].flat[0] += 1
    save_file(tensors, weights)  # the start trained again (a package upgrade of `default`)
    with pytest.raises(
        CheckpointError,
        match=r"checkpoint\.safetensors: --init-model .* is not the model this run began from",
    ):
        train(longer.replace(epochs=3), tmp_path / "run", data_dir=mini_data_dir, resume=True, **quiet())


def test_a_contextual_run_that_keeps_its_start_writes_the_start_itself(mini_data_dir, tmp_path):
    pairs = tmp_path / "plain.tsv"
    topics = ["cats", "stocks", "rain", "football", "bread", "trains", "violins", "taxes", "moons", "tulips"]
    lines = [
        f"a note about {t} number {i}\tnumber {i} of the notes on {t}" for i in range(12) for t in topics
    ]
    pairs.write_text("\n".join(lines) + "\n")
    config = TrainConfig.preset(
        "margin", recipe="finetune", init_model="default", vectors=None, encoder="contextual",
        encoder_options={"hidden": 4}, teacher=None, pair_files=[[str(pairs), "tsv"]], epochs=1, lr=1e-9,
    )  # fmt: skip
    result = train(config, tmp_path / "run", data_dir=mini_data_dir, **quiet())
    assert result.state.best_epoch == 0  # no epoch beats the start
    (line,) = selection_lines(config, result.state)
    assert "nothing was changed" in line and "100.00 is the figure's ceiling, which no epoch can beat" in line
    written, default = load(tmp_path / "run"), load("default")
    assert written.encoder_config == default.encoder_config  # the average, not a zero composition
    probe = ["the cat chased the dog", "a blorf of the snibbet"]
    assert np.array_equal(written.encode(probe), default.encode(probe))
    assert written.metadata["training"]["encoder"]["name"] == "contextual"  # how the run went


def test_a_stop_after_training_says_how_to_finish_and_resume_finishes(mini_data_dir, tmp_path, monkeypatch):
    from parasent.training import run as run_module
    from tests.training.test_fine_tuning import jargon_pairs

    pairs = tmp_path / "jargon.tsv"
    pairs.write_text(jargon_pairs(200, seed=5))
    config = TrainConfig.preset(
        "margin", recipe="finetune", init_model="default", vectors=None, teacher=None,
        pair_files=[[str(pairs), "labelled"]], epochs=1,
    )  # fmt: skip
    finished: list[int] = []
    stop = stopped_in(monkeypatch, "blend_run", KeyboardInterrupt(), config, tmp_path / "run", mini_data_dir)
    assert "--resume finishes the run" in str(stop) and stop.exit_code == 130
    monkeypatch.setattr(run_module, "blend_run", lambda *args, **kwargs: finished.append(1))
    result = train(config, tmp_path / "run", data_dir=mini_data_dir, resume=True, **quiet())
    assert finished == [1] and result.state.epoch == 1  # nothing trained again, the last step done


def test_a_stop_before_training_says_the_same_command_continues(mini_data_dir, tmp_path, monkeypatch):
    """Ctrl-C in a teacher's pass printed "interrupted" alone, and --resume then found no checkpoint."""
    from parasent.errors import Terminated

    config = TrainConfig.preset("margin", recipe="paper", vectors=None, dim=4, epochs=1)
    stop = stopped_in(
        monkeypatch, "prepare_teacher", Terminated("SIGTERM"), config, tmp_path / "run", mini_data_dir
    )
    assert "before training began" in str(stop) and "the same command continues them" in str(stop)
    assert stop.exit_code == 143


def stopped_in(monkeypatch, stage: str, stop: BaseException, config, out, data_dir) -> TrainingInterrupted:
    """What a run says when ``stop`` (Ctrl-C, SIGTERM) reaches it in ``stage`` of training/run.py."""
    from parasent.training import run as run_module

    def stopping(*args, **kwargs):
        raise stop

    monkeypatch.setattr(run_module, stage, stopping)
    with pytest.raises(TrainingInterrupted) as raised:
        train(config, out, data_dir=data_dir, **quiet())
    return raised.value


def test_a_megabatch_larger_than_the_epoch_is_said():
    from parasent.training.run import megabatch_note

    class Batches:
        def num_batches(self, batch_size):
            return 3

    config = TrainConfig.preset("margin", megabatch=4, batch_size=50)
    note = megabatch_note(config, Batches())
    assert note == (
        "note: --megabatch 4 is more than the 3 batch(es) an epoch holds: each negative is chosen among "
        "the whole epoch, as --megabatch 3 would"
    )
    assert megabatch_note(config.replace(megabatch=3), Batches()) is None
