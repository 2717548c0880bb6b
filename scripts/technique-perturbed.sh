#!/bin/sh
# technique-perturbed.sh: every reported technique point of one machine and workload under the
# timing perturbations of scripts/timing-band.sh, so that a technique's effect can be averaged over
# perturbations (Alameldeen & Wood's method; docs/estimator.md, "Technique signs over timing
# perturbations (seventh session)"). The baselines at each perturbation are already in
# data/estimator/dev/band/band-P-W-small.csv; this script runs the technique points:
#   - the technique points of data/estimator/truth-techniques-P-W-small.csv (rows whose sets start
#     with "technique."), run as technique-truths.sh ran them: --set technique.probe_cores=14
#     and the row's setting;
#   - the compression points of data/estimator/validate-P-W-small.csv (compression_bdi,
#     compression_dsm), run as 'gpuest validate --techniques bdi,dsm' ran them: the row's setting
#     alone.
# Each run is 'gpuest simulate --scale small --seed 1' (the truths' runs) plus the perturbation's
# latency; the 'total' row's IPC is appended to OUT (point,sets,perturbation,ipc_sim). PERT is one
# or more of l1lat_m1 l1lat_p1 l2lat_m2 l2lat_m1 l2lat_p1 l2lat_p2 nominal (nominal: no latency
# changed; it must reproduce the stored ipc_sim). Rows already in OUT are kept (the script
# resumes); a row is appended only after its run finished.
# usage: scripts/technique-perturbed.sh GPUEST PRESET WORKLOAD OUT.csv PERT...
set -eu
[ "$#" -ge 5 ] || { echo "usage: $0 GPUEST PRESET WORKLOAD OUT.csv PERT..." >&2; exit 2; }
G=$1; P=$2; W=$3; OUT=$4; shift 4
D=data/estimator
TRUTH=$D/truth-techniques-$P-$W-small.csv
VAL=$D/validate-$P-$W-small.csv
[ -f "$TRUTH" ] || [ -f "$VAL" ] || { echo "technique-perturbed.sh: neither $TRUTH nor $VAL exists" >&2; exit 2; }
CFG=$(mktemp); TMP=$(mktemp)
trap 'rm -f "$CFG" "$TMP"' EXIT
"$G" config show --preset "$P" > "$CFG"
lat() { awk -v s="[$1]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on && $1 == "hit_latency" { print $3 }' "$CFG"; }
L1=$(lat l1); L2=$(lat l2)
[ -n "$L1" ] && [ -n "$L2" ] || { echo "technique-perturbed.sh: no [l1]/[l2] hit_latency in preset $P" >&2; exit 2; }
pert_set() { # label -> the --set of the perturbation (the same values as timing-band.sh)
    case "$1" in
        nominal) echo "" ;;
        l1lat_m1) echo "l1.hit_latency=$((L1 - 1))" ;;
        l1lat_p1) echo "l1.hit_latency=$((L1 + 1))" ;;
        l2lat_m2) echo "l2.hit_latency=$((L2 - 2))" ;;
        l2lat_m1) echo "l2.hit_latency=$((L2 - 1))" ;;
        l2lat_p1) echo "l2.hit_latency=$((L2 + 1))" ;;
        l2lat_p2) echo "l2.hit_latency=$((L2 + 2))" ;;
        *) echo "technique-perturbed.sh: unknown perturbation '$1'" >&2; exit 2 ;;
    esac
}
[ -f "$OUT" ] || echo "point,sets,perturbation,ipc_sim" > "$OUT"
run() { # point, technique setting, extra sets ("" or "--set technique.probe_cores=14"), perturbation
    if grep -q "^$1,[^,]*,$4," "$OUT"; then return 0; fi
    PS=$(pert_set "$4")
    if [ -n "$PS" ]; then
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 $3 --set "$2" --set "$PS" --csv "$TMP" < /dev/null > /dev/null
    else
        "$G" simulate --preset "$P" --workload "$W" --scale small --seed 1 $3 --set "$2" --csv "$TMP" < /dev/null > /dev/null
    fi
    awk -F, -v point="$1" -v sets="$2" -v pert="$4" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == "total" { printf "%s,%s,%s,%s\n", point, sets, pert, $col["ipc"] }' "$TMP" >> "$OUT"
}
POINTS=$(mktemp)
{ [ -f "$TRUTH" ] && awk -F, 'NR > 1 && $2 ~ /^technique\./ { print $1, $2, "probe" }' "$TRUTH"
  [ -f "$VAL" ] && awk -F, 'NR > 1 && $1 ~ /^compression_/ { print $1, $2, "plain" }' "$VAL"; } > "$POINTS" || true
trap 'rm -f "$CFG" "$TMP" "$POINTS"' EXIT
for PERT in "$@"; do
    pert_set "$PERT" > /dev/null
    while read -r POINT SET KIND; do
        if [ "$KIND" = probe ]; then X="--set technique.probe_cores=14"; else X=""; fi
        run "$POINT" "$SET" "$X" "$PERT"
    done < "$POINTS"
done
