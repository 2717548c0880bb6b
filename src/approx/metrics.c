/* metrics.c: the thesis' application error metrics (Table 6.3), each normalized to [0, 1]. */
#include <math.h>
#include <stdlib.h>

#include "approx_int.h"

static double cap1(double v)
{
    if (!(v == v))  /* NaN: the approximate run blew up */
        return 1.0;
    return v > 1.0 ? 1.0 : (v < 0.0 ? 0.0 : v);
}

double gpuest_approx_mre(const float *exact, const float *approx, size_t n)
{
    if (n == 0)
        return 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = exact[i], a = approx[i];
        double d = fabs(a - e);
        double rel;
        if (e == 0.0)
            rel = d == 0.0 ? 0.0 : 1.0;
        else
            rel = d / fabs(e);
        sum += cap1(rel);
    }
    return cap1(sum / (double)n);
}

double gpuest_approx_nrmse(const float *exact, const float *approx, size_t n)
{
    if (n == 0)
        return 0.0;
    double lo = exact[0], hi = exact[0], sq = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = exact[i], d = (double)approx[i] - e;
        sq += d * d;
        if (e < lo)
            lo = e;
        if (e > hi)
            hi = e;
    }
    double rmse = sqrt(sq / (double)n);
    if (rmse == 0.0)
        return 0.0;
    double range = hi - lo;
    if (range == 0.0)
        range = fabs(hi);
    if (range == 0.0)
        return 1.0;
    return cap1(rmse / range);
}

double gpuest_approx_linf(const float *exact, const float *approx, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)approx[i] - exact[i]);
        if (!(d == d))
            return 1.0;
        if (d > num)
            num = d;
        if (fabs(exact[i]) > den)
            den = fabs(exact[i]);
    }
    if (num == 0.0)
        return 0.0;
    if (den == 0.0)
        return 1.0;
    return cap1(num / den);
}

/* n choose 2 as a double (counts of point pairs). */
static double pairs(double c)
{
    return c * (c - 1.0) / 2.0;
}

double gpuest_approx_cluster_error(const int *exact, const int *approx, size_t n, int k)
{
    if (n < 2 || k <= 0)
        return 0.0;
    size_t kk = (size_t)k;
    double *table = calloc(kk * kk + 2 * kk, sizeof *table);
    if (!table)
        return 1.0;
    double *row = table + kk * kk, *col = row + kk;
    for (size_t i = 0; i < n; i++) {
        size_t e = (size_t)exact[i], a = (size_t)approx[i];
        if (e >= kk || a >= kk) {
            free(table);
            return 1.0;
        }
        table[e * kk + a] += 1.0;
        row[e] += 1.0;
        col[a] += 1.0;
    }
    /* Pair counting via the contingency table: a pair is a true positive when both
     * runs put its points together. */
    double tp = 0.0, same_exact = 0.0, same_approx = 0.0;
    for (size_t i = 0; i < kk * kk; i++)
        tp += pairs(table[i]);
    for (size_t i = 0; i < kk; i++) {
        same_exact += pairs(row[i]);
        same_approx += pairs(col[i]);
    }
    free(table);
    double precision = same_approx > 0.0 ? tp / same_approx : 1.0;
    double recall = same_exact > 0.0 ? tp / same_exact : 1.0;
    if (precision + recall == 0.0)
        return 1.0;
    double hm = 2.0 * precision * recall / (precision + recall);
    return cap1(1.0 - hm);
}

void approx_score_mre(const approx_ds_t *ds, const approx_output_t *e, const approx_output_t *a, double errors[2])
{
    (void)ds;
    errors[0] = gpuest_approx_mre(e->values, a->values, e->nvalues);
    errors[1] = NAN;
}

void approx_score_nrmse(const approx_ds_t *ds, const approx_output_t *e, const approx_output_t *a, double errors[2])
{
    (void)ds;
    errors[0] = gpuest_approx_nrmse(e->values, a->values, e->nvalues);
    errors[1] = NAN;
}
