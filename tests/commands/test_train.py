from parasent import load
from parasent.cli import main


def test_siamese_cbow_defaults_apply_only_where_the_user_gave_nothing(mini_data_dir, tmp_path, capsys):
    run = tmp_path / "run"
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(run), "--quiet"]
    args += ["--objective", "siamese-cbow", "--dim", "8", "--min-count", "1", "--epochs", "1"]
    assert main(args + ["--batch-size", "32"]) == 0
    training = load(run).metadata["training"]
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
    training = load(run).metadata["training"]
    assert training["objective"] == "margin" and training["pool"] == "standard"
    assert training["optimizer"] == "adadelta" and training["lr_schedule"] == "constant"


def test_bad_objective_options_are_one_line_errors(mini_data_dir, tmp_path, capsys):
    args = ["train", "--data-dir", str(mini_data_dir), "--out", str(tmp_path / "r"), "--quiet"]
    assert main(args + ["--objective", "siamese-cbow", "--pool", "standard"]) == 2
    assert "--pool none" in capsys.readouterr().err


def test_preset_resolution_leaves_plain_values():
    from parasent.cli import build_parser
    from parasent.commands.train import apply_objective_preset

    args = build_parser().parse_args(["train", "--objective", "siamese-cbow", "--epochs", "50"])
    apply_objective_preset(args)
    assert args.epochs == 50 and args.lr == 0.1 and args.pool is None and args.min_count == 5
    assert type(args.batch_size) is int and type(args.optimizer) is str
    margin = build_parser().parse_args(["train"])
    apply_objective_preset(margin)
    assert (margin.epochs, margin.pool, margin.optimizer, type(margin.delta)) == (
        50,
        "standard",
        "adagrad",
        float,
    )
    tuned = build_parser().parse_args(["train", "--init-model", "runs/x"])
    apply_objective_preset(tuned)
    assert tuned.vectors is None
