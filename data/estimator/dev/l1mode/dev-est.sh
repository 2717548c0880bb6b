#!/bin/sh
# dev-est.sh GPUEST: the estimate's IPC of every point of dev-sims.sh (committed calibrations), one
# line per point: preset,workload,policy,ipc_est. Run from the repository root. L1_FILL_TIMING=on
# estimates with the compressed-L1 walk's timed fills (--l1-fill-timing on).
set -eu
G=$1
for pw in fermi-spmv mesh56-nw mesh56-pathfinder mesh56-bfs mesh56-srad mesh56-2dconv mesh56-backprop mesh56-spmv; do
  P=${pw%%-*}; W=${pw#*-}
  for t in none latte_cc latte_cc_bdi_bpc adaptive_hit_count adaptive_cmp fann; do
    printf "%s,%s,%s," $P $W $t
    "$G" estimate --preset $P --workload $W --scale small --calibration models/calibrations/$P-$W-small.cal \
        --set technique.probe_cores=14 --set technique.l1_compression=$t ${L1_FILL_TIMING:+--l1-fill-timing $L1_FILL_TIMING} 2>&1 |
        awk '$1=="point" && $2 ~ /^[0-9]/ {print $2; exit}'
  done
done
