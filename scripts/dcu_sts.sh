#!/usr/bin/env bash
# Hokamp & Arora (2016) on the shared data: the raw PARAGRAM-PHRASE model (trained with the
# paper recipe if runs/pp does not exist), fine-tuned on the STS 2012 training pairs
# with gold >= 3.8, with synthetic paraphrases of the STS 2016 sentences (TRANSDUCTIVE), and the
# gradient-boosting ensembles; prints the STS 2016 table and the threshold sweep 3-4.5.
# Extra arguments go to `parasent sts-system`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
RAW="${RAW:-runs/pp}"
[ -f "$RAW/model/config.json" ] || parasent train --recipe paper --overwrite --out "$RAW" --quiet
parasent sts-system --model "$RAW" --out "${OUT:-runs/dcu}" --sweep 3:4.5:0.1 --markdown --quiet "$@"
