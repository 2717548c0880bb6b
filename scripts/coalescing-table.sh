#!/usr/bin/env bash
# coalescing-table.sh: packet coalescing units on mesh56 (coalescing paper Fig. 5a, 5b, 7), preliminary.
#
#   scripts/coalescing-table.sh OUT.csv [GPUEST] [JOBS]
#
# For every workload of WORKLOADS (environment; default the 12 below) and each routing of
# ROUTINGS (default "yx": XY requests / YX replies; "xy" gives XY-XY), runs
#   gpuest simulate --preset mesh56 --workload W --scale small --seed 1 --max-instructions N
#       --set noc.buffer_flits=9 --set noc.routing_reply=R --set technique.coalescing=C
# with C = none and pcu (N = MAX_INSTS, default 300000, as the mesh56 compression table), and
# writes one row per (routing, workload, coalescing) plus a mean row per routing: IPC and IPC
# normalized to none, reply packets injected (a multicast counts once) and normalized, MC stall
# cycles and normalized, the actual inter-core locality ratio (reads answered by another read's
# reply / reads), the potential one at 960 cycles (the baseline's), grouped reads per reply and
# mean RGR occupancy. noc.buffer_flits = 9 in both runs: mesh56's 9-flit reply must fit a VC
# buffer to travel as one multicast packet (docs/technique.md). Written to a temporary name, then
# renamed. GPUEST defaults to build-rel/gpuest; JOBS (default 2) runs in parallel.
# PRESET=fermi (environment) runs the crossbar instead: no buffer rule there (EXTRA, default
# "noc.buffer_flits=9" on mesh56 and empty otherwise, replaces it), ROUTINGS is ignored
# (one routing, written as crossbar) and MAX_INSTS defaults to 1000000. EXTRA may hold several
# space-separated key=value pairs, each passed as its own --set to both runs (the sweeps of
# scripts/coalescing-sweeps.sh add technique.pcu_rgrs, l2.hit_latency or noc.mc_placement).
set -euo pipefail

out=${1:?usage: coalescing-table.sh OUT.csv [GPUEST] [JOBS]}
gpuest=${2:-build-rel/gpuest}
jobs=${3:-2}
preset=${PRESET:-mesh56}
if [ "$preset" = mesh56 ]; then extra=${EXTRA-noc.buffer_flits=9}; max_insts=${MAX_INSTS:-300000}
else extra=${EXTRA-}; max_insts=${MAX_INSTS:-1000000}; ROUTINGS=yx; fi
workloads=${WORKLOADS:-"bfs color btree pvc wordcount ss lud gaussian kmeans atax bicg 2dconv"}
routings=${ROUTINGS:-"yx"}
[ -x "$gpuest" ] || { echo "coalescing-table.sh: $gpuest is not an executable (build it first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_one() { # routing workload coalescing
    local r=$1 w=$2 c=$3 f="$tmp/$1.$2.$3"
    local sets=(--set technique.coalescing="$c")
    local kv
    for kv in $extra; do sets+=(--set "$kv"); done
    [ "$preset" = mesh56 ] && sets+=(--set noc.routing_reply="$r")
    "$gpuest" simulate --preset "$preset" --workload "$w" --scale small --seed 1 --max-instructions "$max_insts" \
        "${sets[@]}" --csv "$f.csv" > "$f.out" 2> "$f.err" || {
        echo "coalescing-table.sh: $w / $r / $c failed: $(cat "$f.err")" >&2; return 1; }
    echo "$r $w $c" > "$f.key"
}
export -f run_one
export gpuest tmp max_insts preset extra

for r in $routings; do
    for w in $workloads; do
        for c in none pcu; do echo "$r $w $c"; done
    done
done | xargs -P "$jobs" -n 3 bash -c 'run_one "$@"' _

# one line per run: routing workload coalescing ipc reply_packets stall_cycles loc960 actual grouped occupancy
for k in "$tmp"/*.key; do
    b=${k%.key}
    read -r r w c < "$k"
    awk -F, -v r="$r" -v w="$w" -v c="$c" -v out="$b.out" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" {
            act = 0; grp = 0; occ = 0
            while ((getline line < out) > 0) {
                split(line, f, " ")
                if (f[1] != "technique") continue
                if (f[2] == "coalescing.actual_locality") act = f[4]
                if (f[2] == "coalescing.grouped_per_reply") grp = f[4]
                if (f[2] == "coalescing.rgr_occupancy") occ = f[4]
            }
            print r, w, c, $col["ipc"], $col["reply_packets"], $col["mc_stall_cycles"], \
                  $col["intercore_locality_960"], act, grp, occ
        }' "$b.csv"
done | sort > "$tmp/runs.txt"

awk -v preset="$preset" '
function label(r) { return preset == "mesh56" ? "xy-" r : "crossbar" }
{ k = $1 SUBSEP $2; rt[$1] = 1; wl[$1, $2] = 1
  ipc[k, $3] = $4; pk[k, $3] = $5; st[k, $3] = $6; loc[k, $3] = $7; act[k, $3] = $8; grp[k, $3] = $9; occ[k, $3] = $10 }
END {
    print "routing,workload,coalescing,ipc,norm_ipc,reply_packets,norm_reply_packets,mc_stall_cycles,norm_mc_stall," \
          "potential_locality_960,actual_locality,grouped_per_reply,rgr_occupancy"
    for (r in rt) {
        n = 0; si = 0; sp = 0; ss = 0; ns = 0; sa = 0; sl = 0
        for (key in wl) {
            split(key, kk, SUBSEP); if (kk[1] != r) continue; w = kk[2]; k = r SUBSEP w
            for (ci = 1; ci <= 2; ci++) {
                c = ci == 1 ? "none" : "pcu"
                ni = ipc[k, "none"] > 0 ? ipc[k, c] / ipc[k, "none"] : 0
                np = pk[k, "none"] > 0 ? pk[k, c] / pk[k, "none"] : 0
                nst = st[k, "none"] > 0 ? sprintf("%.4f", st[k, c] / st[k, "none"]) : ""
                printf "%s,%s,%s,%s,%.4f,%s,%.4f,%s,%s,%s,%s,%s,%s\n", label(r), w, c, ipc[k, c], ni, pk[k, c], np,
                    st[k, c], nst, loc[k, "none"], act[k, c], grp[k, c], occ[k, c]
                if (c == "pcu") { n++; si += ni; sp += np; sa += act[k, c]; sl += loc[k, "none"]
                                  if (nst != "") { ss += nst; ns++ } }
            }
        }
        if (n) printf "%s,mean,pcu,,%.4f,,%.4f,,%s,%.4f,%.4f,,\n", label(r), si / n, sp / n, ns ? sprintf("%.4f", ss / ns) : "",
            sl / n, sa / n
    }
}' "$tmp/runs.txt" > "$tmp/table.csv"
{ head -1 "$tmp/table.csv"; tail -n +2 "$tmp/table.csv" | sort -t, -k1,1 -k2,2 -k3,3; } > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "wrote $out"
