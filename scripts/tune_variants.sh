#!/usr/bin/env bash
# How the variants' settings (each encoder's entry in parasent/encoders/__init__.py) were chosen: a small grid per
# encoder with `parasent tune`, STS 2016 validation only, on a reduced budget (1 epoch of the
# standard pool, seed 1; the comparison itself trains 3 epochs x 5 seeds). Optimizers run at their
# default learning rates (AdaGrad 0.05, Adam 0.001), except for the recurrent models, whose grid
# takes the paper's learning rates {0.05, 0.005, 0.0005} with both optimizers (AdaGrad at 0.05
# collapses them). charCNN and charLSTM (the costliest) were searched on 5,000- and 10,000-pair
# subsamples.
# Results: OUT/<variant>/trials.jsonl and best.json.
#   bash scripts/tune_variants.sh [OUT] [variant ...]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-runs/tune}
shift || true
VARIANTS=${*:-"pp proj dan rnn irnn lstm_no_og lstm_og cse charagram char_cnn char_lstm"}
tune() {  # variant, then parasent tune arguments
  local name=$1
  shift
  python -m parasent.cli tune --out "$OUT/$name" --epochs 1 --seed 1 --quiet --grid optimizer=adagrad,adam "$@"
}
for v in $VARIANTS; do
  case $v in
    pp) tune pp ;;
    proj) tune proj --encoder projection --grid lambda_c=1e-4,1e-6 ;;
    dan) tune dan --encoder dan --lambda-c 1e-6 --grid encoder_options.layers=1,2 --grid encoder_options.activation=tanh,relu ;;
    rnn) tune rnn --encoder rnn --lambda-c 1e-6 --grid encoder_options.activation=tanh,relu --grid lr=0.05,0.005,0.0005 ;;
    irnn) tune irnn --encoder identity_rnn --grid lambda_c=1000,100,10,1 ;;
    lstm_no_og) tune lstm_no_og --encoder lstm --encoder-option output_gate=false --lambda-c 1e-6 --grid lr=0.05,0.005,0.0005 ;;
    lstm_og) tune lstm_og --encoder lstm --encoder-option output_gate=true --lambda-c 1e-6 --grid lr=0.05,0.005,0.0005 ;;
    cse) tune cse --encoder cse --lambda-c 1e-6 --grid encoder_options.activation=linear,tanh ;;
    charagram) tune charagram --encoder charagram --grid lambda_c=1e-4,1e-6 --grid encoder_options.activation=tanh,linear ;;
    char_cnn) python -m parasent.cli tune --out "$OUT/char_cnn" --epochs 1 --max-pairs 5000 --seed 1 --quiet \
        --encoder char_cnn --lambda-c 1e-6 --lambda-w 1e-6 \
        --grid encoder_options.filter_activation=relu,tanh --grid encoder_options.output_activation=tanh,linear ;;
    char_lstm) python -m parasent.cli tune --out "$OUT/char_lstm" --epochs 1 --max-pairs 5000 --seed 1 --quiet \
        --encoder char_lstm --lambda-c 1e-6 --lambda-w 1e-6 --grid encoder_options.output_gate=true,false
      python -m parasent.cli tune --out "$OUT/char_lstm_lr" --epochs 1 --max-pairs 10000 --seed 1 --quiet \
        --encoder char_lstm --lambda-c 1e-6 --lambda-w 1e-6 --encoder-option output_gate=true \
        --grid optimizer=adagrad,adam --grid lr=0.05,0.005,0.0005 ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
done
