#!/usr/bin/env bash
# The lever table of docs/default-model-levers.md: the distilled recipe with one change at a time, each
# trained, selected on STS 2016 (validation) and then scored on the 21-set transfer suite.
# Usage: scripts/default_levers.sh OUT_DIR [NAME ...]   (default: every lever below)
# The levers name the recipe's options as of their run: the recipe itself changed to the
# winner (vocab 200k, extended text, InfoNCE, bigrams), so "base" and the early levers pass the
# older values explicitly to be rerun as they were: see BASE.
# A finished lever (its transfer.json exists) is not run again; the table lists every lever
# of OUT_DIR in the order below. Teacher passes are cached (~/.cache/parasent), so a lever that
# keeps the teacher text costs a training run (~2 min on 2 cores).
set -euo pipefail
out=${1:?usage: scripts/default_levers.sh OUT_DIR [NAME ...]}
shift
# The recipe as it was when the table began (every lever is this plus its own options; later
# options replace earlier ones): 100,000 listed words, 40,000 sentences of the extended text,
# no InfoNCE, words only.
BASE="--distill-vocab 100000 --teacher-text corpus pool extended:40000 sts-train --teacher-contrastive 0
  --teacher-temperature 0.05 --word-bigrams 0 --unknown vector --piece-view 0 --typo-view 0 --piece-components 0"
WINNER="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000"
SHIPPED="$WINNER --unknown pieces --piece-components 4 --piece-view 0.25 --typo-view 0.15"  # the recipe now
declare -A LEVERS=(
  [base]=""
  [nce-0.1]="--teacher-contrastive 0.1"
  [nce-0.5]="--teacher-contrastive 0.5"
  [nce-1-t0.1]="--teacher-contrastive 1.0 --teacher-temperature 0.1"
  [components-1]="--remove-components 1"
  [text+extended]="--teacher-text corpus pool extended sts-train"
  [text+captions]="--teacher-text corpus pool extended:40000 sts-train captions"
  [epochs-6]="--epochs 6"
  [margin-0.5]="--margin-weight 0.5"
  [vocab-200k]="--distill-vocab 200000"
  [vocab-200k+extended]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train"
  [vocab-200k+extended+nce]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1"
  [vocab-200k+extended+captions]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train captions"
  [bigrams-100k]="--word-bigrams 100000"
  [v200k+ext+nce+bigrams-100k]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000"
  [v200k+ext+nce+bigrams-300k]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 300000"
  [v200k+ext+nce+bigrams-100k+epochs-5]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --epochs 5"
  [v200k+ext+nce+bigrams-100k+rel-1]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --teacher-relational 1"
  [v200k+ext+nce+bigrams-100k+rel-10]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --teacher-relational 10"
  [v200k+ext+nce+bigrams-100k+dropout-0.1]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --dropout 0.1"
  [v200k+ext+nce+bigrams-100k+lr-6e-4]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --lr 6e-4"
  [v200k+ext+nce+bigrams-100k+spans-100k]="--distill-vocab 200000 --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --teacher-text corpus pool extended sts-train spans:100000"
  [v200k+ext+nce+bigrams-100k+captions]="--distill-vocab 200000 --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --teacher-text corpus pool extended sts-train captions"
  [v200k+ext+nce+bigrams-100k+seed-2]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --seed 2"
  [v200k+ext+nce+bigrams-100k+batch-512]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --teacher-batch-size 512"
  [v200k+ext+nce+bigrams-100k+labelled-all]="--distill-vocab 200000 --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --teacher-text corpus pool extended sts-train labelled-all"
  [v200k+ext+nce+bigrams-100k+t0.05]="--distill-vocab 200000 --teacher-text corpus pool extended sts-train --teacher-contrastive 1.0 --teacher-temperature 0.1 --word-bigrams 100000 --teacher-temperature 0.05"
  [pieces]="$WINNER --unknown pieces"
  [pieces+view-0.25]="$WINNER --unknown pieces --piece-view 0.25"
  [pieces+view-0.5]="$WINNER --unknown pieces --piece-view 0.5"
  [pieces+typo-0.15]="$WINNER --unknown pieces --typo-view 0.15"
  [pieces+view-0.25+typo-0.15]="$WINNER --unknown pieces --piece-view 0.25 --typo-view 0.15"
  [pieces+abtt-4+view-0.25+typo-0.15]="$WINNER --unknown pieces --piece-components 4 --piece-view 0.25 --typo-view 0.15"
  [pieces+abtt-4+typo-0.15]="$WINNER --unknown pieces --piece-components 4 --typo-view 0.15"
  # the shipped recipe (the lever above it) under the stronger teacher; its pass alone is hours
  # on 2 cores: `parasent teacher-pass --recipe distilled --teacher all-mpnet-base-v2` first
  [teacher-mpnet]="$SHIPPED --teacher all-mpnet-base-v2"
  [trigrams-50k]="$SHIPPED --word-trigrams 50000"
  [trigrams-10k]="$SHIPPED --word-trigrams 10000"
)
ORDER=(base nce-0.1 nce-0.5 nce-1-t0.1 components-1 text+extended text+captions epochs-6 margin-0.5
  vocab-200k vocab-200k+extended vocab-200k+extended+nce vocab-200k+extended+captions
  bigrams-100k v200k+ext+nce+bigrams-100k v200k+ext+nce+bigrams-300k v200k+ext+nce+bigrams-100k+epochs-5
  v200k+ext+nce+bigrams-100k+rel-1 v200k+ext+nce+bigrams-100k+rel-10
  v200k+ext+nce+bigrams-100k+dropout-0.1 v200k+ext+nce+bigrams-100k+lr-6e-4
  v200k+ext+nce+bigrams-100k+spans-100k v200k+ext+nce+bigrams-100k+captions
  v200k+ext+nce+bigrams-100k+seed-2 v200k+ext+nce+bigrams-100k+batch-512 v200k+ext+nce+bigrams-100k+t0.05
  v200k+ext+nce+bigrams-100k+labelled-all pieces pieces+view-0.25 pieces+view-0.5 pieces+typo-0.15
  pieces+view-0.25+typo-0.15 pieces+abtt-4+view-0.25+typo-0.15 pieces+abtt-4+typo-0.15 teacher-mpnet trigrams-50k trigrams-10k)
names=("${@:-${ORDER[@]}}")
for name in "${names[@]}"; do
  [ -n "${LEVERS[$name]+set}" ] || { echo "unknown lever $name (known: ${ORDER[*]})" >&2; exit 2; }
  run="$out/$name"
  [ -f "$run/transfer.json" ] && continue
  start=$(date +%s)
  # shellcheck disable=SC2086  # the options are words
  python -m parasent train --recipe distilled --overwrite --out "$run" --quiet $BASE ${LEVERS[$name]}
  echo "$(( $(date +%s) - start ))" > "$run/seconds"
  python -m parasent evaluate --model "$run" --suite validation --overwrite --json "$run/validation.json" > /dev/null
  python -m parasent evaluate --model "$run" --suite transfer --overwrite --json "$run/transfer.json" > /dev/null
done
python - "$out" "${ORDER[@]}" <<'PY'
import json, sys
from pathlib import Path
out, order = Path(sys.argv[1]), sys.argv[2:]
score = lambda d: d["aggregates"][d["primary_metric"]]
print("| lever | STS 2016 (validation) | transfer (21 sets) | train s |")
print("|---|---|---|---|")
for name in order:
    run = out / name
    if (run / "transfer.json").is_file():
        val, tra = (json.loads((run / f"{s}.json").read_text()) for s in ("validation", "transfer"))
        print(f"| {name} | {score(val):.2f} | {score(tra):.2f} | {(run / 'seconds').read_text().strip()} |")
PY
