import os

import pytest

from parasent.cli import main
from parasent.data.registry.catalog import SUITES
from parasent.experiments.compare import RUNS_FILE, read_runs, run_comparison, variant_config
from parasent.experiments.tables import comparison_table
from parasent.experiments.variants import Variant, all_variants, select_variants
from parasent.training.config import TrainConfig


def test_every_registered_encoder_is_compared():
    from parasent.encoders import ENCODERS

    assert {v.encoder for v in all_variants()} == set(ENCODERS)
    assert [v.key for v in select_variants(["lstm_og", "pp"])] == ["lstm_og", "pp"]
    with pytest.raises(KeyError, match="unknown variant"):
        select_variants(["gru"])
    last = all_variants()[-1]
    config = variant_config(TrainConfig(), last, seed=4)
    assert config.encoder.name == last.encoder and config.seed == 4


def test_comparison_runs_resumes_and_tabulates(mini_data_dir, tmp_path, capsys):
    variants = [Variant("pp", "PP", "word_averaging"), Variant("cse", "CSE", "cse", {"activation": "tanh"})]
    base = TrainConfig.from_flat(vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16)
    baseline, records = run_comparison(
        base, variants, [1, 2], tmp_path / "c", data_dir=mini_data_dir, say=print
    )
    assert [(r.variant, r.seed) for r in records] == [("pp", 1), ("cse", 1), ("pp", 2), ("cse", 2)]
    assert records[1].config["encoder"]["options"] == {"activation": "tanh"}
    assert len(records[0].transfer["datasets"]) == 21
    assert (
        baseline["transfer"]["aggregates"]["transfer_mean_pearson"]
        != records[0].transfer["aggregates"]["transfer_mean_pearson"]
    )
    capsys.readouterr()
    _, again = run_comparison(base, variants, [1, 2], tmp_path / "c", data_dir=mini_data_dir, say=print)
    assert "seed" not in capsys.readouterr().out  # nothing retrained
    assert len(read_runs(tmp_path / "c")) == 4 and [r.transfer for r in again] == [
        r.transfer for r in records
    ]

    changed = [variants[0], Variant("cse", "CSE", "cse", {"activation": "linear"})]
    _, redone = run_comparison(base, changed, [1], tmp_path / "c", data_dir=mini_data_dir, say=print)
    printed = capsys.readouterr().out
    assert "settings of cse/seed-1 changed: running it again" in printed and "pp" not in printed
    assert redone[1].config["encoder"]["options"] == {"activation": "linear"}
    assert (tmp_path / "c" / "cse" / "seed-1.stale").is_dir()

    table = comparison_table(variants, again, baseline)
    lines = table.splitlines()
    assert lines[0] == "| dataset | avg. mini16.txt.gz | PP | CSE |"
    rows = [line.split(" | ")[0].lstrip("| ") for line in lines[2:] if line.startswith("|")]
    assert rows[0] == "2012 MSRpar" and "**STS 2012 mean**" in rows and "SICK 2014" in rows
    assert rows.index("**STS 2012 mean**") == 5 and "**transfer mean (21 sets)**" in rows
    assert len([r for r in rows if r[:2] in ("20", "SI", "Tw")]) == len(SUITES["transfer"])
    # each trained cell is the median over seeds
    import statistics

    pp = [r.transfer["aggregates"]["transfer_mean_pearson"] for r in again if r.variant == "pp"]
    mean_row = next(line for line in lines if line.startswith("| **transfer mean"))
    assert f"{statistics.median(pp):.2f}" in mean_row
    assert "median over 2 seed(s) [1, 2]" in table


@pytest.mark.slow
@pytest.mark.data
def test_compare_reduced_setting_on_shared_data(shared_data_dir, tmp_path, capsys):
    """The CI setting: every encoder, 1 epoch on a 1,000-pair subsample of the standard pool, 1 seed
    (PARASENT_FULL=1: the documented full setting, 3 epochs x 5 seeds, about 1.5 h here)."""
    preset = "full" if os.environ.get("PARASENT_FULL") else "ci"
    out = tmp_path / "compare"
    code = main(
        ["compare", "--preset", preset, "--out", str(out), "--data-dir", str(shared_data_dir), "--quiet"]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "total time" in printed
    runs = read_runs(out)
    assert {r.variant for r in runs} == {v.key for v in all_variants()}
    scores = {r.variant: r.transfer["aggregates"]["transfer_mean_pearson"] for r in runs}
    assert (out / "table.md").read_text().startswith("| dataset | avg. glove50_4k.txt.gz | PP |")
    assert scores["pp"] > 33.71 - 1  # training never destroys the initial vectors' averaging
    assert (out / RUNS_FILE).is_file()


def test_runs_are_scored_on_extra_suites_without_retraining(mini_data_dir, tmp_path, monkeypatch):
    variants = [Variant("pp", "PP", "word_averaging")]
    base = TrainConfig.preset(
        vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16, protocol="ppdb", max_pairs=100
    )
    baseline, records = run_comparison(base, variants, [1], tmp_path / "c", data_dir=mini_data_dir, say=print)
    assert records[0].extra == {} and records[0].config["validation"] == "ppdb-dev"
    from parasent.training import run as run_module

    monkeypatch.setattr(run_module, "train", lambda *a, **k: pytest.fail("retrained a finished run"))
    baseline, again = run_comparison(
        base, variants, [1], tmp_path / "c", data_dir=mini_data_dir, say=print, extra_suites=("ppdb-test",)
    )
    report = again[0].extra["ppdb-test"]
    assert report["primary_metric"] == "ppdb-test_mean_spearman" and report["datasets"][0]["n"] > 0
    assert again[0].transfer == records[0].transfer  # the same run, scored again, not retrained
    assert baseline["extra"]["ppdb-test"]["datasets"][0]["n"] == report["datasets"][0]["n"]
    assert baseline["validation_suite"] == "ppdb-dev"
