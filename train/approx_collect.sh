#!/bin/sh
# approx_collect.sh: collect the three disjoint error-dataset sets of the approximation-bit
# predictor (gpuest approx collect), timing each. Run from the repo root:
#   train/approx_collect.sh [path/to/gpuest]
# Seeds: 1 = training (data/approx/<app>.csv, default counts), 2 = validation (data/approx/valid,
# chooses the decision threshold), 3 = test (data/approx/test, used only by 'eval').
# No constant of the predictor is chosen on seed 3.
set -eu
GPUEST=${1:-build/gpuest}
APPS="kmeans lud gaussian atax bicg 2dconv scalarprod srad2 hybridsort"
# Held-out sets: half the training count for the slow apps (statistics per query stay
# ample: 25 queries per dataset), the training count for the fast ones.
heldout_count() {
    case "$1" in
    kmeans) echo 200 ;;
    lud) echo 40 ;;
    gaussian) echo 60 ;;
    *) echo 40 ;;
    esac
}
mkdir -p data/approx/valid data/approx/test
for app in $APPS; do
    "$GPUEST" approx collect --app "$app" --seed 1 --out "data/approx/$app.csv"
    n=$(heldout_count "$app")
    "$GPUEST" approx collect --app "$app" --seed 2 --datasets "$n" --out "data/approx/valid/$app.csv"
    "$GPUEST" approx collect --app "$app" --seed 3 --datasets "$n" --out "data/approx/test/$app.csv"
done
