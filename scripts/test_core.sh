#!/usr/bin/env bash
# CI's second job: the core install alone. A fresh venv gets `pip install .` (no extras: numpy,
# tokenizers, safetensors, tqdm) and pytest; it checks that torch and scipy are absent, runs
# `parasent similarity` and `parasent.load()` on the shipped default model from outside the
# checkout, then the tests marked `core` against the installed package.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
VENV="${CORE_VENV:-$REPO/.venv-core}"
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
"$VENV/bin/pip" install -q . "pytest>=7"
rm -rf build  # setuptools' build folder of the non-editable install
OUTSIDE=$(mktemp -d)
trap 'rm -rf "$OUTSIDE"' EXIT
cd "$OUTSIDE"  # nothing of the checkout on sys.path: the installed package answers
"$VENV/bin/python" - <<'PY'
import importlib.util
import sys

present = [m for m in ("torch", "scipy") if importlib.util.find_spec(m) is not None]
if present:
    sys.exit(f"the core install pulled {', '.join(present)}")
import parasent

print("parasent", parasent.__version__, "from", parasent.__file__)
print("load().similarity:", parasent.load().similarity("A man plays a guitar.", "Someone plays the guitar."))
PY
"$VENV/bin/parasent" similarity "A man plays a guitar." "Someone plays the guitar."
cd "$REPO"
mapfile -t CORE_TESTS < <(grep -rl "pytest.mark.core" tests --include="test_*.py" | sort)
# pytest's own script (not python -m) keeps the checkout off sys.path; tests import the install
"$VENV/bin/pytest" -q -p no:cacheprovider -m core "${CORE_TESTS[@]}"
