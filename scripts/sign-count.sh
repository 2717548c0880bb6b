#!/bin/sh
# sign-count.sh [DIR]: how many technique points have the sign of their IPC effect right
# (sign_agree yes / yes + no) over DIR/techniques-*.csv and DIR/validate-*-small.csv (not the
# *-before.csv copies); DIR defaults to data/estimator. Prints the techniques, the validation
# files and the total.
set -eu
D=${1:-data/estimator}
count() {
    awk -F, 'FNR == 1 { c = 0; for (i = 1; i <= NF; i++) if ($i == "sign_agree") c = i; next }
             c && $c == "yes" { y++ } c && ($c == "yes" || $c == "no") { n++ }
             END { printf "%d %d\n", y, n }' "$@"
}
T=$(ls "$D"/techniques-*.csv 2>/dev/null | grep -v -- '-before\.csv$' || true)
V=$(ls "$D"/validate-*-small.csv 2>/dev/null | grep -v -- '-before\.csv$' || true)
set -- $( [ -n "$T" ] && count $T || echo "0 0") $( [ -n "$V" ] && count $V || echo "0 0")
echo "techniques: $1 of $2"
echo "validation (compression): $3 of $4"
awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { printf "all: %d of %d (%.1f %%)\n", a + c, b + d, 100 * (a + c) / (b + d) }'
