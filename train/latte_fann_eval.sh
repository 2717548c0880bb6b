#!/bin/sh
# latte_fann_eval.sh: trains LATTE-CC's FANN mode selector and measures it on held-out workloads
# (docs/latte-cc.md). Run from the repo root after train/latte_fann_collect.sh:
#   train/latte_fann_eval.sh [path/to/gpuest] [data-dir] [train-dir] [out-csv]
# data-dir (default data/latte-fann): the labels of the test and validation workloads and the
# oracle runs; train-dir (default data-dir): the labels the network is trained and chosen on;
# out-csv (default data/latte-fann-eval.csv). The third round:
#   train/latte_fann_eval.sh build-rel/gpuest data/latte-fann-r10 data/latte-fann-r10 data/latte-fann-eval-r10.csv
# EXTRA_TRAIN=DIR adds DIR's label files to the training ones (validation and test unchanged).
# The fourth round (the shipped model; fw and the machine variations in data/latte-fann-r4/train):
#   EXTRA_TRAIN=data/latte-fann-r4/train train/latte_fann_eval.sh build-rel/gpuest data/latte-fann-r10 \
#       data/latte-fann-r10 data/latte-fann-eval-r4.csv
# 1. trains models/latte-fann.net (+ .scale.csv) on TRAIN/train, target kind (one-hot label,
#    cost, or relative to the rule with its margin) and hidden size chosen on TRAIN/valid (seed 1);
#    the test workloads are not read;
# 2. per-EP check on the test labels (agreement with the labels, regret in cycles);
# 3. runs every test (and validation) workload with the plain L1D, latte_cc and fann under the
#    settings of the oracle runs and writes data/latte-fann-eval.csv with the oracle's cycles
#    (DATA/<split>/<w>.run.csv: the run that followed the labels; 0 where that run is missing).
set -eu
GPUEST=${1:-build-rel/gpuest}
DATA=${2:-data/latte-fann}
TRAIN=${3:-$DATA}
out=${4:-data/latte-fann-eval.csv}
list() { ls "$@" | grep '\.csv$' | grep -v '\.run\.csv$' | paste -sd, -; }
train_files=$(list "$TRAIN"/train/*.csv ${EXTRA_TRAIN:+"$EXTRA_TRAIN"/*.csv})
"$GPUEST" l1c-fann train --train "$train_files" --valid "$(list "$TRAIN"/valid/*.csv)" --seed 1 --model-dir models
"$GPUEST" l1c-fann eval --data "$(list "$DATA"/test/*.csv)" --model-dir models
total_cycles() { [ -f "$1" ] && awk -F, 'NR > 1 && $3 == "total" { print $4 }' "$1" || echo 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "workload,split,cycles_none,cycles_latte_cc,cycles_fann,cycles_oracle,oracle_labelled_every,fann_over_latte_cc,fann_over_oracle,latte_cc_over_none,fann_over_none,oracle_over_none" > "$tmp/eval.csv"
for split in test valid; do
    ws="gemm hotspot pathfinder ss"
    [ "$split" = test ] || ws="bfs srad"
    for w in $ws; do
        f=$DATA/$split/$w.run.csv
        for p in none latte_cc fann; do
            "$GPUEST" simulate --preset latte15 --workload "$w" --scale small --seed 1 --max-instructions 300000 \
                --set technique.l1_compression=$p --csv "$tmp/$w.$p.csv" > /dev/null
        done
        every=${EVERY_TEST:-1}
        [ "$split" = test ] || every=${EVERY_VALID:-4}
        awk -v w="$w" -v s="$split" -v e="$every" -v n="$(total_cycles "$tmp/$w.none.csv")" \
            -v l="$(total_cycles "$tmp/$w.latte_cc.csv")" -v f="$(total_cycles "$tmp/$w.fann.csv")" \
            -v o="$(total_cycles "$f")" 'BEGIN {
                printf "%s,%s,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n", w, s, n, l, f, o, e, l / f, o / f, n / l, n / f,
                    o ? n / o : 0 }' >> "$tmp/eval.csv"
    done
done
mv "$tmp/eval.csv" "$out"
cat "$out"
