#!/usr/bin/env bash
# latte-kopt.sh: technique.l1_compression = kernel_opt (the policy) beside the Kernel-OPT that
# scripts/latte-table.sh computes from separate whole runs, and beside LATTE-CC (docs/latte-cc.md,
# "Kernel-OPT as a policy (seventh session)").
#
#   scripts/latte-kopt.sh OUT.csv [GPUEST] [LATTE_CSV]
#
# For every workload of $WORKLOADS it runs `gpuest simulate --preset latte15 --scale small --seed 1
# --max-instructions 1000000 --set technique.l1_compression=kernel_opt` (the settings of
# data/latte-cc.csv) and takes the base, Kernel-OPT (script) and LATTE-CC cycles of the same
# workload from LATTE_CSV (default data/latte-cc.csv). One row per workload: the three cycle
# counts, their speedups over the plain L1D, the policy against the script's oracle, and how many
# launches the policy ran in none / BDI / SC. Written to a temporary name and renamed.
set -euo pipefail

out=${1:?usage: latte-kopt.sh OUT.csv [GPUEST] [LATTE_CSV]}
gpuest=${2:-build-rel/gpuest}
latte=${3:-data/latte-cc.csv}
workloads=${WORKLOADS:-"backprop hotspot pathfinder btree gemm ss bfs streamcluster srad kmeans nw wordcount fw spmv color"}
[ -x "$gpuest" ] || { echo "latte-kopt.sh: $gpuest is not an executable (build it first)" >&2; exit 2; }
[ -r "$latte" ] || { echo "latte-kopt.sh: $latte: cannot read the LATTE-CC table" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tmp="$out.tmp.$$"
echo "preset,scale,workload,launches,base_cycles,policy_cycles,script_kernel_opt_cycles,latte_cc_cycles," \
     "policy_speedup,script_kernel_opt_speedup,latte_cc_speedup,policy_vs_script,launches_none,launches_bdi," \
     "launches_sc" | tr -d ' ' > "$tmp"
for w in $workloads; do
    "$gpuest" simulate --preset latte15 --workload "$w" --scale small --seed 1 --max-instructions 1000000 \
        --set technique.l1_compression=kernel_opt > "$work/$w.out" 2>&1 ||
        { echo "latte-kopt.sh: $w failed:" >&2; cat "$work/$w.out" >&2; exit 1; }
    pol=$(awk '$1 ~ /^total/ { print $2 }' "$work/$w.out") # total* when the limit cut the run
    [ -n "$pol" ] || { echo "latte-kopt.sh: $w: no total row in its output" >&2; exit 1; }
    modes=$(awk '/^kernel_opt launch/ { n++; c[$NF]++ } END { printf "%d %d %d %d", n, c["none"], c["bdi"], c["sc"] }' \
        "$work/$w.out")
    awk -F, -v w="$w" -v pol="$pol" -v modes="$modes" '
        $3 == w && $8 == "base" { base = $11 }
        $3 == w && $8 == "kernel_opt" { kopt = $11 }
        $3 == w && $8 == "latte_cc" { latte = $11 }
        END {
            if (base == "" || kopt == "" || latte == "") { print "latte-kopt.sh: " w " is not in the table" > "/dev/stderr"; exit 1 }
            split(modes, m, " ")
            printf "latte15,small,%s,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%d,%d,%d\n", w, m[1], base, pol, kopt, latte,
                base / pol, base / kopt, base / latte, kopt / pol, m[2], m[3], m[4]
        }' "$latte" >> "$tmp"
done
mv "$tmp" "$out"
