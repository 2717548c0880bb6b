#!/bin/sh
# approx_figs.sh: our counterparts of the packet compression thesis' Figs. 6.5-6.8 at the
# thesis' settings, one 'gpuest approx run' per point. Run from the repo root:
#   train/approx_figs.sh [path/to/gpuest] > data/approx_figs.csv
# Columns: fig,app,factor,value,seed,bits,error (error = the primary metric; for fig 6.8 the
# metric is named in 'factor'). Fig. 6.4 (error distribution per application) comes from the
# training datasets themselves (docs/approx.md).
set -eu
GPUEST=${1:-build/gpuest}
run() { "$GPUEST" approx run "$@" | tail -n 1; }
echo "fig,app,factor,value,seed,bits,error"
# Fig. 6.5: Gaussian elimination, 208 x 208 (Table 6.3), log10 condition number 1-6.
for c in 1 2 3 4 5 6; do
    for b in 4 8 12 16 20; do
        echo "6.5,gaussian,log10_cond,$c,1,$b,$(run --app gaussian --size 208 --cond $c --bits $b --seed 1)"
    done
done
# Fig. 6.6: Kmeans, 20,000 instances (Table 6.3), 2, 5, 10 and 20 clusters.
for k in 2 5 10 20; do
    for b in 4 8 12 16 20; do
        echo "6.6,kmeans,clusters,$k,1,$b,$(run --app kmeans --size 20000 --constraint $k --bits $b --seed 1)"
    done
done
# Fig. 6.7: Kmeans, 2,500-20,000 instances, 5 clusters.
for n in 2500 5000 10000 20000; do
    for b in 4 8 12 16 20; do
        echo "6.7,kmeans,instances,$n,1,$b,$(run --app kmeans --size $n --constraint 5 --bits $b --seed 1)"
    done
done
# Fig. 6.8: LUD 512 x 512 (Table 6.3), 10 datasets (seed s, log10 cond 1 + s/2: the thesis
# does not give its matrices), MRE and NRMSE.
for s in 1 2 3 4 5 6 7 8 9 10; do
    c=$(awk "BEGIN { print 1 + $s / 2 }")
    for b in 4 8 12 16 20; do
        out=$("$GPUEST" approx run --app lud --size 512 --cond "$c" --bits $b --seed $s)
        echo "6.8,lud,nrmse,$s,$s,$b,$(echo "$out" | awk '$1 == "nrmse" { print $2 }')"
        echo "6.8,lud,mre,$s,$s,$b,$(echo "$out" | tail -n 1)"
    done
done
