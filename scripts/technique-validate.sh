#!/bin/sh
# technique-validate.sh: 'gpuest validate' of every technique point stored in a truth file of
# technique-truths.sh (no new simulation: the file also holds the baseline and the first held-out
# point, copied from data/estimator/validate-P-W-small.csv). validate takes at most 8 technique
# points a run, so the points go in runs of 8: data/estimator/techniques-P-W-small-N.csv.
# usage: scripts/technique-validate.sh GPUEST PRESET WORKLOAD
# POOL_FORM=scoreboard in the environment passes --pool-form scoreboard (WarpPool on token-form
# calibrations by the scoreboard fit kept beside them; docs/estimator.md, seventh session).
set -eu
G=$1; P=$2; W=$3
TRUTH=data/estimator/truth-techniques-$P-$W-small.csv
N=1
for ITEMS in $(awk -F, 'NR > 1 && $2 ~ /^technique\./ { sub(/^technique\./, "", $2); n++;
                          printf "%s%s", (n % 8 == 1 ? (n > 1 ? " " : "") : ","), $2 } END { print "" }' "$TRUTH"); do
    "$G" validate --preset "$P" --workload "$W" --scale small --calibration "models/calibrations/$P-$W-small.cal" \
        --points 1 --set technique.probe_cores=14 --techniques "$ITEMS" ${POOL_FORM:+--pool-form "$POOL_FORM"} ${POOL_SETRES:+--pool-setres "$POOL_SETRES"} ${L1_FILL_TIMING:+--l1-fill-timing "$L1_FILL_TIMING"} --truth-csv "$TRUTH" \
        --csv "data/estimator/techniques-$P-$W-small-$N.csv"
    N=$((N + 1))
done
