#!/bin/bash
# sim-baseline.sh SCALE OUT.csv [MAX_CYCLES]: the simulator's baseline table (docs/sim.md, "Baseline").
# Runs `gpuest simulate` for every workload x machine (two jobs at a time) and writes the
# 'total' row of each run, in a fixed order, with a last column 'routing' (the mesh's reply
# routing, '-' for a crossbar). MAX_CYCLES (default 0: none) caps each run (--max-cycles).
# Environment: GPUEST (default build-rel/gpuest), WORKLOADS, CONFIGS (preset:reply-routing),
# JOBS (default 2).
set -euo pipefail
scale=$1
out=$2
export maxc=${3:-0}
export scale
export GPUEST=${GPUEST:-build-rel/gpuest}
WORKLOADS=${WORKLOADS:-"bfs spmv 2dconv hotspot gemm kmeans nw btree lud backprop atax bicg wordcount ss pvc"}
CONFIGS=${CONFIGS:-"mesh56:xy mesh56:yx fermi:-"}
JOBS=${JOBS:-2}
export tmp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for w in $WORKLOADS; do
    for pc in $CONFIGS; do
        echo "$w ${pc%%:*} ${pc##*:}"
    done
done | xargs -P "$JOBS" -L 1 bash -c '
    w=$0; p=$1; r=$2; set=()
    if [ "$r" != "-" ]; then set=(--set "noc.routing_reply=$r"); fi
    if ! "$GPUEST" simulate --preset "$p" --workload "$w" --scale "$scale" --seed 1 --max-cycles "$maxc" \
        "${set[@]}" --csv "$tmp/$w-$p-$r.csv" > "$tmp/$w-$p-$r.log" 2>&1; then
        echo "sim-baseline: $w on $p ($r) failed:" >&2; cat "$tmp/$w-$p-$r.log" >&2; exit 255
    fi'
first=1
for w in $WORKLOADS; do
    for pc in $CONFIGS; do
        p=${pc%%:*}; r=${pc##*:}
        f="$tmp/$w-$p-$r.csv"
        if [ $first = 1 ]; then
            echo "$(head -1 "$f"),routing" > "$tmp/out"
            first=0
        fi
        echo "$(grep ',total,' "$f"),$r" >> "$tmp/out"
    done
done
mv "$tmp/out" "$out"
