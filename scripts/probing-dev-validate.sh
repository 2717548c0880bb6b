#!/bin/sh
# probing-dev-validate.sh: 'gpuest validate' of the probing points of a truth file made by
# probing-truths.sh (no new simulation; the file's last row is the first held-out point of
# data/estimator/validate-P-W-small.csv, which validate needs with --points 1).
# usage: scripts/probing-dev-validate.sh GPUEST PRESET WORKLOAD DIR OUT.csv
set -eu
G=$1; P=$2; W=$3; D=$4; OUT=$5
TRUTH=$D/truth-techniques-$P-$W-small.csv
ITEMS=$(awk -F, 'NR > 1 && $2 ~ /^technique\./ { sub(/^technique\./, "", $2); printf "%s%s", (n++ ? "," : ""), $2 }' "$TRUTH")
"$G" validate --preset "$P" --workload "$W" --scale small --calibration "models/calibrations/$P-$W-small.cal" \
    --points 1 --set technique.probe_cores=14 --techniques "$ITEMS" --truth-csv "$TRUTH" --csv "$OUT" > /dev/null
