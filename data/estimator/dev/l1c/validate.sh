#!/bin/sh
# Estimates of the development truths of this folder (no simulation): each truth-P-W-small.csv, with
# the first held-out point of data/estimator/validate-P-W-small.csv added (validate needs --points 1),
# through 'gpuest validate --truth-csv', 8 technique points a run.
# usage: sh data/estimator/dev/l1c/validate.sh GPUEST OUTDIR   -> OUTDIR/dev-P-W-N.csv
set -eu
G=$1; O=$2
mkdir -p "$O"
for T in data/estimator/dev/l1c/truth-*-small.csv; do
    PW=${T#data/estimator/dev/l1c/truth-}; PW=${PW%-small.csv}
    P=${PW%%-*}; W=${PW#*-}
    TMP=$O/truth-$PW.csv
    cp "$T" "$TMP"
    awk -F, 'NR == 2 { print $1 "," $2 "," $3 "," $9 "," $17 }' "data/estimator/validate-$P-$W-small.csv" >> "$TMP"
    N=1
    for ITEMS in $(awk -F, 'NR > 1 && $2 ~ /^technique\./ { sub(/^technique\./, "", $2); n++;
                              printf "%s%s", (n % 8 == 1 ? (n > 1 ? " " : "") : ","), $2 } END { print "" }' "$T"); do
        "$G" validate --preset "$P" --workload "$W" --scale small --calibration "models/calibrations/$P-$W-small.cal" \
            --points 1 --set technique.probe_cores=14 --techniques "$ITEMS" --truth-csv "$TMP" \
            --csv "$O/dev-$PW-$N.csv" > /dev/null
        N=$((N + 1))
    done
done
for F in "$O"/dev-*.csv; do
    awk -F, -v f="$(basename "$F" .csv)" 'NR > 1 && $20 != "-" { printf "%-28s %-34s sim %8s%% est %8s%% %s  ipc_err %s\n", f, $1, $18, $19, $20, $7 }' "$F"
done
