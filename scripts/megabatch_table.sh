#!/usr/bin/env bash
# The mega-batch table of docs/training-at-scale.md: the paper recipe on the standard pool with
# MAX negatives from mega-batches of M mini-batches, STS 2016 (validation, model selection) and
# the 21-set transfer suite. Usage: scripts/megabatch_table.sh OUT_DIR [EPOCHS] [M...]
set -euo pipefail
out=${1:?usage: scripts/megabatch_table.sh OUT_DIR [EPOCHS] [M...]}
epochs=${2:-10}
shift $(( $# > 1 ? 2 : 1 ))
sizes=("${@:-1 5 20 40}")
for m in ${sizes[@]}; do
  run="$out/megabatch-$m"
  [ -f "$run/transfer.json" ] && continue
  python -m parasent train --recipe paper --overwrite --megabatch "$m" --epochs "$epochs" --out "$run" --quiet
  python -m parasent evaluate --model "$run" --suite validation --overwrite --json "$run/validation.json" > /dev/null
  python -m parasent evaluate --model "$run" --suite transfer --overwrite --json "$run/transfer.json" > /dev/null
done
python - "$out" ${sizes[@]} <<'PY'
import json, sys
out, sizes = sys.argv[1], sys.argv[2:]
print("| M | STS 2016 (validation) | transfer (21 sets) | seconds/epoch |")
print("|---|---|---|---|")
for m in sizes:
    run = f"{out}/megabatch-{m}"
    val, tra = (json.load(open(f"{run}/{s}.json")) for s in ("validation", "transfer"))
    epochs = [json.loads(l) for l in open(f"{run}/log.jsonl") if '"event": "epoch"' in l]
    secs = sum(e["seconds"] for e in epochs) / len(epochs)
    score = lambda d: d["aggregates"][d["primary_metric"]]
    print(f"| {m} | {score(val):.2f} | {score(tra):.2f} | {secs:.0f} |")
PY
