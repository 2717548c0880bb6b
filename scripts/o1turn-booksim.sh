#!/bin/sh
# Regenerates data/o1turn-booksim.csv: our simulator on the BookSim configurations of
# data/reference/booksim-o1turn/ at every rate BookSim was run at (its results.csv), with the files'
# own measurement settings (10,000-cycle sample periods). Usage: scripts/o1turn-booksim.sh [gpuest]
set -eu
GPUEST=${1:-./build-rel/gpuest}
DIR=data/reference/booksim-o1turn
OUT=data/o1turn-booksim.csv
TMP=$OUT.tmp
echo "routing,traffic,rate,booksim_latency,gpuest_latency,booksim_accepted,gpuest_accepted,booksim_saturated,gpuest_saturated" > "$TMP"
tail -n +2 "$DIR/results.csv" | while IFS=, read -r routing traffic rate lat nlat acc sat; do
    cfg="$DIR/mesh8_vc4_${traffic}_p1_${routing}.cfg"
    "$GPUEST" noc --booksim "$cfg" --rate "$rate" --csv "$OUT.row" > /dev/null 2>&1
    row=$(tail -1 "$OUT.row")
    ours_lat=$(echo "$row" | cut -d, -f9)
    ours_acc=$(echo "$row" | cut -d, -f11)
    ours_sat=$(echo "$row" | cut -d, -f12)
    echo "$routing,$traffic,$rate,$lat,$ours_lat,$acc,$ours_acc,$sat,$ours_sat" >> "$TMP"
done
rm -f "$OUT.row"
mv "$TMP" "$OUT"
