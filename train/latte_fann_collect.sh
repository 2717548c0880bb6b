#!/bin/sh
# latte_fann_collect.sh: per-EP oracle labels for LATTE-CC's FANN mode selector (docs/latte-cc.md).
# Run from the repo root:
#   train/latte_fann_collect.sh [path/to/gpuest] [train|valid|test|all] [horizon] [out-dir] [workload...]
# Every run: latte15, scale small, seed 1 (or SEED), 300000 warp instructions, technique.l1_compression=latte_cc
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
# TRAIN_WORKLOADS replaces the training workloads (the fourth round adds fw, which the split left
# out for its cost); a validation or test workload there is refused, so the held-out sets stay
# held out. MACHINE=NAME labels on a variation of latte15 (the names below; default: latte15 as is)
# and writes OUT/<split>/<workload>.NAME.csv (+ .NAME.run.csv), so a variation's labels never
# mix with the base machine's under one name; the name fixes the --set keys it ran with.
# SEED=N labels at input seed N (default 1) and writes OUT/<split>/<workload>.seedN.csv
# (+ .seedN.run.csv) for N other than 1 (docs/latte-cc.md, "The shipped model at more input seeds"):
#   SEED=2 CONTINUE=rule TEST_WORKLOADS="3dconv 2dconv gaussian pvc pagerank 2mm" \
#       VALID_WORKLOADS="bfs srad gemm ss" train/latte_fann_collect.sh build-rel/gpuest test 10 data/latte-fann-seeds
# The fourth round (docs/latte-cc.md, "Fourth round"):
#   CONTINUE=rule EVERY_TRAIN=8 TRAIN_WORKLOADS=fw train/latte_fann_collect.sh build-rel/gpuest train 10 data/latte-fann-r4
#   CONTINUE=rule EVERY_TRAIN=8 MACHINE=warps64 train/latte_fann_collect.sh build-rel/gpuest train 10 data/latte-fann-r4
#   CONTINUE=rule EVERY_TRAIN=8 MACHINE=l1d8k train/latte_fann_collect.sh build-rel/gpuest train 10 data/latte-fann-r4
# VALID_WORKLOADS and TEST_WORKLOADS replace the validation and test workloads (the fifth round's
# fresh split, docs/latte-cc.md "Fifth round"); a workload in two of the three sets is refused:
#   CONTINUE=rule TEST_WORKLOADS="3dconv 2dconv gaussian pvc" VALID_WORKLOADS="bfs srad gemm ss" \
#       TRAIN_WORKLOADS="kmeans color wordcount btree streamcluster nw backprop spmv fw pathfinder" \
#       train/latte_fann_collect.sh build-rel/gpuest test 10 data/latte-fann-r5
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
TRAIN=${TRAIN_WORKLOADS:-kmeans color wordcount btree streamcluster nw backprop spmv}
VALID=${VALID_WORKLOADS:-bfs srad}
TEST=${TEST_WORKLOADS:-gemm hotspot pathfinder ss}
for w in $TRAIN; do
    case " $VALID $TEST " in *" $w "*)
        echo "latte_fann_collect.sh: '$w' is a validation or test workload, not a training one" >&2; exit 2 ;;
    esac
done
for w in $VALID; do
    case " $TEST " in *" $w "*)
        echo "latte_fann_collect.sh: '$w' is a test workload, not a validation one" >&2; exit 2 ;;
    esac
done
MACHINE=${MACHINE:-}
case $MACHINE in
'') SETS= ;;
# 64 resident warps per SM (latte15: 48), threads and registers raised so they do not cap them:
# more warps in flight, more hits queued at the decompressors (docs/latte-cc.md, "Fourth round")
# an 8 KB L1D (latte15: 16 KB; 16 sets x 4 ways): under LATTE-CC's rule its runs wait on the
# decompressors far more often (the variation the fourth round kept)
l1d8k) SETS="--set l1.size_bytes=8192" ;;
warps64) SETS="--set core.warps_per_sm=64 --set core.threads_per_sm=2048 --set core.registers_per_sm=65536" ;;
*) echo "latte_fann_collect.sh: unknown machine variation '$MACHINE'" >&2; exit 2 ;;
esac
SEED=${SEED:-1}
case $SEED in '' | *[!0-9]*)
    echo "latte_fann_collect.sh: SEED must be a non-negative integer, got '$SEED'" >&2; exit 2 ;;
esac
SUFFIX=${MACHINE:+.$MACHINE}
[ "$SEED" = 1 ] || SUFFIX="$SUFFIX.seed$SEED"
collect() { # split every workloads...
    split=$1
    every=$2
    shift 2
    mkdir -p "$OUT/$split"
    for w in "$@"; do
        [ -z "$ONLY" ] || case " $ONLY " in *" $w "*) ;; *) continue ;; esac
        "$GPUEST" simulate --preset latte15 --workload "$w" --scale small --seed "$SEED" --max-instructions 300000 \
            --set technique.l1_compression=latte_cc $SETS --l1c-oracle "$OUT/$split/$w$SUFFIX.csv" \
            --l1c-every "$every" --l1c-horizon "$HORIZON" --l1c-continue "$CONTINUE" \
            --csv "$OUT/$split/$w$SUFFIX.run.csv" > /dev/null
        echo "$split $w$SUFFIX done"
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
