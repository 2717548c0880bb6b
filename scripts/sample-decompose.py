#!/usr/bin/env python3
"""Splits a sampled run's IPC error over its kernels.

usage: sample-decompose.py FULL.csv UNITS.csv [REF_UNITS.csv]

FULL.csv is `gpuest simulate --csv` of the full run (one row per kernel, then 'total'); UNITS.csv
is `gpuest sample --csv` of a sampled run of the same workload, machine and input seed. The kernel
estimates are rebuilt as src/study/sample.c builds them (census units exact, the sampled middle by
its ratio estimate over the rest of the kernel's thread instructions), so the whole-run IPC printed
here is the one `gpuest sample` printed, to rounding. For each kernel it prints its share of the
full run's cycles, its units, its contribution to the IPC error (its estimated minus true cycles
over the true total, negated: a kernel whose cycles are short pushes the IPC up) and the spread of
its sampled units' CPI (per thread instruction).

With REF_UNITS.csv (`gpuest sample --reference --csv`, the same sample seed: the same units run
with the gaps in detail) it also prints the error the exact units give and, per kernel with
sampled units, the IPC of the sampled middle units over the exact ones at the same places (a
fast-forward bias when it is off 1.0 on every seed) and the mean of the unit fields on both.
"""
import csv
import statistics
import sys

FIELDS = ["amat", "l1_hit_rate", "l2_hit_rate", "dram_reads", "dram_writes", "dram_row_hit_rate",
          "inflight", "cta_spread", "warp_spread"]


def read_full(path):
    rows = [r for r in csv.DictReader(open(path, newline="")) if r["kernel"] != "total"]
    return ([int(r["thread_instructions"]) for r in rows], [int(r["cycles"]) for r in rows])


def read_units(path):
    units = list(csv.DictReader(open(path, newline="")))
    for u in units:
        u["k"] = int(u["kernel"])
        u["c"] = int(u["cycles"])
        u["t"] = int(u["thread_insts"])
    return units


def kernel_cycles(units, k, insts):
    """Estimated cycles of kernel k: census cycles plus the middle's instructions at its ratio."""
    cen = [u for u in units if u["k"] == k and u["census"] == "1"]
    mid = [u for u in units if u["k"] == k and u["census"] == "0"]
    tc, cc = sum(u["t"] for u in cen), sum(u["c"] for u in cen)
    if mid:
        return cc + (insts - tc) * sum(u["c"] for u in mid) / sum(u["t"] for u in mid)
    return cc * insts / tc if tc else 0.0


def decompose(insts, cycles, units):
    est = [kernel_cycles(units, k, insts[k]) for k in range(len(insts))]
    total = sum(cycles)
    err = 100.0 * (total / sum(est) - 1.0)
    contrib = [-100.0 * (est[k] - cycles[k]) / total for k in range(len(insts))]
    return err, contrib


def middle_ipc(units, k):
    mid = [u for u in units if u["k"] == k and u["census"] == "0"]
    return sum(u["t"] for u in mid) / sum(u["c"] for u in mid) if mid else 0.0


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    insts, cycles = read_full(argv[1])
    units = read_units(argv[2])
    ref = read_units(argv[3]) if len(argv) == 4 else None
    err, contrib = decompose(insts, cycles, units)
    line = "IPC error %+.2f %%" % err
    rcontrib = None
    if ref:
        rerr, rcontrib = decompose(insts, cycles, ref)
        line += " (exact units at the same places: %+.2f %%)" % rerr
    print(line)
    total = sum(cycles)
    print("kernel,cycle_share,units_sampled,err_contrib_pct,ref_err_contrib_pct,unit_cpi_sd,unit_cpi_cov,"
          "mid_ipc_sampled_over_exact")
    for k in range(len(insts)):
        mid = [u["c"] / u["t"] for u in units if u["k"] == k and u["census"] == "0"]
        sd = statistics.stdev(mid) if len(mid) > 1 else float("nan")
        cov = sd / statistics.mean(mid) if len(mid) > 1 else float("nan")
        rc = "%+.2f" % rcontrib[k] if rcontrib else ""
        ratio = "%.3f" % (middle_ipc(units, k) / middle_ipc(ref, k)) if ref and middle_ipc(ref, k) > 0 else ""
        print("%d,%.4f,%d,%+.2f,%s,%.4f,%.3f,%s" % (k, cycles[k] / total, len(mid), contrib[k], rc, sd, cov, ratio))
    if ref:
        for k in range(len(insts)):
            a = [u for u in units if u["k"] == k and u["census"] == "0"]
            b = [u for u in ref if u["k"] == k and u["census"] == "0"]
            if len(a) < 2 or len(a) != len(b):
                continue
            print("kernel %d middle units, sampled / exact: " % k +
                  ", ".join("%s %.4g / %.4g" % (f, statistics.mean(float(u[f]) for u in a),
                                                statistics.mean(float(u[f]) for u in b)) for f in FIELDS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
