#!/usr/bin/env bash
# latte-report.sh: the markdown tables of docs/latte-cc.md from a table of scripts/latte-table.sh.
#
#   scripts/latte-report.sh data/latte-cc.csv
#
# Prints: the classification beside the paper's Table III; per workload the speedup and the L1
# miss reduction of every policy (Figs. 11, 12, 17, 18, Kernel-OPT); the class means by the
# paper's classification and by ours; the 48 KB sensitivity; the effective capacity of SS in 16
# slices of its run (Fig. 16); the share of EPs in each mode and the decompression cycles per hit.
set -euo pipefail
t=${1:?usage: latte-report.sh TABLE.csv}

awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    w = $col["workload"]; c = $col["config"]
    if (w ~ /^mean-/) { mean[w, ($col["paper_class"] != "" ? $col["paper_class"] : $col["our_class"]), c] = $col["speedup"] SUBSEP $col["miss_reduction"]; next }
    if (!(w in seen)) { seen[w] = 1; wl[++nw] = w }
    abbr[w] = $col["paper_abbr"]; pc[w] = $col["paper_class"]; oc[w] = $col["our_class"]; x4[w] = $col["speedup_x4"]
    sp[w, c] = $col["speedup"]; cy[w, c] = $col["cycles"]; mr[w, c] = $col["miss_reduction"]; mpki[w, c] = $col["l1_mpki"]
    for (m = 1; m <= 4; m++) { split("none bdi sc bpc", mn, " "); sh[w, c, m] = $col["ep_share_" mn[m]] }
    hx[w, c] = $col["hit_extra"]; cap[w, c] = $col["capacity_mean"]; lt[w, c] = $col["latency_tolerance"]
    for (b = 0; b < 16; b++) capt[w, c, b] = $col[sprintf("capacity_t%02d", b)]
}
function pct(x) { return x == "" ? "" : sprintf("%+.1f %%", 100 * (x - 1)) }
function pctr(x) { return x == "" ? "" : sprintf("%.1f %%", 100 * x) }
END {
    print "### Classification (a 4x L1D: over 20 % speedup = C-Sens)\n"
    print "| workload | paper | paper class (Table III) | speedup with 64 KB L1D | our class | L1 MPKI (16 KB) |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= nw; i++) { w = wl[i]
        printf "| %s | %s | %s | %s | %s | %.1f |\n", w, abbr[w], pc[w], pct(x4[w]), oc[w], mpki[w, "base"] }
    n = split("static_bdi static_sc static_bpc latte_cc latte_cc_bdi_bpc kernel_opt adaptive_hit_count adaptive_cmp", P, " ")
    print "\n### Speedup over the uncompressed 16 KB L1D (Figs. 11, 17, 18)\n"
    printf "| workload | class (paper / ours) |"; for (j = 1; j <= n; j++) printf " %s |", P[j]; print ""
    printf "|---|---|"; for (j = 1; j <= n; j++) printf "---|"; print ""
    for (i = 1; i <= nw; i++) { w = wl[i]; printf "| %s | %s / %s |", w, pc[w], oc[w]
        for (j = 1; j <= n; j++) printf " %s |", pct(sp[w, P[j]]); print "" }
    print "\n### L1D miss reduction (Fig. 12)\n"
    printf "| workload |"; for (j = 1; j <= n; j++) printf " %s |", P[j]; print ""
    printf "|---|"; for (j = 1; j <= n; j++) printf "---|"; print ""
    for (i = 1; i <= nw; i++) { w = wl[i]; printf "| %s |", w
        for (j = 1; j <= n; j++) printf " %s |", pctr(mr[w, P[j]]); print "" }
    print "\n### Class means (speedup / miss reduction)\n"
    printf "| class |"; for (j = 1; j <= n; j++) printf " %s |", P[j]; print ""
    printf "|---|"; for (j = 1; j <= n; j++) printf "---|"; print ""
    for (g = 1; g <= 2; g++) for (k = 1; k <= 2; k++) {
        tag = g == 1 ? "mean-paper" : "mean-ours"; cl = k == 1 ? "C-Sens" : "C-InSens"
        printf "| %s (%s classes) |", cl, (g == 1 ? "paper" : "our")
        for (j = 1; j <= n; j++) { v = mean[tag, cl, P[j]]; split(v, a, SUBSEP)
            printf " %s |", v == "" ? "" : pct(a[1]) " / " pctr(a[2]) }
        print "" }
    print "\n### 48 KB L1D (speedup over the uncompressed 48 KB L1D)\n"
    print "| workload | 48 KB plain over 16 KB plain | static_bdi 48 KB | latte_cc 48 KB |"
    print "|---|---|---|---|"
    for (i = 1; i <= nw; i++) { w = wl[i]
        printf "| %s | %s | %s | %s |\n", w, (cy[w, "base48"] > 0 ? pct(cy[w, "base"] / cy[w, "base48"]) : ""), pct(sp[w, "static_bdi48"]), pct(sp[w, "latte_cc48"]) }
    for (g = 1; g <= 2; g++) { tag = g == 1 ? "mean-paper" : "mean-ours"
        printf "| C-Sens mean (%s classes) | | %s | %s |\n", (g == 1 ? "paper" : "our"),
            pct(substr(mean[tag, "C-Sens", "static_bdi48"], 1, index(mean[tag, "C-Sens", "static_bdi48"], SUBSEP) - 1)),
            pct(substr(mean[tag, "C-Sens", "latte_cc48"], 1, index(mean[tag, "C-Sens", "latte_cc48"], SUBSEP) - 1)) }
    print "\n### Effective capacity of SS over its run (Fig. 16; valid lines x 128 B / 16 KB, mean over SMs at EP ends)\n"
    printf "| policy |"; for (b = 0; b < 16; b++) printf " %d |", b; print ""
    printf "|---|"; for (b = 0; b < 16; b++) printf "---|"; print ""
    split("static_bdi static_sc latte_cc latte_cc_bdi_bpc", F, " ")
    for (j = 1; j <= 4; j++) { printf "| %s |", F[j]; for (b = 0; b < 16; b++) printf " %.2f |", capt["ss", F[j], b]; print "" }
    print "\n### Modes chosen (share of EPs none / BDI / SC / BPC), decompression cycles per hit, latency tolerance\n"
    print "| workload | policy | none | BDI | SC | BPC | capacity | extra cycles per hit | LT (cycles) |"
    print "|---|---|---|---|---|---|---|---|---|"
    split("latte_cc latte_cc_bdi_bpc adaptive_hit_count adaptive_cmp static_sc", Q, " ")
    for (i = 1; i <= nw; i++) { w = wl[i]; for (j = 1; j <= 5; j++) { c = Q[j]
        printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f |\n", w, c, sh[w, c, 1], sh[w, c, 2], sh[w, c, 3],
            sh[w, c, 4], cap[w, c], hx[w, c], lt[w, c] } }
}' "$t"
