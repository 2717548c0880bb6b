#!/bin/sh
# latte_fann_range.sh: how many labelled EPs of some label files lie outside the range of the
# training labels (docs/latte-cc.md, the FANN selector's third and fourth rounds). Run from the
# repo root:
#   train/latte_fann_range.sh "TRAIN1.csv TRAIN2.csv ..." FILE...
# The first argument lists the training label files (blank-separated); for every FILE it prints
# the labelled EPs, the share with at least one of the 24 features outside the training files'
# [min, max] (the ranges the network's input scaling is built from), the share whose decompression
# queue depth exceeds the training maximum, and the 95th percentile of FILE's queue depth and SC
# wait beside the training maxima. Features are the label files' columns avail_warps .. rule_sc.
set -eu
TRAIN=$1
shift
# shellcheck disable=SC2086
range=$(awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) { if ($i == "avail_warps") a = i; if ($i == "rule_sc") b = i }; next }
    { for (i = a; i <= b; i++) { if (!(i in lo) || $i < lo[i]) lo[i] = $i; if (!(i in hi) || $i > hi[i]) hi[i] = $i } }
    END { s = ""; for (i = a; i <= b; i++) s = s (i > a ? " " : "") lo[i] ":" hi[i]; print a, b, s }' $TRAIN)
printf '%-44s %6s %12s %10s %8s %8s %9s %9s\n' file eps out_of_range queue_over q_p95 q_max wsc_p95 wsc_max
for f in "$@"; do
    p95() { awk -F, -v c="$1" 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$f" |
        sort -g | awk '{ v[NR] = $1 } END { i = int(0.95 * NR); if (i < 1) i = 1; print NR ? v[i] : 0 }'; }
    awk -F, -v r="$range" -v f="$f" -v qp="$(p95 queue_depth)" -v wp="$(p95 wait_sc)" 'BEGIN {
            n = split(r, t, " "); a = t[1]; b = t[2]
            for (i = a; i <= b; i++) { split(t[3 + i - a], m, ":"); lo[i] = m[1]; hi[i] = m[2] } }
        FNR == 1 { for (i = 1; i <= NF; i++) { if ($i == "queue_depth") q = i; if ($i == "wait_sc") w = i }; next }
        { eps++; o = 0; for (i = a; i <= b; i++) if ($i < lo[i] - 1e-9 || $i > hi[i] + 1e-9) o = 1; out += o
          if ($q > hi[q] + 1e-9) deep++ }
        END { printf "%-44s %6d %11.1f%% %9.1f%% %8.1f %8.1f %9.1f %9.1f\n", f, eps, eps ? 100 * out / eps : 0,
              eps ? 100 * deep / eps : 0, qp, hi[q], wp, hi[w] }' "$f"
done
