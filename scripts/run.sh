#!/usr/bin/env bash
# Set up a fresh machine, then the main job (under 10 minutes on 2 cores): the default model
# shipped inside the package on the transfer suite, then PARAGRAM-PHRASE trained with the
# paper's recipe (GloVe-4k, standard pool, 50 epochs, best epoch on STS 2016) and evaluated.
# Rebuilding the default model from scratch (teacher pass) is scripts/build_default.sh.
# Extra arguments go to the PARAGRAM-PHRASE `parasent train`.
set -euo pipefail
cd "$(dirname "$0")/.."
PARASENT_EXTRAS="${PARASENT_EXTRAS:-train}" bash scripts/setup.sh
. .venv/bin/activate
# One thread: the models are small, and on a shared machine an extra OpenMP thread spins
# against the other jobs (PARAGRAM-PHRASE: 6,900 pairs/s with one thread vs 430 with two at a
# load average of 12 on 2 cores).
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
mkdir -p runs
echo "== the shipped default model (parasent.load()) on the transfer suite"
parasent evaluate --model default --suite transfer --overwrite --json runs/default-transfer.json
echo "== PARAGRAM-PHRASE, the paper's recipe"
parasent train --recipe paper --overwrite --out runs/pp --quiet "$@"
parasent evaluate --model runs/pp --suite transfer --overwrite --json runs/pp/transfer.json
