"""bench/bench_peers.py: a peer whose library lacks its extra stops with one line naming the extras."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_extra_is_one_line_naming_the_extras(tmp_path):
    # a model2vec whose distill cannot be imported, as model2vec 0.10 without skeletoken
    fake = tmp_path / "model2vec"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "distill.py").write_text("raise ImportError('skeletoken is required (stand-in)')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    script = ROOT / "bench" / "bench_peers.py"
    command = [sys.executable, str(script), "--case", "model2vec", "--out", str(tmp_path / "out")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "bench_peers: model2vec: skeletoken is required (stand-in) (pip install -e '.[peers]' "
        "for model2vec and tokenlearn, '.[bench]' for sentence-transformers)"
    ]
    assert not (tmp_path / "out").exists()
