#!/bin/sh
# Figures and reports of the example sweeps under data/examples/ (their databases come from the
# `gpuest sweep` commands in the README, section "Design-space sweeps").
#   scripts/examples-figures.sh [build-rel/gpuest]
set -eu
gpuest=${1:-build-rel/gpuest}
ex=data/examples
# 200-point estimate sweep: IPC against two swept keys, and the report
"$gpuest" plot $ex/estimate200.sqlite --figure stat-vs-key --stat ipc --key l2.hit_latency --out $ex/estimate200-ipc-l2lat.svg
"$gpuest" plot $ex/estimate200.sqlite --figure stat-vs-key --stat ipc --key noc.flit_bytes --out $ex/estimate200-ipc-flit.svg
"$gpuest" report $ex/estimate200.sqlite --out $ex/estimate200-report
# 24-point detailed sweep: normalized IPC per workload and technique, estimate against detailed
"$gpuest" plot $ex/detailed24.sqlite --figure ipc-bars --out $ex/detailed24-ipc-bars.svg
"$gpuest" plot $ex/detailed24.sqlite --with $ex/detailed24-estimate.sqlite --figure estimate-vs-simulate \
    --out $ex/detailed24-estimate-vs-simulate.svg
"$gpuest" report $ex/detailed24.sqlite --with $ex/detailed24-estimate.sqlite --out $ex/detailed24-report
# network sweep: latency against injection rate
"$gpuest" plot $ex/noc-latency.sqlite --figure latency-injection --out $ex/noc-latency.svg
