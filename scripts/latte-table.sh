#!/usr/bin/env bash
# latte-table.sh: the LATTE-CC paper's Figs. 11, 12, 16, 17, 18 and its 48 KB L1 sensitivity on
# the latte15 machine (docs/latte-cc.md).
#
#   scripts/latte-table.sh OUT.csv [GPUEST] [JOBS]
#
# For every workload below it runs `gpuest simulate --preset latte15` (scale $SCALE, default
# small, seed 1, at most $MAX_INSTS warp instructions, default 1000000: every configuration runs
# the same work) with: the plain 16 KB L1D (base), a plain 64 KB L1D (x4: the paper's cache
# sensitivity rule), each technique.l1_compression policy on 16 KB, and none / static_bdi /
# latte_cc on a 48 KB L1D. Kernel-OPT is an oracle made from the runs: for every launch the least
# cycles of none, static_bdi and static_sc (the L1D is flushed at every launch, so a launch's L1
# behaviour does not depend on the mode of the launches before it; see docs/latte-cc.md). One row
# per (workload, configuration): cycles, speedup over the plain L1D of the same size, L1D misses,
# misses per kilo warp instruction, miss reduction, and the policy's statistics (effective
# capacity, share of EPs in each mode, decompression cycles per hit and their distribution,
# effective capacity in 16 slices of the run, share of EPs in BDI and in the high-capacity mode
# in 8 slices); then per-class means (our class: speedup with a
# 4x L1D over 20 %, the paper's rule). Written to a temporary name and renamed.
set -euo pipefail

out=${1:?usage: latte-table.sh OUT.csv [GPUEST] [JOBS]}
gpuest=${2:-build-rel/gpuest}
jobs=${3:-2}
scale=${SCALE:-small}
max_insts=${MAX_INSTS:-1000000}
[ -x "$gpuest" ] || { echo "latte-table.sh: $gpuest is not an executable (build it first)" >&2; exit 2; }

# Our generator : the paper's abbreviation (Table III) : the paper's class. WORKLOADS replaces it.
workloads=${WORKLOADS:-"bfs:BFS:C-Sens kmeans:KM:C-Sens ss:SS:C-Sens gemm:MM:C-Sens color:CLR:C-Sens fw:FW:C-Sens
spmv:PRK:C-Sens pathfinder:PTH:C-InSens hotspot:HOT:C-InSens backprop:BP:C-InSens nw:NW:C-InSens
srad:SR1:C-InSens streamcluster:SC:C-InSens btree:BT:C-InSens wordcount:WC:C-InSens"}
# configuration : L1D bytes : policy
configs="base:16384:none x4:65536:none static_bdi:16384:static_bdi static_sc:16384:static_sc
static_bpc:16384:static_bpc latte_cc:16384:latte_cc latte_cc_bdi_bpc:16384:latte_cc_bdi_bpc
adaptive_hit_count:16384:adaptive_hit_count adaptive_cmp:16384:adaptive_cmp base48:49152:none
static_bdi48:49152:static_bdi latte_cc48:49152:latte_cc"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for w in $workloads; do
    for c in $configs; do
        echo "${w%%:*} ${c%%:*} $(echo "$c" | cut -d: -f2) ${c##*:}"
    done
done > "$work/jobs"

run_one() { # workload config l1_bytes policy
    "$gpuest" simulate --preset latte15 --workload "$1" --scale "$scale" --seed 1 --max-instructions "$max_insts" \
        --set "l1.size_bytes=$3" --set "technique.l1_compression=$4" --csv "$work/$1.$2.csv" > "$work/$1.$2.out" 2>&1 ||
        { echo "latte-table.sh: $1 $2 failed (see below)" >&2; cat "$work/$1.$2.out" >&2; return 1; }
}
export -f run_one
export gpuest scale max_insts work
xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ < "$work/jobs"

# One line per run for awk: workload abbr class config l1 policy, then per-kernel cycles and
# misses from the CSV (launch:cycles:misses ...), then the total row, then the technique stats.
for w in $workloads; do
    IFS=: read -r name abbr class <<< "$w"
    for c in $configs; do
        cfg=${c%%:*}
        l1=$(echo "$c" | cut -d: -f2)
        pol=${c##*:}
        kern=$(awk -F, 'NR > 1 && $3 != "total" { printf "%s:%s:%s ", $16, $4, $23 }' "$work/$name.$cfg.csv")
        tot=$(awk -F, 'NR > 1 && $3 == "total" { print $4, $5, $23, $22 }' "$work/$name.$cfg.csv")
        st=$(awk '/^technique l1_compression\./ { sub("l1_compression.", "", $2); printf "%s=%s ", $2, $4 }' \
            "$work/$name.$cfg.out")
        echo "R $name $abbr $class $cfg $l1 $pol $tot K $kern S $st"
    done
done > "$work/lines"

tmp="$out.tmp.$$"
awk -v preset=latte15 -v scale="$scale" '
function stat(k, name) { return ((k, name) in S) ? S[k, name] : "" }
{
    w = $2; cfg = $5; key = w SUBSEP cfg
    abbr[w] = $3; pclass[w] = $4; l1[key] = $6; pol[key] = $7
    cyc[key] = $8; insts[key] = $9; miss[key] = $10; hits[key] = $11; seen[w] = 1; cfgs[cfg] = 1
    i = 12
    if ($i == "K") for (i = 13; i <= NF && $i != "S"; i++) {
        split($i, a, ":"); kc[key, a[1]] = a[2]; km[key, a[1]] = a[3]; nk[key] = a[1] + 1
    }
    for (i++; i <= NF; i++) { split($i, a, "="); S[key, a[1]] = a[2] }
}
END {
    ns = split("ep_share_none ep_share_bdi ep_share_sc ep_share_bpc capacity_mean latency_tolerance hit_extra " \
               "hit_extra_0 hit_extra_1_8 hit_extra_9_16 hit_extra_17_32 hit_extra_33_64 hit_extra_65up " \
               "fills_compressed fill_bytes", sn, " ")
    printf "preset,scale,workload,paper_abbr,paper_class,our_class,speedup_x4,config,l1_bytes,policy,cycles," \
           "warp_instructions,l1_misses,l1_mpki,speedup,miss_reduction"
    for (j = 1; j <= ns; j++) printf ",%s", sn[j]
    for (b = 0; b < 16; b++) printf ",capacity_t%02d", b
    for (b = 0; b < 8; b++) printf ",bdi_share_t%d,hc_share_t%d", b, b
    printf "\n"
    order = "base x4 static_bdi static_sc static_bpc latte_cc latte_cc_bdi_bpc kernel_opt adaptive_hit_count " \
            "adaptive_cmp base48 static_bdi48 latte_cc48"
    no = split(order, ord, " ")
    # Kernel-OPT: per launch the least cycles of none / static_bdi / static_sc
    for (w in seen) {
        b = w SUBSEP "base"; k = w SUBSEP "kernel_opt"; cyc[k] = 0; miss[k] = 0; insts[k] = insts[b]
        l1[k] = 16384; pol[k] = "oracle"
        for (l = 0; l < nk[b]; l++) {
            best = "base"
            if (kc[w, "static_bdi", l] < kc[w, best, l]) best = "static_bdi"
            if (kc[w, "static_sc", l] < kc[w, best, l]) best = "static_sc"
            cyc[k] += kc[w, best, l]; miss[k] += km[w, best, l]
        }
        sx = cyc[w, "x4"] > 0 ? cyc[b] / cyc[w, "x4"] : 0
        x4[w] = sx; ours[w] = sx > 1.2 ? "C-Sens" : "C-InSens"
    }
    nw = 0; for (w in seen) wl[++nw] = w
    for (i = 1; i <= nw; i++) for (j = i + 1; j <= nw; j++) if (wl[j] < wl[i]) { t = wl[i]; wl[i] = wl[j]; wl[j] = t }
    for (i = 1; i <= nw; i++) {
        w = wl[i]
        for (o = 1; o <= no; o++) {
            c = ord[o]; k = w SUBSEP c; if (!(k in cyc)) continue
            ref = (c ~ /48$/) ? w SUBSEP "base48" : w SUBSEP "base"
            sp = cyc[k] > 0 ? cyc[ref] / cyc[k] : 0
            mr = miss[ref] > 0 ? 1 - miss[k] / miss[ref] : 0
            mpki = insts[k] > 0 ? 1000 * miss[k] / insts[k] : 0
            printf "%s,%s,%s,%s,%s,%s,%.4f,%s,%s,%s,%d,%d,%d,%.3f,%.4f,%.4f", preset, scale, w, abbr[w], pclass[w],
                ours[w], x4[w], c, l1[k], pol[k], cyc[k], insts[k], miss[k], mpki, sp, mr
            for (j = 1; j <= ns; j++) printf ",%s", stat(k, sn[j])
            for (b = 0; b < 16; b++) printf ",%s", stat(k, sprintf("capacity_t%02d", b))
            for (b = 0; b < 8; b++) printf ",%s,%s", stat(k, sprintf("bdi_share_t%d", b)), stat(k, sprintf("hc_share_t%d", b))
            printf "\n"
            if (c != "base" && c != "base48") {
                for (g = 1; g <= 2; g++) {
                    cl = g == 1 ? ours[w] : pclass[w]; tag = g == 1 ? "ours" : "paper"
                    msum[tag, cl, c] += sp; mmr[tag, cl, c] += mr; mn[tag, cl, c]++
                }
            }
        }
    }
    # class means: by our classification and by the paper'"'"'s Table III classification
    for (g = 1; g <= 2; g++) for (cli = 1; cli <= 2; cli++) {
        tag = g == 1 ? "ours" : "paper"; cl = cli == 1 ? "C-Sens" : "C-InSens"
        for (o = 1; o <= no; o++) {
            c = ord[o]; if (!((tag, cl, c) in mn)) continue
            printf "%s,%s,mean-%s,,%s,%s,,%s,,,,,,,%.4f,%.4f", preset, scale, tag, (g == 2 ? cl : ""), \
                (g == 1 ? cl : ""), c, msum[tag, cl, c] / mn[tag, cl, c], mmr[tag, cl, c] / mn[tag, cl, c]
            for (j = 1; j <= ns + 32; j++) printf ","
            printf "\n"
        }
    }
}' "$work/lines" > "$tmp"
mv "$tmp" "$out"
echo "wrote $out"
