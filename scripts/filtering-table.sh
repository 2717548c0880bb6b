#!/usr/bin/env bash
# filtering-table.sh: critical-word data filtering on mesh56 (data-filtering thesis Figs. 5.1-5.6 and
# its sensitivity study).
#
#   scripts/filtering-table.sh OUT.csv [GPUEST] [JOBS]
#
# For every workload of WORKLOADS (environment; default the 15 generators nearest the thesis'
# benchmarks, then 2dconv, gemm and 3dconv, regular kernels without a thesis counterpart for the
# request controller's check; docs/filtering.md) runs
#   gpuest simulate --preset mesh56 --workload W --scale small --seed 1 --max-instructions N --set K=V...
# (N = MAX_INSTS, default 500000) in these configurations:
#   base      nothing
#   dpc       technique.compression=dpc              (DPC alone, the thesis' second reference)
#   df_truc   technique.filtering=df_truc
#   df_man    technique.filtering=df_man
#   man_norc  df_man with technique.filter_rc=0     (no request controller: always the critical sectors)
#   ica25 ica75 fdr30 fdr60 win8 win32 tab32 tab1024
#             df_man with one key of the sensitivity study changed (thesis Table 5.1; the defaults
#             50 %, 90 %, 16 and 256 are df_man itself)
# SENS=0 (environment) leaves the sensitivity runs out; SENS_WORKLOADS (default: every workload)
# runs them on those workloads only. CACHE=dir (optional) takes a run from dir when dir holds its
# three files (W.C.key, W.C.csv, W.C.out, as this script writes them into its temporary folder)
# instead of simulating it again, and keeps every new run there: the simulator is deterministic, so
# a run of the same binary and command is the same run (used to resume a batch cut short).
# Writes one row per (workload, configuration): IPC, IPC normalized to base and to dpc, reply flits
# (the reply class's flits injected by the MCs: thesis Fig. 5.3's count at the injection queues) and
# their ratios to base and dpc, L1D miss rate, read requests, the FM / SM / HI misses and MSHR
# merges, PDRs / FDRs asked, table merges and overflows, DPC and filtered space savings, and the
# access-pattern share of partial consistent use (thesis 2.2) measured in that run. Written to a
# temporary name, then renamed. GPUEST defaults to build-rel/gpuest; JOBS (default 2) in parallel.
set -euo pipefail

out=${1:?usage: filtering-table.sh OUT.csv [GPUEST] [JOBS]}
gpuest=${2:-build-rel/gpuest}
jobs=${3:-2}
max_insts=${MAX_INSTS:-500000}
workloads=${WORKLOADS:-"backprop bfs gaussian hotspot kmeans lud nw pathfinder srad streamcluster color fw pvc ss wordcount 2dconv gemm 3dconv"}
[ -x "$gpuest" ] || { echo "filtering-table.sh: $gpuest is not an executable (build it first)" >&2; exit 2; }

configs="base dpc df_truc df_man man_norc"
sens_configs="ica25 ica75 fdr30 fdr60 win8 win32 tab32 tab1024"
[ "${SENS:-1}" = 0 ] && sens_configs=""
sens_workloads=${SENS_WORKLOADS:-$workloads}
cache=${CACHE:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sets_of() { # configuration -> its --set arguments
    case $1 in
    base) echo "" ;;
    dpc) echo "technique.compression=dpc" ;;
    df_truc) echo "technique.filtering=df_truc" ;;
    df_man) echo "technique.filtering=df_man" ;;
    man_norc) echo "technique.filtering=df_man technique.filter_rc=0" ;;
    ica25) echo "technique.filtering=df_man technique.filter_ica_threshold=25" ;;
    ica75) echo "technique.filtering=df_man technique.filter_ica_threshold=75" ;;
    fdr30) echo "technique.filtering=df_man technique.filter_fdr_threshold=30" ;;
    fdr60) echo "technique.filtering=df_man technique.filter_fdr_threshold=60" ;;
    win8) echo "technique.filtering=df_man technique.filter_window=8" ;;
    win32) echo "technique.filtering=df_man technique.filter_window=32" ;;
    tab32) echo "technique.filtering=df_man technique.filter_table_entries=32" ;;
    tab1024) echo "technique.filtering=df_man technique.filter_table_entries=1024" ;;
    *) echo "filtering-table.sh: unknown configuration $1" >&2; return 1 ;;
    esac
}

run_one() { # workload configuration
    local w=$1 c=$2 f="$tmp/$1.$2" kv
    if [ -n "$cache" ] && [ -e "$cache/$w.$c.key" ] && [ -e "$cache/$w.$c.csv" ] && [ -e "$cache/$w.$c.out" ]; then
        cp "$cache/$w.$c.csv" "$cache/$w.$c.out" "$cache/$w.$c.key" "$tmp/"
        return 0
    fi
    local sets=()
    for kv in $(sets_of "$c"); do sets+=(--set "$kv"); done
    "$gpuest" simulate --preset mesh56 --workload "$w" --scale small --seed 1 --max-instructions "$max_insts" \
        "${sets[@]}" --csv "$f.csv" > "$f.out" 2> "$f.err" || {
        echo "filtering-table.sh: $w / $c failed: $(cat "$f.err")" >&2; return 1; }
    echo "$w $c" > "$f.key"
    [ -z "$cache" ] || cp "$f.csv" "$f.out" "$f.key" "$cache/"
}
export -f run_one sets_of
export gpuest tmp max_insts cache

for w in $workloads; do
    for c in $configs; do echo "$w $c"; done
    case " $sens_workloads " in *" $w "*) for c in $sens_configs; do echo "$w $c"; done ;; esac
done | xargs -P "$jobs" -n 2 bash -c 'run_one "$@"' _

# one line per run: workload config ipc reply_flits miss_rate read_reqs merges fm sm hi pdr fdr tmerged overflows
#                   filtered_savings dpc_savings partial_ca
for k in "$tmp"/*.key; do
    b=${k%.key}
    read -r w c < "$k"
    awk -F, -v w="$w" -v c="$c" -v out="$b.out" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" {
            split("fm sm hi pdr fdr table_merged table_overflows space_savings dpc_space_savings partial_ca_share", names, " ")
            for (n in names) v[names[n]] = "NA"
            dpcsave = "NA"
            while ((getline line < out) > 0) {
                split(line, f, " ")
                if (f[1] != "technique") continue
                if (f[2] ~ /^filtering\./) { sub(/^filtering\./, "", f[2]); v[f[2]] = f[4] }
                if (f[2] == "compression.mean_payload_bits") dpcsave = 1 - f[4] / 1024
            }
            if (c == "dpc") v["dpc_space_savings"] = dpcsave
            print w, c, $col["ipc"], $col["reply_flits"], $col["l1_miss_rate"], $col["read_requests"], \
                  $col["l1_mshr_merges"], v["fm"], v["sm"], v["hi"], v["pdr"], v["fdr"], v["table_merged"], \
                  v["table_overflows"], v["space_savings"], v["dpc_space_savings"], v["partial_ca_share"]
        }' "$b.csv"
done | sort > "$tmp/runs.txt"

awk -v thesis="backprop=R.BP bfs=R.BFS gaussian=R.GSN hotspot=R.HS kmeans=R.KM lud=R.LUD nw=R.NW pathfinder=R.PATHF srad=R.SRAD streamcluster=R.SC color=G.GCO fw=G.APSP pvc=M.PVC ss=M.SS wordcount=M.WC" '
BEGIN {
    n = split(thesis, t, " ")
    for (i = 1; i <= n; i++) { split(t[i], kv, "="); name[kv[1]] = kv[2] }
    print "workload,thesis_benchmark,config,ipc,ipc_vs_base,ipc_vs_dpc,reply_flits,reply_flits_vs_base,reply_flits_vs_dpc," \
          "l1_miss_rate,read_requests,mshr_merges,fm,sm,hi,pdr,fdr,table_merged,table_overflows,space_savings," \
          "dpc_space_savings,partial_ca_share"
}
{ k = $1 SUBSEP $2; row[k] = $0; ipc[k] = $3; fl[k] = $4; wl[$1] = 1; order[++nr] = k }
END {
    for (r = 1; r <= nr; r++) {
        k = order[r]; split(row[k], f, " ")
        b = f[1] SUBSEP "base"; d = f[1] SUBSEP "dpc"
        tb = "-"
        if (f[1] in name) tb = name[f[1]]
        nb = ipc[b] > 0 ? f[3] / ipc[b] : 0; nd = ipc[d] > 0 ? f[3] / ipc[d] : 0
        rb = fl[b] > 0 ? f[4] / fl[b] : 0; rd = fl[d] > 0 ? f[4] / fl[d] : 0
        printf "%s,%s,%s,%s,%.4f,%.4f,%s,%.4f,%.4f", f[1], tb, f[2], f[3], nb, nd, f[4], rb, rd
        for (i = 5; i <= 17; i++) printf ",%s", f[i]
        printf "\n"
    }
}' "$tmp/runs.txt" > "$tmp/table.csv"

mv "$tmp/table.csv" "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "filtering-table.sh: wrote $out ($(($(wc -l < "$out") - 1)) runs)"
