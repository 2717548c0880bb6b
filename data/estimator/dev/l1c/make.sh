#!/bin/sh
# Development truths for the compressed-L1 and WarpPool signs (fifth session): points NOT in the
# reported set (data/estimator/truth-techniques-*.csv). One run at a time, under nice.
# usage (from the repository root): sh data/estimator/dev/l1c/make.sh build-rel/gpuest
set -eu
G=$1
D=data/estimator/dev/l1c
L1="l1_compression=static_bdi l1_compression=static_sc l1_compression=static_bpc l1_compression=latte_cc l1_compression=latte_cc_bdi_bpc l1_compression=adaptive_hit_count l1_compression=adaptive_cmp l1_compression=fann"
nice -n 10 scripts/technique-truths.sh "$G" fermi hotspot $D/truth-fermi-hotspot-small.csv --set technique.probe_cores=14 -- $L1
nice -n 10 scripts/technique-truths.sh "$G" mesh56 pathfinder $D/truth-mesh56-pathfinder-small.csv --set technique.probe_cores=14 -- $L1 coalescing=warppool
nice -n 10 scripts/technique-truths.sh "$G" mesh56 2dconv $D/truth-mesh56-2dconv-small.csv --set technique.probe_cores=14 -- $L1 coalescing=warppool
nice -n 10 scripts/technique-truths.sh "$G" mesh56 bfs $D/truth-mesh56-bfs-small.csv --set technique.probe_cores=14 -- coalescing=warppool
nice -n 10 scripts/technique-truths.sh "$G" fermi spmv $D/truth-fermi-spmv-small.csv --set technique.probe_cores=14 -- coalescing=warppool $L1
