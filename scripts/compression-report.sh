#!/usr/bin/env bash
# compression-report.sh: the means of a compression table (scripts/compression-table.sh) as a
# markdown table, beside the packet compression thesis' numbers where it gives them (6.3, 6.4).
#   scripts/compression-report.sh data/compression-fermi.csv
set -euo pipefail
t=${1:?usage: compression-report.sh TABLE.csv}
awk -F, '
    NR > 1 && $3 == "mean" { g = $2; a = $5; ipc[g, a] = $7; rate[g, a] = $8; net[g, a] = $9; st[g, a] = $11; algs[a] = 1 }
    NR > 1 && $3 != "mean" && $5 == "none" { busy[$3] = $12 >= 0.01 }
    NR > 1 && $3 != "mean" { a = $5; n[a]++; s[a] += $7; r[a] += $8; rows[NR] = $0 }
    END {
        for (i in rows) { split(rows[i], f, ","); if (f[11] != "" && busy[f[3]]) { ns[f[5]]++; ss[f[5]] += f[11] } }
    }
    END {
        # the thesis: IPC (6.3, all benchmarks), NI stall (6.3), FP compression rate (6.4)
        pipc["bdi"] = "+3 %"; pipc["fpc"] = "+4 %"; pipc["cpack"] = "-14 %"; pipc["bpc"] = "+8 %"; pipc["dsm_approx"] = "+12 %"
        pst["dsm"] = "-20 %"; pst["dsm_approx"] = "-27 %"
        pfp["bdi"] = "2 %"; pfp["fpc"] = "3.3 %"; pfp["bpc"] = "21 %"; pfp["dsm"] = "11.6 %"; pfp["dsm_approx"] = "35 %"
        print "| algorithm | IPC INT | IPC FP | IPC all | thesis IPC | rate INT | rate FP | thesis rate FP | net rate INT / FP | NI stall INT | NI stall FP | NI stall all | thesis NI stall |"
        print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        m = split("bdi fpc cpack bpc sc2 dsm dsm_approx dpc", order, " ")
        for (i = 1; i <= m; i++) {
            a = order[i]; if (!(a in algs)) continue
            printf "| %s | %+.1f %% | %+.1f %% | %+.1f %% | %s | %.1f %% | %.1f %% | %s | %.1f / %.1f %% | %+.0f %% | %+.0f %% | %+.0f %% | %s |\n", a,
                100 * (ipc["INT", a] - 1), 100 * (ipc["FP", a] - 1), 100 * (s[a] / n[a] - 1), (a in pipc) ? pipc[a] : "-",
                100 * rate["INT", a], 100 * rate["FP", a], (a in pfp) ? pfp[a] : "-", 100 * net["INT", a], 100 * net["FP", a],
                100 * (st["INT", a] - 1), 100 * (st["FP", a] - 1), ns[a] ? 100 * (ss[a] / ns[a] - 1) : 0, (a in pst) ? pst[a] : "-"
        }
    }' "$t"
