#!/bin/bash
# mc-stall-check.sh GPUEST: the model's MC stall ratio against the simulator's, with no simulation.
#  - every run of the 16 small calibrations (models/calibrations/{fermi,mesh56}-W-small.cal: the
#    baseline and its excitation runs), the model at the fitted parameters ('gpuest estimate' with
#    the run's settings) against the run's measured mc_stall;
#  - the channel-count development truths (data/estimator/dev/channels-fermi-W-small-MN.csv,
#    mc.num_mcs = N), the same.
# Prints "set preset workload point simulated model" rows, then the mean absolute difference of
# each set (docs/estimator.md, "The MC stall ratio in the model (sixth session)").
set -eu
G=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
model_col() { # CSV of 'gpuest estimate' -> its mc_stall column
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mc_stall") c = i; next } { print $c }' "$1"
}
for f in models/calibrations/fermi-*-small.cal models/calibrations/mesh56-*-small.cal; do
    p=$(awk '$1 == "preset" { print $2 }' "$f")
    w=$(awk '$1 == "workload" { print $2 }' "$f")
    awk '$1 == "run" { s = $3; if (s == "-") s = ""; gsub(/,/, " ", s); print s }' "$f" > "$T/batch"
    awk '$1 == "run" { print $2, $6 }' "$f" > "$T/sim"
    "$G" estimate --preset "$p" --workload "$w" --scale small --calibration "$f" --batch "$T/batch" \
        --csv "$T/est.csv" > /dev/null
    model_col "$T/est.csv" | paste -d' ' "$T/sim" - | awk -v p="$p" -v w="$w" '{ printf "cal %s %s %s %.3f %.3f\n", p, w, $1, $2, $3 }'
done > "$T/rows"
for w in 2dconv backprop bfs hotspot; do
    : > "$T/batch"
    : > "$T/sim"
    for f in data/estimator/dev/channels-fermi-$w-small-M*.csv; do
        [ -f "$f" ] || continue
        m=${f##*-M}
        m=${m%.csv}
        echo "mc.num_mcs=$m" >> "$T/batch"
        awk -F, -v m="$m" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mc_stall_ratio") c = i; next }
                           $3 == "total" { print "M" m, $c }' "$f" >> "$T/sim"
    done
    [ -s "$T/batch" ] || continue
    "$G" estimate --preset fermi --workload "$w" --scale small --calibration "models/calibrations/fermi-$w-small.cal" \
        --batch "$T/batch" --csv "$T/est.csv" > /dev/null
    model_col "$T/est.csv" | paste -d' ' "$T/sim" - | awk -v w="$w" '{ printf "dev fermi %s %s %.3f %.3f\n", w, $1, $2, $3 }'
done >> "$T/rows"
cat "$T/rows"
awk '{ d = $6 - $5; a[$1] += d < 0 ? -d : d; b[$1] += d; n[$1]++ }
     END { for (s in n) printf "%s: %d points, mean |model - simulated| %.3f, mean model - simulated %+.3f\n",
                                s, n[s], a[s] / n[s], b[s] / n[s] }' "$T/rows" | sort
