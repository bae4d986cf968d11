"""torch's thread count in the commands that run torch: --threads, else OMP_NUM_THREADS, else
the cores this process may use that other work leaves idle (support/cpu_threads.py)."""

from __future__ import annotations

import pytest

from parasent.support import cpu_threads
from parasent.support.cpu_threads import OMP_ENV, torch_threads


def test_the_choice_is_the_allowed_cores_other_work_leaves_idle(monkeypatch):
    monkeypatch.delenv(OMP_ENV, raising=False)
    monkeypatch.setattr(cpu_threads.os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(cpu_threads, "other_runnable", lambda: 0)
    assert torch_threads() == 4  # not the machine's cores: the ones this process may run on
    monkeypatch.setattr(cpu_threads, "other_runnable", lambda: 3)
    assert torch_threads() == 1
    monkeypatch.setattr(cpu_threads, "other_runnable", lambda: 100)
    assert torch_threads() == 1  # at least one
    monkeypatch.setenv(OMP_ENV, "2")
    assert torch_threads() == 2  # an explicit setting wins (scripts/run.sh)
    assert torch_threads(6) == 6  # and --threads over it
    with pytest.raises(ValueError, match="--threads must be at least 1"):
        torch_threads(0)


def test_other_runnable_tasks_are_read_now_not_from_the_load_average(tmp_path, monkeypatch):
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("9.00 9.00 9.00 3/120 4567\n")  # a high load average, three runnable now
    assert cpu_threads.other_runnable(samples=3, path=str(loadavg)) == 2  # without the reader
    loadavg.write_text("9.00 9.00 9.00 1/120 4567\n")
    assert cpu_threads.other_runnable(samples=3, path=str(loadavg)) == 0  # the old load does not count


@pytest.mark.parametrize("text", [None, "", "1.0 2.0", "1.0 2.0 3.0 x/9 1"])
def test_a_missing_or_unreadable_loadavg_falls_back_to_the_load_average(tmp_path, monkeypatch, text):
    loadavg = tmp_path / "loadavg"
    if text is not None:
        loadavg.write_text(text)
    monkeypatch.setattr(cpu_threads.os, "getloadavg", lambda: (3.4, 2.0, 1.0))
    assert cpu_threads.other_runnable(samples=2, path=str(loadavg)) == 3
