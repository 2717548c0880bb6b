#!/bin/sh
# technique-truths.sh: detailed runs of technique points for 'gpuest validate --truth-csv'.
# usage: scripts/technique-truths.sh GPUEST PRESET WORKLOAD OUT.csv [--set K=V ...] -- ITEM...
# ITEM is what 'validate --techniques' takes (l1_compression=latte_cc, coalescing=warppool, ...);
# the row's label is validate's (l1_compression_latte_cc), and the first row is the machine as
# given ("baseline"). Each run is 'gpuest simulate' at scale small, seed 1 (the calibrations'), and
# its 'total' row gives ipc_sim and amat_sim. Rows already in OUT are kept (the script resumes).
set -eu
G=$1; P=$2; W=$3; OUT=$4; shift 4
SETS=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do SETS="$SETS $1"; shift; done
[ "$#" -gt 0 ] && shift
[ -f "$OUT" ] || echo "point,sets,ipc_sim,amat_sim,sim_s" > "$OUT"
TMP=$(mktemp)
run() { # label, technique setting ("" for the baseline)
    if grep -q "^$1," "$OUT"; then return 0; fi
    T0=$(date +%s.%N)
    if [ -n "$2" ]; then
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 $SETS --set "$2" --csv "$TMP" > /dev/null
    else
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 $SETS --csv "$TMP" > /dev/null
    fi
    T1=$(date +%s.%N)
    awk -F, -v label="$1" -v sets="$2" -v s="$(echo "$T1 - $T0" | bc)" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" { printf "%s,%s,%s,%s,%.2f\n", label, sets, $col["ipc"], $col["amat"], s }' \
        "$TMP" >> "$OUT"
}
run baseline ""
for ITEM in "$@"; do
    case "$ITEM" in
        *=*) run "$(echo "$ITEM" | tr '=' '_')" "technique.$ITEM" ;;
        *) run "compression_$ITEM" "technique.compression=$ITEM" ;;
    esac
done
rm -f "$TMP"
