#!/usr/bin/env bash
# Kenter et al. (2016), Table 1 on the shared data: Siamese CBOW and the word2vec skip-gram and
# CBOW baselines, all trained on the standard corpus (corpus/: books, movie reviews, speeches),
# compared on the 21-set transfer suite with the Wilcoxon test against word2vec CBOW. A fourth
# column is word2vec CBOW with the best of a small grid on STS 2016 (sample 1e-3, 20 epochs), as
# Siamese CBOW's rate and epochs were chosen on STS 2016.
# Extra arguments go to the Siamese CBOW `parasent train` (e.g. --epochs 2 for a quick run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
OUT="${OUT:-runs/siamese-cbow}"
parasent train --objective siamese-cbow --overwrite --out "$OUT/siamese-cbow" --quiet "$@"
parasent word2vec --overwrite --arch skipgram --out "$OUT/w2v-skipgram" --quiet
parasent word2vec --overwrite --arch cbow --out "$OUT/w2v-cbow" --quiet
parasent word2vec --overwrite --arch cbow --sample 1e-3 --epochs 20 --out "$OUT/w2v-cbow-tuned" --quiet
parasent compare-models "w2v skipgram=$OUT/w2v-skipgram" "w2v CBOW=$OUT/w2v-cbow" "Siamese CBOW=$OUT/siamese-cbow" \
  "w2v CBOW tuned=$OUT/w2v-cbow-tuned" --reference "w2v CBOW" --suite transfer --markdown --overwrite --json "$OUT/table1.json"
