/* stall_ratio.c: the MC stall ratio of the closed GPU model (gpu_model.c), P(N > K) for the replies
 * N waiting at one MC on 0..B under the truncated-geometric law whose mean is the model's reply-side
 * queue, with the bisection for the law's parameter shortened bit for bit.
 *
 * The bisection halves [1e-6, 1e6] in log scale (rho = sqrt(lo hi)) and keeps the half on which the
 * computed mean F(rho) (geo_mean: the sums in their order, then m / z) is below the target, until a
 * halving moves neither end; about 60 halvings, each a sum of B + 1 terms, once per closed solve.
 * Only the outcome of each comparison F(rho) < mean steers it. F is the true mean f (strictly
 * increasing in rho: its log-derivative is the law's variance) within a relative error E =
 * (4B + 8) u (u = 2^-53; B + 1 products and sums of positive terms per sum, one division; pn stays
 * a normal number for B <= GEO_MAX_B and rho in [1e-6, 1e6]). So two anchors ra < root < rb, each
 * checked with F itself, decide every comparison outside (ra, rb) without a sum:
 *   F(ra) < mean (1 - 4E)  =>  for rho <= ra, F(rho) <= f(ra)(1 + E) <= F(ra)(1 + E)/(1 - E) < mean;
 *   F(rb) > mean (1 + 4E)  =>  for rho >= rb, F(rho) >= F(rb)(1 - E)/(1 + E) > mean, i.e. not below.
 * The anchors are placed 1e-11 (then 1e-8, 1e-5) around a Newton estimate of the root; an anchor that
 * fails its check is not used (that side is summed as before). The halvings, their order, their
 * stopping rule and the final tail sum are the plain bisection's, so the result is too: the only
 * change is which comparisons are read off the anchors. About 20 sums instead of 60. */
#include <float.h>
#include <math.h>

#include "model/model_int.h"

#define GEO_MAX_B 48 /* above: the plain bisection (pn would leave the normal range at the bracket's ends) */
#define GEO_LO 1e-6
#define GEO_HI 1e6

/* The truncated-geometric mean on 0..b at rho, computed as the plain bisection does. */
static double geo_mean(double rho, int b)
{
    double z = 0, m = 0, pn = 1;
    for (int n = 0; n <= b; n++, pn *= rho) {
        z += pn;
        m += n * pn;
    }
    return m / z;
}

/* Newton's method on log rho for f(rho) = mean (f' in log rho is the variance): an estimate of the
 * root, as close as double sums allow; its accuracy only decides whether the anchors check out. */
static double root_estimate(double mean, int b)
{
    double rho;
    if (mean <= 0.5 * b) { /* the untruncated geometric law's mean is rho / (1 - rho) */
        rho = mean / (1.0 + mean);
    } else { /* mirrored: N -> b - N, rho -> 1 / rho */
        double mm = b - mean;
        rho = (1.0 + mm) / mm;
    }
    double t = log(rho);
    for (int i = 0; i < 60; i++) {
        double r = exp(t), z = 0, m = 0, s2 = 0, pn = 1;
        for (int n = 0; n <= b; n++, pn *= r) {
            z += pn;
            m += n * pn;
            s2 += (double)n * n * pn;
        }
        double f = m / z, var = s2 / z - f * f;
        if (!(var > 0))
            break;
        double step = (f - mean) / var;
        step = step > 1.0 ? 1.0 : (step < -1.0 ? -1.0 : step);
        t -= step;
        t = t < log(GEO_LO) ? log(GEO_LO) : (t > log(GEO_HI) ? log(GEO_HI) : t);
        if (fabs(step) < 1e-15)
            break;
    }
    return exp(t);
}

/* The anchors (see above): *ra = 0 and *rb = INFINITY where none checks out. */
static void anchors(double mean, int b, double *ra, double *rb, int *sums)
{
    double e = (4.0 * b + 8.0) * (DBL_EPSILON / 2.0);
    double r0 = root_estimate(mean, b);
    static const double gap[3] = {1e-11, 1e-8, 1e-5};
    *ra = 0.0;
    *rb = INFINITY;
    for (int g = 0; g < 3 && *ra == 0.0; g++) {
        double a = r0 * (1.0 - gap[g]);
        if (!(a >= GEO_LO && a <= GEO_HI))
            break;
        (*sums)++;
        if (geo_mean(a, b) < mean * (1.0 - 4.0 * e))
            *ra = a;
    }
    for (int g = 0; g < 3 && *rb == INFINITY; g++) {
        double r = r0 * (1.0 + gap[g]);
        if (!(r >= GEO_LO && r <= GEO_HI))
            break;
        (*sums)++;
        if (geo_mean(r, b) > mean * (1.0 + 4.0 * e))
            *rb = r;
    }
}

double gpuest_model_stall_ratio(double mean, double b, double k, int *sums)
{
    int count = 0;
    if (mean <= 0 || b <= k)
        return 0.0;
    if (mean > b - 0.5)
        mean = b - 0.5;
    int nb = (int)b;
    double ra = 0.0, rb = INFINITY;
    if (nb >= 1 && nb <= GEO_MAX_B)
        anchors(mean, nb, &ra, &rb, &count);
    double lo = GEO_LO, hi = GEO_HI;
    for (int i = 0; i < 200; i++) { /* mean of the truncated geometric grows with rho */
        double rho = sqrt(lo * hi);
        int below;
        if (rho <= ra) {
            below = 1;
        } else if (rho >= rb) {
            below = 0;
        } else {
            below = geo_mean(rho, nb) < mean;
            count++;
        }
        /* a halving that moves neither end leaves the bracket where it is for good (each step is
         * a function of lo and hi alone): the remaining halvings would repeat it, so stop. The
         * bracket closes to adjacent doubles in about 60 of the 200. */
        if (below) {
            if (rho == lo)
                break;
            lo = rho;
        } else {
            if (rho == hi)
                break;
            hi = rho;
        }
    }
    double rho = sqrt(lo * hi), z = 0, tail = 0, pn = 1;
    for (int n = 0; n <= nb; n++, pn *= rho) {
        z += pn;
        if (n > (int)k)
            tail += pn;
    }
    if (sums)
        *sums = count;
    return tail / z;
}
