#!/usr/bin/env bash
# CI's second job: the core install alone, as the README installs it. A fresh venv builds the
# sdist and wheel with `python -m build` and installs the wheel (no extras: numpy, tokenizers,
# safetensors, tqdm) and pytest; it checks that torch and scipy are absent and that the installed
# version is parasent.__version__, runs `parasent similarity` and `parasent.load()` on the shipped
# default model from outside the checkout, then the tests marked `core` against the installed package.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
VENV="${CORE_VENV:-$REPO/.venv-core}"
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip build
OUTSIDE=$(mktemp -d)
trap 'rm -rf "$OUTSIDE"' EXIT
"$VENV/bin/python" -m build --outdir "$OUTSIDE/dist" . >/dev/null  # the README's command: sdist, then the wheel from it
WHEELS=("$OUTSIDE"/dist/parasent-*-py3-none-any.whl)
"$VENV/bin/pip" install -q "${WHEELS[0]}" "pytest>=7"
rm -rf build  # setuptools' build folder
cd "$OUTSIDE"  # nothing of the checkout on sys.path: the installed package answers
"$VENV/bin/python" - <<'PY'
import importlib.util
import sys

present = [m for m in ("torch", "scipy") if importlib.util.find_spec(m) is not None]
if present:
    sys.exit(f"the core install pulled {', '.join(present)}")
import importlib.metadata

import parasent

if importlib.metadata.version("parasent") != parasent.__version__:
    sys.exit(f"the wheel says {importlib.metadata.version('parasent')}, the package {parasent.__version__}")
print("parasent", parasent.__version__, "from", parasent.__file__)
print("load().similarity:", parasent.load().similarity("A man plays a guitar.", "Someone plays the guitar."))
PY
"$VENV/bin/parasent" similarity "A man plays a guitar." "Someone plays the guitar."
cd "$REPO"
mapfile -t CORE_TESTS < <(grep -rl "pytest.mark.core" tests --include="test_*.py" | sort)
# a test tool of the core suite's property tests, installed after the no-torch check above
"$VENV/bin/pip" install -q "hypothesis>=6"
# pytest's own script (not python -m) keeps the checkout off sys.path; tests import the install
"$VENV/bin/pytest" -q -p no:cacheprovider -m core "${CORE_TESTS[@]}"
