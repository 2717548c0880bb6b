#!/bin/sh
# approx_km34.sh: Kmeans at the thesis' 20,000 instances with 20 attributes (ours) and with
# 34 (Table 6.3), 2/5/10/20 clusters, every level. Needs a second build with 34 attributes:
#   cmake -S . -B build-km34 -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-DKM_ATTRIBUTES=34
#   cmake --build build-km34 --target gpuest
#   train/approx_km34.sh build-rel/gpuest build-km34/gpuest > data/approx_km34.csv
set -eu
G20=${1:-build-rel/gpuest}
G34=${2:-build-km34/gpuest}
echo "attributes,clusters,seed,bits,error"
for k in 2 5 10 20; do
    for s in 1 2; do
        for b in 4 8 12 16 20; do
            echo "20,$k,$s,$b,$("$G20" approx run --app kmeans --size 20000 --constraint $k --bits $b --seed $s | tail -n 1)"
            echo "34,$k,$s,$b,$("$G34" approx run --app kmeans --size 20000 --constraint $k --bits $b --seed $s | tail -n 1)"
        done
    done
done
