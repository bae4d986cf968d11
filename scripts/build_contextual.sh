#!/usr/bin/env bash
# Build the general contextual model from scratch (it would ship in parasent/models/contextual, for
# parasent.load("contextual"); none does) and print its figures beside the default's: the `contextual` recipe
# (training/config.py: the shipped default's rows, frozen, composed by the contextual encoder,
# trained on the teacher's in-batch cosines and per-token moves of its words on 60,000 sentences
# of the distilled recipe's teacher text, the epoch chosen on STS 2016), evaluated on the
# transfer suite and STS 2016; it ships only at the tier's bar, STS 2016 >= SHIP_AT (79.0,
# docs/which-model.md): its lead over the default (STS 2016 +0.65, transfer +0.23, MTEB's STS
# +0.39 on 2026-11-29) is short of the bars and would not repay about 13x the default's
# encoding time.
# The teacher's passes are over 60,000 of the distilled recipe's sentences (cached under
# ~/.cache/parasent, resumable; the first time: the sentence embeddings, in proportion to the
# distilled recipe's 314,727 sentences, whose whole pass took about 16 min on 2 shared cores,
# some 3 min, and the word states about 8 min; nothing after). docs/which-model.md.
#   bash scripts/build_contextual.sh [extra parasent train arguments]
# OUT (default runs/contextual): the run directory; a finished run is evaluated, not retrained.
# SHIP_AT (default 79.0): the STS 2016 figure from which the model ships.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PARASENT_NO_SETUP:-}" ]; then  # PARASENT_NO_SETUP=1: use the active environment
  bash scripts/setup.sh
  . .venv/bin/activate
fi
OUT="${OUT:-runs/contextual}"
SHIPPED=parasent/models/contextual
START=$(date +%s)
if [ ! -f "$OUT/model/config.json" ]; then
  if [ -f "$OUT/checkpoint.safetensors" ]; then RESUME=(--resume); else RESUME=(--overwrite); fi
  parasent train --recipe contextual --out "$OUT" "${RESUME[@]}" "$@"
fi
echo "trained: $OUT ($(( $(date +%s) - START )) s)"
for suite in transfer validation; do
  parasent evaluate --model "$OUT" --suite "$suite" --overwrite --json "$OUT/$suite.json" >/dev/null
done
python - "$OUT" "$SHIPPED" "$(git rev-parse HEAD 2>/dev/null || echo unknown)" "${SHIP_AT:-79.0}" <<'PY'
import json, sys
from pathlib import Path
from parasent.core.model import load
run, shipped, commit, ship_at = *sys.argv[1:4], float(sys.argv[4])
model = load(run)
model.metadata["languages"] = ["en"]
model.metadata["build"] = {"command": "bash scripts/build_contextual.sh", "commit": commit}
for suite in ("transfer", "validation"):
    report = json.loads(Path(f"{run}/{suite}.json").read_text())
    model.metadata[suite] = {d["name"]: round(d["pearson"] / 100, 6) for d in report["datasets"]}
    model.metadata[f"{suite}_mean_pearson"] = round(report["aggregates"][report["primary_metric"]], 4)
default = load("default").metadata
print(f"{'model':<24}{'transfer mean':>15}{'STS 2016':>10}")
for name, meta in (("default", default), ("contextual", model.metadata)):
    print(f"{name:<24}{meta['transfer_mean_pearson']:>15.2f}{meta['validation_mean_pearson']:>10.2f}")
figure = model.metadata["validation_mean_pearson"]
if figure < ship_at:  # STS 2016, never the transfer suite, decides (the rule the default's candidates follow)
    print(f"STS 2016 {figure:.2f} is under the tier's bar of {ship_at:g}: nothing shipped ({shipped} left as "
          f"it is); the model loads by its path, parasent.load({run!r})")
    sys.exit(1)
model.save(shipped, overwrite=True)
size = sum(p.stat().st_size for p in Path(shipped).iterdir() if p.is_file()) / 1e6
print(f"shipped: {shipped} ({size:.1f} MB)")
PY
