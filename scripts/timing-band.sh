#!/bin/sh
# timing-band.sh: the baseline's IPC under small timing perturbations, to tell a technique's
# effect from the closed loop's sensitivity to timing (docs/estimator.md, "Technique signs, sixth
# session"). Runs 'gpuest simulate' at scale small, seed 1 (the truths' runs), of the machine as
# given and of six perturbations: L1 hit latency -1 / +1 and L2 hit latency -2 / -1 / +1 / +2
# core cycles from the preset's values. A perturbation changes no mechanism a technique transform
# models; the spread of their IPC is the band inside which the sign of a simulated effect says
# nothing about the technique. Rows already in OUT are kept (the script resumes).
# usage: scripts/timing-band.sh GPUEST PRESET WORKLOAD OUT.csv
set -eu
G=$1; P=$2; W=$3; OUT=$4
CFG=$(mktemp); TMP=$(mktemp)
"$G" config show --preset "$P" > "$CFG"
lat() { awk -v s="[$1]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on && $1 == "hit_latency" { print $3 }' "$CFG"; }
L1=$(lat l1); L2=$(lat l2)
[ -n "$L1" ] && [ -n "$L2" ] || { echo "timing-band.sh: no [l1]/[l2] hit_latency in preset $P" >&2; exit 2; }
[ -f "$OUT" ] || echo "point,sets,ipc_sim" > "$OUT"
run() { # label, setting ("" for the baseline)
    if grep -q "^$1," "$OUT"; then return 0; fi
    if [ -n "$2" ]; then
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 --set "$2" --csv "$TMP" > /dev/null
    else
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 --csv "$TMP" > /dev/null
    fi
    awk -F, -v label="$1" -v sets="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" { printf "%s,%s,%s\n", label, sets, $col["ipc"] }' "$TMP" >> "$OUT"
}
run baseline ""
run l1lat_m1 "l1.hit_latency=$((L1 - 1))"
run l1lat_p1 "l1.hit_latency=$((L1 + 1))"
run l2lat_m2 "l2.hit_latency=$((L2 - 2))"
run l2lat_m1 "l2.hit_latency=$((L2 - 1))"
run l2lat_p1 "l2.hit_latency=$((L2 + 1))"
run l2lat_p2 "l2.hit_latency=$((L2 + 2))"
rm -f "$CFG" "$TMP"
