#!/bin/sh
# approx_fig64.sh: the error distribution of every application (our Fig. 6.4) from the
# training datasets: per application and level the minimum, median and maximum of the primary
# metric and the share of errors >= 0.9 ("near one"). Run from the repo root:
#   train/approx_fig64.sh > data/approx_fig64.csv
set -eu
echo "app,bits,datasets,min,median,max,share_near_one"
for app in kmeans lud gaussian atax bicg 2dconv scalarprod srad2 hybridsort; do
    f="data/approx/$app.csv"
    metric=$(awk -F, 'NR == 2 { gsub(/"/, "", $7); print $7 }' "$f")
    for b in 4 8 12 16 20; do
        awk -F, -v m="$metric" -v b="$b" 'NR > 1 { gsub(/"/, ""); if ($7 == m && $9 == b) print $8 }' "$f" |
            sort -g | awk -v app="$app" -v b="$b" '
                { v[NR] = $1; if ($1 >= 0.9) near++ }
                END { med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                      printf "%s,%d,%d,%.3g,%.3g,%.3g,%.2f\n", app, b, NR, v[1], med, v[NR], near / NR }'
    done
done
