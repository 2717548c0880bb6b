/* noc_saturation.c: the open NoC model's saturation scale as the root of a continuous function.
 *
 * The model saturates where the fixed point of its waits stops existing: in practice where the
 * utilisation of one of its queues (an output port, an input VC's servers, a source queue or an MC
 * reply port, each counting the waits it holds) reaches 1, within one to three sweeps. Below that
 * scale the largest utilisation of the converged model, u(s), grows with s (the loads are linear in
 * s, the crossbar conflicts and the held waits add curvature), so the saturation scale is the root
 * of g(s) = h(u(s)), h(u) = u - 1 below 1 and 1 - 1/u above (the same value and slope at the root,
 * bounded where a queue past its capacity reports a huge utilisation). A bisection on the saturated
 * flag (what gpu_model.c did before) needs one evaluation per halving, 17 from zero; a secant step
 * on g lands next to the root in two or three, and the Illinois rule (halving the kept end's value
 * when the same end is kept twice) keeps the bracket shrinking from both sides. Stable evaluations
 * start from the waits of the previous stable one (gpuest_model_noc_eval_warm). A saturated
 * evaluation gives g >= 0: the utilisation at the sweep where a queue passed 1; where the flag
 * comes from a fixed point that does not converge (u may then be below 1) only its sign is used.
 * Safeguards: a halving when two steps did not halve the bracket, halvings alone where u jumps. */
#include <math.h>

#include "model/model.h"
#include "model/model_int.h"

/* First step away from a hint that was wrong. The interval's kappa + 1 % moves a phase's root by
 * about 0.3 % (mesh56 bfs); a 0.5 % step brackets it with two fewer halvings than the 2 % step
 * it replaced, and the doubling steps reach any farther root. */
#define HINT_STEP 0.005

typedef struct {
    double s, g;
    int sat;
} probe_t;

static probe_t probe(gpuest_model_noc_t *m, const gpuest_model_params_t *pp, double s, int *evals)
{
    gpuest_model_result_t r;
    gpuest_err rc = gpuest_model_noc_eval_probe(m, s, pp, &r, NULL); /* u and the flag alone */
    (*evals)++;
    /* h(u) = u - 1 below 1, 1 - 1/u above: the same value and slope at the root, bounded where a
     * queue past its capacity reports a huge utilisation (a secant from there would crawl) */
    double u = r.max_util;
    probe_t p = {s, u < 1.0 ? u - 1.0 : 1.0 - 1.0 / u, rc != GPUEST_OK || r.saturated};
    if (p.sat && !(p.g > 0.0))
        p.g = 0.0; /* saturated without a queue at 1 (no convergence): the sign alone is known */
    if (!p.sat && !(p.g < 0.0))
        p.g = -1e-12;
    return p;
}

gpuest_err gpuest_model_noc_saturation_root(gpuest_model_noc_t *m, const gpuest_model_params_t *params, double lo,
                                            double hi, double rel_tol, double *scale, int *evals, gpuest_error_t *err)
{
    gpuest_model_params_t def;
    if (!params) {
        gpuest_model_params_default(&def);
        params = &def;
    }
    int n = 0;
    *scale = 0.0;
    if (!(lo >= 0.0) || !(hi > lo) || !isfinite(hi) || !(rel_tol > 0.0))
        return gpuest_fail(err, GPUEST_EINVAL, "NoC saturation search: bad bracket [%g, %g] or tolerance %g", lo, hi,
                           rel_tol);
    probe_t a = {0.0, -1.0, 0}, b = {0.0, 0.0, 0};
    int hinted = lo > 0.0;
    if (hinted) { /* a hint (a nearby kappa's root): check it, stepping down 0.5 %, 1 %, ... if wrong */
        probe_t p = probe(m, params, lo, &n);
        for (double step = HINT_STEP * lo; p.sat && p.s > 0.0; step *= 2.0) {
            b = p;
            p = p.s - step > 0.0 ? probe(m, params, p.s - step, &n) : (probe_t){0.0, -1.0, 0};
        }
        a = p;
    }
    if (!b.sat)
        b = probe(m, params, hi, &n);
    for (double step = HINT_STEP * hi; !b.sat; step *= 2.0) { /* upwards: 0.5 %, 1 %, ... of a hint; else doubling */
        a = b;
        if (b.s > 1e12 || n > 80)
            return gpuest_fail(err, GPUEST_EINVAL, "NoC saturation search: no saturation up to scale %g", b.s);
        b = probe(m, params, hinted ? b.s + step : 2.0 * b.s, &n);
    }
    int kept = 0;                           /* +1: the stable end a was kept last time, -1: the saturated end b */
    probe_t a0 = {0.0, -1.0, 0};            /* the stable point before a (u(0) = 0: no load, no utilisation) */
    double width[2] = {INFINITY, INFINITY}; /* the bracket's width two and one steps ago */
    /* Where the queue that saturates overtakes the hottest one just below the root (its wait grows
     * without bound with another queue's load), u jumps there and the stable end's value stays
     * short of zero however close it gets: after two secant steps that did not halve it, the
     * search goes on by halvings alone. */
    int slow = 0, jump = 0, steps = 0;
    double width0 = b.s - a.s;
    while (b.s - a.s > rel_tol * b.s && n < 100) {
        /* six steps that did not shrink the bracket to a sixteenth: u jumps (its secants crawl from
         * the saturated side, each followed by a halving); halvings alone from here cost one
         * evaluation per halving instead of about two. A continuous u has its secant next to the
         * root by then (fermi: within 1e-4 of the bracket after five steps). */
        if (++steps > 6 && b.s - a.s > 0.0625 * width0)
            jump = 1;
        double tol = 0.5 * rel_tol * b.s, s = NAN;
        int secant = 0;
        if (jump || b.s - a.s > 0.5 * width[0]) /* or two steps did not halve the bracket */
            s = 0.5 * (a.s + b.s);
        else if (b.g > 0.0) /* secant across the bracket */
            s = b.s - b.g * (b.s - a.s) / (b.g - a.g), secant = 1;
        else if (a.s > a0.s && a.g > a0.g) /* no value at b: extrapolate the two stable points */
            s = a.s - a.g * (a.s - a0.s) / (a.g - a0.g), secant = 1;
        if (!isfinite(s))
            s = 0.5 * (a.s + b.s), secant = 0;
        width[0] = width[1];
        width[1] = b.s - a.s;
        /* next to an end, step just past it: a converging secant then closes the bracket */
        if (s < a.s + tol)
            s = a.s + tol;
        if (s > b.s - tol)
            s = b.s - tol;
        probe_t p = probe(m, params, s, &n);
        if (p.sat) {
            b = p;
            if (kept == 1)
                a.g *= 0.5; /* Illinois: the stable end stayed twice */
            kept = 1;
        } else {
            if (secant && a.s > 0.0) {
                slow = p.g < 0.5 * a.g ? slow + 1 : 0; /* |g| not halved (both negative) */
                jump = jump || slow >= 2;
            }
            a0 = a;
            a = p;
            if (kept == -1)
                b.g *= 0.5;
            kept = -1;
        }
    }
    *scale = 0.5 * (a.s + b.s);
    if (evals)
        *evals = n;
    return GPUEST_OK;
}
