import json

import pytest

from parasent.errors import DataFormatError, ParasentError, TrainingInterrupted
from parasent.support.sweep import RUN_CONFIG, RUNS_FILE, Sweep, same_run


def counting_work(calls, result=None):
    def work(directory):
        calls.append(directory.name)
        (directory / "model.txt").write_text("trained")
        return result or {"score": len(calls)}

    return work


def test_a_finished_run_is_reused_only_with_the_same_settings(tmp_path):
    calls, said = [], []
    sweep = Sweep(tmp_path, say=said.append)
    first = sweep.run("a/seed-1", {"lr": 0.05, "device": "cpu"}, counting_work(calls))
    assert first.result == {"score": 1} and (tmp_path / "a" / "seed-1" / RUN_CONFIG).is_file()
    # a new Sweep reads the log: same settings (up to run-only options) -> reused, nothing runs
    again = Sweep(tmp_path).run("a/seed-1", {"lr": 0.05, "device": "cuda"}, counting_work(calls))
    assert again.result == {"score": 1} and calls == ["seed-1"]
    # other settings -> run again, the old directory kept aside
    changed = Sweep(tmp_path, say=said.append).run("a/seed-1", {"lr": 0.5}, counting_work(calls))
    assert changed.result == {"score": 2} and (tmp_path / "a" / "seed-1.stale" / "model.txt").is_file()
    assert any("settings of a/seed-1 changed" in line for line in said)
    lines = [json.loads(line) for line in (tmp_path / RUNS_FILE).read_text().splitlines()]
    assert [line["config"]["lr"] for line in lines] == [0.05, 0.5]  # the later line stands
    assert Sweep(tmp_path).runs["a/seed-1"].config == {"lr": 0.5}


def test_failures_are_logged_and_interruptions_are_not(tmp_path):
    sweep = Sweep(tmp_path, log="trials.jsonl")

    def diverge(_):
        raise ParasentError("loss became inf")

    failed = sweep.run("t0", {"lr": 1e9}, diverge, failures=(ParasentError,))
    assert not failed.ok and failed.error == "loss became inf" and failed.result is None
    assert Sweep(tmp_path, log="trials.jsonl").finished("t0", {"lr": 1e9}).error == "loss became inf"

    def interrupted(_):
        raise TrainingInterrupted("stopped at step 3")

    with pytest.raises(TrainingInterrupted):
        sweep.run("t1", {"lr": 0.1}, interrupted, failures=(ParasentError,))
    assert "t1" not in Sweep(tmp_path, log="trials.jsonl").runs
    # the run cut short is handed to work again (which resumes it), in the same directory
    calls = []
    assert sweep.run("t1", {"lr": 0.1}, counting_work(calls)).ok and calls == ["t1"]
    assert not (tmp_path / "t1.stale").exists()


def test_a_started_run_with_other_settings_is_set_aside(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / RUN_CONFIG).write_text(json.dumps({"delta": 0.4}))
    Sweep(tmp_path).run("r", {"delta": 0.8}, counting_work([]))
    assert json.loads((tmp_path / "r.stale" / RUN_CONFIG).read_text()) == {"delta": 0.4}


def test_same_run_ignores_run_only_options_at_any_depth():
    assert same_run({"data": {"pool": "x"}, "device": "cpu"}, {"data": {"pool": "x"}, "device": "cuda"})
    assert same_run({"run": {"log_every": 10}}, {"run": {"log_every": 50}})
    assert not same_run({"data": {"pool": "x"}}, {"data": {"pool": "y"}})
    assert same_run({"sizes": (1, 2)}, {"sizes": [1, 2]})  # as it reads back from JSON


def test_an_option_added_later_at_none_matches_a_log_written_before_it():
    assert same_run({"optimizer": {"epochs": 3}}, {"optimizer": {"epochs": 3, "patience": None}})
    assert not same_run({"optimizer": {"epochs": 3}}, {"optimizer": {"epochs": 3, "patience": 5}})


def test_a_log_in_another_layout_is_a_one_line_error(tmp_path):
    (tmp_path / RUNS_FILE).write_text(
        '{"key": "a", "config": {}, "result": {}, "seconds": 1.0}\n{"variant": "pp"}\n'
    )
    with pytest.raises(DataFormatError, match=r"runs.jsonl:2: not a run-log line"):
        Sweep(tmp_path)
