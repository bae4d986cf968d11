"""How many threads torch computes with: the one choice every command that runs torch makes
(``train``, ``head train``, ``tune``, ``sts-system``, ``distill``, ``teacher-pass``) and the
teacher's encoding.

torch's own default is the machine's physical cores, which neither a CPU affinity (``taskset``,
a container's cpuset) nor other work on a shared machine changes. An OpenMP thread without a core
of its own spins against the others: on a loaded 2-core machine ``head train`` took 121.7 s with
torch's default and 24.5 s with one thread. So the choice is the cores this process may run on
(``os.sched_getaffinity``) that other runnable work leaves idle right now, at least one;
``--threads N`` overrides it, and so does ``OMP_NUM_THREADS`` where set (scripts/run.sh sets 1).
"""

from __future__ import annotations

import os
import time

OMP_ENV = "OMP_NUM_THREADS"


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity; all of them where it is unknown)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def other_runnable(samples: int = 5, path: str = "/proc/loadavg") -> int:
    """Runnable tasks besides the caller (median of ``samples`` readings 20 ms apart); the
    1-minute load average where ``/proc/loadavg`` is missing. Not the load average itself,
    which remembers this process's own last minute."""
    counts = []
    for _ in range(samples):
        try:
            with open(path, encoding="ascii") as handle:
                counts.append(int(handle.read().split()[3].split("/")[0]) - 1)
        except (OSError, ValueError, IndexError):
            return round(os.getloadavg()[0])
        time.sleep(0.02)
    return max(0, sorted(counts)[len(counts) // 2])


def idle_cores() -> int:
    """The cores this process may use that other work leaves idle now (at least one)."""
    cores = available_cores()
    return max(1, min(cores, cores - other_runnable()))


def torch_threads(requested: int | None = None) -> int:
    """torch's thread count: ``requested`` (``--threads N``) when given, else ``OMP_NUM_THREADS``
    when set to a whole number, else :func:`idle_cores`."""
    if requested is not None:
        if requested < 1:
            raise ValueError(f"--threads must be at least 1, got {requested}")
        return requested
    value = os.environ.get(OMP_ENV, "").strip()
    if value.isdigit() and int(value) >= 1:
        return int(value)
    return idle_cores()
