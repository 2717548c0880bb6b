#!/usr/bin/env python3
"""validation-summary.py DIR [--points a,b,...] [--exclude a,b,...]: per machine, the IPC and AMAT
MAPE and the interval coverage of a folder of validation tables (validate-P-W-small.csv, as
'gpuest validate --csv' and scripts/validate-estimates.sh write them), then IPC MAPE per workload and
per held-out point. --points keeps only the named points (e.g. the second held-out set), --exclude
drops them (e.g. the technique points)."""
import argparse
import csv
import glob
import os
from collections import defaultdict


def rows(folder, keep, drop):
    for path in sorted(glob.glob(os.path.join(folder, "validate-*-small.csv"))):
        if path.endswith("-before.csv"):
            continue
        machine, workload = os.path.basename(path)[len("validate-"):-len("-small.csv")].split("-", 1)
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if (keep and r["point"] not in keep) or r["point"] in drop:
                    continue
                yield machine, workload, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--points", default="")
    ap.add_argument("--exclude", default="")
    a = ap.parse_args()
    keep = set(filter(None, a.points.split(",")))
    drop = set(filter(None, a.exclude.split(",")))
    by_machine = defaultdict(list)
    by_workload = defaultdict(list)
    by_point = defaultdict(list)
    for machine, workload, r in rows(a.folder, keep, drop):
        by_machine[machine].append(r)
        by_workload[(machine, workload)].append(abs(float(r["ipc_err_pct"])))
        by_point[(machine, r["point"])].append(abs(float(r["ipc_err_pct"])))
    print("machine  points  ipc_mape  amat_mape  ipc_covered  amat_covered")
    for m, rs in sorted(by_machine.items()):
        n = len(rs)
        ipc = sum(abs(float(r["ipc_err_pct"])) for r in rs) / n
        amat = sum(abs(float(r["amat_err_pct"])) for r in rs) / n
        ci = sum(r["ipc_covered"] == "yes" for r in rs)
        ca = sum(r["amat_covered"] == "yes" for r in rs)
        print(f"{m:8} {n:6}  {ipc:8.2f}  {amat:9.2f}  {ci:4}/{n} ({100 * ci / n:.1f} %)  {ca:4}/{n} ({100 * ca / n:.1f} %)")
    print("\nIPC MAPE per workload")
    for (m, w), v in sorted(by_workload.items()):
        print(f"{m:8} {w:12} {sum(v) / len(v):6.2f}  ({len(v)} points)")
    print("\nIPC MAPE per point")
    for (m, p), v in sorted(by_point.items()):
        print(f"{m:8} {p:16} {sum(v) / len(v):6.2f}  ({len(v)} workloads)")


if __name__ == "__main__":
    main()
