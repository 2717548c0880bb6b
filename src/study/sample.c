/* sample.c: sampled-simulation estimates: ratio estimators per kernel, stratified over kernels,
 * confidence intervals, the sample size for a target interval (SMARTS: n >= (z V / eps)^2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "study/study.h"

/* Ratio estimate R = sum y / sum x over units of one kernel and its variance
 * Var(R) ~ s^2(y - R x) / (n xbar^2) (Cochran, Sampling Techniques, 6.3). */
static void ratio_est(const gpuest_sample_result_t *r, size_t k, int field, double *R, double *var, int *n)
{
    double sy = 0, sx = 0;
    int m = 0;
    for (size_t i = 0; i < r->num_units; i++) {
        const gpuest_sample_unit_t *u = &r->units[i];
        if ((size_t)u->kernel != k)
            continue;
        double y = field == 0 ? (double)u->cycles : (field == 1 ? u->amat_sum : (field == 2 ? u->miss_sum : (double)u->mc_stalls));
        double x = field == 0 ? (double)u->thread_insts : (field == 1 ? u->amat_n : (field == 2 ? u->miss_n : (double)u->mc_cycles));
        sy += y;
        sx += x;
        m++;
    }
    *n = m;
    *R = sx > 0 ? sy / sx : 0.0;
    *var = -1.0;
    if (m < 2 || sx <= 0)
        return;
    double xbar = sx / m, ss = 0;
    for (size_t i = 0; i < r->num_units; i++) {
        const gpuest_sample_unit_t *u = &r->units[i];
        if ((size_t)u->kernel != k)
            continue;
        double y = field == 0 ? (double)u->cycles : (field == 1 ? u->amat_sum : (field == 2 ? u->miss_sum : (double)u->mc_stalls));
        double x = field == 0 ? (double)u->thread_insts : (field == 1 ? u->amat_n : (field == 2 ? u->miss_n : (double)u->mc_cycles));
        double d = y - *R * x;
        ss += d * d;
    }
    *var = ss / (m - 1) / (m * xbar * xbar);
}

/* Whole-run ratio for field over kernels, weighted by each kernel's denominator total (weight w_k):
 * value = sum_k w_k R_k / sum_k w_k; kernels without a variance borrow the pooled relative one. */
static gpuest_study_ci_t combine(const gpuest_sample_result_t *r, int field, const double *wk, double z, int invert)
{
    double num = 0, den = 0, var = 0, relvar_pool = 0;
    int pooled = 0;
    for (size_t k = 0; k < r->num_kernels; k++) {
        double R, v;
        int n;
        ratio_est(r, k, field, &R, &v, &n);
        if (v >= 0 && R > 0) {
            relvar_pool += v / (R * R);
            pooled++;
        }
    }
    relvar_pool = pooled ? relvar_pool / pooled : 0.0;
    for (size_t k = 0; k < r->num_kernels; k++) {
        double R, v;
        int n;
        ratio_est(r, k, field, &R, &v, &n);
        if (n == 0 || wk[k] <= 0)
            continue;
        if (v < 0)
            v = relvar_pool * R * R;
        num += wk[k] * R;
        den += wk[k];
        var += wk[k] * wk[k] * v;
    }
    gpuest_study_ci_t ci = {0, 0, 0};
    if (den <= 0)
        return ci;
    double est = num / den, sd = sqrt(var) / den;
    if (!invert) {
        ci.value = est;
        ci.lo = est - z * sd > 0 ? est - z * sd : 0;
        ci.hi = est + z * sd;
    } else { /* IPC = 1 / CPI: interval by inversion of the CPI interval */
        ci.value = est > 0 ? 1.0 / est : 0;
        ci.lo = est + z * sd > 0 ? 1.0 / (est + z * sd) : 0;
        ci.hi = est - z * sd > 0 ? 1.0 / (est - z * sd) : INFINITY;
    }
    return ci;
}

gpuest_err gpuest_study_sample_estimate(const gpuest_sample_result_t *raw, double conf, double target,
                                        gpuest_study_sampled_t *out, gpuest_error_t *err)
{
    if (!(conf > 0 && conf < 1))
        return gpuest_fail(err, GPUEST_ERANGE, "confidence %g: expected a level in (0, 1)", conf);
    if (raw->num_units < 2)
        return gpuest_fail(err, GPUEST_EINVAL, "sampling measured %zu unit(s): at least 2 are needed for an "
                                               "interval (lower the unit size or raise the unit count)",
                           raw->num_units);
    double z = gsl_cdf_ugaussian_Pinv(0.5 + conf / 2.0);
    double *w = calloc(raw->num_kernels ? raw->num_kernels : 1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    /* CPI per thread instruction, weighted by each kernel's thread instructions (exact, counted) */
    for (size_t k = 0; k < raw->num_kernels; k++)
        w[k] = (double)raw->kernel_thread_insts[k];
    out->ipc = combine(raw, 0, w, z, 1);
    /* latency ratios, weighted by each kernel's share of measured requests scaled to its length */
    for (size_t k = 0; k < raw->num_kernels; k++) {
        double a = 0, t = 0;
        for (size_t i = 0; i < raw->num_units; i++)
            if ((size_t)raw->units[i].kernel == k) {
                a += raw->units[i].amat_n;
                t += (double)raw->units[i].thread_insts;
            }
        w[k] = t > 0 ? a / t * (double)raw->kernel_thread_insts[k] : 0;
    }
    out->amat = combine(raw, 1, w, z, 0);
    out->miss_latency = combine(raw, 2, w, z, 0);
    for (size_t k = 0; k < raw->num_kernels; k++)
        w[k] = (double)raw->kernel_thread_insts[k];
    out->mc_stall = combine(raw, 3, w, z, 0);
    free(w);
    /* coefficient of variation of per-unit CPI, and the sample size for the target half-width */
    double s1 = 0, s2 = 0;
    int n = 0, steady = 0;
    for (size_t i = 0; i < raw->num_units; i++) {
        const gpuest_sample_unit_t *u = &raw->units[i];
        if (u->thread_insts == 0)
            continue;
        double cpi = (double)u->cycles / (double)u->thread_insts;
        s1 += cpi;
        s2 += cpi * cpi;
        n++;
        steady += u->warm_steady;
    }
    double mean = n ? s1 / n : 0, var = n > 1 ? (s2 - n * mean * mean) / (n - 1) : 0;
    out->cov = mean > 0 && var > 0 ? sqrt(var) / mean : 0;
    out->units = n;
    out->units_steady = steady;
    out->confidence = conf;
    out->target = target;
    double eps = target > 0 ? target : 0.03;
    out->units_needed = (int)ceil(pow(z * out->cov / eps, 2.0));
    double full_cycles = 0;
    for (size_t k = 0; k < raw->num_kernels; k++)
        full_cycles += (double)raw->kernel_thread_insts[k];
    full_cycles = out->ipc.value > 0 ? full_cycles / out->ipc.value : 0;
    out->detailed_fraction = full_cycles > 0 ? (double)raw->detailed_cycles / full_cycles : 0;
    return GPUEST_OK;
}

void gpuest_study_sampled_free(gpuest_study_sampled_t *s)
{
    if (s)
        gpuest_sample_result_free(&s->raw);
}

static gpuest_err sample_once(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale, uint64_t seed,
                              const gpuest_sample_opts_t *o, gpuest_sample_result_t *raw, gpuest_error_t *err)
{
    gpuest_workload_t *a = NULL, *b = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &a, err));
    gpuest_err rc = gpuest_workload_create(workload, scale, seed, &b, err);
    if (rc == GPUEST_OK) {
        gpuest_sim_source_t sa, sb;
        gpuest_sim_source_workload(&sa, a);
        gpuest_sim_source_workload(&sb, b);
        rc = gpuest_sim_sample(cfg, &sa, &sb, o, raw, err);
    }
    gpuest_workload_destroy(a);
    gpuest_workload_destroy(b);
    return rc;
}

gpuest_err gpuest_study_sample(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                               uint64_t seed, const gpuest_sample_opts_t *opts, double conf, double target,
                               gpuest_study_sampled_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    gpuest_sample_opts_t o = *opts;
    gpuest_err rc = sample_once(cfg, workload, scale, seed, &o, &out->raw, err);
    if (rc == GPUEST_OK)
        rc = gpuest_study_sample_estimate(&out->raw, conf, target, out, err);
    if (rc == GPUEST_OK && target > 0 && out->units_needed > out->units && o.units < 400) {
        /* second stage with the size the pilot asks for (SMARTS) */
        o.units = out->units_needed < 400 ? out->units_needed : 400;
        double wall = out->raw.wall_seconds;
        gpuest_sample_result_free(&out->raw);
        rc = sample_once(cfg, workload, scale, seed, &o, &out->raw, err);
        if (rc == GPUEST_OK) {
            out->raw.wall_seconds += wall; /* the pilot's cost counts */
            rc = gpuest_study_sample_estimate(&out->raw, conf, target, out, err);
        }
    }
    return rc;
}
