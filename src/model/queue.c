/* queue.c: closed-form queueing primitives: M/G/1 (Pollaczek-Khinchine), Erlang C / Allen-Cunneen G/G/c, M/D/1/K. */
#include <math.h>
#include <string.h>

#include "model/model.h"

gpuest_err gpuest_model_mg1_wait(double lambda, double es, double es2, double *wait)
{
    double rho = lambda * es;
    *wait = 0.0;
    if (lambda <= 0.0)
        return GPUEST_OK;
    if (rho >= 1.0)
        return GPUEST_ESATURATED;
    *wait = lambda * es2 / (2.0 * (1.0 - rho));
    return GPUEST_OK;
}

double gpuest_model_erlang_c(int c, double a)
{
    /* Erlang B by the stable recursion, then C = c B / (c - a (1 - B)). */
    double b = 1.0;
    if (a <= 0.0)
        return 0.0;
    if (a >= c)
        return 1.0;
    for (int n = 1; n <= c; n++)
        b = a * b / (n + a * b);
    return c * b / (c - a * (1.0 - b));
}

gpuest_err gpuest_model_ggc_wait(int c, double lambda, double es, double ca2, double cs2, double *wait)
{
    double a = lambda * es;
    *wait = 0.0;
    if (lambda <= 0.0 || es <= 0.0)
        return GPUEST_OK;
    if (c < 1)
        c = 1;
    if (a >= c)
        return GPUEST_ESATURATED;
    double rho = a / c;
    *wait = gpuest_model_erlang_c(c, a) * es / (c * (1.0 - rho)) * 0.5 * (ca2 + cs2);
    return GPUEST_OK;
}

/* Departure-epoch chain of M/G/1/K (Gross & Harris, sec. 5.1): pi_j for j < K from
 * pi_j = pi_0 a_j + sum_{i=1}^{j+1} pi_i a_{j-i+1}; then the time averages
 * p_j = pi_j / (pi_0 + rho), p_K = 1 - 1 / (pi_0 + rho). a_j is Poisson(lambda d). */
gpuest_err gpuest_model_md1k(double lambda, double d, int k, gpuest_model_md1k_t *out, gpuest_error_t *err)
{
    double a[65], pi[65];
    memset(out, 0, sizeof *out);
    if (k < 1 || k > 64 || !(d > 0.0) || !(lambda >= 0.0))
        return gpuest_fail(err, GPUEST_EINVAL, "M/D/1/K: need 1 <= K <= 64, service > 0, rate >= 0 (got K=%d, d=%g, rate=%g)",
                           k, d, lambda);
    double rho = lambda * d;
    if (lambda == 0.0) {
        out->p[0] = 1.0;
        return GPUEST_OK;
    }
    a[0] = exp(-rho);
    for (int j = 1; j < k; j++)
        a[j] = a[j - 1] * rho / j;
    pi[0] = 1.0;
    for (int j = 0; j + 1 < k; j++) {
        double s = pi[j] - pi[0] * a[j];
        for (int i = 1; i <= j; i++)
            s -= pi[i] * a[j - i + 1];
        pi[j + 1] = s > 0.0 ? s / a[0] : 0.0; /* cancellation can leave tiny negatives */
    }
    double sum = 0.0;
    for (int j = 0; j < k; j++)
        sum += pi[j];
    for (int j = 0; j < k; j++)
        pi[j] /= sum;
    double denom = pi[0] + rho;
    double mean = 0.0;
    for (int j = 0; j < k; j++) {
        out->p[j] = pi[j] / denom;
        mean += j * out->p[j];
    }
    out->p[k] = 1.0 - 1.0 / denom;
    if (out->p[k] < 0.0)
        out->p[k] = 0.0;
    mean += k * out->p[k];
    out->p_full = out->p[k];
    out->mean_number = mean;
    out->throughput = lambda * (1.0 - out->p_full);
    out->mean_wait = out->throughput > 0.0 ? mean / out->throughput - d : 0.0;
    if (out->mean_wait < 0.0)
        out->mean_wait = 0.0;
    return GPUEST_OK;
}
