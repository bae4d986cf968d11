"""``parasent teacher-pass``: the teacher pass of a distilled run on one process and on two
(torchrun, gloo on loopback) writes the same sums and sentence targets."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from parasent.commands.teacher_pass import _without_ranks
from parasent.distillation.cache import CONTEXTUAL_FOLDER, _read_sums
from parasent.training.distributed import rank_device


def test_each_process_takes_the_gpu_of_its_local_rank():
    assert rank_device("cuda", 1) == "cuda:1"
    assert rank_device("cpu", 1) == "cpu"


def test_the_launched_command_leaves_out_ranks():
    assert _without_ranks(["teacher-pass", "--ranks", "2", "--quiet", "--ranks=3", "--seed", "2"]) == [
        "teacher-pass", "--quiet", "--seed", "2"
    ]  # fmt: skip


def test_no_teacher_is_one_line(mini_data_dir, capsys):
    from parasent.cli import main

    assert main(["teacher-pass", "--data-dir", str(mini_data_dir), "--recipe", "paper", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "the run has no teacher pass" in err and "--teacher-weight" in err  # every piece it needs, named


def run_pass(data_dir, teacher, cache, *extra):
    args = [
        "teacher-pass", "--data-dir", str(data_dir), "--recipe", "distilled", "--teacher", str(teacher),
        "--teacher-text", "corpus", "pool", "--distill-context", "--unknown", "pieces",
        "--distill-vocab", "20", "--cache-dir", str(cache), "--quiet", *extra,
    ]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "parasent", *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def stored(cache):
    from safetensors.numpy import load_file

    (path,) = Path(cache).glob(f"*/{CONTEXTUAL_FOLDER}/*.safetensors")
    shards = sorted(Path(cache).glob("*/*.safetensors"))
    keys = np.concatenate([load_file(str(s))["keys"] for s in shards])
    vectors = np.concatenate([load_file(str(s))["vectors"] for s in shards])
    order = np.lexsort(keys.T[::-1])
    return path.name, _read_sums(path), keys[order], vectors[order]


@pytest.mark.slow
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_two_processes_write_what_one_writes(text_data_dir, tiny_transformer_teacher_dir, tmp_path, device):
    if device == "cuda":
        pytest.importorskip("torch")
        import torch

        if not torch.cuda.is_available():
            pytest.skip("no GPU here (the cuda path of the device choice is tested above)")
    one = run_pass(text_data_dir, tiny_transformer_teacher_dir, tmp_path / "one", "--device", device)
    two = run_pass(
        text_data_dir, tiny_transformer_teacher_dir, tmp_path / "two", "--device", device, "--ranks", "2"
    )
    assert "on 1 process(es)" in one and "on 2 process(es)" in two
    name1, (sums1, done1, keys1), tkeys1, targets1 = stored(tmp_path / "one")
    name2, (sums2, done2, keys2), tkeys2, targets2 = stored(tmp_path / "two")
    assert name1 == name2 and done1 == done2 > 100
    np.testing.assert_array_equal(keys1, keys2)
    assert sums1.words == sums2.words and any(w.startswith("[p]") for w in sums1.words)
    np.testing.assert_array_equal(sums1.counts, sums2.counts)
    np.testing.assert_allclose(sums1.sums, sums2.sums, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(tkeys1, tkeys2)
    np.testing.assert_array_equal(targets1, targets2)  # each sentence's target, whichever process passed it
