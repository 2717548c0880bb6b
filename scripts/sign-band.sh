#!/bin/sh
# sign-band.sh [-v] DIR BANDDIR: the sign count of sign-count.sh split by the baseline's timing
# band (scripts/timing-band.sh). For each technique point of DIR/techniques-*.csv and
# DIR/validate-*-small.csv (not the *-before.csv copies) with a sign_agree of yes or no, the band
# of its machine and workload (BANDDIR/band-P-W-small.csv) is [min(0, e), max(0, e)] over the
# perturbations' IPC effects e against the band's baseline row. A simulated effect outside the
# band is larger than any timing perturbation moves the baseline; inside it, its sign is not the
# technique's. Prints the count outside and inside the band, and points without a band file;
# -v lists every point (P W point effect_sim effect_est sign lo hi outside|inside).
set -eu
V=0
[ "${1:-}" = "-v" ] && { V=1; shift; }
D=$1; B=$2
F=$(ls "$D"/techniques-*.csv "$D"/validate-*-small.csv 2>/dev/null | grep -v -- '-before\.csv$' || true)
[ -n "$F" ] || { echo "sign-band.sh: no technique or validation files in $D" >&2; exit 2; }
for f in $F; do
    n=$(basename "$f" .csv); n=${n#techniques-}; n=${n#validate-}; n=${n%-small*}
    band="$B/band-$n-small.csv"
    awk -F, -v pw="$n" -v band="$band" '
        BEGIN { lo = 0; hi = 0; ok = 0
                while ((getline line < band) > 0) {
                    split(line, a, ",")
                    if (a[1] == "point") continue
                    if (a[1] == "baseline") { base = a[3]; ok = 1; continue }
                    e[++ne] = a[3] }
                for (i = 1; ok && i <= ne; i++) { x = 100 * (e[i] - base) / base; if (x < lo) lo = x; if (x > hi) hi = x } }
        FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["sign_agree"] == "yes" || $c["sign_agree"] == "no" {
            s = $c["effect_sim_pct"] + 0
            where = !ok ? "noband" : (s < lo || s > hi) ? "outside" : "inside"
            printf "%s %s %s %s %s %s %.2f %.2f %s\n", pw, $1, $c["effect_sim_pct"], $c["effect_est_pct"],
                   $c["sign_agree"], (ok ? "band" : "-"), lo, hi, where }' "$f"
done | awk -v v="$V" '
    { sub(/-/, " ", $1); if (v) print $1, $2, $3, $4, $5, $7, $8, $9
      n[$9]++; if ($5 == "yes") y[$9]++ }
    END { printf "outside the band: %d of %d right\n", y["outside"], n["outside"]
          printf "inside the band: %d of %d right\n", y["inside"], n["inside"]
          if (n["noband"]) printf "without a band file: %d of %d right\n", y["noband"], n["noband"] }'
