#!/bin/sh
# latte_fann_select.sh: chooses the FANN mode selector's hidden size, decision margin and range
# guard on WHOLE validation runs (docs/latte-cc.md, "Fifth round"), not on per-EP regret: per-EP
# errors compound over a run (the fourth round's ss), which per-EP regret does not see. Run from
# the repo root:
#   train/latte_fann_select.sh [path/to/gpuest] [train-files] [valid-files] [valid-workloads] [work-dir] [out-csv]
# train-files, valid-files: comma-separated label files ('l1c-fann train --train / --valid');
# valid-workloads: blank-separated. For every margin (3, 2, 1, 0.5, 0.25, 0 %), guard (on, off)
# and hidden size (4, 8, 16) it trains the rule-target network (seed 1, 1000 epochs; the same
# network for every margin and guard of a hidden size), runs fann on every validation workload
# (latte15, scale small, seed 1, 300000 warp instructions) beside latte_cc, and writes one row
# per candidate: hidden, margin, guard, each workload's fann cycles and speedup over latte_cc, and
# the mean speedup. The kept candidate is the largest mean speedup; ties keep the larger margin,
# then the guard on, then the smaller network (the order of the rows). Its model is copied to
# work-dir/best/models. The fifth round:
#   train/latte_fann_select.sh build-rel/gpuest "$(ls data/latte-fann-r10/train/*.csv \
#       data/latte-fann-r4/train/*.csv data/latte-fann-r5/train/*.csv | grep -v run.csv | paste -sd, -)" \
#       "$(ls data/latte-fann-r5/valid/*.csv | grep -v run.csv | paste -sd, -)" "bfs srad gemm ss" \
#       /tmp/r5sel data/latte-fann-select-r5.csv
# MARGINS replaces the margins tried (blank-separated %, largest first). Period labels (the sixth
# round, docs/latte-cc.md "Sixth round"; their files have a column cycles_rule) train period models
# the same way:
#   MARGINS="2 1 0.5 0" train/latte_fann_select.sh build-rel/gpuest \
#       "$(ls data/latte-fann-r6/train/*.csv | grep -v run.csv | paste -sd, -)" \
#       "$(ls data/latte-fann-r6/valid/*.csv | grep -v run.csv | paste -sd, -)" "bfs srad gemm ss" \
#       /tmp/r6sel data/latte-fann-select-r6.csv
# CRITERION=maxmin keeps the largest worst-workload speedup instead of the largest mean
# (train/latte_fann_pick.sh); SPANS=p99 trains with 'l1c-fann train --spans p99'. The seventh
# round (docs/latte-cc.md, "Seventh round"):
#   CRITERION=maxmin SPANS=p99 MARGINS="5 3 2 1 0.5 0" train/latte_fann_select.sh build-rel/gpuest \
#       "$(ls data/latte-fann-r6/train/*.csv | grep -v run.csv | paste -sd, -)" \
#       "$(ls data/latte-fann-r6/valid/*.csv | grep -v run.csv | paste -sd, -)" "bfs srad gemm ss" \
#       /tmp/r7sel data/latte-fann-select-r7.csv
set -eu
MARGINS=${MARGINS:-3 2 1 0.5 0.25 0}
CRITERION=${CRITERION:-mean}
SPANS=${SPANS:-fixed}
case $CRITERION in mean | maxmin) ;; *) echo "latte_fann_select.sh: CRITERION: mean or maxmin, got '$CRITERION'" >&2; exit 2 ;; esac
GPUEST=$(cd "$(dirname "${1:-build-rel/gpuest}")" && pwd)/$(basename "${1:-build-rel/gpuest}")
TRAINF=$2
VALIDF=$3
WS=$4
WORK=$5
OUT=${6:-data/latte-fann-select.csv}
mkdir -p "$WORK"
run() { # cwd workload policy -> total cycles
    (cd "$1" && "$GPUEST" simulate --preset latte15 --workload "$2" --scale small --seed 1 --max-instructions 300000 \
        --set technique.l1_compression="$3" --csv "$WORK/run.csv" > /dev/null)
    awk -F, 'NR > 1 && $3 == "total" { print $4 }' "$WORK/run.csv"
}
header=hidden,margin_pct,guard
for w in $WS; do
    header="$header,cycles_fann_$w,fann_over_latte_cc_$w"
    eval "rule_$w=\$(run \"\$WORK\" \"\$w\" latte_cc)"
done
echo "$header,mean_fann_over_latte_cc" > "$WORK/select.csv"
for m in $MARGINS; do
    for g in 1 0; do
        for h in 4 8 16; do
            d=$WORK/h$h-m$m-g$g
            mkdir -p "$d/models"
            "$GPUEST" l1c-fann train --train "$TRAINF" --valid "$VALIDF" --seed 1 --target rule --hidden "$h" \
                --margin "$m" --range-guard "$g" --select mean --spans "$SPANS" --model-dir "$d/models" > "$d/train.log"
            row="$h,$m,$g"
            sum=0
            for w in $WS; do
                c=$(run "$d" "$w" fann)
                eval "r=\$rule_$w"
                s=$(awk -v r="$r" -v c="$c" 'BEGIN { printf "%.4f", r / c }')
                row="$row,$c,$s"
                sum=$(awk -v a="$sum" -v b="$s" 'BEGIN { print a + b }')
            done
            echo "$row,$(awk -v a="$sum" -v n="$(echo "$WS" | wc -w)" 'BEGIN { printf "%.5f", a / n }')" >> "$WORK/select.csv"
        done
    done
done
# the kept row (rows are in tie-break order): train/latte_fann_pick.sh with CRITERION
best=$(sh "$(dirname "$0")/latte_fann_pick.sh" "$CRITERION" "$WORK/select.csv")
h=${best%%,*}
rest=${best#*,}
m=${rest%%,*}
g=${rest#*,}
rm -rf "$WORK/best"
mkdir -p "$WORK/best"
cp -r "$WORK/h$h-m$m-g$g/models" "$WORK/best/models"
cp "$WORK/select.csv" "$OUT"
echo "kept: hidden $h, margin $m %, guard $g ($WORK/best/models)"
cat "$OUT"
