#!/usr/bin/env python3
"""sign-perturbed.py: the technique sign count against effects averaged over timing perturbations.

The rule (docs/estimator.md, "Technique signs over timing perturbations (seventh session)"; fixed
and committed before this script was run on the finished perturbed runs):

  points       the 135 of scripts/sign-count.sh: every row with sign_agree yes/no of
               DIR/techniques-*.csv and DIR/validate-*-small.csv (not the *-before.csv copies).
  estimate     effect_est_pct of that row (the nominal machine's estimate, unchanged). Its sign is
               the one 'gpuest validate' used (sign of the full-precision value, 0 for exactly 0):
               the printed value's sign where it is not +-0.00; a printed +-0.00 takes the sign
               that the row's sign_agree fixes (yes: the nominal truth's sign; no and -0.00:
               negative; no and +0.00: 0, the transform left the estimate unchanged).
  nominal e_0  technique points: ipc_sim of DIR/truth-techniques-P-W-small.csv over the baseline
               row of BAND/band-P-W-small.csv, minus 1; compression points: effect_sim_pct of the
               validation row (its truth is stored at 4 digits, and this is the figure it scored).
  e_p          for each complete perturbation p: IPC_tech(p) (PERT/perturbed-P-W-small.csv) over
               IPC_base(p) (the band file's row p), minus 1. A perturbation is complete when every
               one of the points and every needed band row has it; a partial one is left out of
               every point and reported.
  statistics   the n = 1 + k values e_0, e_p: mean, s (n - 1 in the denominator), SE = s / sqrt(n),
               95 % Student-t interval mean +- t(0.975, n - 1) SE. Significant: the interval
               excludes 0 (lo > 0 or hi < 0).
  sign         sign_of(x) in {-1, 0, +1} (0 only for exactly 0, and for a mean below 1e-12 in
               size, the rounding of a sum), as validate's sign_agree; right when the estimate's
               sign equals the truth's sign.
  counts       (a) vs sign(e_0), all points (must reproduce sign-count.sh); (b) vs sign(mean), all
               points; (c) vs sign(mean), the significant points only.

usage: scripts/sign-perturbed.py [-v] [--table] [DIR [BAND [PERT]]]
       defaults data/estimator, data/estimator/dev/band, data/estimator/perturbed
  -v       lists the misses of (a), (b), (c) with their numbers
  --table  prints the markdown table of every point
"""
import csv
import glob
import math
import os
import sys

PERTS = ["l2lat_p1", "l1lat_m1", "l1lat_p1", "l2lat_m1", "l2lat_m2", "l2lat_p2"]  # the runs' order
# t(0.975, df), df = 1 .. 10
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def fail(msg):
    print("sign-perturbed.py: " + msg, file=sys.stderr)
    sys.exit(2)


def sign_of(x):
    return (x > 0) - (x < 0)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def pw_of(path, prefix):
    """fermi-bfs from DIR/techniques-fermi-bfs-small-1.csv or DIR/validate-fermi-bfs-small.csv."""
    n = os.path.basename(path)[len(prefix):]
    return n[: n.index("-small")]


def est_sign(row, nominal_sign):
    text = row["effect_est_pct"]
    v = float(text)
    if abs(v) >= 0.005:
        return sign_of(v)
    if row["sign_agree"] == "yes":
        return nominal_sign
    return -1 if text.startswith("-") else 0


def load_points(d):
    """(pw, point label, kind, row) for every counted row, in file order."""
    out = []
    files = [f for f in sorted(glob.glob(os.path.join(d, "techniques-*.csv"))) if not f.endswith("-before.csv")]
    files += [f for f in sorted(glob.glob(os.path.join(d, "validate-*-small.csv"))) if not f.endswith("-before.csv")]
    if not files:
        fail("no technique or validation files in " + d)
    for f in files:
        tech = os.path.basename(f).startswith("techniques-")
        pw = pw_of(f, "techniques-" if tech else "validate-")
        for r in read_rows(f):
            if r.get("sign_agree") in ("yes", "no"):
                out.append((pw, r["point"], "tech" if tech else "comp", r))
    return out


def load_ipc(path, key_cols, val_col):
    if not os.path.exists(path):
        return {}
    return {tuple(r[c] for c in key_cols): float(r[val_col]) for r in read_rows(path)}


def t975(df):
    if df < 1 or df > len(T975):
        fail("no t quantile for %d degrees of freedom" % df)
    return T975[df - 1]


def main(argv):
    verbose = "-v" in argv
    table = "--table" in argv
    args = [a for a in argv if a not in ("-v", "--table")]
    d = args[0] if len(args) > 0 else "data/estimator"
    band_dir = args[1] if len(args) > 1 else "data/estimator/dev/band"
    pert_dir = args[2] if len(args) > 2 else "data/estimator/perturbed"

    points = load_points(d)
    pws = sorted({p[0] for p in points})
    band = {pw: load_ipc(os.path.join(band_dir, "band-%s-small.csv" % pw), ["point"], "ipc_sim") for pw in pws}
    truth = {pw: load_ipc(os.path.join(d, "truth-techniques-%s-small.csv" % pw), ["point"], "ipc_sim") for pw in pws}
    pert = {pw: load_ipc(os.path.join(pert_dir, "perturbed-%s-small.csv" % pw), ["point", "perturbation"], "ipc_sim")
            for pw in pws}

    # the complete perturbations: every point and every band baseline has a row
    complete, partial = [], []
    for p in PERTS:
        have = [(pw, lab) for pw, lab, _, _ in points if (lab, p) in pert[pw] and (p,) in band[pw]]
        if len(have) == len(points):
            complete.append(p)
        elif have:
            partial.append("%s (%d of %d points)" % (p, len(have), len(points)))

    res = []
    for pw, lab, kind, r in points:
        if ("baseline",) not in band[pw]:
            fail("no baseline row in %s/band-%s-small.csv" % (band_dir, pw))
        base0 = band[pw][("baseline",)]
        if kind == "tech":
            if (lab,) not in truth[pw]:
                fail("%s %s: no row in truth-techniques-%s-small.csv" % (pw, lab, pw))
            e0 = truth[pw][(lab,)] / base0 - 1
            if abs(100 * e0 - float(r["effect_sim_pct"])) > 0.006:
                fail("%s %s: truth file's effect %.3f %% differs from the table's %s" % (pw, lab, 100 * e0,
                                                                                      r["effect_sim_pct"]))
        else:
            e0 = float(r["effect_sim_pct"]) / 100
        es = [e0] + [pert[pw][(lab, p)] / band[pw][(p,)] - 1 for p in complete]
        n = len(es)
        mean = sum(es) / n
        if n > 1:
            s = math.sqrt(sum((x - mean) ** 2 for x in es) / (n - 1))
            half = t975(n - 1) * s / math.sqrt(n)
        else:
            s, half = float("nan"), float("inf")
        if abs(mean) < 1e-12:  # a sum of equal and opposite effects, not a sign
            mean = 0.0
        lo, hi = mean - half, mean + half
        sig = lo > 0 or hi < 0
        es_sign = est_sign(r, sign_of(e0))
        res.append(dict(pw=pw, point=lab, e0=e0, mean=mean, se=s / math.sqrt(n) if n > 1 else float("nan"),
                        lo=lo, hi=hi, sig=sig, est=float(r["effect_est_pct"]), est_text=r["effect_est_pct"],
                        est_sign=es_sign, ok_nom=es_sign == sign_of(e0), ok_mean=es_sign == sign_of(mean),
                        stored_agree=r["sign_agree"] == "yes", n=n))

    for x in res:  # the recovered signs must give validate's own verdicts
        if x["ok_nom"] != x["stored_agree"]:
            fail("%s %s: recovered sign disagrees with the stored sign_agree" % (x["pw"], x["point"]))

    def pct(a, b):
        return 100.0 * a / b if b else float("nan")

    na = sum(x["ok_nom"] for x in res)
    nb = sum(x["ok_mean"] for x in res)
    sig = [x for x in res if x["sig"]]
    nc = sum(x["ok_mean"] for x in sig)
    print("complete perturbations (%d): %s" % (len(complete), " ".join(complete) if complete else "none"))
    if partial:
        print("left out, not complete: " + ", ".join(partial))
    print("values per point: n = %d (nominal + %d perturbations), 95 %% t interval" % (1 + len(complete), len(complete)))
    print("(a) estimate vs nominal truth:          %d of %d (%.1f %%)" % (na, len(res), pct(na, len(res))))
    print("(b) estimate vs mean over perturbations: %d of %d (%.1f %%)" % (nb, len(res), pct(nb, len(res))))
    print("(c) significant effects only:            %d of %d (%.1f %%)" % (nc, len(sig), pct(nc, len(sig))))
    ns = [x for x in res if not x["sig"]]
    print("    not significant: %d points (estimate vs mean right on %d)" % (len(ns), sum(x["ok_mean"] for x in ns)))

    def line(x):
        return "%-16s %-34s e0 %+7.2f  mean %+7.2f  [%+7.2f, %+7.2f] %-3s est %s" % (
            x["pw"], x["point"], 100 * x["e0"], 100 * x["mean"], 100 * x["lo"], 100 * x["hi"],
            "sig" if x["sig"] else "-", x["est_text"])

    if verbose:
        for title, sel in (("misses of (a)", [x for x in res if not x["ok_nom"]]),
                           ("misses of (b)", [x for x in res if not x["ok_mean"]]),
                           ("misses of (c)", [x for x in sig if not x["ok_mean"]])):
            print("%s: %d" % (title, len(sel)))
            for x in sel:
                print("  " + line(x))
    if table:
        print()
        print("| machine | workload | point | nominal % | mean % | 95 % interval | significant | estimate % | right vs nominal | right vs mean |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for x in res:
            m, w = x["pw"].split("-", 1)
            print("| %s | %s | %s | %+.2f | %+.2f | %+.2f .. %+.2f | %s | %s | %s | %s |" % (
                m, w, x["point"], 100 * x["e0"], 100 * x["mean"], 100 * x["lo"], 100 * x["hi"],
                "yes" if x["sig"] else "no", x["est_text"], "yes" if x["ok_nom"] else "**no**",
                "yes" if x["ok_mean"] else "**no**"))


if __name__ == "__main__":
    main(sys.argv[1:])
