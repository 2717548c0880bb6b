#!/bin/sh
# validate-estimates.sh GPUEST OUTDIR: re-estimates every committed validation
# (data/estimator/validate-P-W-small.csv) from its stored detailed runs (--truth-csv, no simulation),
# writing OUTDIR/validate-P-W-small.csv. Two OUTDIRs made by two builds are compared by
# scripts/compare-estimates.py (docs/estimator.md, "Speed").
set -eu
gpuest=$1
out=$2
mkdir -p "$out"
for truth in data/estimator/validate-*-small.csv; do
    case $truth in *-before.csv) continue ;; esac
    base=$(basename "$truth" .csv)
    pw=${base#validate-}
    pw=${pw%-small}
    preset=${pw%%-*}
    workload=${pw#*-}
    "$gpuest" validate --preset "$preset" --workload "$workload" --scale small \
        --calibration "models/calibrations/$preset-$workload-small.cal" --points 14 --techniques bdi,dsm \
        --truth-csv "$truth" --csv "$out/$base.csv" > "$out/$base.log" 2>&1 || echo "failed: $preset $workload"
done
