/* amva.c: mean value analysis of closed queueing networks: exact single-class MVA and the
 * Schweitzer-Bard approximate MVA with symmetric per-group (per-SM) customer classes.
 *
 * Exact MVA (Reiser and Lavenberg 1980): R_k(n) = D_k (1 + Q_k(n-1)) at a queue, D_k at a
 * delay; X(n) = n / sum_k R_k(n); Q_k(n) = X(n) R_k(n). O(N K), used by tests and as the
 * reference of the approximation.
 *
 * The GPU model needs customers bound to their SM (an SM's issue stage and ejection port see
 * only that SM's tokens) and shared stations (MCs, DRAM, links) that see every SM. That is a
 * multiclass network with one class per SM; exact multiclass MVA is exponential in the number
 * of classes, so we use the Schweitzer (1979) / Bard (1979) approximation, which needs no
 * recursion over the population: an arriving class-c customer sees the queue
 * Q_k - Q_kc / N_c. All G classes are identical (symmetry), so one class is iterated:
 *   private station (G replicas, one per group):  seen = Q_kc (n - 1) / n
 *   shared station (r replicas, visited uniformly): seen = Q_kc (G - 1 / n)
 * where Q_kc is one class's content of one replica. FCFS stations with non-exponential
 * service add the residual-time correction of the method note (Lazowska et al. 1984, 8.4):
 *   R = D (1 + seen_Q - seen_U + seen_U (1 + cs^2) / 2).
 * A multi-server station (c servers, e.g. DRAM banks) uses Seidmann's decomposition: a queue
 * of demand D / c followed by a delay of D (c - 1) / c. */
#include <math.h>

#include "model/model.h"

gpuest_err gpuest_model_mva_exact(const double *demand, const int *is_delay, int k, int n, double *x, double *r,
                                  double *q, gpuest_error_t *err)
{
    if (k <= 0 || k > GPUEST_AMVA_MAX_STATIONS || n < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "exact MVA: %d stations, population %d: expected 1..%d stations and "
                                               "a population >= 1",
                           k, n, GPUEST_AMVA_MAX_STATIONS);
    for (int i = 0; i < k; i++)
        q[i] = 0.0;
    double xn = 0.0;
    for (int m = 1; m <= n; m++) {
        double sum = 0.0;
        for (int i = 0; i < k; i++) {
            r[i] = is_delay[i] ? demand[i] : demand[i] * (1.0 + q[i]);
            sum += r[i];
        }
        if (!(sum > 0.0))
            return gpuest_fail(err, GPUEST_EINVAL, "exact MVA: every demand is zero");
        xn = (double)m / sum;
        for (int i = 0; i < k; i++)
            q[i] = xn * r[i];
    }
    *x = xn;
    return GPUEST_OK;
}

/* Residence time per customer cycle of station s given one class's content q1 at one replica. */
static double residence(const gpuest_amva_station_t *s, double q1, double x_group, int groups, double n)
{
    if (s->kind == GPUEST_ST_DELAY)
        return s->demand;
    double d = s->demand, delay = 0.0;
    if (s->kind == GPUEST_ST_MULTI && s->servers > 1) { /* Seidmann */
        delay = d * (double)(s->servers - 1) / (double)s->servers;
        d /= (double)s->servers;
    }
    int reps = s->replicas > 0 ? s->replicas : 1;
    double seen_q, seen_u;
    if (s->private_station) {
        seen_q = q1 * (n - 1.0) / n;
        seen_u = x_group * d * (n - 1.0) / n;
    } else {
        double u1 = x_group * d / (double)reps; /* one class's utilisation of one replica */
        seen_q = q1 * ((double)groups - 1.0 / n);
        seen_u = u1 * ((double)groups - 1.0 / n);
    }
    double resid = seen_u * ((1.0 + s->scv) / 2.0 - 1.0); /* 0 for exponential service */
    /* a batch spread over `fork` replicas is served in parallel: each part pays its share of the
     * service behind the queue it finds (the asymptote X = fork / D is the bottleneck bound) */
    double f = s->fork > 1.0 ? s->fork : 1.0, df = d / f;
    double r = df * (1.0 + seen_q + resid);
    return (r > df ? r : df) + delay / f;
}

/* Little's law at one replica: a customer spends its residence at one of `replicas` replicas, or,
 * when its visit is a batch forked over f of them, at f replicas at once. */
static double presence_div(const gpuest_amva_station_t *s)
{
    if (s->private_station)
        return 1.0;
    double reps = s->replicas > 0 ? (double)s->replicas : 1.0;
    double f = s->fork > 1.0 ? (s->fork < reps ? s->fork : reps) : 1.0;
    return reps / f;
}

gpuest_err gpuest_model_amva(const gpuest_amva_station_t *st, int k, int groups, double n, double tol,
                             gpuest_amva_result_t *out, gpuest_error_t *err)
{
    if (k <= 0 || k > GPUEST_AMVA_MAX_STATIONS || groups < 1 || !(n > 0.0))
        return gpuest_fail(err, GPUEST_EINVAL, "AMVA: %d stations, %d groups, population %g per group: expected "
                                               "1..%d stations, >= 1 group, population > 0",
                           k, groups, n, GPUEST_AMVA_MAX_STATIONS);
    double total = 0.0;
    for (int i = 0; i < k; i++) {
        if (!(st[i].demand >= 0.0) || !isfinite(st[i].demand))
            return gpuest_fail(err, GPUEST_EINVAL, "AMVA: station %d has demand %g: expected a finite value >= 0", i,
                               st[i].demand);
        total += st[i].demand;
    }
    if (!(total > 0.0))
        return gpuest_fail(err, GPUEST_EINVAL, "AMVA: every demand is zero");
    if (tol <= 0.0)
        tol = 1e-9;
    /* Start from the population spread over the queues in proportion to their demands. */
    double q1[GPUEST_AMVA_MAX_STATIONS];
    for (int i = 0; i < k; i++)
        q1[i] = n * st[i].demand / total / presence_div(&st[i]);
    double xg = n / total;
    int it;
    for (it = 1; it <= 10000; it++) {
        double sum = 0.0;
        for (int i = 0; i < k; i++) {
            out->r[i] = residence(&st[i], q1[i], xg, groups, n);
            sum += out->r[i];
        }
        double xg_new = n / sum, change = fabs(xg_new - xg) / xg_new;
        xg = xg_new;
        for (int i = 0; i < k; i++) {
            double qn = xg * out->r[i] / presence_div(&st[i]);
            double c = fabs(qn - q1[i]) / (qn > 1e-12 ? qn : 1e-12);
            if (c > change && qn > 1e-9 * n)
                change = c;
            q1[i] = qn;
        }
        if (change < tol)
            break;
    }
    out->iterations = it;
    out->x_group = xg;
    out->x = xg * (double)groups;
    for (int i = 0; i < k; i++) {
        int reps = st[i].private_station ? 1 : (st[i].replicas > 0 ? st[i].replicas : 1);
        double d = st[i].kind == GPUEST_ST_MULTI && st[i].servers > 1 ? st[i].demand / st[i].servers : st[i].demand;
        out->q[i] = st[i].private_station ? q1[i] : q1[i] * (double)groups; /* one replica's whole queue */
        out->util[i] = st[i].kind == GPUEST_ST_DELAY
                           ? 0.0
                           : (st[i].private_station ? xg * d : out->x * d / (double)reps);
    }
    if (it > 10000)
        return gpuest_fail(err, GPUEST_ERANGE, "AMVA did not converge in 10000 iterations");
    return GPUEST_OK;
}
