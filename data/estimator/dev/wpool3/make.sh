#!/bin/sh
# Development truths for WarpPool's LD/ST unblocking (sixth session): the pool at other sizes than
# the default (technique.warppool_queues = 1, 4, 16; technique.warppool_depth = 1), on the
# development WarpPool workloads and on the reported machines' non-default pools. None of these
# points is in the reported set (data/estimator/truth-techniques-*.csv: the default 32 queues,
# depth 8). One run at a time, under nice.
# usage (from the repository root): sh data/estimator/dev/wpool3/make.sh build-rel/gpuest
set -eu
G=$1
D=data/estimator/dev/wpool3
for PW in fermi-spmv mesh56-2dconv mesh56-bfs mesh56-pathfinder fermi-hotspot fermi-2dconv fermi-srad; do
    P=${PW%%-*}; W=${PW#*-}
    for V in q1:warppool_queues=1 q4:warppool_queues=4 q16:warppool_queues=16 d1:warppool_depth=1; do
        N=${V%%:*}; S=${V#*:}
        nice -n 10 scripts/technique-truths.sh "$G" "$P" "$W" "$D/truth-$P-$W-$N-small.csv" \
            --set technique.probe_cores=14 --set "technique.$S" -- coalescing=warppool
    done
done
