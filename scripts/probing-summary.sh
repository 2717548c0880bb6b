#!/usr/bin/env bash
# probing-summary.sh: the figure tables of docs/probing.md from the table probing-table.sh wrote.
#
#   scripts/probing-summary.sh data/probing-mesh28.csv
#
# HIGH (environment) names the workloads with inter-core locality (default: the 11 with the
# highest PP locality in data/probing-mesh28.csv) and LOW the 5 without (default below); means are arithmetic over workloads, as the
# paper averages. Prints Markdown.
set -euo pipefail
csv=${1:?usage: probing-summary.sh TABLE.csv}
high=${HIGH:-"bfs 2dconv btree gaussian hotspot lud spmv srad 3dconv color gemm"}
low=${LOW:-"kmeans nw atax bicg backprop"}
[ -r "$csv" ] || { echo "probing-summary.sh: cannot read $csv" >&2; exit 2; }

awk -F, -v high="$high" -v low="$low" '
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
    g = $c["group"]; w = $c["workload"]; s = $c["scenario"]; k = g SUBSEP w SUBSEP s
    ipc[k] = $c["norm_ipc"]; rep[k] = $c["norm_reply_flits"]; req[k] = $c["request_flits"]
    rhr[k] = $c["remote_hit_rate"]; prec[k] = $c["precision"]; rec[k] = $c["recall"]
    rrf[k] = $c["remote_reply_flits"]; rf[k] = $c["reply_flits"]; raw[k] = $c["ipc"]; have[k] = 1
    ws[g SUBSEP w] = 1
}
function mean(arr, g, list, s,    n, t, i, w, m) {
    n = split(list, w, " "); t = 0; m = 0
    for (i = 1; i <= n; i++) if ((g SUBSEP w[i] SUBSEP s) in have) { t += arr[g SUBSEP w[i] SUBSEP s]; m++ }
    return m ? t / m : -1
}
function cnt(g, list, s,    n, i, w, m) {
    n = split(list, w, " "); m = 0
    for (i = 1; i <= n; i++) if ((g SUBSEP w[i] SUBSEP s) in have) m++
    return m
}
function rel(arr, g, list, s, base,    n, t, i, w, m, a, b) { # mean over workloads of arr[s] / arr[base]
    n = split(list, w, " "); t = 0; m = 0
    for (i = 1; i <= n; i++) {
        a = g SUBSEP w[i] SUBSEP s; b = g SUBSEP w[i] SUBSEP base
        if ((a in have) && (b in have) && arr[b] > 0) { t += arr[a] / arr[b]; m++ }
    }
    return m ? t / m : -1
}
function get(arr, k) { return (k in have) ? arr[k] : -1 }
function pct(x) { return x < 0 ? "n/a" : sprintf("%+.1f %%", 100 * (x - 1)) }
function f3(x) { return x < 0 ? "n/a" : sprintf("%.3f", x) }
END {
    printf "### Fig. 2: inter-core locality (remote hit rate) and IPC per workload, mesh28\n\n"
    printf "| workload | set | PP locality | PP IPC | DP IPC | IP(27,1,1) IPC | IP(15,2,0.2) IPC |\n|---|---|---|---|---|---|---|\n"
    for (gw in ws) {
        split(gw, p, SUBSEP); if (p[1] != "mesh28") continue; w = p[2]
        set = index(" " high " ", " " w " ") ? "high" : (index(" " low " ", " " w " ") ? "low" : "-")
        b = "mesh28" SUBSEP w SUBSEP
        line[w] = sprintf("| %s | %s | %s | %s | %s | %s | %s |", w, set, f3(get(rhr, b "pp")), pct(get(ipc, b "pp")),
            pct(get(ipc, b "dp")), pct(get(ipc, b "ip-27-1-1-index")), pct(get(ipc, b "ip-15-2-0.2-supplier")))
        names[++nn] = w
    }
    for (i = 1; i <= nn; i++) for (j = i + 1; j <= nn; j++) if (names[j] < names[i]) { t = names[i]; names[i] = names[j]; names[j] = t }
    for (i = 1; i <= nn; i++) print line[names[i]]
    printf "\nmean PP locality: high set %s (%d workloads), low set %s (%d workloads)\n\n",
        f3(mean(rhr, "mesh28", high, "pp")), cnt("mesh28", high, "pp"), f3(mean(rhr, "mesh28", low, "pp")),
        cnt("mesh28", low, "pp")

    printf "### Fig. 4: IP(C,1,1), index selector, high set: locality / PP and request flits / IP(5,1,1)\n\n"
    printf "| C | locality / PP | request flits / IP(5,1,1) | IPC |\n|---|---|---|---|\n"
    split("5 10 15 20 27", cs, " ")
    for (i = 1; i <= 5; i++) {
        s = "ip-" cs[i] "-1-1-index"
        printf "| %s | %s | %s | %s |\n", cs[i], f3(rel(rhr, "mesh28", high, s, "pp")),
            f3(rel(req, "mesh28", high, s, "ip-5-1-1-index")), pct(mean(ipc, "mesh28", high, s))
    }

    printf "\n### Fig. 9: IP(C,S,P), supplier selector + two-level probing, high set: IPC vs baseline\n\n"
    printf "| C | (1,1) | (2,0.2) | (2,0.5) | (2,1) |\n|---|---|---|---|---|\n"
    split("5 15 27", cs, " "); split("1-1 2-0.2 2-0.5 2-1", sp, " ")
    for (i = 1; i <= 3; i++) {
        printf "| %s |", cs[i]
        for (j = 1; j <= 4; j++) { s = "ip-" cs[i] "-" sp[j] "-supplier"; printf " %s |", cnt("mesh28", high, s) ? pct(mean(ipc, "mesh28", high, s)) : "-" }
        printf "\n"
    }

    printf "\n### Fig. 13: high set, means over workloads (IPC and reply flits normalized to the baseline)\n\n"
    printf "| scenario | IPC | reply flits | remote share of reply flits | locality |\n|---|---|---|---|---|\n"
    split("pp dp ip-27-1-1-index ip-15-2-0.2-supplier rp-27-1-1-supplier rp-5-2-0.5-supplier ccn la_llc", sc, " ")
    for (i = 1; i <= 8; i++) {
        s = sc[i]; t = 0; m = 0; n = split(high, hw, " ")
        for (j = 1; j <= n; j++) { a = "mesh28" SUBSEP hw[j] SUBSEP s; if ((a in have) && rf[a] > 0) { t += rrf[a] / rf[a]; m++ } }
        printf "| %s | %s | %s | %s | %s |\n", s, pct(mean(ipc, "mesh28", high, s)), pct(mean(rep, "mesh28", high, s)),
            m ? sprintf("%.3f", t / m) : "n/a", f3(mean(rhr, "mesh28", high, s))
    }

    printf "\n### Fig. 14: RP(5,2,0.5) predictor, high set, and imperfect IP\n\n"
    printf "precision %s, recall %s (mean over workloads)\n\n", f3(mean(prec, "mesh28", high, "rp-5-2-0.5-supplier")),
        f3(mean(rec, "mesh28", high, "rp-5-2-0.5-supplier"))
    printf "| precision | IP(5,2,0.5) IPC | IP(15,2,0.2) IPC |\n|---|---|---|\n"
    printf "| 1.0 | %s | %s |\n", pct(mean(ipc, "mesh28", high, "ip-5-2-0.5-supplier")), pct(mean(ipc, "mesh28", high, "ip-15-2-0.2-supplier"))
    split("0.9 0.7", pr, " ")
    for (i = 1; i <= 2; i++)
        printf "| %s | %s | %s |\n", pr[i], pct(mean(ipc, "mesh28", high, "ipx-5-2-0.5-supplier-" pr[i])),
            pct(mean(ipc, "mesh28", high, "ipx-15-2-0.2-supplier-" pr[i]))

    printf "\n### Fig. 17: low set, IPC vs baseline\n\n| workload | PP | DP | IP(15,2,0.2) | RP(5,2,0.5) |\n|---|---|---|---|---|\n"
    n = split(low, lw, " ")
    for (i = 1; i <= n; i++) { w = lw[i]; b = "mesh28" SUBSEP w SUBSEP
        printf "| %s | %s | %s | %s | %s |\n", w, pct(get(ipc, b "pp")), pct(get(ipc, b "dp")), pct(get(ipc, b "ip-15-2-0.2-supplier")),
            pct(get(ipc, b "rp-5-2-0.5-supplier")) }
    printf "| mean | %s | %s | %s | %s |\n", pct(mean(ipc, "mesh28", low, "pp")), pct(mean(ipc, "mesh28", low, "dp")),
        pct(mean(ipc, "mesh28", low, "ip-15-2-0.2-supplier")), pct(mean(ipc, "mesh28", low, "rp-5-2-0.5-supplier"))

    printf "\n### Fig. 15(c): larger meshes, IP(C%%,1,1) with the supplier selector\n\n| mesh | IP(25 %%,1,1) IPC | reply | IP(50 %%,1,1) IPC | reply | workloads |\n|---|---|---|---|---|---|\n"
    printf "| 8x8 (56,8) | %s | %s | %s | %s | %d |\n", pct(mean(ipc, "mesh56", high, "ip-14-1-1-supplier")), pct(mean(rep, "mesh56", high, "ip-14-1-1-supplier")),
        pct(mean(ipc, "mesh56", high, "ip-28-1-1-supplier")), pct(mean(rep, "mesh56", high, "ip-28-1-1-supplier")), cnt("mesh56", high, "base")
    printf "| 10x10 (84,16) | %s | %s | %s | %s | %d |\n", pct(mean(ipc, "mesh10", high, "ip-21-1-1-supplier")), pct(mean(rep, "mesh10", high, "ip-21-1-1-supplier")),
        pct(mean(ipc, "mesh10", high, "ip-42-1-1-supplier")), pct(mean(rep, "mesh10", high, "ip-42-1-1-supplier")), cnt("mesh10", high, "base")
}' "$csv"
