#!/bin/sh
# compare-estimates.sh DIR_A DIR_B [LIMIT]: compares the estimates and intervals (ipc, ipc_lo, ipc_hi,
# amat, amat_lo, amat_hi) of every validate-*.csv in DIR_A with the file of the same name in DIR_B,
# row by row, each difference relative to the row's estimate in DIR_A (ipc for the ipc columns,
# amat for the amat ones); prints the largest relative difference per file and overall, and exits 1 when a file
# is missing, the rows differ in number or label, or the largest difference exceeds LIMIT
# (relative, default 0.001 = 0.1 %). The technique effect (effect_est_pct, a difference of two
# estimates in per cent) is compared in absolute percentage points and reported beside it.
set -eu
a=$1
b=$2
limit=${3:-0.001}
status=0
worst=0
for fa in "$a"/validate-*.csv; do
    name=$(basename "$fa")
    fb="$b/$name"
    if [ ! -f "$fb" ]; then
        echo "$name: missing in $b"
        status=1
        continue
    fi
    line=$(awk -F, -v limit="$limit" '
        function abs(v) { return v < 0 ? -v : v }
        FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME == ARGV[1] ? "a" : "b", $i] = i; next }
        FILENAME == ARGV[1] { n++; for (i = 1; i <= NF; i++) va[n, i] = $i; next }
        {
            m++
            if (va[m, 1] != $1) { bad = "row " m " is " va[m, 1] " in one file, " $1 " in the other" }
            split("ipc ipc_lo ipc_hi amat amat_lo amat_hi", keys, " ")
            for (k = 1; k <= 6; k++) {
                x = va[m, col["a", keys[k]]] + 0; y = $(col["b", keys[k]]) + 0
                # a bound is compared relative to its estimate (a lower bound clamped near 0 would
                # otherwise turn a 0.1-cycle change into a 100 % one)
                ref = abs(va[m, col["a", k <= 3 ? "ipc" : "amat"]] + 0)
                d = abs(x - y) / (ref > 1e-12 ? ref : 1)
                if (d > worst) { worst = d; where = $1 " " keys[k] " " x " vs " y }
                if ((k == 1 || k == 4) && d > west) { west = d }
            }
            e1 = va[m, col["a", "effect_est_pct"]]; e2 = $(col["b", "effect_est_pct"])
            if (e1 != "-" && e2 != "-" && abs(e1 - e2) > weff) { weff = abs(e1 - e2) }
        }
        END {
            if (n != m) bad = n " rows against " m
            if (bad != "") { print "MISMATCH " bad; exit }
            printf "%.3g %s (estimates alone: %.3g; effect: %.3g points)\n", worst, where == "" ? "-" : where, west, weff
        }' "$fa" "$fb")
    echo "$name: $line"
    case $line in MISMATCH*) status=1 ;; esac
    w=${line%% *}
    case $w in MISMATCH) ;; *) worst=$(awk -v x="$w" -v y="$worst" 'BEGIN { print (x + 0 > y + 0) ? x : y }') ;; esac
done
echo "largest relative difference: $worst (limit $limit)"
awk -v x="$worst" -v l="$limit" 'BEGIN { exit !(x + 0 > l + 0) }' && status=1
exit $status
