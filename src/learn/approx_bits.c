/* approx_bits.c: the approximation-bit predictor (thesis 5.1): labels, training on limits over
 * the whole range, the monotone thresholded decision, the lookup baseline, calibration and
 * held-out evaluation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn_int.h"

const int gpuest_learn_approx_bits[GPUEST_LEARN_APPROX_LEVELS] = {4, 8, 12, 16, 20};
const double gpuest_learn_approx_round_limits[GPUEST_LEARN_APPROX_NROUND] = {1e-4, 1e-3, 1e-2, 0.05, 0.1};

#define NLEV GPUEST_LEARN_APPROX_LEVELS
#define ERROR_FLOOR 1e-9      /* limits below this are fed as this */
#define SATURATION_FLOOR 1e-4 /* 1 - limit below this counts as fully saturated */
/* The decision scans limits on a log10 grid from 1e-9 to 1: 0.005 decades (1.2 %) apart, so
 * a level's answer starts at most 1.2 % above where the network's probability crosses tau. */
#define GRID_LO (-9.0)
#define GRID_STEP 0.005
#define GRID_N 1801
/* Training limits reach this factor below the smallest positive error, so the network also
 * learns what lies under the measured range. */
#define BELOW_RANGE 0.1
/* The label steps at every measured error: a training limit is placed on it and this factor
 * below it, so the network learns where each step is. */
#define STEP_BELOW 0.97

int gpuest_learn_approx_within(double error, double limit)
{
    return error <= limit * (1.0 + GPUEST_LEARN_APPROX_TOLERANCE);
}

int gpuest_learn_approx_label(const gpuest_learn_approx_set_t *s, double limit)
{
    int best = 0;
    for (int l = 0; l < NLEV; l++)
        if (s->error[l] <= limit)
            best = gpuest_learn_approx_bits[l];
    return best;
}

void gpuest_learn_approx_features(double size, double log10_cond, double constraint, double error, double x[4])
{
    x[0] = log2(size > 1.0 ? size : 1.0);
    x[1] = log10_cond;
    x[2] = constraint;
    /* log-odds of the limit: log10 spreads the small errors, the second term spreads limits
     * near saturation (0.97 vs 1.0 decides between levels for ill-conditioned inputs). */
    double rest = 1.0 - error;
    x[3] = log10(error > ERROR_FLOOR ? error : ERROR_FLOOR) - log10(rest > SATURATION_FLOOR ? rest : SATURATION_FLOOR);
}

/* Features with the factors the model does not use held constant (0: scaled as a constant). */
static void masked_features(unsigned inputs, double size, double cond, double constraint, double limit, double x[4])
{
    gpuest_learn_approx_features(size, cond, constraint, limit, x);
    if (!(inputs & GPUEST_LEARN_INPUT_SIZE))
        x[0] = 0.0;
    if (!(inputs & GPUEST_LEARN_INPUT_COND))
        x[1] = 0.0;
    if (!(inputs & GPUEST_LEARN_INPUT_CONSTRAINT))
        x[2] = 0.0;
}

void gpuest_learn_approx_defaults(gpuest_learn_approx_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->hidden = 32;
    o->epochs_rprop = 2000;
    o->epochs_incremental = 100;
    o->learning_rate = 0.01;
    o->margin = 1.0;
    o->threshold = 0.5;
    o->inputs = GPUEST_LEARN_INPUT_ALL;
    o->limits_per_set = 24;
    o->seed = 1;
}

static int level_index(int bits)
{
    for (int l = 0; l < NLEV; l++)
        if (gpuest_learn_approx_bits[l] == bits)
            return l;
    return -1;
}

static double meta_or(const gpuest_learn_net_t *net, const char *name, double dflt)
{
    double v;
    return gpuest_learn_net_get_meta(net, name, &v) ? v : dflt;
}

/* Smallest positive and largest error over the sets in use (lo = INFINITY if all are 0). */
static void error_range(const gpuest_learn_approx_set_t *sets, size_t nsets, const unsigned char *use, double *lo,
                        double *hi)
{
    *lo = INFINITY;
    *hi = 0.0;
    for (size_t i = 0; i < nsets; i++) {
        if (use && !use[i])
            continue;
        for (int l = 0; l < NLEV; l++) {
            double e = sets[i].error[l];
            if (e > 0.0 && e < *lo)
                *lo = e;
            if (e > *hi)
                *hi = e;
        }
    }
}

/* ------------------------------------------------------------ training */

static gpuest_err add_query(gpuest_learn_data_t *d, const gpuest_learn_approx_set_t *s, unsigned inputs, double limit)
{
    double x[4], y[NLEV];
    masked_features(inputs, s->size, s->log10_cond, s->constraint, limit, x);
    for (int l = 0; l < NLEV; l++)
        y[l] = s->error[l] <= limit ? 1.0 : 0.0;
    return gpuest_learn_data_add(d, x, y, s->dataset);
}

static gpuest_err build_queries(const gpuest_learn_approx_set_t *sets, size_t nsets, const unsigned char *use,
                                const gpuest_learn_approx_opts_t *o, gpuest_learn_data_t *d)
{
    gpuest_learn_data_init(d, 4, NLEV);
    double lo, hi;
    error_range(sets, nsets, use, &lo, &hi);
    if (!isfinite(lo))
        lo = hi > 0.0 ? hi : 1e-6;
    double llo = log10(lo * BELOW_RANGE), lhi = log10(hi > lo ? hi : lo);
    /* The training limits get a stream of their own ("limits" in ASCII mixed into the seed), so
     * they differ from the weights' stream that the same seed starts. */
    gpuest_rng_t *rng = NULL;
    GPUEST_TRY(gpuest_rng_create(o->seed ^ 0x6c696d697473ull, &rng));
    gpuest_err rc = GPUEST_OK;
    for (size_t i = 0; i < nsets && rc == GPUEST_OK; i++) {
        if (use && !use[i])
            continue;
        const gpuest_learn_approx_set_t *s = &sets[i];
        for (unsigned q = 0; q < o->limits_per_set && rc == GPUEST_OK; q++)
            rc = add_query(d, s, o->inputs, pow(10.0, llo + (lhi - llo) * gpuest_rng_uniform(rng)));
        for (int r = 0; r < GPUEST_LEARN_APPROX_NROUND && rc == GPUEST_OK; r++)
            rc = add_query(d, s, o->inputs, gpuest_learn_approx_round_limits[r]);
        for (int l = 0; l < NLEV && rc == GPUEST_OK; l++) {
            if (!(s->error[l] > 0.0))
                continue;
            rc = add_query(d, s, o->inputs, s->error[l]);
            if (rc == GPUEST_OK)
                rc = add_query(d, s, o->inputs, s->error[l] * STEP_BELOW);
        }
    }
    gpuest_rng_destroy(rng);
    return rc;
}

/* Share of training outputs on the right side of 0.5. */
static double output_accuracy(const gpuest_learn_net_t *net, const gpuest_learn_data_t *d)
{
    size_t ok = 0;
    double y[NLEV];
    for (size_t r = 0; r < d->rows; r++) {
        gpuest_learn_net_run(net, d->x + r * d->n_in, y);
        for (int l = 0; l < NLEV; l++)
            ok += (y[l] >= 0.5) == (d->y[r * NLEV + (size_t)l] >= 0.5);
    }
    return d->rows ? (double)ok / (double)(d->rows * NLEV) : 0.0;
}

static gpuest_err store_meta(gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                             const unsigned char *use, const gpuest_learn_approx_opts_t *o)
{
    double e4 = INFINITY, emax = 0.0, worst[NLEV] = {0};
    for (size_t i = 0; i < nsets; i++) {
        if (use && !use[i])
            continue;
        e4 = sets[i].error[0] < e4 ? sets[i].error[0] : e4;
        for (int l = 0; l < NLEV; l++) {
            emax = sets[i].error[l] > emax ? sets[i].error[l] : emax;
            worst[l] = sets[i].error[l] > worst[l] ? sets[i].error[l] : worst[l];
        }
    }
    GPUEST_TRY(gpuest_learn_net_set_meta(net, "threshold", o->threshold));
    GPUEST_TRY(gpuest_learn_net_set_meta(net, "margin", o->margin));
    GPUEST_TRY(gpuest_learn_net_set_meta(net, "inputs", (double)o->inputs));
    GPUEST_TRY(gpuest_learn_net_set_meta(net, "error4_min", e4));
    GPUEST_TRY(gpuest_learn_net_set_meta(net, "error_max", emax));
    for (int l = 0; l < NLEV; l++) {
        char name[16];
        snprintf(name, sizeof name, "worst_%d", gpuest_learn_approx_bits[l]);
        GPUEST_TRY(gpuest_learn_net_set_meta(net, name, worst[l]));
    }
    return GPUEST_OK;
}

static gpuest_err train_subset(const gpuest_learn_approx_set_t *sets, size_t nsets, const unsigned char *use,
                               const gpuest_learn_approx_opts_t *o, gpuest_learn_net_t **out,
                               gpuest_learn_approx_report_t *rep, gpuest_error_t *err)
{
    gpuest_learn_data_t d;
    gpuest_err rc = build_queries(sets, nsets, use, o, &d);
    if (rc != GPUEST_OK) {
        gpuest_learn_data_free(&d);
        return gpuest_fail(err, rc, "out of memory building training queries");
    }
    gpuest_learn_net_t *nets[2] = {NULL, NULL};
    double acc[2] = {0, 0}, mse[2] = {0, 0};
    for (int a = 0; a < 2 && rc == GPUEST_OK; a++) {
        gpuest_learn_train_opts_t t;
        gpuest_learn_train_defaults(&t);
        t.algo = a == 0 ? GPUEST_LEARN_RPROP : GPUEST_LEARN_INCREMENTAL;
        t.hidden = o->hidden;
        t.epochs = a == 0 ? o->epochs_rprop : o->epochs_incremental;
        t.learning_rate = o->learning_rate;
        t.seed = o->seed;
        if (t.epochs == 0)
            continue; /* this algorithm is switched off */
        rc = gpuest_learn_train(&d, &t, &nets[a], err);
        if (rc == GPUEST_OK)
            rc = store_meta(nets[a], sets, nsets, use, o);
        if (rc == GPUEST_OK) {
            acc[a] = output_accuracy(nets[a], &d);
            mse[a] = gpuest_learn_net_mse(nets[a], &d);
        }
    }
    size_t rows = d.rows;
    gpuest_learn_data_free(&d);
    if (rc == GPUEST_OK && !nets[0] && !nets[1])
        rc = gpuest_fail(err, GPUEST_EINVAL, "both training algorithms have 0 epochs");
    if (rc != GPUEST_OK) {
        gpuest_learn_net_destroy(nets[0]);
        gpuest_learn_net_destroy(nets[1]);
        return rc;
    }
    int keep = !nets[0] || (nets[1] && (acc[1] > acc[0] || (acc[1] == acc[0] && mse[1] < mse[0])));
    gpuest_learn_net_destroy(nets[1 - keep]);
    *out = nets[keep];
    if (rep) {
        rep->algo = keep == 0 ? GPUEST_LEARN_RPROP : GPUEST_LEARN_INCREMENTAL;
        rep->train_accuracy = acc[keep];
        rep->train_accuracy_other = acc[1 - keep];
        rep->mse = mse[keep];
        rep->rows = rows;
    }
    return GPUEST_OK;
}

gpuest_err gpuest_learn_approx_train(const gpuest_learn_approx_set_t *sets, size_t nsets,
                                     const gpuest_learn_approx_opts_t *o, gpuest_learn_net_t **out,
                                     gpuest_learn_approx_report_t *report, gpuest_error_t *err)
{
    *out = NULL;
    if (nsets == 0)
        return gpuest_fail(err, GPUEST_EINVAL, "no datasets to train on");
    if (!(o->threshold > 0.0 && o->threshold < 1.0) || !(o->margin >= 1.0))
        return gpuest_fail(err, GPUEST_ERANGE, "threshold must lie in (0, 1) and margin be >= 1");
    return train_subset(sets, nsets, NULL, o, out, report, err);
}

/* ------------------------------------------------------------ decision */

/* ------------------------------------------------------------ loading */

/* The line of `meta,<name>,` in a scaling file (0 when it cannot be found); error path only. */
static size_t meta_line(const char *scale_path, const char *name)
{
    FILE *f = fopen(scale_path, "r");
    if (!f)
        return 0;
    char want[64], line[4096];
    snprintf(want, sizeof want, "meta,%s,", name);
    size_t n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        if (strncmp(line, want, strlen(want)) == 0)
            found = n;
    }
    fclose(f);
    return found;
}

static gpuest_err meta_bad(const char *scale_path, const char *name, double v, const char *expected,
                           gpuest_error_t *err)
{
    return gpuest_fail(err, GPUEST_ECORRUPT, "%s:%zu: meta %s = %g: expected %s", scale_path,
                       meta_line(scale_path, name), name, v, expected);
}

gpuest_err gpuest_learn_approx_load(const char *net_path, const char *scale_path, gpuest_learn_net_t **out,
                                    gpuest_error_t *err)
{
    *out = NULL;
    gpuest_learn_net_t *net = NULL;
    GPUEST_TRY(gpuest_learn_net_load(net_path, scale_path, 4, NLEV, &net, err));
    /* The decisions read these three: 'inputs' became an unsigned int by a cast (1e300 or -1 has
     * no value there), and a threshold outside (0, 1) or a margin below 1 answers nonsense. */
    double v;
    gpuest_err rc = GPUEST_OK;
    if (gpuest_learn_net_get_meta(net, "inputs", &v) && !(v >= 0 && v <= GPUEST_LEARN_INPUT_ALL && v == floor(v)))
        rc = meta_bad(scale_path, "inputs", v, "a whole number 0..7 (a mask of size 1, condition 2, constraint 4)",
                      err);
    else if (gpuest_learn_net_get_meta(net, "threshold", &v) && !(v > 0 && v < 1))
        rc = meta_bad(scale_path, "threshold", v, "a probability in (0, 1)", err);
    else if (gpuest_learn_net_get_meta(net, "margin", &v) && !(v >= 1 && isfinite(v)))
        rc = meta_bad(scale_path, "margin", v, "a finite factor >= 1", err);
    if (rc != GPUEST_OK) {
        gpuest_learn_net_destroy(net);
        return rc;
    }
    *out = net;
    return GPUEST_OK;
}

/* The network's safe-probability of every level along the limit grid: y[g * NLEV + l]. */
static void run_curves(const gpuest_learn_net_t *net, double size, double cond, double constraint, double *y)
{
    unsigned inputs = (unsigned)meta_or(net, "inputs", GPUEST_LEARN_INPUT_ALL);
    for (int g = 0; g < GRID_N; g++) {
        double x[4];
        masked_features(inputs, size, cond, constraint, pow(10.0, GRID_LO + GRID_STEP * g), x);
        gpuest_learn_net_run(net, x, y + (size_t)g * NLEV);
    }
}

/* est[l]: the smallest grid limit from which the probability stays >= p up to the top of the
 * grid; 0 if it holds on the whole grid. Scanning down from the top makes the answer monotone
 * in the limit whatever the network does in between. Errors are normalized to [0, 1], so at a
 * limit of 1 every level is safe whatever the network says: the estimate is at most 1. */
static void curves_to_errors(const double *y, double p, double scale, double est[NLEV])
{
    for (int l = 0; l < NLEV; l++) {
        int g = GRID_N;
        while (g > 0 && y[(size_t)(g - 1) * NLEV + (size_t)l] >= p)
            g--;
        if (g == GRID_N)
            est[l] = 1.0;
        else if (g == 0)
            est[l] = 0.0;
        else
            est[l] = fmin(1.0, scale * pow(10.0, GRID_LO + GRID_STEP * g));
    }
}

/* Largest level whose conservative estimate is within the limit. */
static int decide(const double est[NLEV], double limit)
{
    int best = 0;
    for (int l = 0; l < NLEV; l++)
        if (est[l] <= limit)
            best = gpuest_learn_approx_bits[l];
    return best;
}

void gpuest_learn_approx_errors(const gpuest_learn_net_t *net, double size, double log10_cond, double constraint,
                                double p, double est[NLEV])
{
    double *y = malloc((size_t)GRID_N * NLEV * sizeof *y);
    if (!y) {
        for (int l = 0; l < NLEV; l++)
            est[l] = 1.0; /* no memory: nothing below the largest possible error is known safe */
        return;
    }
    double scale = 1.0;
    if (p <= 0.0) {
        p = meta_or(net, "threshold", 0.5);
        scale = meta_or(net, "margin", 1.0);
    }
    run_curves(net, size, log10_cond, constraint, y);
    curves_to_errors(y, p, scale, est);
    free(y);
}

int gpuest_learn_approx_predict(const gpuest_learn_net_t *net, double size, double log10_cond, double constraint,
                                double max_error, unsigned *warnings)
{
    unsigned w = 0, inputs = (unsigned)meta_or(net, "inputs", GPUEST_LEARN_INPUT_ALL);
    double lo, hi;
    gpuest_learn_net_input_range(net, 0, &lo, &hi);
    double ls = log2(size > 1.0 ? size : 1.0);
    if ((inputs & GPUEST_LEARN_INPUT_SIZE) && (ls < lo - 1e-9 || ls > hi + 1e-9))
        w |= GPUEST_LEARN_WARN_SIZE;
    gpuest_learn_net_input_range(net, 1, &lo, &hi);
    if ((inputs & GPUEST_LEARN_INPUT_COND) && (log10_cond < lo - 0.05 || log10_cond > hi + 0.05))
        w |= GPUEST_LEARN_WARN_COND;
    gpuest_learn_net_input_range(net, 2, &lo, &hi);
    if ((inputs & GPUEST_LEARN_INPUT_CONSTRAINT) && (constraint < lo || constraint > hi))
        w |= GPUEST_LEARN_WARN_CONSTRAINT;
    if (max_error < meta_or(net, "error4_min", 0.0))
        w |= GPUEST_LEARN_WARN_ERROR_LOW;
    if (max_error > meta_or(net, "error_max", 1.0))
        w |= GPUEST_LEARN_WARN_ERROR_HIGH;
    if (warnings)
        *warnings = w;
    double est[NLEV];
    gpuest_learn_approx_errors(net, size, log10_cond, constraint, 0.0, est);
    return decide(est, max_error);
}

int gpuest_learn_approx_lookup(const gpuest_learn_net_t *net, double max_error)
{
    double worst[NLEV];
    for (int l = 0; l < NLEV; l++) {
        char name[16];
        snprintf(name, sizeof name, "worst_%d", gpuest_learn_approx_bits[l]);
        worst[l] = meta_or(net, name, INFINITY);
    }
    return decide(worst, max_error);
}

/* ------------------------------------------------------------ evaluation */

gpuest_err gpuest_learn_approx_draw_limits(const gpuest_learn_approx_set_t *sets, size_t nsets, unsigned per_set,
                                           uint64_t seed, double *limits, gpuest_error_t *err)
{
    double lo, hi;
    error_range(sets, nsets, NULL, &lo, &hi);
    if (!isfinite(lo) || !(hi > 0.0))
        return gpuest_fail(err, GPUEST_EINVAL, "every measured error is 0: no range to draw limits from");
    gpuest_rng_t *rng = NULL;
    if (gpuest_rng_create(seed, &rng) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_ENOMEM, "cannot create the random generator");
    double llo = log10(lo), lhi = log10(hi);
    size_t k = 0;
    for (size_t i = 0; i < nsets; i++) {
        for (unsigned q = 0; q < per_set; q++)
            limits[k++] = pow(10.0, llo + (lhi - llo) * gpuest_rng_uniform(rng));
        for (int r = 0; r < GPUEST_LEARN_APPROX_NROUND; r++)
            limits[k++] = gpuest_learn_approx_round_limits[r];
    }
    gpuest_rng_destroy(rng);
    return GPUEST_OK;
}

/* Real error of set s at `bits`, rerunning the application once per (set, bits). */
static gpuest_err real_error(const gpuest_learn_approx_set_t *s, int bits, gpuest_learn_approx_rerun_fn rerun,
                             void *ctx, double *cache, size_t *reruns, double *out, gpuest_error_t *err)
{
    if (bits == 0) {
        *out = 0.0;
        return GPUEST_OK;
    }
    int li = level_index(bits);
    if (!rerun) {
        *out = s->error[li];
        return GPUEST_OK;
    }
    if (!(cache[li] >= 0.0)) {
        GPUEST_TRY(rerun(ctx, s, bits, &cache[li], err));
        (*reruns)++;
    }
    *out = cache[li];
    return GPUEST_OK;
}

static void score(gpuest_learn_approx_eval_t *r, int answer, int label, double real, double limit)
{
    r->queries++;
    r->correct += answer == label;
    if (real > limit)
        r->strict_violations++;
    if (!gpuest_learn_approx_within(real, limit))
        r->violations++;
    else if (answer < label)
        r->safe_but_low++;
}

static void finish(gpuest_learn_approx_eval_t *r)
{
    double q = r->queries ? (double)r->queries : 1.0;
    r->accuracy = (double)r->correct / q;
    r->violation_rate = (double)r->violations / q;
    r->strict_violation_rate = (double)r->strict_violations / q;
}

/* Scores one dataset's queries for the network (at threshold p, with margin scale) and,
 * if lk is not NULL, for the lookup baseline. The reruns are shared through the cache. */
static gpuest_err test_set(const gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *s, const double *y, double p,
                           double scale, const double *limits, size_t nq, gpuest_learn_approx_rerun_fn rerun, void *ctx,
                           gpuest_learn_approx_eval_t *r, gpuest_learn_approx_eval_t *lk, gpuest_error_t *err)
{
    double est[NLEV], cache[NLEV] = {-1, -1, -1, -1, -1};
    curves_to_errors(y, p, scale, est);
    for (size_t q = 0; q < nq; q++) {
        double limit = limits[q], real;
        int label = gpuest_learn_approx_label(s, limit);
        int a = decide(est, limit);
        GPUEST_TRY(real_error(s, a, rerun, ctx, cache, &r->reruns, &real, err));
        score(r, a, label, real, limit);
        if (lk) {
            int b = gpuest_learn_approx_lookup(net, limit);
            GPUEST_TRY(real_error(s, b, rerun, ctx, cache, &r->reruns, &real, err));
            score(lk, b, label, real, limit);
        }
    }
    return GPUEST_OK;
}

/* The grid curves of every set (nsets * GRID_N * NLEV doubles), computed once so that several
 * thresholds can be tried without running the network again. */
static double *all_curves(const gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                          const unsigned char *use)
{
    double *y = malloc((nsets ? nsets : 1) * (size_t)GRID_N * NLEV * sizeof *y);
    if (!y)
        return NULL;
    for (size_t i = 0; i < nsets; i++)
        if (!use || use[i])
            run_curves(net, sets[i].size, sets[i].log10_cond, sets[i].constraint, y + i * (size_t)GRID_N * NLEV);
    return y;
}

static gpuest_err test_with_curves(const gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                                   const unsigned char *use, const double *y, double p, double scale,
                                   const double *limits, size_t per, gpuest_learn_approx_rerun_fn rerun, void *ctx,
                                   gpuest_learn_approx_eval_t *r, gpuest_learn_approx_eval_t *lk,
                                   gpuest_progress_t *progress, gpuest_error_t *err)
{
    for (size_t i = 0; i < nsets; i++) {
        if (use && !use[i])
            continue;
        GPUEST_TRY(test_set(net, &sets[i], y + i * (size_t)GRID_N * NLEV, p, scale, limits + i * per, per, rerun, ctx,
                            r, lk, err));
        r->datasets++;
        if (lk)
            lk->datasets++;
        gpuest_progress_update(progress, i + 1);
    }
    return GPUEST_OK;
}

gpuest_err gpuest_learn_approx_test(const gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                                    unsigned per_set, uint64_t seed, gpuest_learn_approx_rerun_fn rerun, void *ctx,
                                    gpuest_learn_approx_eval_t *net_out, gpuest_learn_approx_eval_t *lookup_out,
                                    gpuest_progress_t *progress, gpuest_error_t *err)
{
    memset(net_out, 0, sizeof *net_out);
    if (lookup_out)
        memset(lookup_out, 0, sizeof *lookup_out);
    size_t per = per_set + GPUEST_LEARN_APPROX_NROUND;
    double *limits = malloc((nsets ? nsets : 1) * per * sizeof *limits);
    double *y = all_curves(net, sets, nsets, NULL);
    gpuest_err rc = (!limits || !y) ? gpuest_fail(err, GPUEST_ENOMEM, "out of memory") : GPUEST_OK;
    if (rc == GPUEST_OK)
        rc = gpuest_learn_approx_draw_limits(sets, nsets, per_set, seed, limits, err);
    if (rc == GPUEST_OK)
        rc = test_with_curves(net, sets, nsets, NULL, y, meta_or(net, "threshold", 0.5), meta_or(net, "margin", 1.0),
                              limits, per, rerun, ctx, net_out, lookup_out, progress, err);
    free(limits);
    free(y);
    net_out->folds = 1;
    finish(net_out);
    if (lookup_out) {
        lookup_out->folds = 1;
        finish(lookup_out);
    }
    return rc;
}

/* The thresholds calibrate() tries, smallest (most accurate) first. */
static const double threshold_grid[] = {0.5,   0.525, 0.55,  0.575, 0.6,   0.625, 0.65,  0.675, 0.7,   0.725, 0.75,
                                        0.775, 0.8,   0.825, 0.85,  0.875, 0.9,   0.925, 0.95,  0.975, 0.99};
#define NGRID (sizeof threshold_grid / sizeof threshold_grid[0])

gpuest_err gpuest_learn_approx_calibrate(gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                                         unsigned per_set, uint64_t seed, double max_violation, double *threshold,
                                         gpuest_learn_approx_eval_t *valid_out, gpuest_error_t *err)
{
    size_t per = per_set + GPUEST_LEARN_APPROX_NROUND;
    double *limits = malloc((nsets ? nsets : 1) * per * sizeof *limits);
    double *y = all_curves(net, sets, nsets, NULL);
    gpuest_err rc = (!limits || !y) ? gpuest_fail(err, GPUEST_ENOMEM, "out of memory") : GPUEST_OK;
    if (rc == GPUEST_OK)
        rc = gpuest_learn_approx_draw_limits(sets, nsets, per_set, seed, limits, err);
    double scale = meta_or(net, "margin", 1.0);
    gpuest_learn_approx_eval_t r;
    size_t k = 0;
    for (; k < NGRID && rc == GPUEST_OK; k++) {
        memset(&r, 0, sizeof r);
        rc = test_with_curves(net, sets, nsets, NULL, y, threshold_grid[k], scale, limits, per, NULL, NULL, &r, NULL,
                              NULL, err);
        finish(&r);
        if (rc == GPUEST_OK && r.strict_violation_rate <= max_violation)
            break;
    }
    free(limits);
    free(y);
    if (rc != GPUEST_OK)
        return rc;
    if (k == NGRID)
        k = NGRID - 1; /* none meets the target: the most conservative one, r holds its figures */
    r.folds = 1;
    *threshold = threshold_grid[k];
    if (valid_out)
        *valid_out = r;
    return gpuest_learn_net_set_meta(net, "threshold", threshold_grid[k]);
}

static gpuest_err eval_fold(const gpuest_learn_approx_set_t *sets, size_t nsets, const unsigned *fold_of_set,
                            unsigned f, const gpuest_learn_approx_opts_t *o, const double *limits, size_t per,
                            gpuest_learn_approx_rerun_fn rerun, void *ctx, gpuest_learn_approx_eval_t *r,
                            gpuest_error_t *err)
{
    unsigned char *use = malloc(nsets), *held = malloc(nsets);
    if (!use || !held) {
        free(use), free(held);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < nsets; i++) {
        use[i] = fold_of_set[i] != f;
        held[i] = !use[i];
    }
    gpuest_learn_net_t *net = NULL;
    double *y = NULL;
    gpuest_err rc = train_subset(sets, nsets, use, o, &net, NULL, err);
    if (rc == GPUEST_OK && !(y = all_curves(net, sets, nsets, held)))
        rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    if (rc == GPUEST_OK)
        rc = test_with_curves(net, sets, nsets, held, y, o->threshold, o->margin, limits, per, rerun, ctx, r, NULL,
                              NULL, err);
    free(y);
    gpuest_learn_net_destroy(net);
    free(use);
    free(held);
    return rc;
}

gpuest_err gpuest_learn_approx_eval(const gpuest_learn_approx_set_t *sets, size_t nsets, unsigned folds,
                                    const gpuest_learn_approx_opts_t *o, gpuest_learn_approx_rerun_fn rerun, void *ctx,
                                    gpuest_learn_approx_eval_t *out, gpuest_progress_t *progress, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    /* Folds are assigned per dataset: a one-row-per-set view reuses the generic splitter. */
    gpuest_learn_data_t d;
    gpuest_learn_data_init(&d, 1, 1);
    gpuest_err rc = GPUEST_OK;
    double zero = 0.0;
    for (size_t i = 0; i < nsets && rc == GPUEST_OK; i++)
        rc = gpuest_learn_data_add(&d, &zero, &zero, sets[i].dataset);
    size_t per = o->limits_per_set + GPUEST_LEARN_APPROX_NROUND;
    unsigned *fold = malloc((nsets ? nsets : 1) * sizeof *fold);
    double *limits = malloc((nsets ? nsets : 1) * per * sizeof *limits);
    if (rc != GPUEST_OK || !fold || !limits) {
        gpuest_learn_data_free(&d);
        free(fold), free(limits);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    rc = gpuest_learn_kfold(&d, folds, o->seed, fold, err);
    gpuest_learn_data_free(&d);
    /* The held-out limits come from their own stream, not the training one. */
    if (rc == GPUEST_OK)
        rc = gpuest_learn_approx_draw_limits(sets, nsets, o->limits_per_set, o->seed + 1, limits, err);
    for (unsigned f = 0; f < folds && rc == GPUEST_OK; f++) {
        rc = eval_fold(sets, nsets, fold, f, o, limits, per, rerun, ctx, out, err);
        gpuest_progress_update(progress, f + 1);
    }
    free(fold);
    free(limits);
    if (rc != GPUEST_OK)
        return rc;
    out->folds = folds;
    finish(out);
    return GPUEST_OK;
}
