#!/usr/bin/env python3
"""mape-by-point.py BEFORE_DIR AFTER_DIR: IPC and AMAT MAPE per machine and per held-out point type of
two sets of validation tables (validate-P-W-small.csv, as scripts/validate-estimates.sh writes them),
before and after, and the rows of the points named on the command line after the two folders
(default: the memory-controller points). Reads the ipc_err_pct and amat_err_pct columns."""
import csv
import glob
import os
import sys


def load(folder):
    rows = {}
    for path in sorted(glob.glob(os.path.join(folder, "validate-*-small.csv"))):
        if path.endswith("-before.csv"):
            continue
        pw = os.path.basename(path)[len("validate-"):-len("-small.csv")]
        machine, workload = pw.split("-", 1)
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                rows[(machine, workload, r["point"])] = (float(r["ipc_err_pct"]), float(r["amat_err_pct"]))
    return rows


def mape(vals, k):
    return sum(abs(v[k]) for v in vals) / len(vals) if vals else float("nan")


def main():
    before, after = load(sys.argv[1]), load(sys.argv[2])
    points = sys.argv[3:] or ["mcs_x0.67", "mcs_x1.33", "mc_diamond", "mc_top_bottom"]
    keys = sorted(set(before) & set(after))
    machines = sorted({k[0] for k in keys})
    print("machine  points  ipc_mape_before  ipc_mape_after  amat_mape_before  amat_mape_after")
    for m in machines:
        ks = [k for k in keys if k[0] == m]
        b, a = [before[k] for k in ks], [after[k] for k in ks]
        print(f"{m:8s} {len(ks):6d} {mape(b, 0):16.2f} {mape(a, 0):15.2f} {mape(b, 1):17.2f} {mape(a, 1):16.2f}")
    print("\nmachine  point             n  ipc_mape_before  ipc_mape_after")
    for m in machines:
        for p in sorted({k[2] for k in keys if k[0] == m}):
            ks = [k for k in keys if k[0] == m and k[2] == p]
            b, a = [before[k] for k in ks], [after[k] for k in ks]
            if mape(b, 0) != mape(a, 0) or p in points:
                print(f"{m:8s} {p:16s} {len(ks):2d} {mape(b, 0):16.2f} {mape(a, 0):15.2f}")
    print("\nmachine  workload    point            ipc_err_before  ipc_err_after  amat_err_before  amat_err_after")
    for k in keys:
        if k[2] in points:
            print(f"{k[0]:8s} {k[1]:11s} {k[2]:16s} {before[k][0]:+14.2f} {after[k][0]:+14.2f} "
                  f"{before[k][1]:+16.2f} {after[k][1]:+15.2f}")


if __name__ == "__main__":
    main()
