#!/bin/sh
# latte_fann_collect.sh: per-EP oracle labels for LATTE-CC's FANN mode selector (docs/latte-cc.md).
# Run from the repo root:
#   train/latte_fann_collect.sh [path/to/gpuest] [train|valid|test|all] [horizon] [out-dir] [workload...]
# Every run: latte15, scale small, seed 1, 300000 warp instructions, technique.l1_compression=latte_cc
# with --l1c-oracle (fork checkpoints; horizon: EPs each child is timed over, default 1; out-dir
# default data/latte-fann; workloads: only these of the split). The 4-EP labels the shipped model
# is trained on: train/latte_fann_collect.sh build-rel/gpuest train 4 data/latte-fann-h4 kmeans
# color streamcluster nw backprop spmv (and valid / test with horizon 4, docs/latte-cc.md). The split is by workload and was fixed
# before any result: train and valid label one EP in 4 of each SM (--l1c-every 4, cheaper);
# test runs the full per-EP oracle (every EP labelled and followed), whose cycles are the oracle
# of the evaluation. Writes OUT/<split>/<workload>.csv (labels) and
# OUT/<split>/<workload>.run.csv (the run's statistics).
# Environment: CONTINUE=rule makes the labels rollouts (--l1c-continue rule: each forked run
# deviates for one EP, then LATTE-CC's rule decides; the third round's labels), EVERY_TRAIN /
# EVERY_VALID / EVERY_TEST override how many EPs of an SM share one label (defaults 4, 4, 1).
# The third round (docs/latte-cc.md): CONTINUE=rule EVERY_TRAIN=8 with horizon 10 into
# data/latte-fann-r10.
set -eu
CONTINUE=${CONTINUE:-hold}
EVERY_TRAIN=${EVERY_TRAIN:-4}
EVERY_VALID=${EVERY_VALID:-4}
EVERY_TEST=${EVERY_TEST:-1}
GPUEST=${1:-build-rel/gpuest}
WHICH=${2:-all}
HORIZON=${3:-1}
OUT=${4:-data/latte-fann}
[ $# -gt 4 ] && shift 4 && ONLY="$*" || ONLY=
TRAIN="kmeans color wordcount btree streamcluster nw backprop spmv"
VALID="bfs srad"
TEST="gemm hotspot pathfinder ss"
collect() { # split every workloads...
    split=$1
    every=$2
    shift 2
    mkdir -p "$OUT/$split"
    for w in "$@"; do
        [ -z "$ONLY" ] || case " $ONLY " in *" $w "*) ;; *) continue ;; esac
        "$GPUEST" simulate --preset latte15 --workload "$w" --scale small --seed 1 --max-instructions 300000 \
            --set technique.l1_compression=latte_cc --l1c-oracle "$OUT/$split/$w.csv" \
            --l1c-every "$every" --l1c-horizon "$HORIZON" --l1c-continue "$CONTINUE" --csv "$OUT/$split/$w.run.csv" > /dev/null
        echo "$split $w done"
    done
}
case $WHICH in
train) collect train "$EVERY_TRAIN" $TRAIN ;;
valid) collect valid "$EVERY_VALID" $VALID ;;
test) collect test "$EVERY_TEST" $TEST ;;
all)
    collect train "$EVERY_TRAIN" $TRAIN
    collect valid "$EVERY_VALID" $VALID
    collect test "$EVERY_TEST" $TEST
    ;;
*) echo "latte_fann_collect.sh: expected train, valid, test or all, got '$WHICH'" >&2; exit 2 ;;
esac
