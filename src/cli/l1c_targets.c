/* l1c_targets.c: rule-relative targets with asymmetric spans (seventh round, docs/latte-cc.md).
 * The sixth round's single 5 % span clipped every period loss beyond 5 % to the same target, so a
 * hold costing 45 % taught the network what one costing 5 % did; gains and losses now have a span
 * each, the 99th percentile of their size in the training labels. */
#include "l1c_targets.h"

#include <stdlib.h>

double cli_l1c_rule_target(double saving, double gain_span, double loss_span)
{
    double t = 0.5 + saving / (2.0 * (saving >= 0 ? gain_span : loss_span));
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank 99th percentile of v[0 .. n-1] (sorted in place): the value of rank ceil(0.99 n). */
static double p99(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t rank = (99 * n + 99) / 100; /* ceil(0.99 n) for n >= 1 */
    return v[rank - 1];
}

gpuest_err cli_l1c_spans_p99(const double *cost, const double *crule, size_t rows, int nout, double fallback,
                             double *gain, double *loss, gpuest_error_t *err)
{
    size_t cap = rows * (size_t)nout, np = 0, nn = 0;
    double *pos = malloc((cap ? cap : 1) * sizeof *pos), *neg = malloc((cap ? cap : 1) * sizeof *neg);
    if (!pos || !neg) {
        free(pos);
        free(neg);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory computing the target spans");
    }
    for (size_t i = 0; i < rows; i++) {
        if (crule[i] <= 0)
            continue;
        for (int k = 0; k < nout; k++) {
            double s = (crule[i] - cost[i * (size_t)nout + (size_t)k]) / crule[i];
            if (s > 0)
                pos[np++] = s;
            else if (s < 0)
                neg[nn++] = -s;
        }
    }
    *gain = np ? p99(pos, np) : fallback;
    *loss = nn ? p99(neg, nn) : fallback;
    free(pos);
    free(neg);
    return GPUEST_OK;
}
