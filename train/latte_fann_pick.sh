#!/bin/sh
# latte_fann_pick.sh: the kept candidate of a choice table of train/latte_fann_select.sh
# (docs/latte-cc.md, "Fifth round" and "Seventh round"). Run:
#   train/latte_fann_pick.sh mean|maxmin select.csv
# The table: a header, then one row per candidate (hidden, margin_pct, guard, then per workload
# cycles_fann_W and fann_over_latte_cc_W, the speedup over the rule with 4 decimals, and last
# the mean speedup); rows in tie-break order (the larger margin, the guard on, the smaller network
# first). Prints "hidden,margin,guard" of the kept row.
#   mean:   the largest mean speedup; ties: the first such row (the fifth and sixth rounds).
#   maxmin: the largest worst-workload speedup, the worst (speedup - 1) rounded half up to 0.1 %
#           (computed in units of 0.01 % from the 4-decimal figures, so no float rounding decides);
#           among equal rounded worsts the largest mean; then the first row (the seventh round).
set -eu
case ${1:-} in mean | maxmin) ;; *)
    echo "latte_fann_pick.sh: expected the criterion mean or maxmin, got '${1:-}'" >&2; exit 2 ;;
esac
[ -f "${2:-}" ] || { echo "latte_fann_pick.sh: no table '${2:-}'" >&2; exit 2; }
awk -F, -v crit="$1" '
NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^fann_over_latte_cc_/) sp[++ns] = i; next }
{
    worst = 0
    for (j = 1; j <= ns; j++) {
        v = int($(sp[j]) * 10000 + 0.5) - 10000 # speedup - 1 in 0.01 %
        if (j == 1 || v < worst) worst = v
    }
    # rounded half up to 0.1 %: floor((worst + 5) / 10) with integers
    q = worst + 5
    w = (q >= 0) ? int(q / 10) : -int((-q + 9) / 10)
    mean = $NF + 0
    better = (kept == "")
    if (!better && crit == "mean") better = mean > kmean
    if (!better && crit == "maxmin") better = w > kw || (w == kw && mean > kmean)
    if (better) { kept = $1 "," $2 "," $3; kw = w; kmean = mean }
}
END {
    if (kept == "") { print "latte_fann_pick.sh: no candidate rows" > "/dev/stderr"; exit 2 }
    print kept
}' "$2"
