#!/bin/sh
# probing-truths.sh: detailed runs of remote-L1 probing points, as technique-truths.sh makes them
# (gpuest simulate, scale small, seed 1, technique.probe_cores=14), keeping also the simulator's
# probing counters of each run for the comparison with the model's intermediate quantities.
# usage: scripts/probing-truths.sh GPUEST PRESET WORKLOAD OUTDIR [SCHEME...]
# writes OUTDIR/truth-techniques-P-W-small.csv (point,sets,ipc_sim,amat_sim,sim_s; the baseline first)
# and OUTDIR/probing-stats-P-W-small.csv (point,counter,value: the total row's cycles, req_fl and
# rep_fl, and every probing.* counter the run prints).
# Rows already in the truth file are kept (the script resumes). SCHEME defaults to all six.
set -eu
G=$1; P=$2; W=$3; D=$4; shift 4
[ "$#" -gt 0 ] || set -- pp dp ip rp ccn la_llc
OUT=$D/truth-techniques-$P-$W-small.csv
ST=$D/probing-stats-$P-$W-small.csv
[ -f "$OUT" ] || echo "point,sets,ipc_sim,amat_sim,sim_s" > "$OUT"
[ -f "$ST" ] || echo "point,counter,value" > "$ST"
TMP=$(mktemp); LOG=$(mktemp)
run() { # label, technique setting ("" for the baseline)
    if grep -q "^$1," "$OUT"; then return 0; fi
    T0=$(date +%s.%N)
    if [ -n "$2" ]; then
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 --set technique.probe_cores=14 \
            --set "$2" --csv "$TMP" > "$LOG"
    else
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 --set technique.probe_cores=14 \
            --csv "$TMP" > "$LOG"
    fi
    T1=$(date +%s.%N)
    awk -F, -v label="$1" -v sets="$2" -v s="$(echo "$T1 - $T0" | bc)" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" { printf "%s,%s,%s,%s,%.2f\n", label, sets, $col["ipc"], $col["amat"], s }' \
        "$TMP" >> "$OUT"
    awk -v label="$1" '$1 == "total" { print label ",cycles," $2; print label ",req_fl," $11; print label ",rep_fl," $12 }
        $1 == "technique" && $2 ~ /^probing\./ { sub(/^probing\./, "", $2); print label "," $2 "," $4 }' "$LOG" >> "$ST"
}
run baseline ""
for S in "$@"; do run "probing_$S" "technique.probing=$S"; done
rm -f "$TMP" "$LOG"
