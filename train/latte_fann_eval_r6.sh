#!/bin/sh
# latte_fann_eval_r6.sh: the sixth round's evaluation of LATTE-CC's FANN mode selector
# (docs/latte-cc.md, "Sixth round: decisions held for a period"). Run from the repo root after
# train/latte_fann_collect.sh (period labels) and the choice of train/latte_fann_select.sh:
#   train/latte_fann_eval_r6.sh path/to/gpuest MODEL_DIR OLD_MODEL_DIR DATA R5_EVAL OUT "split:w ..."
# MODEL_DIR: the folder named models holding this round's model; OLD_MODEL_DIR: the one holding
# the model it is compared with (the fifth round's; '-' for none); DATA: the period labels'
# folder (DATA/<split>/<w>.run.csv: the run that followed the labels, the period oracle);
# R5_EVAL: the fifth round's evaluation (its cycles_oracle column: the per-EP rollout oracle);
# the last argument lists split:workload pairs. Every run: latte15, scale small, seed 1,
# 300000 warp instructions. One row per workload: cycles of the plain L1D, latte_cc (the rule),
# fann (this round's model), fann (the old model), the per-EP oracle, the period oracle, and the
# ratios (the other's cycles / fann's; > 1: fann is faster), then per split the mean of the
# ratios. The sixth round:
#   train/latte_fann_eval_r6.sh build-rel/gpuest models /tmp/r5/models data/latte-fann-r6 \
#       data/latte-fann-eval-r5.csv data/latte-fann-eval-r6.csv \
#       "test:3dconv test:2dconv test:gaussian test:pvc valid:bfs valid:srad valid:gemm valid:ss"
set -eu
GPUEST=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MODEL_DIR=$2
OLD_DIR=$3
DATA=$4
R5=$5
OUT=$6
PAIRS=$7
for d in "$MODEL_DIR" "$OLD_DIR"; do
    [ "$d" = - ] && continue
    case $d in */models | models) ;; *)
        echo "latte_fann_eval_r6.sh: a model folder must be named models, got '$d'" >&2; exit 2 ;;
    esac
    [ -f "$d/latte-fann.net" ] || { echo "latte_fann_eval_r6.sh: no model in $d" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total() { [ -f "$1" ] && awk -F, 'NR > 1 && $3 == "total" { print $4 }' "$1" || echo 0; }
run() { # dir workload policy -> cycles (dir: the folder whose models/ the fann policy reads)
    (cd "$1" && "$GPUEST" simulate --preset latte15 --workload "$2" --scale small --seed 1 \
        --max-instructions 300000 --set technique.l1_compression="$3" --csv "$tmp/run.csv" > /dev/null)
    total "$tmp/run.csv"
}
new_dir=$(cd "$(dirname "$MODEL_DIR")" && pwd)
echo "workload,split,cycles_none,cycles_latte_cc,cycles_fann,cycles_fann_old,cycles_ep_oracle,cycles_period_oracle,fann_over_latte_cc,fann_old_over_latte_cc,fann_over_ep_oracle,fann_old_over_ep_oracle,latte_cc_over_ep_oracle,period_oracle_over_latte_cc,period_oracle_over_ep_oracle,fann_over_period_oracle" > "$tmp/eval.csv"
for p in $PAIRS; do
    s=${p%%:*}
    w=${p#*:}
    n=$(run "$new_dir" "$w" none)
    l=$(run "$new_dir" "$w" latte_cc)
    f=$(run "$new_dir" "$w" fann)
    o=0
    [ "$OLD_DIR" = - ] || o=$(run "$(cd "$(dirname "$OLD_DIR")" && pwd)" "$w" fann)
    e=$(awk -F, -v w="$w" 'NR > 1 && $1 == w { print $6 }' "$R5")
    po=$(total "$DATA/$s/$w.run.csv")
    awk -v w="$w" -v s="$s" -v n="$n" -v l="$l" -v f="$f" -v o="$o" -v e="${e:-0}" -v po="$po" 'BEGIN {
        printf "%s,%s,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", w, s, n, l, f, o, e, po,
            l / f, o ? l / o : 0, e / f, o ? e / o : 0, e / l, po ? l / po : 0, po ? e / po : 0, po ? po / f : 0 }' >> "$tmp/eval.csv"
done
# the mean of every ratio over each split's workloads (0 where a workload lacks the figure)
awk -F, 'NR == 1 { nc = NF; print; next }
    { print; s = $2; k[s]++; for (i = 9; i <= nc; i++) sum[s, i] += $i }
    END { for (s in k) { printf "mean,%s,,,,,,", s; for (i = 9; i <= nc; i++) printf ",%.4f", sum[s, i] / k[s]; printf "\n" } }' \
    "$tmp/eval.csv" > "$tmp/out.csv"
mv "$tmp/out.csv" "$OUT"
cat "$OUT"
