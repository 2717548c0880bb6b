#!/bin/sh
# Installs the Debian 12 packages gpuest needs that are missing (as root, or via sudo).
# --test also installs what only the test suite uses (headless Chromium opens the HTML report).
set -eu
packages="build-essential cmake pkg-config libgsl-dev libcsv-dev libfann-dev libcmocka-dev libinih-dev liblzma-dev libsqlite3-dev sqlite3 openmpi-bin libopenmpi-dev gnuplot-nox"
if [ "${1:-}" = "--test" ]; then
    packages="$packages chromium"
fi
missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi
run_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
run_root apt-get update -qq
# shellcheck disable=SC2086
run_root apt-get install -y -qq --no-install-recommends $missing
