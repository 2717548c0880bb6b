#!/bin/sh
# dev-sims.sh GPUEST OUT.csv: the adaptive compressed-L1 policies in the simulator on pairs that are
# not reported technique points (scale small, seed 1, as technique-truths.sh runs its points).
set -eu
G=$1; OUT=$2
T=$(mktemp -d)
echo "preset,workload,policy,ipc_sim,l1_misses,l1_hits,eps,ep_share_none,ep_share_bdi,ep_share_hc" > "$OUT"
for pw in fermi-spmv mesh56-nw mesh56-pathfinder mesh56-bfs mesh56-srad mesh56-2dconv mesh56-backprop mesh56-spmv; do
  P=${pw%%-*}; W=${pw#*-}
  for t in none latte_cc latte_cc_bdi_bpc adaptive_hit_count adaptive_cmp fann; do
    "$G" simulate --preset $P --workload $W --scale small --seed 1 --set technique.probe_cores=14 \
        --set technique.l1_compression=$t --csv "$T/run.csv" > "$T/run.txt" 2>&1
    awk -F, -v P=$P -v W=$W -v T=$t 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["kernel"]=="total"{printf "%s,%s,%s,%s,%s,%s,", P,W,T,$c["ipc"],$c["l1_misses"],$c["l1_hits"]}' "$T/run.csv" >> "$OUT"
    awk '/l1_compression.eps =/{e=$4} /ep_share_none =/{n=$4} /ep_share_bdi =/{b=$4} /ep_share_sc =/{s=$4} /ep_share_bpc =/{p=$4} END{printf "%s,%s,%s,%s\n", (e==""?0:e),(n==""?1:n),(b==""?0:b),(s+p)}' "$T/run.txt" >> "$OUT"
  done
done
rm -rf "$T"
