"""What the benchmark scripts share: each case runs in a fresh process of its own script, so
that its peak memory is its own, and prints one JSON line of figures."""

from __future__ import annotations

import json
import resource
import subprocess
import sys


def peak_rss_mb() -> float:
    """Peak resident memory of this process, MB: VmHWM where Linux has it, since getrusage's
    ru_maxrss survives exec and so reports the launching process's peak when that was higher
    (every case would read the parent's 839 MB); else ru_maxrss (KiB on Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_case(script: str, argv: list[str]) -> dict:
    """Run ``script argv`` in a new interpreter; its last stdout line is the case's JSON."""
    out = subprocess.run([sys.executable, script, *argv], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"case {argv} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_table(rows: list[tuple[str, str, str]]) -> None:
    """``(case, throughput, peak RSS)`` rows, aligned."""
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'throughput':>20}  {'peak RSS':>10}")
    for name, rate, memory in rows:
        print(f"{name:<{width}}  {rate:>20}  {memory:>10}")
