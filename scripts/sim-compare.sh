#!/bin/bash
# sim-compare.sh BASELINE.csv: means over the workloads of a baseline table (scripts/sim-baseline.sh),
# per machine (preset + reply routing), of the figures the coalescing paper's Fig. 1-2 report:
# request / memory / reply latency (core cycles), request-to-reply ratio of the means, the L1 miss
# penalty (their sum), MC stall ratio, AMAT, and the inter-core locality ratio at 120 / 240 / 480 / 960 / 1920 cycles (%).
set -euo pipefail
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    k = $col["preset"] " " $col["routing"]
    if (!(k in n)) order[++nk] = k
    n[k]++
    req[k] += $col["req_latency"]; mem[k] += $col["mem_latency"]; rep[k] += $col["reply_latency"]
    st[k] += $col["mc_stall_ratio"]; am[k] += $col["amat"]; ms[k] += $col["miss_latency"]
    l1[k] += $col["intercore_locality_120"]; l2[k] += $col["intercore_locality_240"]
    l3[k] += $col["intercore_locality_480"]; l4[k] += $col["intercore_locality_960"]
    l5[k] += $col["intercore_locality_1920"]
}
END {
    printf "| machine | workloads | req | mem | reply | req/reply | miss penalty | MC stall | AMAT | loc 120 | loc 240 | loc 480 | loc 960 | loc 1920 |\n"
    printf "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    for (j = 1; j <= nk; j++) {
        k = order[j]; m = n[k]
        printf "| %s | %d | %.1f | %.1f | %.1f | %.2f | %.1f | %.1f %% | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", k, m,
            req[k] / m, mem[k] / m, rep[k] / m, req[k] / rep[k], ms[k] / m, 100 * st[k] / m, am[k] / m,
            100 * l1[k] / m, 100 * l2[k] / m, 100 * l3[k] / m, 100 * l4[k] / m, 100 * l5[k] / m
    }
}' "$1"
