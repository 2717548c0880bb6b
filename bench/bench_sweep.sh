#!/bin/sh
# bench_sweep.sh: wall and CPU time of the 200-point estimate sweep (data/examples/estimate200.ini)
# with 1 and with 2 local worker processes, in one run, and their ratio.
#   bench/bench_sweep.sh [build-rel/gpuest]
set -eu
gpuest=${1:-build-rel/gpuest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), cores: $(nproc)"
for jobs in 1 2; do
    /usr/bin/time -f "%e %U %S" -o "$tmp/time$jobs" "$gpuest" sweep data/examples/estimate200.ini \
        --db "$tmp/j$jobs.sqlite" --jobs "$jobs" > "$tmp/out$jobs"
    read -r wall user sys < "$tmp/time$jobs"
    awk -v j="$jobs" -v w="$wall" -v u="$user" -v s="$sys" \
        'BEGIN { printf "jobs %s: wall %.2f s, cpu %.2f s, %.1f points/s\n", j, w, u + s, 200 / w }'
done
w1=$(cut -d' ' -f1 "$tmp/time1"); w2=$(cut -d' ' -f1 "$tmp/time2")
awk -v a="$w1" -v b="$w2" 'BEGIN { printf "speed-up jobs 2 / jobs 1: %.2f\n", a / b }'
# both databases hold the same results (the worker count must not change a number)
same=$(sqlite3 "$tmp/j1.sqlite" "ATTACH '$tmp/j2.sqlite' AS b; SELECT COUNT(*) FROM results r JOIN b.results s USING(point_id, stat) WHERE r.value IS s.value AND r.lo IS s.lo AND r.hi IS s.hi")
echo "identical results: $same of $(sqlite3 "$tmp/j1.sqlite" 'SELECT COUNT(*) FROM results')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
