#!/bin/sh
# approx_all.sh: the shipped approximation-bit predictors, end to end. Run from the repo root:
#   train/approx_all.sh [path/to/gpuest]
# 1. collect the training (seed 1), validation (seed 2) and test (seed 3) error datasets
#    (train/approx_collect.sh);
# 2. train every model on data/approx/<app>.csv and choose its decision threshold on
#    data/approx/valid/<app>.csv (writes models/approx-<app>.net and .scale.csv);
# 3. test the models on data/approx/test (seed 3 for the limits too: never used before), with
#    reruns of the applications at the answered bits; writes data/approx/eval-test.csv.
set -eu
GPUEST=${1:-build/gpuest}
start=$(date +%s)
"$(dirname "$0")/approx_collect.sh" "$GPUEST"
collected=$(date +%s)
"$GPUEST" approx train --app all --seed 1 --data-dir data/approx --valid-dir data/approx/valid
trained=$(date +%s)
"$GPUEST" approx eval --app all --seed 3 --data-dir data/approx/test --csv data/approx/eval-test.csv
end=$(date +%s)
echo "collect: $((collected - start)) s, train: $((trained - collected)) s, eval: $((end - trained)) s"
