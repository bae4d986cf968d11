"""Two CPU processes (gloo, loopback) against one: the same losses and weights, and a run
killed in one process resumes in all to the weights of an uninterrupted run."""

import json
import os
import random
import signal
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from parasent import load

pytestmark = pytest.mark.slow
TIMEOUT = 300
WORDS = "the a cat dog sat ran on under mat rug big small red blue house tree car road fast slow".split()

# In the killed process: SIGKILL itself right after optimizer step KILL_AT (a hard crash).
KILLER = """
import os, signal, sys
from parasent.training import trainer as module
original = module.Trainer.__init__
def init(self, *args, **kwargs):
    original(self, *args, **kwargs)
    if os.environ["RANK"] == "1":
        at = int(os.environ["KILL_AT"])
        self.on_step = lambda t: os.kill(os.getpid(), signal.SIGKILL) if t.state.step == at else None
module.Trainer.__init__ = init
from parasent.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory):
    rng = random.Random(0)
    lines = []
    for _ in range(430):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 8))]
        other = list(words)
        other[rng.randrange(len(other))] = rng.choice(WORDS)
        lines.append(f"{' '.join(words)}\t{' '.join(other)}")
    path = tmp_path_factory.mktemp("pairs") / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def train_args(pairs_file, out, batch_size, *extra):
    return [
        "train", "--pool", "none", "--pairs", str(pairs_file), "--vectors", "none", "--dim", "8",
        "--epochs", "2", "--batch-size", str(batch_size), "--validation", "none", "--log-every", "1",
        "--seed", "5", "--device", "cpu", "--lambda-w", "1e-3", "--out", str(out), "--quiet", *extra,
    ]  # fmt: skip


def environment(**extra):
    env = {**os.environ, "OMP_NUM_THREADS": "1", **extra}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")])
    return env


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn(args, code=None, **env):
    """Two processes of one run (what torchrun starts), on loopback."""
    port = str(free_port())
    launcher = ["-c", code] if code else ["-m", "parasent"]
    return [
        subprocess.Popen(
            [sys.executable, *launcher, *args],
            env=environment(
                RANK=str(rank),
                LOCAL_RANK=str(rank),
                WORLD_SIZE="2",
                MASTER_ADDR="127.0.0.1",
                MASTER_PORT=port,
                **env,
            ),  # fmt: skip
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in range(2)
    ]


def finish(processes):
    for process in processes:
        _, err = process.communicate(timeout=TIMEOUT)
        assert process.returncode == 0, err


def steps(run):
    records = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    return [(r["epoch"], r["step"], r["loss"]) for r in records if r["event"] == "step"]


def weights(run):
    return load(run / "model").weights["embedding.weight"]


def test_two_processes_with_cross_rank_negatives_equal_one_process(pairs_file, tmp_path):
    single = tmp_path / "single"
    subprocess.run(
        [sys.executable, "-m", "parasent", *train_args(pairs_file, single, 100)],
        env=environment(), check=True, timeout=TIMEOUT, capture_output=True,
    )  # fmt: skip
    pair = tmp_path / "pair"
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    done = subprocess.run(
        [*torchrun, "-m", "parasent", *train_args(pairs_file, pair, 50, "--negatives-across-ranks")],
        env=environment(), timeout=TIMEOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if line.strip()]
    assert said and len(said) == len(set(said)), done.stdout  # one voice: process 0's, no line twice
    expected, got = steps(single), steps(pair)
    assert [s[:2] for s in got] == [s[:2] for s in expected] and len(got) == 10
    assert np.allclose([s[2] for s in got], [s[2] for s in expected], rtol=1e-5, atol=1e-6)
    assert np.allclose(weights(pair), weights(single), atol=1e-5)
    # without cross-rank negatives each process's MAX sees only its half: a different run
    local = tmp_path / "local"
    finish(spawn(train_args(pairs_file, local, 50)))
    assert not np.allclose([s[2] for s in steps(local)], [s[2] for s in expected], rtol=1e-5, atol=1e-6)


def prepared_args(prepared, out, *extra):
    args = train_args("-", out, 50, "--prepared", str(prepared), "--negatives-across-ranks", *extra)
    at = args.index("--pairs")
    return args[:at] + args[at + 2 :]


def test_killed_process_resumes_in_every_process_to_the_uninterrupted_weights(pairs_file, tmp_path):
    """Each process reads its slices from prepared shards; process 1 dies after step 7."""
    prepared = tmp_path / "prepared"
    subprocess.run(
        [sys.executable, "-m", "parasent", "prepare", str(pairs_file), "-o", str(prepared), "--vectors", "none",
         "--shard-pairs", "120", "--quiet"],
        env=environment(), check=True, timeout=TIMEOUT, capture_output=True,
    )  # fmt: skip
    extra = ("--checkpoint-every", "3")
    full = tmp_path / "full"
    finish(spawn(prepared_args(prepared, full, *extra)))
    cut = tmp_path / "cut"
    processes = spawn(prepared_args(prepared, cut, *extra), code=KILLER, KILL_AT="7")
    processes[1].communicate(timeout=TIMEOUT)
    assert processes[1].returncode == -signal.SIGKILL
    processes[0].kill()  # what torchrun does to the others when one process dies
    processes[0].communicate(timeout=TIMEOUT)
    finish(spawn(prepared_args(prepared, cut, *extra, "--resume")))
    events = [json.loads(line)["event"] for line in (cut / "log.jsonl").read_text().splitlines()]
    assert "resume" in events
    resumed = [json.loads(line) for line in (cut / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in resumed if r["event"] == "resume"] == [6]
    assert np.array_equal(weights(cut), weights(full))


@pytest.mark.parametrize("finished", [True, False])
def test_leaving_waits_for_the_peers_only_after_a_finished_run(tmp_path, monkeypatch, finished):
    import torch.distributed as dist

    from parasent.training import distributed

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    waits = []
    real_barrier = dist.barrier
    monkeypatch.setattr(dist, "barrier", lambda *a, **k: waits.append(1) or real_barrier(*a, **k))
    distributed.leave(finished=finished)
    assert not dist.is_initialized()  # the group is gone either way
    assert waits == ([1] if finished else [])  # a failed peer would never reach a barrier
    distributed.leave()  # no group: nothing to do
