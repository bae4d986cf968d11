"""Training composed from Python (``parasent.training.fit``): a loss defined here, never
registered, trains a model; the default is fine-tuned on a list of pairs through the same call;
and a run given by name matches the command line's, bit for bit."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from parasent import load
from parasent.cli import main
from parasent.encoders.batch import TokenBatch
from parasent.errors import OptionError, ParasentError
from parasent.objectives.margin import MarginObjective
from parasent.training.fit import fit

sys.path.insert(0, str(Path(__file__).parent))
from test_fine_tuning import jargon_pairs  # noqa: E402

MINI = {"vectors": "wordvecs/mini16.txt.gz", "batch_size": 16, "min_count": 1, "seed": 3}


class InBatchSoftmax(nn.Module):
    """Multiple-negatives ranking: each first sentence must pick its own second among the batch's."""

    def __init__(self, encoder: nn.Module, scale: float) -> None:
        super().__init__()
        self.encoder, self.scale = encoder, scale

    def forward(self, batch, step, generator=None):
        g = F.normalize(self.encoder(TokenBatch.concat([batch.left, batch.right])), dim=1)
        left, right = g[: len(batch.left)], g[len(batch.left) :]
        loss = F.cross_entropy(self.scale * left @ right.T, torch.arange(len(left)))
        return loss, {"ranking": float(loss.detach())}


class RankingObjective:
    def __init__(self, scale: float = 20.0) -> None:
        self.scale, self.built = scale, []

    def build(self, encoder, data):
        self.built.append((encoder, len(data)))
        return InBatchSoftmax(encoder, self.scale)


def test_a_loss_defined_here_trains_a_word_averaging_model(mini_data_dir, tmp_path):
    objective = RankingObjective()
    result = fit(None, out=tmp_path / "run", objective=objective, data_dir=mini_data_dir, epochs=2,
                 progress=False, say=lambda _: None, **MINI)  # fmt: skip
    encoder, pairs = objective.built[0]
    assert pairs > 100 and encoder is result.encoder
    log = (tmp_path / "run" / "log.jsonl").read_text()
    assert '"ranking"' in log and "RankingObjective" in str(load(tmp_path / "run").metadata)
    start = load(tmp_path / "run").metadata["training"]
    assert start["encoder"]["name"] == "word_averaging"
    assert result.state.best_epoch >= 1


def test_fine_tuning_the_default_from_a_list_of_pairs(mini_data_dir, tmp_path):
    rows = [line.split("\t") for line in jargon_pairs(400, seed=3).splitlines()]
    pairs = [(s1, s2, int(label)) for label, s1, s2 in rows]
    said: list[str] = []
    result = fit("default", pairs, out=tmp_path / "run", data_dir=mini_data_dir, epochs=3,
                 progress=False, say=said.append)  # fmt: skip
    start = result.state.history[0]["validation"]["average_precision"]
    assert result.state.best_score > start + 5.0
    # what `parasent train` prints after a run, said here too
    assert any(line.startswith("done: ") for line in said)
    assert any(line.startswith("held-out: average_precision") for line in said)
    assert (tmp_path / "run" / "fit-pairs.tsv").read_text().startswith(f"{rows[0][0]}\t")  # what the run read
    with pytest.raises(OptionError, match="holds"):  # a finished run is never replaced unasked
        fit("default", pairs, out=tmp_path / "run", data_dir=mini_data_dir, progress=False)
    last = fit("default", pairs, out=tmp_path / "last", data_dir=mini_data_dir, epochs=1, validation="none",
               progress=False, say=lambda _: None)  # fmt: skip
    assert last.state.best_epoch == 1 and "validation" not in last.state.history[0]  # 'none', as typed


def test_a_run_by_name_is_the_command_lines_bit_for_bit(mini_data_dir, tmp_path):
    argv = ["train", "--out", str(tmp_path / "cli"), "--data-dir", str(mini_data_dir), "--epochs", "1", "--quiet",
            "--vectors", MINI["vectors"], "--batch-size", "16", "--min-count", "1", "--seed", "3"]  # fmt: skip
    assert main(argv) == 0
    fit(
        None,
        out=tmp_path / "py",
        data_dir=mini_data_dir,
        epochs=1,
        progress=False,
        say=lambda _: None,
        **MINI,
    )

    def digest(run):
        return hashlib.sha256((run / "model" / "model.safetensors").read_bytes()).hexdigest()

    assert digest(tmp_path / "cli") == digest(tmp_path / "py")


def test_the_margin_loss_as_an_object_trains_as_the_named_one(mini_data_dir, tmp_path):
    named = fit(None, out=tmp_path / "a", data_dir=mini_data_dir, epochs=1, progress=False, say=lambda _: None,
                delta=0.4, lambda_w=0.0, **MINI)  # fmt: skip
    obj = fit(None, out=tmp_path / "b", objective=MarginObjective(delta=0.4), data_dir=mini_data_dir, epochs=1,
              progress=False, say=lambda _: None, lambda_w=0.0, **MINI)  # fmt: skip
    assert np.allclose(
        load(tmp_path / "a").weights["embedding.weight"],
        load(tmp_path / "b").weights["embedding.weight"],
        atol=1e-6,
    )
    assert named.state.best_score == pytest.approx(obj.state.best_score, abs=1e-6)


def test_a_run_that_fails_before_training_leaves_its_out_free_for_the_retry(mini_data_dir, tmp_path):
    """fit writes a list of pairs into ``out``; a run refused at its start must not keep it there."""
    pairs = [(f"a cat number {i}", f"the cat {i}") for i in range(40)]  # 4 held out: too few to choose by
    said = []
    with pytest.raises(ParasentError, match="held out") as refused:
        fit(
            "default",
            pairs,
            out=tmp_path / "run",
            data_dir=mini_data_dir,
            epochs=1,
            progress=False,
            say=said.append,
        )
    assert not (tmp_path / "run" / "fit-pairs.tsv").exists()
    # the advice names fit's keywords, not the command line's flags
    assert "held_out" in str(refused.value) and "--held-out" not in str(refused.value)
    assert not any("--held-out" in line for line in said)
    again = fit("default", pairs, out=tmp_path / "run", data_dir=mini_data_dir, epochs=1, validation="none",
                progress=False, say=lambda _: None)  # fmt: skip
    assert again.state.best_epoch == 1


def test_an_option_of_the_wrong_type_is_one_line(tmp_path):
    with pytest.raises(OptionError, match="batch_size must be a number, got '10'"):
        fit("default", [("a cat", "the cat")] * 20, out=tmp_path / "run", batch_size="10")
    with pytest.raises(OptionError, match=r"^clip must be > 0, got -1$"):  # not "clip (clip)": fit's own name
        fit("default", [("a cat", "the cat")] * 20, out=tmp_path / "run", clip=-1)


def test_a_validation_neither_file_nor_suite_names_what_else_it_takes(mini_data_dir, tmp_path):
    with pytest.raises(
        ParasentError, match="held_out: no such file of pairs, nor a suite .*, nor held-out .* or none"
    ):
        fit(None, [("a cat", "the cat")] * 30, out=tmp_path / "run", data_dir=mini_data_dir, validation="held_out",
            progress=False, say=lambda _: None)  # fmt: skip


def test_a_run_that_diverges_before_its_first_checkpoint_leaves_out_free(mini_data_dir, tmp_path):
    rows = [line.split("\t") for line in jargon_pairs(200, seed=1).splitlines()]
    pairs = [(s1, s2, int(label)) for label, s1, s2 in rows]
    with pytest.raises(ParasentError, match="loss became"):
        fit("default", pairs, out=tmp_path / "run", data_dir=mini_data_dir, epochs=1, lr=1e38,
            optimizer="sgd", validation="none", progress=False, say=lambda _: None)  # fmt: skip
    assert not (tmp_path / "run" / "fit-pairs.tsv").exists() and not (tmp_path / "run" / "log.jsonl").exists()
    with pytest.raises(OptionError, match="must be a positive integer, got 2.5"):
        fit("default", pairs, out=tmp_path / "run", batch_size=2.5)


def test_a_pairs_file_of_the_users_in_out_is_never_replaced_nor_removed(mini_data_dir, tmp_path):
    """fit wrote a list of pairs over OUT/pairs.tsv, and removed it when the run failed: its
    own file has a name of its own, and the user's stays as it was."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "pairs.tsv").write_text("my own pairs\n")
    pairs = [(f"a cat number {i}", f"the cat {i}") for i in range(40)]
    with pytest.raises(ParasentError, match="no checkpoint"):
        fit(
            "default", pairs, out=out, resume=True, data_dir=mini_data_dir, progress=False, say=lambda _: None
        )
    assert sorted(p.name for p in out.iterdir() if p.name != ".lock") == ["pairs.tsv"]
    fit("default", pairs, out=out, overwrite=True, data_dir=mini_data_dir, epochs=1, validation="none",
        progress=False, say=lambda _: None)  # fmt: skip
    assert (out / "pairs.tsv").read_text() == "my own pairs\n" and (out / "fit-pairs.tsv").is_file()


def test_a_run_resumed_with_its_own_list_of_pairs_reads_them_again(mini_data_dir, tmp_path):
    pairs = [(f"a cat number {i}", f"the cat {i}") for i in range(40)]
    options = {
        "data_dir": mini_data_dir,
        "epochs": 1,
        "validation": "none",
        "progress": False,
        "say": lambda _: None,
    }
    fit("default", pairs, out=tmp_path / "run", **options)
    written = (tmp_path / "run" / "fit-pairs.tsv").read_bytes()
    again = fit("default", pairs, out=tmp_path / "run", resume=True, **options)  # the same pairs: no refusal
    assert again.state.best_epoch == 1 and (tmp_path / "run" / "fit-pairs.tsv").read_bytes() == written
    others = [(f"a dog number {i}", f"the dog {i}") for i in range(40)]
    with pytest.raises(ValueError, match="resume=True continues the run on the pairs it started with"):
        fit("default", others, out=tmp_path / "run", resume=True, **options)
    assert (tmp_path / "run" / "fit-pairs.tsv").read_bytes() == written
    fit("default", others, out=tmp_path / "run", overwrite=True, **options)  # starting over on new pairs
    assert (tmp_path / "run" / "fit-pairs.tsv").read_bytes() != written


def test_a_resumed_run_continues_with_its_own_options_not_the_recipe_of_today(
    mini_data_dir, tmp_path, monkeypatch
):
    """fit(resume=True) rebuilt its options from the recipe, so a run started before the recipe
    changed was refused on resume: it reads them from the checkpoint, as `parasent train --resume`."""
    from parasent.training import config as training_config

    pairs = [(f"a cat number {i}", f"the cat {i}") for i in range(40)]
    options = {"data_dir": mini_data_dir, "validation": "none", "progress": False, "say": lambda _: None}
    fit("default", pairs, out=tmp_path / "run", epochs=1, **options)
    started = training_config.RECIPES["finetune"]["delta"]
    monkeypatch.setitem(training_config.RECIPES["finetune"], "delta", started + 0.15)  # the recipe moves on
    with pytest.raises(ParasentError, match=r"different option\(s\) lr; "):
        fit("default", pairs, out=tmp_path / "run", resume=True, epochs=2, lr=0.5, **options)
    resumed = fit("default", pairs, out=tmp_path / "run", resume=True, epochs=2, **options)
    assert len(resumed.state.history) == 2  # the second epoch, trained at the run's own delta
    with pytest.raises(ParasentError, match=r"different option\(s\) delta; "):
        fit("default", pairs, out=tmp_path / "run", resume=True, epochs=3, delta=started + 0.15, **options)
    with pytest.raises(ValueError, match="siamese-cbow"):  # not continued as the margin run it is
        fit(
            "default", pairs, out=tmp_path / "run", resume=True, epochs=3, objective="siamese-cbow", **options
        )
    # the same start and pairs spelled otherwise: a loaded model's directory, out relative to here
    relative = os.path.relpath(tmp_path / "run")
    again = fit(load("default"), pairs, out=relative, resume=True, epochs=3, **options)
    assert len(again.state.history) == 3


def test_a_refused_resume_leaves_no_pairs_file_of_its_own(mini_data_dir, tmp_path):
    (tmp_path / "mine.tsv").write_text("".join(f"a cat number {i}\tthe cat {i}\n" for i in range(40)))
    options = {"data_dir": mini_data_dir, "validation": "none", "progress": False, "say": lambda _: None}
    fit("default", tmp_path / "mine.tsv", out=tmp_path / "run", epochs=1, **options)
    pairs = [(f"a dog number {i}", f"the dog {i}") for i in range(40)]
    with pytest.raises(ParasentError, match=r"different option\(s\) pair_files \(pairs\)"):
        fit("default", pairs, out=tmp_path / "run", resume=True, epochs=2, **options)
    assert not (tmp_path / "run" / "fit-pairs.tsv").exists()


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("high", r"pairs\[1\]: score 'high' is not a number"),
        (float("nan"), r"pairs\[1\]: score nan is not a finite"),
    ],
)
def test_a_bad_score_in_a_list_names_its_row(tmp_path, score, message):
    pairs = [("a cat", "the cat", 1.0), ("a dog", "the dog", score)] + [("x", "y", 0.5)] * 20
    with pytest.raises(ValueError, match=message):
        fit("default", pairs, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_lists_scores_are_read_by_the_rule_a_files_are(tmp_path):
    """A list with one 2 among 0/1 labels trained as graded scores, silently; the same file is
    refused (a stray label is named where it is; 0/1/2 alone could be classes or scores)."""
    labels = [(f"a cat {i}", f"the cat {i}", i % 2) for i in range(150)]
    with pytest.raises(ValueError, match=r"pairs\[50\]: score 2 among labels 0 and 1"):
        fit("default", labels[:50] + [("a b", "c d", 2)] + labels[50:], out=tmp_path / "run")
    classes = [(f"a cat {i}", f"the cat {i}", i % 3) for i in range(30)]
    with pytest.raises(
        ValueError, match=r"pairs\[2\]: the scores take only the values 0, 1, 2: class labels"
    ):
        fit("default", classes, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_an_objective_without_build_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="neither a registered name nor an object with build"):
        fit("default", [("a cat", "the cat")] * 20, out=tmp_path / "run", objective=object())
    assert not (tmp_path / "run").exists()
