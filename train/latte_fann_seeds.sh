#!/bin/sh
# latte_fann_seeds.sh: the shipped FANN mode selector against LATTE-CC's rule on held-out workloads
# at more input seeds (docs/latte-cc.md, "The shipped model at more input seeds"). No model is
# trained or chosen here: every workload is run whole with the plain L1D, the rule (latte_cc) and
# fann from the model in MODEL_DIR, at the FANN rounds' settings (latte15, scale small, 300,000
# warp instructions), once per seed. Run from the repo root:
#   train/latte_fann_seeds.sh [path/to/gpuest] [out-csv]
# Environment: WORKLOADS (default: the six held-out workloads of rounds 5 and 7), SEEDS (default
# 2 3 4), MODEL_DIR (default models; a folder named models, which 'gpuest simulate' reads in its
# working directory, so the runs start in its parent).
set -eu
GPUEST=${1:-build-rel/gpuest}
out=${2:-data/latte-fann-seeds.csv}
WS=${WORKLOADS:-3dconv 2dconv gaussian pvc pagerank 2mm}
SEEDS=${SEEDS:-2 3 4}
MODEL_DIR=${MODEL_DIR:-models}
case $MODEL_DIR in */models | models) ;; *)
    echo "latte_fann_seeds.sh: MODEL_DIR must be a folder named models, got '$MODEL_DIR'" >&2; exit 2 ;;
esac
[ -f "$MODEL_DIR/latte-fann.net" ] || { echo "latte_fann_seeds.sh: no model in $MODEL_DIR" >&2; exit 2; }
gpuest_abs=$(cd "$(dirname "$GPUEST")" && pwd)/$(basename "$GPUEST")
run_dir=$(cd "$(dirname "$MODEL_DIR")" && pwd)
total_cycles() { awk -F, 'NR > 1 && $3 == "total" { print $4 }' "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "workload,seed,cycles_none,cycles_latte_cc,cycles_fann,fann_over_latte_cc,latte_cc_over_none,fann_over_none" > "$tmp/seeds.csv"
for w in $WS; do
    for s in $SEEDS; do
        for p in none latte_cc fann; do
            (cd "$run_dir" && "$gpuest_abs" simulate --preset latte15 --workload "$w" --scale small --seed "$s" \
                --max-instructions 300000 --set technique.l1_compression=$p --csv "$tmp/$w.$s.$p.csv" > /dev/null)
        done
        awk -v w="$w" -v s="$s" -v n="$(total_cycles "$tmp/$w.$s.none.csv")" \
            -v l="$(total_cycles "$tmp/$w.$s.latte_cc.csv")" -v f="$(total_cycles "$tmp/$w.$s.fann.csv")" 'BEGIN {
                printf "%s,%s,%d,%d,%d,%.4f,%.4f,%.4f\n", w, s, n, l, f, l / f, n / l, n / f }' >> "$tmp/seeds.csv"
    done
done
mv "$tmp/seeds.csv" "$out"
cat "$out"
