import os
import threading
import time

import pytest

from parasent.support.parallel_map import encode_threads, ordered_map, part_threads


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_results_keep_input_order_and_reading_stays_bounded(threads):
    consumed = []

    def items():
        for i in range(20):
            consumed.append(i)
            yield i

    results = ordered_map(lambda i: i * i, items(), threads)
    assert next(results) == 0
    assert len(consumed) <= max(2, threads) + 1  # read ahead by the threads at work, not the input
    assert list(results) == [i * i for i in range(1, 20)]


def test_calls_overlap_on_more_than_one_thread():
    names = set()
    barrier = threading.Barrier(2, timeout=10)

    def meet(item):
        names.add(threading.current_thread().name)
        barrier.wait()  # only returns once two calls run at once
        return item

    assert list(ordered_map(meet, range(4), 2)) == [0, 1, 2, 3]
    assert len(names) == 2


def test_one_item_runs_inline_and_errors_reach_the_caller():
    assert list(ordered_map(lambda _: threading.current_thread().name, ["x"], 4)) == [
        threading.current_thread().name
    ]

    def fail_on_two(item):
        if item == 2:
            raise ValueError("bad item 2")
        return item

    results = ordered_map(fail_on_two, range(5), 2)
    assert [next(results), next(results)] == [0, 1]
    with pytest.raises(ValueError, match="bad item 2"):
        next(results)
    assert list(ordered_map(str, [], 2)) == []


def test_thread_count_from_the_environment(monkeypatch):
    monkeypatch.delenv("PARASENT_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # OpenMP's pools, not this one
    cores = encode_threads()
    assert 1 <= cores <= 8
    monkeypatch.setenv("PARASENT_NUM_THREADS", "3")
    assert encode_threads() == 3
    monkeypatch.setenv("PARASENT_NUM_THREADS", "0")
    assert encode_threads() == 1
    monkeypatch.setenv("PARASENT_NUM_THREADS", "two")
    with pytest.raises(ValueError, match="PARASENT_NUM_THREADS='two': expected a whole number"):
        encode_threads()


def test_run_together_runs_tasks_at_once_and_raises_once_all_end():
    from parasent.support.parallel_map import run_together

    barrier = threading.Barrier(3, timeout=10)
    names = []

    def meet():
        names.append(threading.get_ident())
        barrier.wait()  # only returns once the three tasks run at once

    run_together([meet, meet, meet])
    assert threading.get_ident() in names and len(set(names)) == 3

    ended = []

    def fail():
        raise ValueError("bad part")

    def slow():
        time.sleep(0.05)
        ended.append(True)

    with pytest.raises(ValueError, match="bad part"):
        run_together([slow, fail, slow])
    assert ended == [True, True]  # the others had ended before the error reached the caller
    run_together([lambda: names.clear()])  # one task: inline
    assert names == []


def test_parts_take_every_thread_except_on_a_thread_of_a_map(monkeypatch):
    monkeypatch.setenv("PARASENT_NUM_THREADS", "3")
    assert part_threads() == 3
    assert list(ordered_map(lambda _: part_threads(), range(4), 3)) == [1, 1, 1, 1]
    assert list(ordered_map(lambda _: part_threads(), ["alone"], 3)) == [3]  # inline, on this thread
    assert part_threads() == 3


def _together_in_child() -> None:
    from parasent.support.parallel_map import run_together

    results = []
    run_together([lambda: results.append(1), lambda: results.append(2)])
    assert sorted(results) == [1, 2]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_runs_parts_on_helpers_of_its_own():
    import multiprocessing

    from parasent.support.parallel_map import run_together

    run_together([lambda: None, lambda: None])  # the parent's helper threads exist
    child = multiprocessing.get_context("fork").Process(target=_together_in_child)
    child.start()
    child.join(timeout=30)
    if child.exitcode is None:  # hung: waiting on threads of the parent
        child.kill()
    assert child.exitcode == 0  # neither hung on the parent's threads nor failed


def test_parts_run_here_once_the_interpreter_starts_no_threads(monkeypatch):
    from parasent.support import parallel_map

    class ShutDown:
        def submit(self, task):
            raise RuntimeError("cannot schedule new futures after shutdown")

    monkeypatch.setattr(parallel_map, "_helpers", lambda: ShutDown())
    ran = []
    parallel_map.run_together([lambda: ran.append(threading.get_ident())] * 3)
    assert ran == [threading.get_ident()] * 3


def test_parts_for_a_size_read_the_thread_setting_only_when_it_can_split(monkeypatch):
    from parasent.support.parallel_map import parts_for

    monkeypatch.setenv("PARASENT_NUM_THREADS", "two")  # a bad setting, read only past 2 x minimum
    assert parts_for(19, 10) == 1
    with pytest.raises(ValueError, match="PARASENT_NUM_THREADS='two'"):
        parts_for(20, 10)
    monkeypatch.setenv("PARASENT_NUM_THREADS", "4")
    assert [parts_for(size, 10) for size in (20, 35, 100)] == [2, 3, 4]
    assert parts_for(100, 10, threads=2) == 2 and parts_for(15, 10, threads=8) == 1
