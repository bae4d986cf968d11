import re

import numpy as np
import pytest

from parasent import load
from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.training.config import TrainConfig


def test_siamese_cbow_defaults_apply_only_where_the_user_gave_nothing(mini_data_dir, tmp_path, capsys):
    run = tmp_path / "run"
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(run), "--quiet"]
    args += ["--objective", "siamese-cbow", "--dim", "8", "--min-count", "1", "--epochs", "1"]
    assert main(args + ["--batch-size", "32"]) == 0
    training = TrainConfig.flatten(load(run).metadata["training"])
    assert (training["dim"], training["min_count"], training["epochs"], training["batch_size"]) == (
        8,
        1,
        1,
        32,
    )
    assert (training["optimizer"], training["lr_schedule"], training["init_std"]) == ("sgd", "linear", 0.01)
    assert training["corpus"] == "standard" and training["pool"] is None and training["vectors"] is None
    assert "kept 197 sentences in 14 documents" in capsys.readouterr().out


def test_margin_defaults_are_unchanged_and_options_can_be_typed_equal_to_a_default(mini_data_dir, tmp_path):
    run = tmp_path / "run"
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(run), "--quiet", "--epochs", "1"]
    args += ["--vectors", "wordvecs/mini16.txt.gz", "--batch-size", "16", "--optimizer", "adadelta"]
    assert main(args) == 0
    training = TrainConfig.flatten(load(run).metadata["training"])
    assert training["objective"] == "margin" and training["pool"] == "standard"
    assert training["optimizer"] == "adadelta" and training["lr_schedule"] == "constant"


def test_bad_objective_options_are_one_line_errors(mini_data_dir, tmp_path, capsys):
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(tmp_path / "r"), "--quiet"]
    assert main(args + ["--objective", "siamese-cbow", "--pool", "standard"]) == 2
    assert "--pool none" in capsys.readouterr().err


def test_preset_resolution_keeps_what_was_typed():
    from parasent.cli import build_parser
    from parasent.commands.train import config_from_args

    config = config_from_args(
        build_parser().parse_args(["train", "--objective", "siamese-cbow", "--epochs", "50"])
    ).flat()
    assert (config["epochs"], config["lr"], config["pool"], config["min_count"], config["optimizer"]) == (
        50,
        0.1,
        None,
        5,
        "sgd",
    )
    margin = config_from_args(build_parser().parse_args(["train"])).flat()
    assert (margin["epochs"], margin["pool"], margin["optimizer"], margin["delta"]) == (
        50,
        "standard",
        "adagrad",
        0.6,
    )
    typed_default = config_from_args(
        build_parser().parse_args(["train", "--objective", "siamese-cbow", "--lr", "0.05"])
    )
    assert typed_default.optimizer.lr == 0.05
    tuned = config_from_args(
        build_parser().parse_args(["train", "--init-model", "runs/x", "--pairs", "a.tsv"])
    )
    assert tuned.encoder.vectors is None and tuned.encoder.init_model == "runs/x"
    assert (tuned.data.pool, tuned.data.scores, tuned.validation, tuned.optimizer.name) == (
        None, "rank", "held-out", "adagrad"
    )  # the finetune recipe  # fmt: skip
    continued = config_from_args(build_parser().parse_args(["train", "--init-model", "runs/x"]))
    assert continued.data.pool == "standard" and continued.data.scores == "threshold"  # cumulative training
    assert (
        config_from_args(
            build_parser().parse_args(["train", "--init-model", "x", "--recipe", "paper"])
        ).data.pool
        == "standard"
    )
    pairs = config_from_args(
        build_parser().parse_args(["train", "--pairs", "a.tsv", "--pairs", "b.txt:ppdb"])
    )
    assert pairs.data.pair_files == [["a.tsv", "tsv"], ["b.txt", "ppdb"]]


def test_train_reads_a_pair_files_format_from_the_file_when_not_named(tmp_path):
    from parasent.commands.config_options import parse_pairs

    labels = tmp_path / "labels.tsv"
    labels.write_text("1\ta cat sat\ta cat was sitting\n0\ta dog ran\tstocks fell\n")
    assert parse_pairs([str(labels), f"{labels}:tsv"]) == [[str(labels), "labelled"], [str(labels), "tsv"]]


def test_a_continued_model_brings_its_own_encoder(tmp_path):
    """`train --init-model contextual --pairs F` needs no --encoder: the model's is read."""
    from parasent.cli import build_parser
    from parasent.commands.config_options import config_from_args
    from parasent.training.features_stage import compose_rows

    path = compose_rows(load("default"), "contextual", {"hidden": 4}, seed=0).save(tmp_path / "ctx")
    continued = config_from_args(
        build_parser().parse_args(["train", "--init-model", str(path), "--pairs", "a.tsv"])
    )
    assert continued.encoder.name == "contextual"
    typed = config_from_args(
        build_parser().parse_args(
            ["train", "--init-model", "default", "--encoder", "contextual", "--pairs", "a.tsv"]
        )
    )
    assert typed.encoder.name == "contextual"
    plain = config_from_args(
        build_parser().parse_args(["train", "--init-model", "default", "--pairs", "a.tsv"])
    )
    assert plain.encoder.name == "word_averaging"


def test_threads_sets_torchs_thread_count_in_the_commands_that_train(
    mini_data_dir, tmp_path, monkeypatch, capsys
):
    import torch

    from parasent.support import cpu_threads

    monkeypatch.setenv(cpu_threads.OMP_ENV, "")  # unset, and restored after what --threads sets
    chosen: list[int] = []
    monkeypatch.setattr(torch, "set_num_threads", chosen.append)
    args = [
        "train",
        "--data-dir",
        str(mini_data_dir),
        "--out",
        str(tmp_path / "run"),
        "--quiet",
        "--epochs",
        "1",
    ]
    args += ["--vectors", "wordvecs/mini16.txt.gz", "--max-pairs", "100"]
    assert main([*args, "--threads", "3"]) == 0
    assert chosen[0] == 3
    monkeypatch.setenv(cpu_threads.OMP_ENV, "")
    monkeypatch.setattr(cpu_threads, "other_runnable", lambda: 0)
    assert main([*args, "--overwrite"]) == 0
    assert chosen[-1] == cpu_threads.available_cores()  # the cores this process may use, none busy
    assert main([*args, "--overwrite", "--threads", "0"]) == 2
    assert capsys.readouterr().err.strip().endswith("--threads must be at least 1, got 0")
    for command in (["head", "train"], ["tune"], ["compare"], ["sts-system"], ["distill"], ["teacher-pass"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        assert "--threads N" in capsys.readouterr().out, command


def test_the_finetune_line_says_how_the_epoch_is_chosen():
    """`--validation none` still printed "the epoch chosen on held-out pairs"."""
    from parasent.cli import build_parser
    from parasent.commands.train import config_from_args

    def said(*extra):
        lines = []
        argv = ["train", "--init-model", "runs/x", "--pairs", "a.tsv", *extra]
        config_from_args(build_parser().parse_args(argv), say=lines.append)
        return lines[0]

    assert "the epoch chosen on held-out pairs" in said()
    assert "the last epoch kept (--validation none)" in said("--validation", "none")
    assert "the epoch chosen on sts2016" in said("--validation", "sts2016")


def test_the_help_gives_what_a_contextual_fine_tune_uses(capsys):
    """`--help` said --blend-within defaults to None and the teacher weight to 1 where a
    `--init-model default --encoder contextual` run uses 1 and 10."""
    from parasent.training.config import COMPOSING, COMPOSING_TEACHER

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"recipe finetune with --encoder contextual: {COMPOSING['finetune']['blend_within']})" in text
    weight = COMPOSING_TEACHER["teacher_weight"]
    assert f"recipe finetune with --encoder contextual and the teacher installed: {weight})" in text
    with pytest.raises(SystemExit):
        main(["train", "--blend-within", "abc", "--out", "unused"])
    assert "--blend-within: 'abc' is not a number or 'none'" in capsys.readouterr().err


def test_resume_with_no_option_typed_continues_with_the_runs_own(mini_data_dir, tmp_path, capsys):
    """`--resume` alone listed two dozen options as 'different' (everything the run was given)."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "a big car\ta large automobile\nthe quick dog\tthe fast puppy\na red hat\ta scarlet cap\n"
    )
    run = tmp_path / "run"
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(run), "--pool", "none", "--pairs", str(pairs),
            "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "1", "--batch-size", "2", "--quiet"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    again = ["train", "--data-dir", str(mini_data_dir), "--out", str(run), "--resume", "--epochs", "2", "--quiet"]  # fmt: skip
    assert main(again) == 0
    out = capsys.readouterr().out
    assert "resuming with the run's own options" in out and "best validation" in out
    assert out.split("\n")[0].endswith(" and --epochs")  # the flag typed, not its field's name
    log = (run / "log.jsonl").read_text()
    assert '"event": "resume"' in log and '"epoch": 1' in log  # the second epoch was trained
    assert main([*again, "--delta", "0.7"]) == 2  # a changed option is still refused, named
    refused = capsys.readouterr()
    assert "--resume with different option(s) delta (--delta);" in refused.err
    assert (
        "(only --cache-dir, --checkpoint-every, --device, --epochs, --log-every, --patience may change)"
        in refused.err
    )
    assert "resuming" not in refused.out  # refused before it says it resumes


def test_an_encoder_option_given_twice_with_two_values_is_refused(mini_data_dir, tmp_path, capsys):
    """`--encoder-option layers=2 --encoder-option layers=3` trained with 3, silently."""
    from parasent.commands.config_options import parse_encoder_options

    assert parse_encoder_options(["layers=2", "layers=2", "hidden=64"]) == {"layers": 2, "hidden": 64}
    for second in ('layers="2"', "layers=true", "layers=2.0"):  # 2, "2", true, 2.0: four options, not one
        with pytest.raises(ValueError, match=f"given twice \\(layers=2, then {second}\\)"):
            parse_encoder_options(["layers=2", second])
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(tmp_path / "run"), "--encoder", "contextual"]  # fmt: skip
    assert main([*args, "--encoder-option", "layers=2", "--encoder-option", "layers=3"]) == 2
    said = capsys.readouterr().err.strip()
    assert said.endswith("--encoder-option layers given twice (layers=2, then layers=3): give it once")
    assert not (tmp_path / "run").exists()


def test_a_run_without_validation_still_says_each_epochs_loss(mini_data_dir, tmp_path, capsys):
    """With `--validation none` no line was printed between the start and `done`."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "a big car\ta large automobile\nthe quick dog\tthe fast puppy\na red hat\ta scarlet cap\n"
    )
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(tmp_path / "run"), "--pool", "none",
            "--pairs", str(pairs), "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "2", "--batch-size", "2",
            "--validation", "none"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(r"epoch 1/2: loss \d+\.\d{4}, \d+\.\ds", out) and "epoch 2/2: loss" in out


def test_a_run_resumes_from_another_folder_naming_its_pairs_from_there(
    mini_data_dir, tmp_path, monkeypatch, capsys
):
    """A run records --pairs as typed: resumed from another folder it could not find them, and
    naming them from there was refused as 'different option(s) pair_files (--pair-files)'."""
    start = tmp_path / "start"
    start.mkdir()
    (start / "pairs.tsv").write_text(
        "a big car\ta large automobile\nthe quick dog\tthe fast puppy\na red hat\ta cap\n"
    )
    monkeypatch.chdir(start)
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(tmp_path / "run"), "--pool", "none",
            "--pairs", "pairs.tsv", "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "1", "--batch-size", "2",
            "--quiet"]  # fmt: skip
    assert main(args) == 0
    monkeypatch.chdir(tmp_path)
    again = [
        "train",
        "--data-dir",
        str(mini_data_dir),
        "--out",
        "run",
        "--resume",
        "--epochs",
        "2",
        "--quiet",
    ]
    assert main(again) == 2  # not found from here: said, with what to do
    assert (
        "pairs.tsv: no such file from here (the run named it from the folder it started in; resume there)"
        in capsys.readouterr().err
    )
    assert main([*again, "--pairs", "start/pairs.tsv"]) == 0
    assert '"event": "resume"' in (tmp_path / "run" / "log.jsonl").read_text()
    (tmp_path / "other.tsv").write_text("a cat\ta kitten\n")
    assert main([*again, "--epochs", "3", "--pairs", "other.tsv"]) == 2  # another file: another input
    assert "different option(s) pair_files (--pairs)" in capsys.readouterr().err
    (tmp_path / "moved").mkdir()
    (tmp_path / "moved" / "pairs.tsv").write_text("a cat\ta kitten\n")  # the name, not the contents
    assert main([*again, "--epochs", "3", "--pairs", "moved/pairs.tsv"]) == 2
    said = capsys.readouterr().err
    assert "the training pairs differ" in said and "did not yet cover the domain test splits" in said
    assert main([*again, "--epochs", "3", "--pairs", "start/pairs.tsv:labelled"]) == 2  # another format
    assert "different option(s) pair_files (--pairs)" in capsys.readouterr().err


def test_a_run_never_writes_over_the_model_it_starts_from(tmp_path, capsys):
    """`--out RUN --overwrite` with RUN's own model as the start would set it aside unread."""
    from parasent.errors import OptionError
    from parasent.text.word_vectors import WordVectors
    from parasent.training.fit import fit

    run = tmp_path / "run"
    SentenceModel.from_vectors(WordVectors(["a", "cat"], np.eye(2, 4, dtype=np.float32))).save(run / "model")
    before = sorted(p.name for p in run.rglob("*"))
    pairs = tmp_path / "p.tsv"
    pairs.write_text("1\ta cat\tthe cat\n")
    for start in (run, run / "model"):
        assert (
            main(
                ["train", "--init-model", str(start), "--pairs", str(pairs), "--out", str(run), "--overwrite"]
            )
            == 2
        )
        assert "holds the model this run starts from" in capsys.readouterr().err
    assert (
        main(["head", "train", "--data", str(pairs), "--init", str(run), "--out", str(run), "--overwrite"])
        == 2
    )
    assert "holds the model this run starts from" in capsys.readouterr().err
    with pytest.raises(OptionError, match="holds the model this run starts from"):
        fit(str(run), str(pairs), out=run, overwrite=True)
    assert sorted(p.name for p in run.rglob("*")) == before


def test_the_python_api_is_told_its_own_keywords_for_an_occupied_run(tmp_path):
    from parasent.errors import OptionError
    from parasent.training.fit import fit

    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(OptionError, match="overwrite=True trains in it"):
        fit("default", [("a cat", "the cat")], out=tmp_path / "run")


def test_training_draws_no_bar_into_a_log_or_a_pipe(mini_data_dir, tmp_path, capfd):
    """Bars show on a terminal only (the help's promise); a file gets the epoch lines alone."""
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(tmp_path / "run"), "--epochs", "1"]
    args += ["--vectors", "wordvecs/mini16.txt.gz", "--batch-size", "16"]
    assert main(args) == 0
    captured = capfd.readouterr()
    assert "epoch 1/1" in captured.out + captured.err  # the epoch's own line
    assert "batch/s" not in captured.err and "\r" not in captured.err


def test_option_refusals_name_the_flags_on_the_command_line_and_the_fields_in_python(capsys):
    """`parasent train --margin-weight -1` said "margin_weight must be >= 0", a name no user of
    the command line typed; the Python API's users typed the field's name, and keep it."""
    for typed, said in ((["--margin-weight", "-1"], "--margin-weight must be >= 0"),
                        (["--batch-size", "1"], "--batch-size must be at least 2"),
                        (["--init-std", "-1"], "--init-std must be positive")):  # fmt: skip
        assert main(["train", *typed, "--out", "unused"]) == 2
        assert said in capsys.readouterr().err
    with pytest.raises(ValueError, match="^margin_weight must be >= 0"):
        TrainConfig.from_flat(margin_weight=-1.0)
    assert main(["train", "--recipe", "paper", "--teacher-weight", "1", "--out", "unused"]) == 2
    said = capsys.readouterr().err.strip()  # the weight was typed: say how to go without
    assert said.endswith(
        "needs a teacher (--teacher auto or a directory); without one, give --teacher-weight 0"
    )
    for recipe in (
        "distilled",
        "contextual",
    ):  # a teacher's recipe without one: said first, not option by option
        assert main(["train", "--recipe", recipe, "--teacher", "none", "--out", "unused"]) == 2
        said = capsys.readouterr().err.strip()
        assert said.endswith(
            f"the {recipe} recipe distils a teacher: it cannot run with --teacher none as it is (--recipe paper "
            "trains without one; --teacher-weight 0 turns off the recipe's teacher terms)"
        )
    from parasent.commands.config_options import named_as_flags

    assert named_as_flags("pair_files.txt: no such file") == "pair_files.txt: no such file"  # a path, kept
    assert main(["train", "--lr", "-0.1", "--out", "unused"]) == 2  # a check that names both: the flag once
    assert capsys.readouterr().err.strip().endswith("--lr must be > 0, got -0.1")
    with pytest.raises(ValueError, match="encoder options must be a dict of name to value"):
        TrainConfig.from_flat(encoder="contextual", encoder_options=["layers=2"])


def test_a_fine_tune_resumes_from_another_folder_naming_its_start_from_there(
    mini_data_dir, tmp_path, monkeypatch, capsys
):
    """A run that continued `--init-model base` (relative), resumed from another folder, failed as
    'base: not a model directory', and naming the start from there was refused as changed."""
    start = tmp_path / "start"
    start.mkdir()
    (start / "pairs.tsv").write_text(
        "a big car\ta large automobile\nthe quick dog\tthe fast puppy\na red hat\ta cap\n"
    )
    monkeypatch.chdir(start)
    common = ["--data-dir", str(mini_data_dir), "--pool", "none", "--pairs", "pairs.tsv", "--batch-size", "2", "--quiet"]  # fmt: skip
    assert (
        main(["train", *common, "--out", "base", "--vectors", "wordvecs/mini16.txt.gz", "--epochs", "1"]) == 0
    )
    assert (
        main(
            ["train", *common, "--out", "ft", "--init-model", "base", "--epochs", "1", "--validation", "none"]
        )
        == 0
    )
    monkeypatch.chdir(tmp_path)
    again = ["train", "--data-dir", str(mini_data_dir), "--out", "start/ft", "--resume", "--epochs", "2", "--quiet",
             "--pairs", "start/pairs.tsv"]  # fmt: skip
    assert main(again) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(
            "base: no model there from here (the run named it from the folder it started in; resume there); or name "
            "it with --init-model (the run checks that it is the model it began from, by its digest)"
        )
    )
    assert main([*again, "--init-model", "start/base"]) == 0  # the same model, named from here
    assert '"event": "resume"' in (start / "ft" / "log.jsonl").read_text()
