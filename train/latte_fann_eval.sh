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
# The fifth round's fresh split (docs/latte-cc.md, "Fifth round") sets, in the environment:
#   TEST_WORKLOADS, VALID_WORKLOADS   the workloads of DATA/test and DATA/valid (defaults: the
#                                     first split's gemm hotspot pathfinder ss; bfs srad)
#   EXTRA_TRAIN                       blank-separated folders (not only one)
#   TRAIN_OPTS                        more options for 'l1c-fann train' (e.g. --target rule
#                                     --range-guard choose --select mean)
#   MODEL_DIR                         the model folder trained into and run (default models; it
#                                     must be named models: 'gpuest simulate' reads models/ in its
#                                     working directory, so whole runs start in its parent)
#   SKIP_TRAIN=1                      evaluate the model already in MODEL_DIR (e.g. the shipped one)
#   SPLITS                            whose whole runs to make: "test valid" (default), "valid", ...
#                                     (the per-EP test check runs only when test is among them)
#   WHOLE_ONLY                        more test workloads run whole (plain, rule, fann; no labels,
#                                     oracle 0), split "test_whole"
#   EVERY_OF                          "w=N ..." per-workload label spacing of the oracle runs
#                                     (default EVERY_TEST=1 for test, EVERY_VALID=4 for valid)
set -eu
GPUEST=${1:-build-rel/gpuest}
DATA=${2:-data/latte-fann}
TRAIN=${3:-$DATA}
out=${4:-data/latte-fann-eval.csv}
list() { ls "$@" | grep '\.csv$' | grep -v '\.run\.csv$' | paste -sd, -; }
TEST_WS=${TEST_WORKLOADS:-gemm hotspot pathfinder ss}
VALID_WS=${VALID_WORKLOADS:-bfs srad}
SPLITS=${SPLITS:-test valid}
MODEL_DIR=${MODEL_DIR:-models}
case $MODEL_DIR in */models | models) ;; *)
    echo "latte_fann_eval.sh: MODEL_DIR must be a folder named models, got '$MODEL_DIR'" >&2; exit 2 ;;
esac
extra=
for d in ${EXTRA_TRAIN:-}; do extra="$extra $d/*.csv"; done
# shellcheck disable=SC2086
train_files=$(list "$TRAIN"/train/*.csv $extra)
if [ "${SKIP_TRAIN:-0}" != 1 ]; then
    mkdir -p "$MODEL_DIR"
    # shellcheck disable=SC2086
    "$GPUEST" l1c-fann train --train "$train_files" --valid "$(list "$TRAIN"/valid/*.csv)" --seed 1 \
        --model-dir "$MODEL_DIR" ${TRAIN_OPTS:-}
fi
[ -f "$MODEL_DIR/latte-fann.net" ] || { echo "latte_fann_eval.sh: no model in $MODEL_DIR" >&2; exit 2; }
case " $SPLITS " in *" test "*)
    "$GPUEST" l1c-fann eval --data "$(list "$DATA"/test/*.csv)" --model-dir "$MODEL_DIR" ;;
esac
gpuest_abs=$(cd "$(dirname "$GPUEST")" && pwd)/$(basename "$GPUEST")
run_dir=$(cd "$(dirname "$MODEL_DIR")" && pwd)
total_cycles() { [ -f "$1" ] && awk -F, 'NR > 1 && $3 == "total" { print $4 }' "$1" || echo 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "workload,split,cycles_none,cycles_latte_cc,cycles_fann,cycles_oracle,oracle_labelled_every,fann_over_latte_cc,fann_over_oracle,latte_cc_over_none,fann_over_none,oracle_over_none" > "$tmp/eval.csv"
[ -z "${WHOLE_ONLY:-}" ] || SPLITS="$SPLITS test_whole"
for split in $SPLITS; do
    case $split in
    test) ws=$TEST_WS ;;
    valid) ws=$VALID_WS ;;
    test_whole) ws=$WHOLE_ONLY ;;
    *) echo "latte_fann_eval.sh: unknown split '$split' in SPLITS" >&2; exit 2 ;;
    esac
    for w in $ws; do
        f=$DATA/$split/$w.run.csv
        for p in none latte_cc fann; do
            (cd "$run_dir" && "$gpuest_abs" simulate --preset latte15 --workload "$w" --scale small --seed 1 \
                --max-instructions 300000 --set technique.l1_compression=$p --csv "$tmp/$w.$p.csv" > /dev/null)
        done
        every=${EVERY_TEST:-1}
        [ "$split" = valid ] && every=${EVERY_VALID:-4}
        [ "$split" = test_whole ] && every=0
        for kv in ${EVERY_OF:-}; do [ "${kv%%=*}" = "$w" ] && every=${kv#*=}; done
        awk -v w="$w" -v s="$split" -v e="$every" -v n="$(total_cycles "$tmp/$w.none.csv")" \
            -v l="$(total_cycles "$tmp/$w.latte_cc.csv")" -v f="$(total_cycles "$tmp/$w.fann.csv")" \
            -v o="$(total_cycles "$f")" 'BEGIN {
                printf "%s,%s,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n", w, s, n, l, f, o, e, l / f, o / f, n / l, n / f,
                    o ? n / o : 0 }' >> "$tmp/eval.csv"
    done
done
mv "$tmp/eval.csv" "$out"
cat "$out"
