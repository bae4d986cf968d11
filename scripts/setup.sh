#!/usr/bin/env bash
# Create .venv (if needed) with the CPU build of PyTorch and parasent installed in editable mode.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
if ! python -c "import torch, parasent" >/dev/null 2>&1 || [ pyproject.toml -nt .venv/.parasent-installed ]; then
  pip install -q --upgrade pip
  pip install -q torch==2.13.0          # first, pinned: the local CPU build (a looser spec pulls CUDA)
  # distill: the teacher of the default model; serve, ann, mteb: the service, search graphs, MTEB adapter
  pip install -q -e ".[test,distill,serve,ann,mteb]"
  touch .venv/.parasent-installed
fi
