#!/bin/sh
# latte_fann_eval_r7.sh: the seventh round's one evaluation of LATTE-CC's FANN mode selector
# (docs/latte-cc.md, "Seventh round"). Run from the repo root after the labels of
# train/latte_fann_collect.sh and the choice of train/latte_fann_select.sh:
#   train/latte_fann_eval_r7.sh path/to/gpuest R7_MODELS R5_MODELS R6_MODELS EP_DATA PERIOD_DATA OUT "split:w ..."
# R7_MODELS, R5_MODELS, R6_MODELS: folders named models holding each round's model; EP_DATA: the
# per-EP rollout labels' folder (EP_DATA/<split>/<w>.run.csv: the run that followed them, the
# per-EP oracle); PERIOD_DATA: the period labels' folder (its .run.csv: the period oracle); a
# missing oracle reads 0 and its ratios 0. Every run: latte15, scale small, seed 1, 300000 warp
# instructions (SCALE and INSTR override both, for workloads whose author asks for other
# settings). One row per workload: cycles of the plain L1D, latte_cc (the rule), fann with each
# model, the two oracles, then ratios "A over B" = B's cycles / A's (> 1: A is faster), and per
# split the mean of each ratio. The seventh round:
#   train/latte_fann_eval_r7.sh build-rel/gpuest /tmp/r7sel/best/models models data/latte-fann-r6/models \
#       data/latte-fann-r7/ep data/latte-fann-r7/period data/latte-fann-eval-r7.csv "test:pagerank test:2mm"
set -eu
GPUEST=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
R7=$2
R5=$3
R6=$4
EPD=$5
PD=$6
OUT=$7
PAIRS=$8
SCALE=${SCALE:-small}
INSTR=${INSTR:-300000}
for d in "$R7" "$R5" "$R6"; do
    case $d in */models | models) ;; *)
        echo "latte_fann_eval_r7.sh: a model folder must be named models, got '$d'" >&2; exit 2 ;;
    esac
    [ -f "$d/latte-fann.net" ] || { echo "latte_fann_eval_r7.sh: no model in $d" >&2; exit 2; }
done
# each column must be a different network: a folder that already holds another round's model
# (models/ after the shipping decision) would repeat that column under another name
for pair in "$R7 $R5" "$R7 $R6" "$R5 $R6"; do
    set -- $pair
    if cmp -s "$1/latte-fann.net" "$2/latte-fann.net"; then
        echo "latte_fann_eval_r7.sh: $1 and $2 hold the same network" >&2; exit 2
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total() { [ -f "$1" ] && awk -F, 'NR > 1 && $3 == "total" { print $4 }' "$1" || echo 0; }
above() { (cd "$(dirname "$1")" && pwd); } # the folder whose models/ the fann policy reads
run() { # dir workload policy -> cycles
    (cd "$1" && "$GPUEST" simulate --preset latte15 --workload "$2" --scale "$SCALE" --seed 1 \
        --max-instructions "$INSTR" --set technique.l1_compression="$3" --csv "$tmp/run.csv" > /dev/null)
    total "$tmp/run.csv"
}
d7=$(above "$R7")
d5=$(above "$R5")
d6=$(above "$R6")
echo "workload,split,cycles_none,cycles_latte_cc,cycles_fann_r7,cycles_fann_r5,cycles_fann_r6,cycles_ep_oracle,cycles_period_oracle,r7_over_latte_cc,r5_over_latte_cc,r6_over_latte_cc,r7_over_ep_oracle,r5_over_ep_oracle,r6_over_ep_oracle,latte_cc_over_ep_oracle,period_oracle_over_latte_cc,period_oracle_over_ep_oracle" > "$tmp/eval.csv"
for p in $PAIRS; do
    s=${p%%:*}
    w=${p#*:}
    n=$(run "$d7" "$w" none)
    l=$(run "$d7" "$w" latte_cc)
    f7=$(run "$d7" "$w" fann)
    f5=$(run "$d5" "$w" fann)
    f6=$(run "$d6" "$w" fann)
    e=$(total "$EPD/$s/$w.run.csv")
    po=$(total "$PD/$s/$w.run.csv")
    awk -v w="$w" -v s="$s" -v n="$n" -v l="$l" -v f7="$f7" -v f5="$f5" -v f6="$f6" -v e="$e" -v po="$po" 'BEGIN {
        printf "%s,%s,%d,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", w, s, n, l, f7, f5, f6, e, po,
            l / f7, l / f5, l / f6, e / f7, e / f5, e / f6, e / l, po ? l / po : 0, po ? e / po : 0 }' >> "$tmp/eval.csv"
done
awk -F, 'NR == 1 { nc = NF; print; next }
    { print; s = $2; k[s]++; for (i = 10; i <= nc; i++) sum[s, i] += $i }
    END { for (s in k) { printf "mean,%s,,,,,,,", s; for (i = 10; i <= nc; i++) printf ",%.4f", sum[s, i] / k[s]; printf "\n" } }' \
    "$tmp/eval.csv" > "$tmp/out.csv"
mv "$tmp/out.csv" "$OUT"
cat "$OUT"
