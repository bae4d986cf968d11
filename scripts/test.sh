#!/usr/bin/env bash
# Lint and run the test suite, then the core-install job (CI runs exactly this). Extra
# arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
ruff check .
ruff format --check .
python -m pytest -q "$@"
bash scripts/test_core.sh  # second job: a fresh venv with the core install only
