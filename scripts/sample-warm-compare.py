#!/usr/bin/env python3
"""Compares the units of sampled runs with the exact units at the same places.

usage: sample-warm-compare.py REF_UNITS.csv UNITS.csv [UNITS.csv ...]

REF_UNITS.csv is `gpuest sample --reference --csv` (every gap run in detail); each UNITS.csv is
`gpuest sample --csv` of the same workload, machine, technique and seed (the same units at the same
positions, the gaps drained and fast-forwarded). For each it prints the IPC of the sampled middle
units (census = 0: the stratified units, the ones fast-forward precedes) over the exact middle
units' IPC, pooled as thread instructions over cycles, and the same over all units. A ratio off
1.0 is what fast-forward's warming changed; with one seed it mixes a bias with the chaotic spread
of a unit's start (about +-2 % on spmv and bfs, fermi, default scale).
"""
import csv
import sys


def pooled_ipc(rows, census=None):
    sel = [r for r in rows if census is None or r["census"] == census]
    cycles = sum(float(r["cycles"]) for r in sel)
    insts = sum(float(r["thread_insts"]) for r in sel)
    return insts / cycles if cycles > 0 else None


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    ref = list(csv.DictReader(open(argv[1], newline="")))
    ref_mid, ref_all = pooled_ipc(ref, "0"), pooled_ipc(ref)
    for path in argv[2:]:
        rows = list(csv.DictReader(open(path, newline="")))
        if [r["unit"] for r in rows] != [r["unit"] for r in ref]:
            sys.stderr.write("%s: not the units of %s\n" % (path, argv[1]))
            return 2
        mid, every = pooled_ipc(rows, "0"), pooled_ipc(rows)
        mid_text = "%.4f" % (mid / ref_mid) if mid and ref_mid else "no middle units"
        print("%s  middle %s  all %.4f" % (path, mid_text, every / ref_all))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
