#!/bin/sh
# approx_all.sh: collect error datasets for all nine approximation apps and train their
# predictors (gpuest approx collect + train), timing each step. Run from the repo root:
#   train/approx_all.sh [path/to/gpuest]
# Writes data/approx/<app>.csv, models/approx-<app>.net and models/approx-<app>.scale.csv.
set -eu
GPUEST=${1:-build/gpuest}
APPS="kmeans lud gaussian atax bicg 2dconv scalarprod srad2 hybridsort"
start=$(date +%s)
for app in $APPS; do
    "$GPUEST" approx collect --app "$app"
done
collected=$(date +%s)
"$GPUEST" approx train --app all
end=$(date +%s)
echo "collect: $((collected - start)) s, train: $((end - collected)) s, total: $((end - start)) s"
