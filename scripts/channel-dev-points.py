#!/usr/bin/env python3
"""channel-dev-points.py GPUEST [CALDIR [M,M,...]]: the channel-count development points of docs/estimator.md
("Channel counts in the estimate (fifth session)" and "Power-of-two channel counts in the estimate
(fifth session)"): for hotspot, backprop, bfs and 2dconv on fermi (small) at mc.num_mcs = 3, 5, 7
(or the listed counts: 2 and 16 carry the power-of-two loss; never 4 or 8, the held-out points), the
simulated IPC (the committed detailed runs
data/estimator/dev/channels-fermi-W-small-MM.csv), the estimate (gpuest estimate with
CALDIR/fermi-W-small.cal, default models/calibrations) and its error, then the IPC MAPE."""
import csv
import subprocess
import sys


def simulated_ipc(workload, mcs):
    path = f"data/estimator/dev/channels-fermi-{workload}-small-M{mcs}.csv"
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["kernel"] == "total":
                return float(r["ipc"])
    raise SystemExit(f"{path}: no total row")


def estimated_ipc(gpuest, caldir, workload, mcs):
    out = subprocess.run([gpuest, "estimate", "--preset", "fermi", "--workload", workload, "--scale", "small",
                          "--calibration", f"{caldir}/fermi-{workload}-small.cal", "--set", f"mc.num_mcs={mcs}"],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith("point ") and not line.startswith("point  ipc")]
    return float(rows[-1][1])


def main():
    gpuest = sys.argv[1]
    caldir = sys.argv[2] if len(sys.argv) > 2 else "models/calibrations"
    counts = [int(m) for m in sys.argv[3].split(",")] if len(sys.argv) > 3 else [3, 5, 7]
    errors = []
    print("workload  M  simulated  estimated  error")
    for w in ("hotspot", "backprop", "bfs", "2dconv"):
        for m in counts:
            sim, est = simulated_ipc(w, m), estimated_ipc(gpuest, caldir, w, m)
            err = 100.0 * (est - sim) / sim
            errors.append(abs(err))
            print(f"{w:9} {m}  {sim:9.2f}  {est:9.2f}  {err:+6.1f} %")
    print(f"IPC MAPE {sum(errors) / len(errors):.2f} % over {len(errors)} points")


if __name__ == "__main__":
    main()
