#!/usr/bin/env bash
# Create .venv (if needed) with the CPU build of PyTorch and parasent installed in editable mode.
# PARASENT_EXTRAS picks the extras (default test,distill,serve,ann,mteb,ray: what the tests need; scripts/run.sh
# needs only train).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${PARASENT_EXTRAS:-test,distill,serve,ann,mteb,ray}"
MARKER=".venv/.parasent-installed-${EXTRAS//,/-}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
if ! python -c "import torch, parasent" >/dev/null 2>&1 || [ ! -e "$MARKER" ] || [ pyproject.toml -nt "$MARKER" ]; then
  pip install -q --upgrade pip
  pip install -q torch==2.13.0          # first, pinned: the local CPU build (a looser spec pulls CUDA)
  pip install -q -e ".[$EXTRAS]"
  touch "$MARKER"
fi
# Chromium for the /docs browser test (tests/serve/test_docs_browser.py, skipped without it): Debian's
# package, installed when missing, for a test set-up (the test extra) that runs as root with apt-get;
# otherwise the test is skipped. scripts/run.sh's set-up installs no system package.
if [[ ",$EXTRAS," == *",test,"* ]] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
  && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
    || echo "setup: chromium could not be installed; the /docs browser test will be skipped" >&2
fi
