from parasent.experiments.compare import RunRecord
from parasent.experiments.table3 import PAPER_TABLE3, ppdb_table
from parasent.experiments.variants import select_variants


def _report(suite: str, value: float, metric: str = "spearman") -> dict:
    return {"primary_metric": f"{suite}_mean_{metric}", "aggregates": {f"{suite}_mean_{metric}": value}}


def _record(variant: str, seed: int, dev: float, test: float, transfer: float, epoch: int) -> RunRecord:
    return RunRecord(
        variant,
        seed,
        dev,
        epoch,
        1.0,
        1.0,
        {"aggregates": {"transfer_mean_pearson": transfer}},
        {},
        {"ppdb-dev": _report("ppdb-dev", dev), "ppdb-test": _report("ppdb-test", test)},
    )


def test_table3_rows_columns_and_spread():
    variants = select_variants(["pp", "lstm_og"])
    baseline = {
        "vectors": "wordvecs/glove50_4k.txt.gz",
        "transfer": {"aggregates": {"transfer_mean_pearson": 33.7}},
        "extra": {"ppdb-dev": _report("ppdb-dev", 30.3), "ppdb-test": _report("ppdb-test", 29.1)},
    }
    ppdb_arm = [
        _record("pp", 1, 40.0, 39.0, 45.0, 3),
        _record("pp", 2, 42.0, 41.0, 47.0, 3),
        _record("lstm_og", 1, 38.0, 37.5, 18.0, 2),
    ]
    sts_arm = [_record("pp", 1, 39.0, 38.0, 46.0, 3), _record("lstm_og", 1, 30.0, 31.0, 20.0, 1)]
    table = ppdb_table(
        variants, {"ppdb-selection": (baseline, ppdb_arm), "sts-selection": (baseline, sts_arm)}
    )
    lines = table.splitlines()
    assert lines[0].startswith("| model | PPDB dev (oracle), PPDB sel. | PPDB test, PPDB sel.")
    assert lines[2] == "| avg. glove50_4k.txt.gz | 30.3 | 29.1 | 29.1 | 33.7 | 33.7 |  | 44.8 | 44.8 |"
    # PP: medians over its two seeds in the PPDB arm; the paper's figures alongside
    assert lines[3] == f"| PP | 41.0 | 40.0 | 38.0 | 46.0 | 46.0 | 3 / 3 | {PAPER_TABLE3['pp'][0]} | 60.0 |"
    assert lines[4] == "| LSTM (o.g.) | 38.0 | 37.5 | 31.0 | 20.0 | 18.0 | 1 / 2 | 61.5 | 60.9 |"
    # spread over the trained encoders: 3.0 on PPDB dev, 28.0 on transfer under PPDB selection
    assert (
        lines[5] == "| **spread over encoders (max - min)** | 3.0 | 2.5 | 7.0 | 26.0 | 28.0 |  | 1.2 | 0.9 |"
    )


def test_table3_without_runs_leaves_cells_empty():
    table = ppdb_table(select_variants(["dan"]), {"ppdb-selection": (None, []), "sts-selection": (None, [])})
    assert "| DAN |  |  |  |  |  |  / " in table and "spread" in table
