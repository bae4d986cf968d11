#!/usr/bin/env bash
# How the per-encoder settings of parasent/experiments/variants.py were chosen: a small grid per
# encoder with `parasent search`, STS 2016 validation only, on a reduced budget (1 epoch of the
# standard pool, seed 1; the comparison itself trains 3 epochs x 5 seeds). Optimizers run at their
# default learning rates (AdaGrad 0.05, Adam 0.001). Results: OUT/<variant>/trials.jsonl, best.json.
#   bash scripts/search_variants.sh [OUT] [variant ...]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-runs/search}
shift || true
VARIANTS=${*:-"pp proj dan rnn irnn lstm_no_og lstm_og cse charagram char_cnn char_lstm"}
search() {  # variant, then parasent search arguments
  local name=$1
  shift
  python -m parasent.cli search --out "$OUT/$name" --epochs 1 --seed 1 --quiet --grid optimizer=adagrad,adam "$@"
}
for v in $VARIANTS; do
  case $v in
    pp) search pp ;;
    proj) search proj --encoder projection --grid lambda_c=1e-4,1e-6 ;;
    dan) search dan --encoder dan --lambda-c 1e-6 --grid encoder_options.layers=1,2 --grid encoder_options.activation=tanh,relu ;;
    rnn) search rnn --encoder rnn --lambda-c 1e-6 --grid encoder_options.activation=tanh,relu ;;
    irnn) search irnn --encoder identity_rnn --grid lambda_c=1000,100,10,1 ;;
    lstm_no_og) search lstm_no_og --encoder lstm --encoder-option output_gate=false --grid lambda_c=1e-4,1e-6 ;;
    lstm_og) search lstm_og --encoder lstm --encoder-option output_gate=true --grid lambda_c=1e-4,1e-6 ;;
    cse) search cse --encoder cse --lambda-c 1e-6 --grid encoder_options.activation=linear,tanh ;;
    charagram) search charagram --encoder charagram --grid lambda_c=1e-4,1e-6 --grid encoder_options.activation=tanh,linear ;;
    char_cnn) search char_cnn --encoder char_cnn --lambda-c 1e-6 --lambda-w 1e-6 --grid encoder_options.filter_activation=relu,tanh ;;
    char_lstm) search char_lstm --encoder char_lstm --lambda-c 1e-6 --lambda-w 1e-6 --grid encoder_options.output_gate=true,false ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
done
