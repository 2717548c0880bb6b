/* sample.c: sampled-simulation estimates: ratio estimators per kernel, stratified over kernels,
 * confidence intervals, the sample size for a target interval (SMARTS: n >= (z V / eps)^2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "study/study.h"
#include "technique/technique.h"

static double field_y(const gpuest_sample_unit_t *u, int field)
{
    return field == 0 ? (double)u->cycles : field == 1 ? u->amat_sum : field == 2 ? u->miss_sum : (double)u->mc_stalls;
}

static double field_x(const gpuest_sample_unit_t *u, int field)
{
    return field == 0 ? (double)u->thread_insts : field == 1 ? u->amat_n : field == 2 ? u->miss_n : (double)u->mc_cycles;
}

/* Ratio estimate R = sum y / sum x over the sampled (not census) units of one kernel and its
 * variance Var(R) ~ s^2(y - R x) / (n xbar^2) (Cochran, Sampling Techniques, 6.3). */
static void ratio_est(const gpuest_sample_result_t *r, size_t k, int field, double *R, double *var, int *n)
{
    double sy = 0, sx = 0;
    int m = 0;
    for (size_t i = 0; i < r->num_units; i++) {
        const gpuest_sample_unit_t *u = &r->units[i];
        if ((size_t)u->kernel != k || u->census)
            continue;
        sy += field_y(u, field);
        sx += field_x(u, field);
        m++;
    }
    *n = m;
    *R = sx > 0 ? sy / sx : 0.0;
    *var = -1.0;
    if (m < 2 || sx <= 0)
        return;
    /* The units are one per period in run order (a stratified sample); the variance comes from
     * successive differences of the residuals d = y - R x, s^2 ~ sum (d_j - d_{j-1})^2 / (2 (n - 1))
     * (Wolter, Introduction to Variance Estimation, 8.2: the collapsed-strata estimator), which
     * leaves out the trend between periods that stratification already removed. The plain s^2
     * counts that trend as noise: on the tests' synthetic kernel with a cold-cache ramp its 95 %
     * intervals covered 100 % of the time with 15 units a kernel. */
    double xbar = sx / m, ss = 0, prev = 0;
    int j = 0;
    for (size_t i = 0; i < r->num_units; i++) {
        const gpuest_sample_unit_t *u = &r->units[i];
        if ((size_t)u->kernel != k || u->census)
            continue;
        double d = field_y(u, field) - *R * field_x(u, field);
        if (j++ > 0)
            ss += (d - prev) * (d - prev);
        prev = d;
    }
    *var = ss / (2.0 * (m - 1)) / (m * xbar * xbar);
}

/* One kernel's estimate of a field's ratio over its strata. */
typedef struct {
    double R;     /* the kernel's ratio */
    double rm;    /* the sampled middle's ratio estimate, its variance (< 0: fewer than 2 units) */
    double vm;
    double wm;    /* the middle's share of the kernel's thread instructions */
    int m, n;     /* sampled units, all units */
} kernel_est_t;

/* Census units (the kernel's head and tail, measured in every run) enter exactly, weighted by
 * their share of the kernel's thread instructions, and the sampled middle by its ratio estimate
 * with the rest of the weight. For CPI this is (census cycles + middle thread instructions x
 * sampled CPI) / thread instructions. */
static kernel_est_t kernel_est(const gpuest_sample_result_t *r, size_t k, int field)
{
    kernel_est_t e;
    double I = (double)r->kernel_thread_insts[k], tc = 0, part = 0;
    int nc = 0;
    for (size_t i = 0; i < r->num_units; i++) {
        const gpuest_sample_unit_t *u = &r->units[i];
        if ((size_t)u->kernel != k || !u->census || field_x(u, field) <= 0 || I <= 0)
            continue;
        tc += (double)u->thread_insts;
        part += (double)u->thread_insts / I * field_y(u, field) / field_x(u, field);
        nc++;
    }
    ratio_est(r, k, field, &e.rm, &e.vm, &e.m);
    e.wm = I > tc ? (I - tc) / I : 0;
    e.n = e.m + nc;
    if (e.m == 0) { /* census only (a short kernel measured whole): no sampling error */
        e.R = tc > 0 ? part / (tc / I) : 0;
        e.wm = 0;
    } else {
        e.R = part + e.wm * e.rm;
    }
    return e;
}

/* Per-unit relative variance of the middles, for kernels with a single sampled unit: pooled over
 * the kernels with two or more (their variance x units / ratio^2); with none, the spread of the
 * single units' ratios across kernels (collapsed strata: it counts the kernels' differences as
 * noise, so it errs wide). 0 when nothing can be said (the interval then has no width). */
static double unit_relvar(const gpuest_sample_result_t *r, int field)
{
    double pool = 0, s1 = 0, s2 = 0;
    int npool = 0, nsingle = 0;
    for (size_t k = 0; k < r->num_kernels; k++) {
        kernel_est_t e = kernel_est(r, k, field);
        if (e.m >= 2 && e.vm >= 0 && e.rm > 0) {
            pool += e.vm * e.m / (e.rm * e.rm);
            npool++;
        } else if (e.m == 1 && e.rm > 0) {
            s1 += e.rm;
            s2 += e.rm * e.rm;
            nsingle++;
        }
    }
    if (npool > 0)
        return pool / npool;
    if (nsingle < 2)
        return 0;
    double mean = s1 / nsingle, var = (s2 - nsingle * mean * mean) / (nsingle - 1);
    return var > 0 ? var / (mean * mean) : 0;
}

/* Whole-run ratio for field over kernels, weighted by each kernel's denominator total (weight w_k):
 * value = sum_k w_k R_k / sum_k w_k. */
static gpuest_study_ci_t combine(const gpuest_sample_result_t *r, int field, const double *wk, double z, int invert,
                                 double *relsd)
{
    double num = 0, den = 0, var = 0, relvar = unit_relvar(r, field);
    for (size_t k = 0; k < r->num_kernels; k++) {
        kernel_est_t e = kernel_est(r, k, field);
        if (e.n == 0 || wk[k] <= 0)
            continue;
        double v = e.m == 0 ? 0 : e.vm >= 0 ? e.wm * e.wm * e.vm : e.wm * e.wm * relvar * e.rm * e.rm;
        num += wk[k] * e.R;
        den += wk[k];
        var += wk[k] * wk[k] * v;
    }
    gpuest_study_ci_t ci = {0, 0, 0};
    if (den <= 0)
        return ci;
    double est = num / den, sd = sqrt(var) / den;
    if (relsd)
        *relsd = est > 0 ? sd / est : 0;
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
    /* Student's t with the pooled within-kernel degrees of freedom (sum over kernels of n_k - 1): a
     * few units per kernel make the normal quantile too narrow (6 units per kernel covered 72 %
     * instead of 95 % in tests/study/test_sample_bias.c). Kernels with one unit add none. */
    double df = 0;
    for (size_t k = 0; k < raw->num_kernels; k++) {
        int nk = 0;
        for (size_t i = 0; i < raw->num_units; i++)
            nk += (size_t)raw->units[i].kernel == k && !raw->units[i].census;
        df += nk > 1 ? nk - 1 : 0;
    }
    double z = df >= 1 ? gsl_cdf_tdist_Pinv(0.5 + conf / 2.0, df) : gsl_cdf_ugaussian_Pinv(0.5 + conf / 2.0);
    double *w = calloc(raw->num_kernels ? raw->num_kernels : 1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    /* CPI per thread instruction, weighted by each kernel's thread instructions (exact, counted) */
    for (size_t k = 0; k < raw->num_kernels; k++)
        w[k] = (double)raw->kernel_thread_insts[k];
    double cpi_relsd = 0;
    out->ipc = combine(raw, 0, w, z, 1, &cpi_relsd);
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
    out->amat = combine(raw, 1, w, z, 0, NULL);
    out->miss_latency = combine(raw, 2, w, z, 0, NULL);
    for (size_t k = 0; k < raw->num_kernels; k++)
        w[k] = (double)raw->kernel_thread_insts[k];
    out->mc_stall = combine(raw, 3, w, z, 0, NULL);
    free(w);
    /* The sample size for the target half-width. The CPI estimate's relative standard deviation
     * shrinks as 1/sqrt(n), so cov = relsd x sqrt(n) is the per-unit coefficient of variation
     * left after stratifying by kernel (the spread between kernels is not sampling error), and
     * n = (z cov / eps)^2 units reach the relative half-width eps (SMARTS). */
    int n = 0, ns = 0, steady = 0;
    for (size_t i = 0; i < raw->num_units; i++) {
        n += raw->units[i].thread_insts > 0;
        ns += raw->units[i].thread_insts > 0 && !raw->units[i].census;
        steady += raw->units[i].warm_steady;
    }
    out->cov = cpi_relsd * sqrt((double)ns);
    out->units = n;
    out->units_sampled = ns;
    out->units_steady = steady;
    out->confidence = conf;
    out->target = target;
    double eps = target > 0 ? target : 0.01;
    out->units_needed = (int)ceil(pow(z * out->cov / eps, 2.0)); /* sampled units, census ones aside */
    double full_cycles = 0;
    for (size_t k = 0; k < raw->num_kernels; k++)
        full_cycles += (double)raw->kernel_thread_insts[k];
    full_cycles = out->ipc.value > 0 ? full_cycles / out->ipc.value : 0;
    out->detailed_fraction = full_cycles > 0 ? (double)raw->detailed_cycles / full_cycles : 0;
    /* the full run's cost at the detailed part's own rate (CPU seconds per detailed cycle) */
    double det_s = raw->cpu_seconds - raw->count_seconds - raw->ff_seconds;
    out->full_seconds_est = raw->detailed_cycles > 0 && det_s > 0 ? full_cycles * det_s / (double)raw->detailed_cycles : 0;
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
    /* The techniques' hooks, as 'gpuest simulate' installs them, unless the caller brought its own
     * (the sweep does): without them a sampled run of a hooked technique (compressed L1, probing,
     * filtering...) would silently measure the baseline. A technique that cannot run here (the
     * kernel_opt oracle) is refused before any unit runs. */
    gpuest_sample_opts_t oh = *o;
    gpuest_technique_set_t *techs = NULL;
    static const gpuest_sim_hooks_t no_hooks;
    if (rc == GPUEST_OK && memcmp(&o->hooks, &no_hooks, sizeof no_hooks) == 0) {
        const gpuest_generator_t *gen = gpuest_workload_generator(a);
        gpuest_technique_env_t env = {cfg, gpuest_workload_image(a), gen ? gen->name : workload, NULL, seed, NULL, 0.0, 0.0, 0};
        rc = gpuest_technique_set_create(&env, &oh.hooks, &techs, err);
    }
    if (rc == GPUEST_OK) {
        gpuest_sim_source_t sa, sb;
        gpuest_sim_source_workload(&sa, a);
        gpuest_sim_source_workload(&sb, b);
        rc = gpuest_sim_sample(cfg, &sa, &sb, &oh, raw, err);
    }
    gpuest_technique_set_destroy(techs);
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
    if (rc == GPUEST_OK && target > 0 && out->units_needed > out->units_sampled && o.units < 400) {
        /* second stage with the size the pilot asks for (SMARTS) */
        o.units = out->units_needed < 400 ? out->units_needed : 400;
        gpuest_sample_result_t pilot = out->raw;
        memset(&out->raw, 0, sizeof out->raw);
        rc = sample_once(cfg, workload, scale, seed, &o, &out->raw, err);
        out->pilot_units = pilot.num_units;
        out->raw.wall_seconds += pilot.wall_seconds; /* the pilot's cost counts */
        out->raw.cpu_seconds += pilot.cpu_seconds;
        out->raw.count_seconds += pilot.count_seconds;
        out->raw.ff_seconds += pilot.ff_seconds;
        out->raw.detailed_cycles += pilot.detailed_cycles;
        gpuest_sample_result_free(&pilot);
        if (rc == GPUEST_OK) {
            rc = gpuest_study_sample_estimate(&out->raw, conf, target, out, err);
        }
    }
    return rc;
}

gpuest_err gpuest_study_sample_bias_check(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                          uint64_t seed, const gpuest_sample_opts_t *opts, double conf,
                                          const gpuest_study_sampled_t *base, gpuest_study_bias_t *out,
                                          gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    gpuest_sample_opts_t o = *opts;
    o.warm_cycles *= 2;
    o.warm_amats *= 2;
    o.progress = NULL;
    gpuest_study_sampled_t s;
    gpuest_err rc = gpuest_study_sample(cfg, workload, scale, seed, &o, conf, 0.0, &s, err);
    if (rc == GPUEST_OK && base->ipc.value > 0) {
        out->ipc = s.ipc.value;
        out->shift = (s.ipc.value - base->ipc.value) / base->ipc.value;
        out->half_width = (base->ipc.hi - base->ipc.lo) / 2 / base->ipc.value;
        out->passed = fabs(out->shift) < out->half_width;
        out->cpu_seconds = s.raw.cpu_seconds;
    }
    gpuest_study_sampled_free(&s);
    return rc;
}
