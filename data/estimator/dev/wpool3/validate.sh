#!/bin/sh
# Estimates of the development truths of this folder (no simulation): each truth-P-W-V-small.csv
# (V: q1, q4, q16 = technique.warppool_queues; d1 = technique.warppool_depth 1), with the first
# held-out point of data/estimator/validate-P-W-small.csv added (validate needs --points 1).
# usage: sh data/estimator/dev/wpool3/validate.sh GPUEST OUTDIR   -> OUTDIR/dev-P-W-V.csv and a line each
set -eu
G=$1; O=$2
mkdir -p "$O"
for T in data/estimator/dev/wpool3/truth-*-small.csv; do
    PWV=${T#data/estimator/dev/wpool3/truth-}; PWV=${PWV%-small.csv}
    V=${PWV##*-}; PW=${PWV%-*}
    P=${PW%%-*}; W=${PW#*-}
    case "$V" in q*) S=technique.warppool_queues=${V#q} ;; d*) S=technique.warppool_depth=${V#d} ;; esac
    TMP=$O/truth-$PWV.csv
    cp "$T" "$TMP"
    awk -F, 'NR == 2 { print $1 "," $2 "," $3 "," $9 "," $17 }' "data/estimator/validate-$P-$W-small.csv" >> "$TMP"
    "$G" validate --preset "$P" --workload "$W" --scale small --calibration "models/calibrations/$P-$W-small.cal" \
        --points 1 --set technique.probe_cores=14 --set "$S" --techniques coalescing=warppool ${POOL_FORM:+--pool-form $POOL_FORM} ${POOL_SETRES:+--pool-setres $POOL_SETRES} --truth-csv "$TMP" \
        --csv "$O/dev-$PWV.csv" > /dev/null
    awk -F, -v f="$PWV" 'NR > 1 && $20 != "-" { printf "%-24s sim %8s%% est %8s%% %s  ipc_err %s\n", f, $18, $19, $20, $7 }' "$O/dev-$PWV.csv"
done
