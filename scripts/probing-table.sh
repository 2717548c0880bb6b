#!/usr/bin/env bash
# probing-table.sh: remote-L1 probing on mesh28 (remote-core paper Figs. 2, 4, 9, 13, 14, 15c, 17).
#
#   scripts/probing-table.sh OUT.csv [GPUEST] [JOBS]
#
# Runs, for every workload of ALL (environment; default the 18 below: the candidates for the
# paper's two sets, which are chosen from their PP locality afterwards)
#   gpuest simulate --preset mesh28 --workload W --scale small --seed 1 --max-cycles N
#       --set technique.probing=... (one run per scenario of Figs. 2, 13 and 17)
# and, for every workload of HIGH (default the 12 below), the scenarios of Figs. 4, 9 and 14
# (FIG14 names its imperfect-IP points). With MESHES=1 it adds Fig. 15(c) on MESH_WORKLOADS:
# mesh56 (8x8, 56 SMs, 8 MCs) and a 10x10 mesh (84 SMs, 16 MCs: mesh28 with --set) under
# IP(25 %,1,1) and IP(50 %,1,1). The baseline runs N = MAX_CYCLES core cycles (default 100000;
# MAX_INSTS=N limits warp instructions instead); every other scenario of the workload then runs
# exactly the warp instructions the baseline ran, so all compare the same instruction prefix.
# RUN_TIMEOUT (seconds, default none) stops a run that takes longer; the table keeps the others.
# SWEEP=0 leaves out the Fig. 9 sweep; SWEEP_CORES (default "5 15 27") and SWEEP_SP (S-P pairs,
# default "1-1 2-0.5 2-1") set its points. Writes one row per run: the group (mesh28, mesh56,
# mesh10), workload, scenario label, technique keys, IPC and IPC normalized to the same
# workload's baseline, request and reply flits (and normalized), the reply flits a remote L1
# sent, the remote hit rate (remote replies / L1 read misses: the paper's inter-core locality),
# the share of misses an oracle saw shared, probes, timeouts, deflections, drops, precision and
# recall of the sharing predictor. Written to a temporary name, then renamed. GPUEST defaults to
# build-rel/gpuest; JOBS (default 2) runs in parallel.
set -euo pipefail

out=${1:?usage: probing-table.sh OUT.csv [GPUEST] [JOBS]}
gpuest=${2:-build-rel/gpuest}
jobs=${3:-2}
if [ -n "${MAX_INSTS:-}" ]; then limit="--max-instructions $MAX_INSTS"; else limit="--max-cycles ${MAX_CYCLES:-100000}"; fi
run_timeout=${RUN_TIMEOUT:-0}
all=${ALL:-"bfs 2dconv btree gaussian hotspot lud spmv srad 3dconv streamcluster color gemm kmeans nw atax bicg
            pathfinder backprop"}
high=${HIGH:-"bfs 2dconv btree gaussian hotspot lud spmv srad 3dconv streamcluster color gemm"}
sweep=${SWEEP:-1}
meshes=${MESHES:-0}
[ -x "$gpuest" ] || { echo "probing-table.sh: $gpuest is not an executable (build it first)" >&2; exit 2; }

# RUNS_DIR keeps every run's output there (not removed); TABULATE_ONLY=1 then only rebuilds the
# table from a RUNS_DIR filled earlier (runs missing from it are left out of the table).
if [ -n "${RUNS_DIR:-}" ]; then
    tmp=$RUNS_DIR
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi

# scenario label -> technique keys (probing cores count rate selector precision)
keys() {
    case $1 in
        base) echo "none 15 2 0.2 supplier 1" ;;
        pp) echo "pp 15 2 0.2 supplier 1" ;;
        dp) echo "dp 15 2 0.2 supplier 1" ;;
        ccn) echo "ccn 27 1 1 index 1" ;;
        la_llc) echo "la_llc 15 2 0.2 supplier 1" ;;
        ipx-*) # ipx-C-S-P-SEL-PREC
            IFS=- read -r _ c s p sel prec <<< "$1"; echo "ip $c $s $p $sel $prec" ;;
        ip-*|rp-*) # ip-C-S-P-SEL
            IFS=- read -r m c s p sel <<< "$1"; echo "$m $c $s $p $sel 1" ;;
    esac
}

run_one() { # group preset workload label extra-sets
    local grp=$1 preset=$2 w=$3 label=$4 extra=$5 f="$tmp/$1.$3.$4"
    [ -e "$f.key" ] && return 0 # done in an earlier call with the same RUNS_DIR
    # every scenario runs the instructions the baseline ran in its cycle budget: the same prefix
    local lim=$limit
    if [ "$label" != base ]; then
        local n
        n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                     $c["kernel"] == "total" { print $c["warp_instructions"] }' "$tmp/$grp.$w.base.csv" 2>/dev/null)
        [ -n "$n" ] || { echo "probing-table.sh: $grp / $w / $label: no baseline run" >&2; return 1; }
        lim="--max-instructions $n"
    fi
    local k; k=$(keys "$label")
    read -r m c s p sel prec <<< "$k"
    local sets=(--set technique.probing="$m" --set technique.probe_cores="$c" --set technique.probe_count="$s"
                --set technique.probe_rate="$p" --set technique.probe_selector="$sel"
                --set technique.probe_precision="$prec")
    local kv
    [ "$extra" = - ] || for kv in ${extra//;/ }; do sets+=(--set "$kv"); done
    # shellcheck disable=SC2086
    timeout "$run_timeout" nice -n 10 "$gpuest" simulate --preset "$preset" --workload "$w" --scale small \
        --seed 1 $lim "${sets[@]}" --csv "$f.csv" > "$f.out" 2> "$f.err" || {
        echo "probing-table.sh: $grp / $w / $label failed: $(cat "$f.err")" >&2; return 1; }
    echo "$grp $w $label $m $c $s $p $sel $prec" > "$f.key"
}
export -f run_one keys
export gpuest tmp limit run_timeout

fig13="base pp dp ip-27-1-1-index ip-15-2-0.2-supplier rp-27-1-1-supplier rp-5-2-0.5-supplier ccn la_llc"
fig4="ip-5-1-1-index ip-10-1-1-index ip-15-1-1-index ip-20-1-1-index ip-27-1-1-index"
fig14=${FIG14:-"ipx-5-2-0.5-supplier-0.9 ipx-5-2-0.5-supplier-0.7 ipx-15-2-0.2-supplier-0.9 ipx-15-2-0.2-supplier-0.7"}
fig9=""
if [ "$sweep" = 1 ]; then
    for c in ${SWEEP_CORES:-5 15 27}; do
        for sp in ${SWEEP_SP:-1-1 2-0.5 2-1}; do fig9="$fig9 ip-$c-$sp-supplier"; done
    done
fi
mesh10="core.num_sms=84;noc.k=10;mc.num_mcs=16"
{
    for w in $all; do
        for l in $fig13; do echo "mesh28 mesh28 $w $l -"; done
    done
    for w in $high; do
        for l in $fig4 $fig14 $fig9; do echo "mesh28 mesh28 $w $l -"; done
    done
    if [ "$meshes" = 1 ]; then
        for w in ${MESH_WORKLOADS:-2dconv hotspot lud}; do
            for l in base ip-14-1-1-supplier ip-28-1-1-supplier; do echo "mesh56 mesh56 $w $l -"; done
            for l in base ip-21-1-1-supplier ip-42-1-1-supplier; do echo "mesh10 mesh28 $w $l $mesh10"; done
        done
    fi
} | awk '!seen[$0]++' > "$tmp/list.txt"
# the baselines first (the others take their instruction counts), then the rest in list order
if [ "${TABULATE_ONLY:-0}" != 1 ]; then
    for phase in base other; do
        awk -v p="$phase" '($4 == "base") == (p == "base")' "$tmp/list.txt" |
            xargs -r -P "$jobs" -L 1 bash -c 'run_one "$1" "$2" "$3" "$4" "$5"' _ || true
    done
fi

for k in "$tmp"/*.key; do
    b=${k%.key}
    read -r grp w label m c s p sel prec < "$k"
    awk -F, -v key="$grp $w $label $m $c $s $p $sel $prec" -v out="$b.out" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" {
            split("read_misses oracle_shared remote_hits remote_hit_rate probes_sent timeouts deflections drops " \
                  "precision recall data_sent request_msgs", names, " ")
            for (j in names) v[names[j]] = 0
            while ((getline line < out) > 0) {
                split(line, f, " ")
                if (f[1] == "technique" && substr(f[2], 1, 8) == "probing.") v[substr(f[2], 9)] = f[4]
            }
            rf = $col["reply_packets"] > 0 ? $col["reply_flits"] / $col["reply_packets"] : 0
            remote = v["data_sent"] * rf
            s1 = key " " $col["cycles"] " " $col["ipc"] " " $col["request_flits"] " " $col["reply_flits"] " " remote
            s2 = v["read_misses"] " " v["oracle_shared"] " " v["remote_hits"] " " v["remote_hit_rate"]
            s3 = v["probes_sent"] " " v["request_msgs"] " " v["timeouts"] " " v["deflections"] " " v["drops"]
            print s1 " " s2 " " s3 " " v["precision"] " " v["recall"]
        }' "$b.csv"
done | sort > "$tmp/runs.txt"

awk '
{ k = $1 SUBSEP $2; if ($3 == "base") { bi[k] = $11; bq[k] = $12; br[k] = $13 }
  row[NR] = $0 }
END {
    print "group,workload,scenario,probing,probe_cores,probe_count,probe_rate,probe_selector,probe_precision," \
          "cycles,ipc,norm_ipc,request_flits,norm_request_flits,reply_flits,norm_reply_flits,remote_reply_flits," \
          "read_misses,oracle_shared,remote_hits,remote_hit_rate,probes_sent,probe_request_msgs,timeouts," \
          "deflections,drops,precision,recall"
    for (n = 1; n <= NR; n++) {
        split(row[n], f, " "); k = f[1] SUBSEP f[2]
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%s,%.4f,%s,%.4f,%.0f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
            f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], (bi[k] > 0 ? f[11] / bi[k] : 0),
            f[12], (bq[k] > 0 ? f[12] / bq[k] : 0), f[13], (br[k] > 0 ? f[13] / br[k] : 0), f[14], f[15], f[16],
            f[17], f[18], f[19], f[20], f[21], f[22], f[23], f[24], f[25]
    }
}' "$tmp/runs.txt" > "$tmp/table.csv"
{ head -1 "$tmp/table.csv"; tail -n +2 "$tmp/table.csv" | sort -t, -k1,1 -k2,2 -k3,3; } > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "wrote $out"
