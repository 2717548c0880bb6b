#!/usr/bin/env bash
# filtering-summary.sh: the tables of docs/filtering.md from the table of filtering-table.sh.
#
#   scripts/filtering-summary.sh data/filtering-mesh56.csv
#
# Groups (decided before the runs, not fitted to them): a workload is "favourable" when at least
# half of the lines its df_man run reported (completed MSHR entries and evictions) were used
# partially and consistently (filtering.partial_ca_share >= 0.5: the thesis' partial-CA criterion
# of section 2.2); the others form the second group. Means: geometric for IPC ratios, arithmetic
# for flit ratios, savings, miss rates and miss shares.
set -euo pipefail
in=${1:?usage: filtering-summary.sh TABLE.csv}
[ -r "$in" ] || { echo "filtering-summary.sh: cannot read $in" >&2; exit 2; }

awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
    w = $c["workload"]; k = $c["config"]; key = w SUBSEP k
    wl[w] = 1; cf[k] = 1; tb[w] = $c["thesis_benchmark"]
    nb[key] = $c["ipc_vs_base"]; nd[key] = $c["ipc_vs_dpc"]; fb[key] = $c["reply_flits_vs_base"]
    fd[key] = $c["reply_flits_vs_dpc"]; mr[key] = $c["l1_miss_rate"]; ss[key] = $c["space_savings"]
    ds[key] = $c["dpc_space_savings"]; fm[key] = $c["fm"]; sm[key] = $c["sm"]; hi[key] = $c["hi"]
    pca[key] = $c["partial_ca_share"]; ov[key] = $c["table_overflows"]; rq[key] = $c["read_requests"]
}
function grp(w) { return pca[w SUBSEP "df_man"] >= 0.5 ? "fav" : "other" }
function gm_add(g, name, v) { lsum[g, name] += log(v); lcnt[g, name]++ }
function am_add(g, name, v) { asum[g, name] += v; acnt[g, name]++ }
function gm(g, name) { return lcnt[g, name] ? exp(lsum[g, name] / lcnt[g, name]) : 0 }
function am(g, name) { return acnt[g, name] ? asum[g, name] / acnt[g, name] : 0 }
END {
    n = 0
    for (w in wl) names[++n] = w
    for (i = 2; i <= n; i++) { x = names[i]; for (j = i - 1; j >= 1 && names[j] > x; j--) names[j + 1] = names[j]; names[j + 1] = x }
    print "## per workload (group: fav = partial-CA share >= 0.5)"
    print "workload thesis group pCA | IPC/base: dpc truc man norc | man/dpc truc/dpc | flits/base: dpc man | man/dpc | savings: dpc man | miss: base dpc man | FM SM HI % | overflows"
    for (i = 1; i <= n; i++) {
        w = names[i]; g = grp(w); m = w SUBSEP "df_man"; d = w SUBSEP "dpc"; t = w SUBSEP "df_truc"
        misses = fm[m] + sm[m] + hi[m]
        printf "%s %s %s %.2f | %.3f %.3f %.3f %.3f | %.3f %.3f | %.3f %.3f | %.3f | %.3f %.3f | %.3f %.3f %.3f | %.1f %.1f %.1f | %s\n",
            w, tb[w], g, pca[m], nb[d], nb[t], nb[m], nb[w SUBSEP "man_norc"], nd[m], nd[t], fb[d], fb[m], fd[m],
            ds[d], ss[m], mr[w SUBSEP "base"], mr[d], mr[m],
            misses ? 100 * fm[m] / misses : 0, misses ? 100 * sm[m] / misses : 0, misses ? 100 * hi[m] / misses : 0, ov[m]
        split("all " g, gs, " ")
        for (q = 1; q <= 2; q++) {
            G = gs[q]
            gm_add(G, "dpc", nb[d]); gm_add(G, "truc", nb[t]); gm_add(G, "man", nb[m]); gm_add(G, "norc", nb[w SUBSEP "man_norc"])
            gm_add(G, "man_dpc", nd[m]); gm_add(G, "truc_dpc", nd[t])
            am_add(G, "fb_dpc", fb[d]); am_add(G, "fb_man", fb[m]); am_add(G, "fb_truc", fb[t]); am_add(G, "fd_man", fd[m]); am_add(G, "fd_truc", fd[t])
            am_add(G, "ss_dpc", ds[d]); am_add(G, "ss_man", ss[m]); am_add(G, "ss_truc", ss[t])
            am_add(G, "mr_base", mr[w SUBSEP "base"]); am_add(G, "mr_dpc", mr[d]); am_add(G, "mr_man", mr[m])
            if (misses) { am_add(G, "fm", fm[m] / misses); am_add(G, "sm", sm[m] / misses); am_add(G, "hi", hi[m] / misses) }
            am_add(G, "n", 1)
        }
    }
    print ""
    print "## means by group (IPC: geometric; the rest arithmetic)"
    print "group n | IPC/base: dpc truc man norc | man/dpc truc/dpc | flits/base: dpc truc man | flits/dpc: truc man | savings: dpc truc man | miss: base dpc man | FM SM HI %"
    split("all fav other", G3, " ")
    for (q = 1; q <= 3; q++) {
        G = G3[q]
        printf "%s %d | %.3f %.3f %.3f %.3f | %.3f %.3f | %.3f %.3f %.3f | %.3f %.3f | %.3f %.3f %.3f | %.3f %.3f %.3f | %.1f %.1f %.1f\n",
            G, asum[G, "n"], gm(G, "dpc"), gm(G, "truc"), gm(G, "man"), gm(G, "norc"), gm(G, "man_dpc"), gm(G, "truc_dpc"),
            am(G, "fb_dpc"), am(G, "fb_truc"), am(G, "fb_man"), am(G, "fd_truc"), am(G, "fd_man"),
            am(G, "ss_dpc"), am(G, "ss_truc"), am(G, "ss_man"), am(G, "mr_base"), am(G, "mr_dpc"), am(G, "mr_man"),
            100 * am(G, "fm"), 100 * am(G, "sm"), 100 * am(G, "hi")
    }
    print ""
    print "## sensitivity (df_man over the workloads that have the sensitivity runs: IPC/base geometric mean, mean flits/base, per workload IPC/base)"
    split("ica25 df_man ica75 fdr30 fdr60 df_man win8 df_man win32 tab32 df_man tab1024", S, " ")
    split("ICA=25% ICA=50% ICA=75% FDR=30% FDR=60% FDR=90% window=8 window=16 window=32 table=32 table=256 table=1024", L, " ")
    ns = 0
    for (i = 1; i <= n; i++) if ((names[i] SUBSEP "ica25") in nb) sub_w[++ns] = names[i]
    for (s = 1; s <= 12 && ns > 0; s++) {
        k = S[s]; la = 0; fsum = 0; osum = 0; per = ""
        for (i = 1; i <= ns; i++) {
            key = sub_w[i] SUBSEP k
            la += log(nb[key]); fsum += fb[key]; osum += ov[key]
            per = per sprintf(" %s=%.3f", sub_w[i], nb[key])
        }
        printf "%s %.3f %.3f overflows=%d |%s\n", L[s], exp(la / ns), fsum / ns, osum, per
    }
    print ""
    print "## request controller check: df_man IPC on the other group against the baseline and against DPC (pass: >= 0.99)"
    for (i = 1; i <= n; i++) {
        w = names[i]
        if (grp(w) != "other") continue
        v = nb[w SUBSEP "df_man"]
        verdict = "FAIL"
        if (v >= 0.99) verdict = "pass"
        v2 = nd[w SUBSEP "df_man"]
        verdict2 = "FAIL"
        if (v2 >= 0.99) verdict2 = "pass"
        printf "%s vs base %.3f %s, vs DPC %.3f %s (no RC: %.3f, %.3f)\n", w, v, verdict, v2, verdict2, nb[w SUBSEP "man_norc"], nd[w SUBSEP "man_norc"]
    }
}' "$in"
