#!/usr/bin/env bash
# Set up a fresh machine and run the main job on the shipped defaults: train the default
# model on the standard pool (best epoch on STS 2016), then print the transfer-suite table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
parasent train --out runs/default "$@"
parasent evaluate --model runs/default --suite transfer --json runs/default/transfer.json
