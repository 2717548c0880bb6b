#!/usr/bin/env bash
# compression-table.sh: the packet compression thesis' Fig. 6.1 / 6.2 / 6.3 on one machine.
#
#   scripts/compression-table.sh PRESET OUT.csv [GPUEST] [JOBS]
#   scripts/compression-table.sh --means TABLE.csv     (recomputes the mean rows of a table in place)
#
# Runs `gpuest simulate` (scale small, seed 1) for every workload of the INT and FP sets below
# with technique.compression = none and each algorithm, and writes one row per (workload,
# algorithm) plus, per algorithm, the INT and FP means: IPC normalized to `none`, compression
# rate (flits saved / flits of the uncompressed read replies, the thesis' definition), the same
# net of the technique's control packets, MC NI stall cycles normalized to `none`, AMAT, reply
# flits (control packets included). GPUEST defaults to build-rel/gpuest; JOBS (default 2) runs
# in parallel. Every run stops after MAX_INSTS warp instructions (environment, default 1000000;
# the thesis stops at 1 billion thread instructions), so every algorithm runs the same work and
# the long workloads (color, kmeans, srad) stay affordable. The output is written to a
# temporary name and renamed.
set -euo pipefail

# The table from one line per run: group workload thesis algo ipc stall_cycles stall_ratio amat
# reply_flits rate net_rate bits err. Means are arithmetic over the group's workloads; the stall
# mean leaves out workloads whose baseline MC NI stalls in under 1 % of its cycles (there the
# normalized stall is a ratio of a few cycles: atax's 0.01 % becomes +900 % with C-Pack's sync
# packets, which says nothing about a bottleneck; their rows still show it).
aggregate() {
    awk -v preset="$1" '
    { key = $2; alg = $4; grp[key] = $1; th[key] = $3;
      ipc[key, alg] = $5; stall[key, alg] = $6; ratio[key, alg] = $7; amat[key, alg] = $8; flits[key, alg] = $9;
      rate[key, alg] = $10; net[key, alg] = $11; bits[key, alg] = $12; err[key, alg] = $13; algs[alg] = 1 }
    END {
        print "preset,group,workload,thesis_benchmark,algorithm,ipc,norm_ipc,compression_rate,net_compression_rate," \
              "mc_stall_cycles,norm_mc_stall,mc_stall_ratio,amat,reply_flits,approx_bits,app_error"
        n = split("none bdi fpc cpack bpc sc2 dsm dsm_approx dpc", order, " ")
        ng = split("INT FP", groups, " ")
        for (gi = 1; gi <= ng; gi++) {
            G = groups[gi]
            for (k in grp) if (grp[k] == G) keys[G] = keys[G] " " k
            m = split(keys[G], ks, " ")
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (ks[j] < ks[i]) { s = ks[i]; ks[i] = ks[j]; ks[j] = s }
            for (oi = 1; oi <= n; oi++) {
                a = order[oi]; if (!(a in algs)) continue
                sn = 0; si = 0; sr = 0; snr = 0; ss = 0; sns = 0; sa = 0
                for (i = 1; i <= m; i++) {
                    k = ks[i]; if (!((k, a) in ipc)) continue
                    ni = ipc[k, "none"] > 0 ? ipc[k, a] / ipc[k, "none"] : 0
                    nstall = ""
                    if (stall[k, "none"] > 0) nstall = sprintf("%.4f", stall[k, a] / stall[k, "none"])
                    if (stall[k, "none"] > 0 && ratio[k, "none"] >= 0.01) { ss += nstall; sns++ }
                    printf "%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%s,%s,%s,%s,%s,%s,%s\n", preset, G, k, th[k], a,
                        ipc[k, a], ni, rate[k, a], net[k, a], stall[k, a], nstall, ratio[k, a], amat[k, a], flits[k, a],
                        bits[k, a], err[k, a]
                    sn++; si += ni; sr += rate[k, a]; snr += net[k, a]; sa += amat[k, a]
                }
                if (sn) printf "%s,%s,mean,%s,%s,,%.4f,%.4f,%.4f,,%s,,%.2f,,,\n", preset, G, G "-mean", a,
                    si / sn, sr / sn, snr / sn, sns ? sprintf("%.4f", ss / sns) : "", sa / sn
            }
        }
    }'
}

if [ "${1:-}" = "--means" ]; then
    t=${2:?usage: compression-table.sh --means TABLE.csv}
    p=$(awk -F, 'NR == 2 { print $1 }' "$t")
    awk -F, 'NR > 1 && $3 != "mean" { print $2, $3, $4, $5, $6, $10, $12, $13, $14, $8, $9,
                                         ($15 == "" ? "" : $15), ($16 == "" ? "" : $16) }' "$t" | sort |
        aggregate "$p" > "$t.tmp.$$" && mv "$t.tmp.$$" "$t"
    echo "recomputed the means of $t"
    exit 0
fi

preset=${1:?usage: compression-table.sh PRESET OUT.csv [GPUEST] [JOBS]}
out=${2:?usage: compression-table.sh PRESET OUT.csv [GPUEST] [JOBS]}
gpuest=${3:-build-rel/gpuest}
jobs=${4:-2}
max_insts=${MAX_INSTS:-1000000}
[ -x "$gpuest" ] || { echo "compression-table.sh: $gpuest is not an executable (build it first)" >&2; exit 2; }

# Our generator -> the thesis' benchmark (Tables 6.2 and 6.3); see docs/technique.md for why.
# INT_SET / FP_SET (environment) replace the sets, e.g. for a shorter run on a bigger machine.
int_set=${INT_SET:-"bfs:R-BFS color:P-BFS btree:R-BTR pvc:M-PVC wordcount:M-PVR ss:M-SS pathfinder:N-RED nw:R-HW"}
fp_set=${FP_SET:-"lud:R-LUD gaussian:R-GE kmeans:R-KM atax:P-ATAX bicg:P-BICG 2dconv:P-2DCNV srad:R-SRAD2"}
algos="none bdi fpc cpack bpc sc2 dsm dsm_approx dpc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_one() { # group workload thesis algo
    local g=$1 w=$2 t=$3 a=$4 f="$tmp/$2.$4"
    "$gpuest" simulate --preset "$preset" --workload "$w" --scale small --seed 1 --max-instructions "$max_insts" \
        --set technique.compression="$a" --csv "$f.csv" > "$f.out" 2> "$f.err" || {
        echo "compression-table.sh: $w / $a failed: $(cat "$f.err")" >&2; return 1; }
    echo "$g $w $t $a" > "$f.key"
}
export -f run_one
export gpuest preset tmp max_insts

for g in INT FP; do
    set_=$int_set; [ $g = FP ] && set_=$fp_set
    for pair in $set_; do
        for a in $algos; do echo "$g ${pair%%:*} ${pair##*:} $a"; done
    done
done | xargs -P "$jobs" -n 4 bash -c 'run_one "$@"' _

# one line per run: group workload thesis algo ipc stall_cycles stall_ratio amat reply_flits rate net_rate bits err
for k in "$tmp"/*.key; do
    b=${k%.key}
    read -r g w t a < "$k"
    awk -F, -v g="$g" -v w="$w" -v t="$t" -v a="$a" -v out="$b.out" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" {
            rate = 0; net = 0; bits = ""; err = "";
            while ((getline line < out) > 0) {
                n = split(line, f, " ");
                if (f[1] != "technique") continue;
                if (f[2] == "compression.rate") rate = f[4];
                if (f[2] == "compression.net_rate") net = f[4];
                if (f[2] == "compression.approx_bits") bits = f[4];
                if (f[2] == "compression.app_error" && f[4] >= 0) err = f[4];
            }
            print g, w, t, a, $col["ipc"], $col["mc_stall_cycles"], $col["mc_stall_ratio"], $col["amat"],
                  $col["reply_flits"], rate, net, bits, err
        }' "$b.csv"
done | sort > "$tmp/runs.txt"

aggregate "$preset" < "$tmp/runs.txt" > "$tmp/table.csv"
mv "$tmp/table.csv" "$out.tmp.$$" && mv "$out.tmp.$$" "$out"
echo "wrote $out"
