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

/* Residence time per customer cycle of station s at the Schweitzer fixed point for one group's
 * throughput xg. An arriving customer sees seen_q = c q1, q1 = xg R / pd (one class's content of
 * one replica, Little's law; pd = presence_div), c = (n - 1)/n at a private station and G - 1/n at
 * a shared one, and the residence is R = df (1 + seen_q + resid) + delay / f (df = the queue part
 * of the demand over the fork, delay = Seidmann's delay part), so R solves a linear equation:
 * R = (df (1 + resid) + delay / f) / (1 - df c xg / pd), or infinity past the station's bound.
 * A residence below df (a negative residual correction) is clamped to df.
 *
 * The root search evaluates it 10-20 times a solve at the same stations, so what does not depend on
 * xg is computed once (prep_station) and kept in a prepared_t; each kept value is the one the
 * direct form computes (the same operations in the same order), so the residences are bit for bit
 * those of the direct form. */
typedef struct {
    int delay_only;   /* a delay station: its demand is the residence */
    int priv;         /* private station: seen_u = xg d c; shared: xg d / reps c */
    double demand;    /* delay stations */
    double d, c, reps, k1, df, dfc, pd, delay_f;
} prepared_t;

/* c_priv = (n - 1) / n and c_shared = G - 1 / n: the seen-queue factors, the same for every station */
static void prep_station(const gpuest_amva_station_t *s, double c_priv, double c_shared, prepared_t *p)
{
    p->delay_only = s->kind == GPUEST_ST_DELAY;
    p->demand = s->demand;
    p->pd = presence_div(s);
    if (p->delay_only)
        return;
    double d = s->demand, delay = 0.0;
    if (s->kind == GPUEST_ST_MULTI && s->servers > 1) { /* Seidmann */
        delay = d * (double)(s->servers - 1) / (double)s->servers;
        d /= (double)s->servers;
    }
    int reps = s->replicas > 0 ? s->replicas : 1;
    p->priv = s->private_station != 0;
    p->c = p->priv ? c_priv : c_shared;
    p->d = d;
    p->reps = (double)reps;
    p->k1 = (1.0 + s->scv) / 2.0 - 1.0; /* 0 for exponential service */
    /* a batch spread over `fork` replicas is served in parallel: each part pays its share of the
     * service behind the queue it finds (the asymptote X = fork / D is the bottleneck bound) */
    double f = s->fork > 1.0 ? s->fork : 1.0;
    p->df = d / f;
    p->dfc = p->df * p->c;
    p->delay_f = delay / f;
}

static inline double residence_prep(const prepared_t *p, double xg)
{
    if (p->delay_only)
        return p->demand;
    double seen_u = xg * p->d; /* x / 1.0 is x: the divisions by one replica or presence are skipped */
    if (!p->priv && p->reps != 1.0)
        seen_u /= p->reps;
    seen_u *= p->c;
    double resid = seen_u * p->k1;
    double load = p->dfc * xg;
    if (p->pd != 1.0)
        load /= p->pd;
    double den = 1.0 - load;
    if (!(den > 0.0))
        return INFINITY;
    double r = (p->df * (1.0 + resid) + p->delay_f) / den;
    if (r - p->delay_f < p->df) /* 1 + seen_q + resid < 1: clamped, seen_q then from this residence */
        r = p->df + p->delay_f;
    return r;
}

/* The stations the root search sums (g_at): all but those whose residence is exactly zero at every
 * throughput (a delay or a queue of zero demand), in their order; adding +0 to a sum of
 * non-negative residences changes nothing, so the sums are bit for bit those over every station. */
static int summed_stations(const prepared_t *pr, int k, prepared_t *out)
{
    int n = 0;
    for (int i = 0; i < k; i++) {
        const prepared_t *p = &pr[i];
        if (p->delay_only ? p->demand == 0.0 : (p->df == 0.0 && p->delay_f == 0.0))
            continue;
        out[n++] = *p;
    }
    return n;
}

/* g(xg) = xg sum R(xg) - n: negative below the Schweitzer fixed point, infinite past a bound. */
static double g_at(const prepared_t *pr, int k, double n, double xg)
{
    double sum = 0.0;
    for (int i = 0; i < k && isfinite(sum); i++)
        sum += residence_prep(&pr[i], xg);
    return isfinite(sum) ? xg * sum - n : INFINITY;
}

gpuest_err gpuest_model_amva(const gpuest_amva_station_t *st, int k, int groups, double n, double tol,
                             gpuest_amva_result_t *out, gpuest_error_t *err)
{
    return gpuest_model_amva_from(st, k, groups, n, tol, NULL, out, err);
}

gpuest_err gpuest_model_amva_from(const gpuest_amva_station_t *st, int k, int groups, double n, double tol,
                                  const gpuest_amva_result_t *start, gpuest_amva_result_t *out, gpuest_error_t *err)
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
    /* The Schweitzer fixed point in one unknown: every residence follows from the group's
     * throughput xg (residence_prep), and xg = n / sum R(xg); sum R is increasing in xg, so
     * g(xg) = xg sum R(xg) - n has one root, between 0 and the first bound (n / the residences
     * with nobody seen; past a queue's bound R is infinite). The same fixed point the classic
     * substitution iteration reaches, without its slow convergence near saturation. The root is
     * bracketed and found by secant steps with the Illinois rule (each R is a ratio of linear
     * functions of xg, so g is smooth and the steps converge superlinearly: about 10 evaluations
     * where a bisection to the same 1e-15 needs 50), a halving where an end is infinite (past a
     * bound). A `start` (the solution of a nearby network: the closed model's previous outer
     * iteration) brackets the root within +-0.1 % of its throughput when both ends check out. */
    prepared_t pr[GPUEST_AMVA_MAX_STATIONS];
    double c_priv = (n - 1.0) / n, c_shared = (double)groups - 1.0 / n;
    for (int i = 0; i < k; i++)
        prep_station(&st[i], c_priv, c_shared, &pr[i]);
    prepared_t ps[GPUEST_AMVA_MAX_STATIONS];
    int ks = summed_stations(pr, k, ps);
    double s0 = 0.0; /* residences with nobody seen: sum R(xg) >= s0, so the root is below n / s0 */
    for (int i = 0; i < k; i++)
        s0 += residence_prep(&pr[i], 0.0);
    double lo = 0.0, hi = n / s0, glo = -n, ghi = INFINITY;
    int it, kept = 0;
    if (start && start->x_group > 0.0 && start->x_group < hi) {
        double x0 = start->x_group, a = x0 * (1.0 - 1e-3), b = x0 * (1.0 + 1e-3);
        double ga = g_at(ps, ks, n, a);
        if (ga < 0) {
            lo = a, glo = ga;
            if (b < hi) {
                double gb = g_at(ps, ks, n, b);
                if (gb < 0)
                    lo = b, glo = gb;
                else
                    hi = b, ghi = gb;
            }
        } else {
            hi = a, ghi = ga;
        }
    }
    for (it = 1; it <= 200; it++) {
        double w = hi - lo, mid;
        if (w <= 1e-15 * hi || w <= tol * 1e-6 * hi)
            break;
        if (isfinite(ghi)) {
            double edge = 0.25 * (1e-15 * hi > tol * 1e-6 * hi ? 1e-15 * hi : tol * 1e-6 * hi);
            mid = hi - ghi * w / (ghi - glo);
            /* next to an end, step just past it, so that the bracket closes from both sides */
            if (!(mid > lo + edge))
                mid = lo + edge;
            if (!(mid < hi - edge))
                mid = hi - edge;
        } else {
            mid = 0.5 * (lo + hi);
        }
        double g = g_at(ps, ks, n, mid);
        if (g < 0) {
            lo = mid, glo = g;
            if (kept == -1)
                ghi *= 0.5; /* Illinois: the upper end stayed twice */
            kept = -1;
        } else {
            hi = mid, ghi = g;
            if (kept == 1)
                glo *= 0.5;
            kept = 1;
        }
    }
    double xg = lo, q1[GPUEST_AMVA_MAX_STATIONS], sum = 0.0;
    for (int i = 0; i < k; i++) {
        out->r[i] = residence_prep(&pr[i], xg);
        sum += out->r[i];
    }
    if (!(sum > 0) || !isfinite(sum))
        return gpuest_fail(err, GPUEST_ERANGE, "AMVA: no finite solution");
    xg = n / sum; /* consistent with the residences (equal to lo within the bracket) */
    for (int i = 0; i < k; i++)
        q1[i] = xg * out->r[i] / pr[i].pd;
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
    return GPUEST_OK;
}
