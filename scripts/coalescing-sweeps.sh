#!/usr/bin/env bash
# coalescing-sweeps.sh: packet coalescing units on mesh56 XY-YX against one machine parameter
# (coalescing paper Fig. 9, Fig. 10 and the MC placement study), preliminary.
#
#   scripts/coalescing-sweeps.sh rgrs|l2lat|placement OUT.csv [GPUEST] [JOBS]
#
# For each value of the swept key, runs scripts/coalescing-table.sh (mesh56, XY-YX, the same 12
# workloads, --scale small --seed 1, MAX_INSTS default 300000, coalescing none and pcu) with
# EXTRA = "noc.buffer_flits=9 KEY=VALUE", so both runs of a pair see the same value, and writes
# that table's rows with the value as a first column:
#   rgrs       technique.pcu_rgrs  = 64 128 256 512 1024   (paper Fig. 9)
#   l2lat      l2.hit_latency      = 120 2                 (paper Fig. 10)
#   placement  noc.mc_placement    = bottom top_bottom edge diamond
# VALUES (environment) replaces the list. The none run does not read technique.pcu_rgrs; it is
# rerun per value anyway so that every table is a self-contained pair. Written to a temporary
# name, then renamed.
set -euo pipefail

sweep=${1:?usage: coalescing-sweeps.sh rgrs|l2lat|placement OUT.csv [GPUEST] [JOBS]}
out=${2:?usage: coalescing-sweeps.sh rgrs|l2lat|placement OUT.csv [GPUEST] [JOBS]}
gpuest=${3:-build-rel/gpuest}
jobs=${4:-2}
case $sweep in
    rgrs) key=technique.pcu_rgrs; col=rgrs; values=${VALUES:-"64 128 256 512 1024"} ;;
    l2lat) key=l2.hit_latency; col=l2_hit_latency; values=${VALUES:-"120 2"} ;;
    placement) key=noc.mc_placement; col=mc_placement; values=${VALUES:-"bottom top_bottom edge diamond"} ;;
    *) echo "coalescing-sweeps.sh: unknown sweep '$sweep' (expected rgrs, l2lat or placement)" >&2; exit 2 ;;
esac
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

first=1
for v in $values; do
    PRESET=mesh56 ROUTINGS=yx EXTRA="noc.buffer_flits=9 $key=$v" \
        "$here/coalescing-table.sh" "$tmp/$v.csv" "$gpuest" "$jobs" > /dev/null
    if [ $first = 1 ]; then echo "$col,$(head -1 "$tmp/$v.csv")" > "$tmp/all.csv"; first=0; fi
    tail -n +2 "$tmp/$v.csv" | sed "s/^/$v,/" >> "$tmp/all.csv"
    echo "$sweep $v done" >&2
done
mv "$tmp/all.csv" "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "wrote $out"
