#!/usr/bin/env bash
# Rebuild the default model shipped in parasent/models/default from scratch, and print the
# figures: the distilled recipe (teacher pass of ~217,000 sentences, ~40 min on 2 cores the
# first time, cached under ~/.cache/parasent after), then its compact copy (pruned vocabulary,
# int8 rows), both evaluated on the transfer suite and STS 2016. docs/default-model.md.
#   bash scripts/build_default.sh [extra parasent train arguments]
# FULL (default runs/default-full): the full-precision run; VOCAB, DIM, DTYPE: the compaction.
# RECIPE=sif-pieces builds the stand-in instead (SIF-weighted input embeddings of the teacher's
# word pieces, no teacher pass, a minute; parasent/distillation/pieces.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
FULL="${FULL:-runs/default-full}"
SHIPPED=parasent/models/default
RECIPE="${RECIPE:-distilled}"
VOCAB="${VOCAB-60000}"
DTYPE="${DTYPE:-int8}"
DATA="${PARASENT_DATA:-$(python -c 'from parasent.paths import resolve_data_dir; print(resolve_data_dir())')}"
START=$(date +%s)
if [ "$RECIPE" = sif-pieces ]; then
  VOCAB=""  # a pretrained tokenizer's pieces are not pruned
  python - "$FULL/model" "$DATA" <<'PY'
import sys
from parasent.data.corpus import read_corpus
from parasent.distillation.pieces import sif_piece_model
from parasent.distillation.teacher import resolve_teacher_path
documents, _ = read_corpus(sys.argv[2], "standard")
texts = (s for d in documents for s in d.sentences)
model = sif_piece_model(resolve_teacher_path("auto"), texts, sif_a=1e-3)  # a chosen on STS 2016
model.metadata["piece_counts"] = "corpus/ (standard running text)"
model.save(sys.argv[1])
PY
else
  [ -f "$FULL/model/config.json" ] || parasent train --recipe distilled --out "$FULL" "$@"
fi
echo "full-precision model: $FULL ($(( $(date +%s) - START )) s)"
parasent compact --model "$FULL" --out "$SHIPPED" ${VOCAB:+--vocab "$VOCAB"} ${DIM:+--dim "$DIM"} --dtype "$DTYPE" \
  --record "recipe=$RECIPE" --record "data=$(basename "$DATA") (standard pool, teacher text of the recipe)" \
  --record "commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)" --record "built=$(date -u +%FT%TZ)" \
  --record "command=scripts/build_default.sh $*"
for model in "$FULL" "$SHIPPED"; do
  for suite in transfer validation; do
    parasent evaluate --model "$model" --suite "$suite" --json "runs/$(basename "$model")-$suite.json" >/dev/null
  done
done
python - "$FULL" "$SHIPPED" <<'PY'
import json, sys
from pathlib import Path
print(f"{'model':<32}{'transfer mean':>15}{'STS 2016':>10}{'size on disk':>14}")
for path in sys.argv[1:]:
    name = Path(path).name
    transfer, sts16 = (
        (lambda r: r["aggregates"][r["primary_metric"]])(json.loads(Path(f"runs/{name}-{suite}.json").read_text()))
        for suite in ("transfer", "validation")
    )
    folder = Path(path) / "model" if (Path(path) / "model").is_dir() else Path(path)
    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) / 1e6
    print(f"{path:<32}{transfer:>15.2f}{sts16:>10.2f}{size:>11.1f} MB")
PY
