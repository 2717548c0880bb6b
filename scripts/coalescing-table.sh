#!/usr/bin/env bash
# coalescing-table.sh: packet coalescing units on mesh56 (coalescing paper Fig. 5a, 5b, 7), preliminary.
#
#   scripts/coalescing-table.sh OUT.csv [GPUEST] [JOBS]
#
# For every workload of WORKLOADS (environment; default the 12 below) and each routing of
# ROUTINGS (default "yx": XY requests / YX replies; "xy" gives XY-XY), runs
#   gpuest simulate --preset mesh56 --workload W --scale small --seed 1 --max-instructions N
#       --set noc.buffer_flits=9 --set noc.routing_reply=R --set technique.coalescing=C
# with C = every value of COALESCINGS (environment, default "none pcu"; none must come first;
# the full table adds warppool and pcu+warppool) (N = MAX_INSTS, default 300000, as the mesh56
# compression table), and writes one row per (routing, workload, coalescing) plus mean rows per
# routing and coalescing: IPC and IPC normalized to none, reply packets injected (a multicast
# counts once) and normalized, MC stall cycles and normalized, the actual inter-core locality
# ratio (reads answered by another read's reply / reads), the potential one at 960 cycles (the
# baseline's), grouped reads per reply, mean RGR occupancy, then (paper Fig. 7) the L1 miss
# penalty (core cycles), AMAT and the flits over every network link (a multicast counts once per
# link of its tree), each with its ratio to none, and the share of line requests WarpPool merged.
# Mean rows: "mean" over every workload; "mean_wp" over the workloads whose IPC warppool alone
# raises (the paper's Fig. 6 set, "benchmarks benefitting from Warppool"), written when warppool
# is among COALESCINGS. COALESCINGS_XY (default COALESCINGS) replaces the list for routing xy.
# KEEP=DIR keeps every run's outputs and summary line (DIR/ROUTING.WORKLOAD.COALESCING.row) in DIR
# and reruns none that has one there: an interrupted table resumes. noc.buffer_flits = 9 in both runs: mesh56's 9-flit reply must fit a VC
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
coalescings=${COALESCINGS:-"none pcu"}
coalescings_xy=${COALESCINGS_XY:-$coalescings}
routings=${ROUTINGS:-"yx"}
[ -x "$gpuest" ] || { echo "coalescing-table.sh: $gpuest is not an executable (build it first)" >&2; exit 2; }

if [ -n "${KEEP:-}" ]; then tmp=$KEEP; mkdir -p "$tmp" # finished runs are kept there and not rerun
else tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; fi

# One run and its summary line ($f.row): routing workload coalescing ipc reply_packets stall_cycles
# loc960 actual grouped occupancy miss_latency amat link_flits warppool_requests warppool_merged
run_one() { # routing workload coalescing
    local r=$1 w=$2 c=$3 f="$tmp/$1.$2.$3"
    [ -s "$f.row" ] && return 0
    local sets=(--set technique.coalescing="$c")
    local kv
    for kv in $extra; do sets+=(--set "$kv"); done
    [ "$preset" = mesh56 ] && sets+=(--set noc.routing_reply="$r")
    "$gpuest" simulate --preset "$preset" --workload "$w" --scale small --seed 1 --max-instructions "$max_insts" \
        "${sets[@]}" --csv "$f.csv" --links "$f.links" > "$f.out" 2> "$f.err" || {
        echo "coalescing-table.sh: $w / $r / $c failed: $(cat "$f.err")" >&2; return 1; }
    awk -F, -v r="$r" -v w="$w" -v c="$c" -v out="$f.out" -v links="$f.links" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" {
            act = 0; grp = 0; occ = 0; wpq = 0; wpm = 0; lf = 0
            while ((getline line < out) > 0) {
                split(line, f, " ")
                if (f[1] != "technique") continue
                if (f[2] == "coalescing.actual_locality") act = f[4]
                if (f[2] == "coalescing.grouped_per_reply") grp = f[4]
                if (f[2] == "coalescing.rgr_occupancy") occ = f[4]
                if (f[2] == "warppool.requests") wpq = f[4]
                if (f[2] == "warppool.merged") wpm = f[4]
            }
            while ((getline line < links) > 0) { # flits over every link: column 5
                split(line, f, ",")
                if (f[5] ~ /^[0-9]+$/) lf += f[5]
            }
            print r, w, c, $col["ipc"], $col["reply_packets"], $col["mc_stall_cycles"], \
                  $col["intercore_locality_960"], act, grp, occ, $col["miss_latency"], $col["amat"], sprintf("%.0f", lf), wpq, wpm
        }' "$f.csv" > "$f.row.tmp"
    mv "$f.row.tmp" "$f.row"
}
export -f run_one
export gpuest tmp max_insts preset extra

list_runs() {
    for r in $routings; do
        local cs=$coalescings
        [ "$r" = xy ] && cs=$coalescings_xy
        for w in $workloads; do
            for c in $cs; do echo "$r $w $c"; done
        done
    done
}
list_runs | xargs -P "$jobs" -n 3 bash -c 'run_one "$@"' _

list_runs | while read -r r w c; do cat "$tmp/$r.$w.$c.row"; done | sort > "$tmp/runs.txt"

awk -v preset="$preset" -v order="$coalescings" '
function label(r) { return preset == "mesh56" ? "xy-" r : "crossbar" }
function norm(a, b) { return b > 0 ? a / b : "" }
function f4(x) { return x == "" ? "" : sprintf("%.4f", x) }
{ k = $1 SUBSEP $2; rt[$1] = 1; wl[$1, $2] = 1
  ipc[k, $3] = $4; pk[k, $3] = $5; st[k, $3] = $6; loc[k, $3] = $7; act[k, $3] = $8; grp[k, $3] = $9; occ[k, $3] = $10
  ml[k, $3] = $11; am[k, $3] = $12; lf[k, $3] = $13; wq[k, $3] = $14; wm[k, $3] = $15 }
# one row; adds its normalized values to the sums of mean row set m
function row(r, w, c, m,    k, n_ipc, n_pk, n_st, n_ml, n_am, n_lf, wpr) {
    k = r SUBSEP w
    n_ipc = norm(ipc[k, c], ipc[k, "none"]); n_pk = norm(pk[k, c], pk[k, "none"]); n_st = norm(st[k, c], st[k, "none"])
    n_ml = norm(ml[k, c], ml[k, "none"]); n_am = norm(am[k, c], am[k, "none"]); n_lf = norm(lf[k, c], lf[k, "none"])
    wpr = wq[k, c] > 0 ? wm[k, c] / wq[k, c] : 0
    if (m != "") {
        S[m, r, c, "n"]++; S[m, r, c, "ipc"] += n_ipc; S[m, r, c, "pk"] += n_pk; S[m, r, c, "act"] += act[k, c]
        S[m, r, c, "loc"] += loc[k, "none"]; S[m, r, c, "ml"] += n_ml; S[m, r, c, "am"] += n_am; S[m, r, c, "lf"] += n_lf
        S[m, r, c, "wp"] += wpr
        if (n_st != "") { S[m, r, c, "st"] += n_st; S[m, r, c, "nst"]++ }
        return
    }
    printf "%s,%s,%s,%s,%.4f,%s,%.4f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", label(r), w, c, ipc[k, c], n_ipc, pk[k, c],
        n_pk, st[k, c], f4(n_st), loc[k, "none"], act[k, c], grp[k, c], occ[k, c], ml[k, c], f4(n_ml), am[k, c], f4(n_am),
        lf[k, c], f4(n_lf), f4(wpr)
}
function mean_row(m, r, c,    n) {
    n = S[m, r, c, "n"]; if (!n) return
    printf "%s,%s,%s,,%.4f,,%.4f,,%s,%.4f,%.4f,,,,%.4f,,%.4f,,%.4f,%.4f\n", label(r), m, c, S[m, r, c, "ipc"] / n,
        S[m, r, c, "pk"] / n, S[m, r, c, "nst"] ? sprintf("%.4f", S[m, r, c, "st"] / S[m, r, c, "nst"]) : "",
        S[m, r, c, "loc"] / n, S[m, r, c, "act"] / n, S[m, r, c, "ml"] / n, S[m, r, c, "am"] / n, S[m, r, c, "lf"] / n,
        S[m, r, c, "wp"] / n
}
END {
    print "routing,workload,coalescing,ipc,norm_ipc,reply_packets,norm_reply_packets,mc_stall_cycles,norm_mc_stall," \
          "potential_locality_960,actual_locality,grouped_per_reply,rgr_occupancy,miss_latency,norm_miss_latency," \
          "amat,norm_amat,link_flits,norm_link_flits,warppool_merged_share"
    nc = split(order, cs, " ")
    for (r in rt) {
        for (key in wl) {
            split(key, kk, SUBSEP); if (kk[1] != r) continue; w = kk[2]; k = r SUBSEP w
            benefit = ((k, "warppool") in ipc) && ipc[k, "none"] > 0 && ipc[k, "warppool"] > ipc[k, "none"]
            for (ci = 1; ci <= nc; ci++) {
                c = cs[ci]
                if (!((k, c) in ipc)) continue # not run for this routing (COALESCINGS_XY)
                row(r, w, c, "")
                if (c == "none") continue
                row(r, w, c, "mean")
                if (benefit) row(r, w, c, "mean_wp")
            }
        }
        for (ci = 2; ci <= nc; ci++) { mean_row("mean", r, cs[ci]); mean_row("mean_wp", r, cs[ci]) }
    }
}' "$tmp/runs.txt" > "$tmp/table.csv"
{ head -1 "$tmp/table.csv"; tail -n +2 "$tmp/table.csv" | sort -t, -k1,1 -k2,2 -k3,3; } > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "wrote $out"
