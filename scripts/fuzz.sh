#!/bin/sh
# Runs one libFuzzer target for SECONDS seconds (or RUNS executions with -runs=N as a third argument).
#   scripts/fuzz.sh TARGET SECONDS [extra libFuzzer options...]
#   scripts/fuzz.sh --list
# Builds build-fuzz/ with clang (ASan + UBSan + libFuzzer) on first use. The checked-in seed corpus
# tests/fuzz/corpus/TARGET is read but never written: the growing corpus lives in
# build-fuzz/corpus/TARGET and crashes in build-fuzz/findings/TARGET/. Runs at nice 10 (shared
# machines). Prints libFuzzer's final statistics (executions, exec/s, corpus size).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
build="$root/build-fuzz"
if [ "${1:-}" = "--list" ]; then
    sed -n 's/^ *X(\([a-z0-9_]*\)).*/\1/p' tests/fuzz/fuzz_targets.h
    exit 0
fi
if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...] | --list" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
if ! grep -q "^ *X($target)" tests/fuzz/fuzz_targets.h; then
    echo "fuzz.sh: unknown target '$target' (see scripts/fuzz.sh --list)" >&2
    exit 2
fi
command -v clang >/dev/null || { echo "fuzz.sh: needs clang (apt-get install clang)" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DGPUEST_FUZZ=ON >/dev/null
fi
cmake --build "$build" -j2 --target "fuzz_$target" >/dev/null
mkdir -p "$build/corpus/$target" "$build/findings/$target"
# -rss_limit_mb: libFuzzer's default budget; the targets lower gpuest's own memory limit below it.
# -timeout: one input taking longer than this is a finding (a hang).
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
exec nice -n 10 "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/findings/$target/" "$@" \
    "$build/corpus/$target" "tests/fuzz/corpus/$target"
