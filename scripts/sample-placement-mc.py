#!/usr/bin/env python3
"""Expected placement error of `gpuest sample`'s units, from a tiled reference run.

usage: sample-placement-mc.py TILE.csv FULL.csv [--units N] [--unit-insts U] [--tail T] [--draws D]
                              [--census REF.csv] [--seeds S,S,...]

TILE.csv is `gpuest sample --reference --csv` of a one-kernel workload with units that tile the
kernel (--unit-insts at least the period: on gemm/fermi/default --units 400 --unit-insts 73500,
whose units then run one period each): consecutive exact stretches, so their
cumulative cycles give the full run's cycles as a function of the kernel's warp instructions
(linear within a stretch). FULL.csv is `gpuest simulate --csv` of the same run (its cycles close the
curve). The script then places units as src/sim/sample.c does (a head census of U, a tail census
of T, N middle units at a uniformly random place in each of N periods), takes each unit's cycles
from the curve, rebuilds the estimate as src/study/sample.c does and prints the distribution of the
IPC error over D draws of the placement: what the exact units at random places give on average,
with no fast-forward in it. The curve is exact at the stretches' ends only: within a stretch a
unit gets the stretch's mean CPI, so the spread printed is below a real run's (the units' own
noise is missing); the mean is what this script is for. A drain is far from linear within its
last stretch: --census REF.csv (a reference run with shorter units) adds the point its tail census
gives (its last unit's warp instructions and cycles, measured to the launch's end).
--seeds 21,22,23 prints the error the curve gives at those sample seeds' own places instead: the
places src/sim/sample.c draws for a one-kernel launch (the sampler's generator, GSL's MT19937 as
src/core/rng.c seeds it, one uniform draw a middle unit; reproduced here, checked against a program
linked with the library for seeds 1-79).
"""
import argparse
import csv
import random


def curve(tile, full, census=None):
    rows = list(csv.DictReader(open(tile, newline="")))
    f = [r for r in csv.DictReader(open(full, newline="")) if r["kernel"] != "total"]
    if len(f) != 1:
        raise SystemExit("one-kernel workloads only")
    xs, cs = [0], [0]
    for r in rows:
        xs.append(xs[-1] + int(r["warp_insts"]))
        cs.append(cs[-1] + int(r["cycles"]))
    kinsts, kcycles = int(f[0]["warp_instructions"]), int(f[0]["cycles"])
    xs[-1], cs[-1] = kinsts, kcycles  # the last unit runs to the launch's end
    if census:
        last = list(csv.DictReader(open(census, newline="")))[-1]
        x, c = kinsts - int(last["warp_insts"]), kcycles - int(last["cycles"])
        if not xs[-2] < x < kinsts:
            raise SystemExit("the census point must fall in the tile's last stretch")
        xs.insert(len(xs) - 1, x)
        cs.insert(len(cs) - 1, c)
    return xs, cs, kinsts, kcycles


def at(xs, cs, x, lo=[0]):
    """Cumulative cycles at warp instruction x (linear within a stretch)."""
    i = lo[0] if lo[0] < len(xs) - 1 and xs[lo[0]] <= x else 0
    while i + 1 < len(xs) - 1 and xs[i + 1] <= x:
        i += 1
    lo[0] = i
    return cs[i] + (cs[i + 1] - cs[i]) * (x - xs[i]) / (xs[i + 1] - xs[i])


def estimate(xs, cs, kinsts, u, tl, places):
    """The kernel's cycles as src/study/sample.c estimates them from units at `places`."""
    head = at(xs, cs, u) - at(xs, cs, 0)
    tail = at(xs, cs, kinsts) - at(xs, cs, kinsts - tl)
    mid = sum(at(xs, cs, t + u) - at(xs, cs, t) for t in places)
    return head + tail + (kinsts - u - tl) * mid / (len(places) * u)


class GslMt19937:
    """GSL's mt19937 as src/core/rng.c seeds it, and gsl_rng_uniform_int (its draws for a place)."""

    def __init__(self, seed):
        s = (seed ^ ((seed >> 32) * 0x9E3779B97F4A7C15)) & 0xFFFFFFFFFFFFFFFF
        s &= 0xFFFFFFFF
        mt = [s if s else 4357]
        for i in range(1, 624):
            mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
        self.r = random.Random()
        self.r.setstate((3, tuple(mt) + (624,), None))

    def below(self, n):
        if n <= 1:
            return 0
        scale = 0xFFFFFFFF // n
        while True:
            k = self.r.getrandbits(32) // scale
            if k < n:
                return k


def seed_places(seed, kinsts, units, u, tl):
    period = (kinsts - u - tl) // units
    span = period - u if period > u else 1
    g = GslMt19937(seed)
    return [u + j * period + g.below(span) for j in range(units)]


def one(xs, cs, kinsts, units, u, tl, rng):
    period = (kinsts - u - tl) // units
    span = period - u if period > u else 1
    return estimate(xs, cs, kinsts, u, tl, [u + j * period + rng.randrange(span) for j in range(units)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tile")
    ap.add_argument("full")
    ap.add_argument("--units", type=int, default=30)
    ap.add_argument("--unit-insts", type=int, default=15000)
    ap.add_argument("--tail", type=int, default=0, help="tail census length (default: one unit)")
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--census", help="a reference run's unit CSV: its tail census as a point of the curve")
    ap.add_argument("--seeds", help="sample seeds, comma-separated: the error at their own places")
    a = ap.parse_args()
    xs, cs, kinsts, kcycles = curve(a.tile, a.full, a.census)
    rng = random.Random(a.seed)
    tl = a.tail or a.unit_insts
    if a.seeds:
        for seed in (int(v) for v in a.seeds.split(",")):
            t = seed_places(seed, kinsts, a.units, a.unit_insts, tl)
            print("sample seed %d: IPC error %+.2f %% (last middle unit at %d, CPI %.3f there)"
                  % (seed, 100.0 * (kcycles / estimate(xs, cs, kinsts, a.unit_insts, tl, t) - 1.0), t[-1],
                     (at(xs, cs, t[-1] + a.unit_insts) - at(xs, cs, t[-1])) / a.unit_insts))
        return
    errs = sorted(100.0 * (kcycles / one(xs, cs, kinsts, a.units, a.unit_insts, tl, rng) - 1.0)
                  for _ in range(a.draws))
    n = len(errs)
    mean = sum(errs) / n
    cost = at(xs, cs, kinsts) - at(xs, cs, kinsts - tl)
    print("units %d, unit %d, tail census %d (%d cycles): IPC error mean %+.2f %%, median %+.2f %%, "
          "10-90 %% [%+.2f, %+.2f], 5-95 %% [%+.2f, %+.2f], min %+.2f, draws above +1 %%: %.2f, below -3 %%: %.2f"
          % (a.units, a.unit_insts, tl, cost, mean, errs[n // 2], errs[n // 10], errs[n - 1 - n // 10], errs[n // 20],
             errs[n - 1 - n // 20], errs[0], sum(e > 1.0 for e in errs) / n, sum(e < -3.0 for e in errs) / n))


if __name__ == "__main__":
    main()
