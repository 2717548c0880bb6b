/* approx_bits.c: the approximation-bit predictor (thesis 5.1): labels, training, prediction, k-fold eval. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learn_int.h"

const int gpuest_learn_approx_bits[GPUEST_LEARN_APPROX_LEVELS] = {4, 8, 12, 16, 20};

#define ERROR_FLOOR 1e-9 /* errors below this (exact zeros) are fed as this */
#define SATURATION_FLOOR 1e-4 /* 1 - error below this counts as fully saturated */
#define NLEV GPUEST_LEARN_APPROX_LEVELS
/* Limits below GUARD_FACTOR x the smallest 4-bit error seen in training get 0 bits. */
#define GUARD_FACTOR 0.25

int gpuest_learn_approx_within(double error, double limit)
{
    return error <= limit * (1.0 + GPUEST_LEARN_APPROX_TOLERANCE);
}

int gpuest_learn_approx_label(const gpuest_learn_approx_set_t *s, double limit)
{
    int best = 0;
    for (int l = 0; l < NLEV; l++)
        if (gpuest_learn_approx_within(s->error[l], limit))
            best = gpuest_learn_approx_bits[l];
    return best;
}

void gpuest_learn_approx_features(double size, double log10_cond, double constraint, double error, double x[4])
{
    x[0] = log2(size > 1.0 ? size : 1.0);
    x[1] = log10_cond;
    x[2] = constraint;
    /* log-odds of the error: log10 spreads the small errors, the second term spreads errors
     * near saturation (0.97 vs 1.0 decides between levels for ill-conditioned inputs). */
    double rest = 1.0 - error;
    x[3] = log10(error > ERROR_FLOOR ? error : ERROR_FLOOR) - log10(rest > SATURATION_FLOOR ? rest : SATURATION_FLOOR);
}

void gpuest_learn_approx_defaults(gpuest_learn_approx_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->hidden = 16;
    o->epochs_rprop = 1500;
    o->epochs_incremental = 300;
    o->learning_rate = 0.01;
    o->margin = 1.0;
    o->confidence = 0.0;
    o->seed = 1;
}

static int level_index(int bits)
{
    for (int l = 0; l < NLEV; l++)
        if (gpuest_learn_approx_bits[l] == bits)
            return l;
    return -1;
}

/* Limits each training query is placed at, as factors of a measured error: the level's own
 * error (the thesis' rows) and one on each side, labelled by the same largest-safe rule.
 * The points below teach the network that a limit a little under a level's error band
 * belongs to the level below, which is what keeps predictions safe on new datasets. */
static const double query_factors[] = {1.0, 0.25, 2.0};
#define NFACTORS (sizeof query_factors / sizeof query_factors[0])

static gpuest_err build_queries(const gpuest_learn_approx_set_t *sets, size_t nsets, const unsigned char *use,
                                gpuest_learn_data_t *d)
{
    gpuest_learn_data_init(d, 4, NLEV);
    for (size_t i = 0; i < nsets; i++) {
        if (use && !use[i])
            continue;
        const gpuest_learn_approx_set_t *s = &sets[i];
        for (int l = 0; l < NLEV; l++) {
            for (size_t f = 0; f < NFACTORS; f++) {
                double limit = s->error[l] * query_factors[f], x[4], y[NLEV] = {0};
                int li = level_index(gpuest_learn_approx_label(s, limit));
                if (li < 0)
                    continue; /* below every level: the error4_min guard answers these */
                y[li] = 1.0;
                gpuest_learn_approx_features(s->size, s->log10_cond, s->constraint, limit, x);
                GPUEST_TRY(gpuest_learn_data_add(d, x, y, s->dataset));
            }
        }
    }
    return GPUEST_OK;
}

static int argmax(const double *y, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (y[i] > y[best])
            best = i;
    return best;
}

static double meta_or(const gpuest_learn_net_t *net, const char *name, double dflt)
{
    double v;
    return gpuest_learn_net_get_meta(net, name, &v) ? v : dflt;
}

/* The class the network picks for one limit. With a confidence c > 0 the answer must be
 * clearly chosen: its output at least c and the next lower level's output below c times it;
 * otherwise the lower level is answered (one step, never below 4 bits). Where two adjacent
 * levels' errors lie close together (Kmeans near saturation: 0.82 at 16 bits, 0.84 at 20) the
 * network hesitates between them, and the higher one is the one that breaks the limit. */
static int classify(const gpuest_learn_net_t *net, double size, double cond, double constraint, double limit,
                    double confidence)
{
    double x[4], y[NLEV];
    gpuest_learn_approx_features(size, cond, constraint, limit, x);
    gpuest_learn_net_run(net, x, y);
    int a = argmax(y, NLEV);
    if (confidence > 0.0 && a > 0 && (y[a] < confidence || y[a - 1] >= confidence * y[a]))
        a--;
    return gpuest_learn_approx_bits[a];
}

int gpuest_learn_approx_predict(const gpuest_learn_net_t *net, double size, double log10_cond, double constraint,
                                double max_error, unsigned *warnings)
{
    unsigned w = 0;
    double lo, hi;
    gpuest_learn_net_input_range(net, 0, &lo, &hi);
    double ls = log2(size > 1.0 ? size : 1.0);
    if (ls < lo - 1e-9 || ls > hi + 1e-9)
        w |= GPUEST_LEARN_WARN_SIZE;
    gpuest_learn_net_input_range(net, 1, &lo, &hi);
    if (log10_cond < lo - 0.05 || log10_cond > hi + 0.05)
        w |= GPUEST_LEARN_WARN_COND;
    gpuest_learn_net_input_range(net, 2, &lo, &hi);
    if (constraint < lo || constraint > hi)
        w |= GPUEST_LEARN_WARN_CONSTRAINT;
    /* Below the smallest error ever measured at 4 bits even 4 bits may break the limit:
     * answer 0 (do not approximate). */
    if (max_error < meta_or(net, "error4_min", 0.0) * GUARD_FACTOR) {
        if (warnings)
            *warnings = w | GPUEST_LEARN_WARN_ERROR_LOW;
        return 0;
    }
    if (max_error > meta_or(net, "error_max", 1.0))
        w |= GPUEST_LEARN_WARN_ERROR_HIGH;
    if (warnings)
        *warnings = w;
    double margin = meta_or(net, "margin", 1.0), confidence = meta_or(net, "confidence", 0.0);
    int a = classify(net, size, log10_cond, constraint, max_error, confidence);
    if (margin > 1.0) {
        /* Conservative: a limit near the lower edge of a level's error band also looks like
         * the level below once divided by the margin; take the smaller answer. */
        int b = classify(net, size, log10_cond, constraint, max_error / margin, confidence);
        a = b < a ? b : a;
    }
    return a;
}

/* Share of the training queries answered with their label. */
static double query_accuracy(const gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                             const unsigned char *use)
{
    size_t n = 0, ok = 0;
    for (size_t i = 0; i < nsets; i++) {
        if (use && !use[i])
            continue;
        for (int l = 0; l < NLEV; l++) {
            const gpuest_learn_approx_set_t *s = &sets[i];
            int p = gpuest_learn_approx_predict(net, s->size, s->log10_cond, s->constraint, s->error[l], NULL);
            ok += p == gpuest_learn_approx_label(s, s->error[l]);
            n++;
        }
    }
    return n ? (double)ok / (double)n : 0.0;
}

static gpuest_err set_ranges(gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                             const unsigned char *use, double margin, double confidence)
{
    double e4 = INFINITY, emax = 0.0;
    for (size_t i = 0; i < nsets; i++) {
        if (use && !use[i])
            continue;
        e4 = sets[i].error[0] < e4 ? sets[i].error[0] : e4;
        for (int l = 0; l < NLEV; l++)
            emax = sets[i].error[l] > emax ? sets[i].error[l] : emax;
    }
    GPUEST_TRY(gpuest_learn_net_set_meta(net, "margin", margin));
    /* Written only when the rule is on, so models without it keep their files unchanged. */
    if (confidence > 0.0)
        GPUEST_TRY(gpuest_learn_net_set_meta(net, "confidence", confidence));
    GPUEST_TRY(gpuest_learn_net_set_meta(net, "error4_min", e4));
    return gpuest_learn_net_set_meta(net, "error_max", emax);
}

static gpuest_err train_subset(const gpuest_learn_approx_set_t *sets, size_t nsets, const unsigned char *use,
                               const gpuest_learn_approx_opts_t *o, gpuest_learn_net_t **out,
                               gpuest_learn_approx_report_t *rep, gpuest_error_t *err)
{
    gpuest_learn_data_t d;
    gpuest_err rc = build_queries(sets, nsets, use, &d);
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
        rc = gpuest_learn_train(&d, &t, &nets[a], err);
        if (rc == GPUEST_OK)
            rc = set_ranges(nets[a], sets, nsets, use, o->margin, o->confidence);
        if (rc == GPUEST_OK) {
            acc[a] = query_accuracy(nets[a], sets, nsets, use);
            mse[a] = gpuest_learn_net_mse(nets[a], &d);
        }
    }
    gpuest_learn_data_free(&d);
    if (rc != GPUEST_OK) {
        gpuest_learn_net_destroy(nets[0]);
        gpuest_learn_net_destroy(nets[1]);
        return rc;
    }
    int keep = (acc[1] > acc[0] || (acc[1] == acc[0] && mse[1] < mse[0])) ? 1 : 0;
    gpuest_learn_net_destroy(nets[1 - keep]);
    *out = nets[keep];
    if (rep) {
        rep->algo = keep == 0 ? GPUEST_LEARN_RPROP : GPUEST_LEARN_INCREMENTAL;
        rep->train_accuracy = acc[keep];
        rep->train_accuracy_other = acc[1 - keep];
        rep->mse = mse[keep];
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
    return train_subset(sets, nsets, NULL, o, out, report, err);
}

/* ------------------------------------------------------------ k-fold evaluation */

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

static gpuest_err eval_fold(const gpuest_learn_approx_set_t *sets, size_t nsets, const unsigned *fold_of_set,
                            unsigned f, const gpuest_learn_approx_opts_t *o, gpuest_learn_approx_rerun_fn rerun,
                            void *ctx, gpuest_learn_approx_eval_t *r, gpuest_error_t *err)
{
    unsigned char *use = malloc(nsets);
    if (!use)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (size_t i = 0; i < nsets; i++)
        use[i] = fold_of_set[i] != f;
    gpuest_learn_net_t *net = NULL;
    gpuest_err rc = train_subset(sets, nsets, use, o, &net, NULL, err);
    for (size_t i = 0; i < nsets && rc == GPUEST_OK; i++) {
        if (use[i])
            continue;
        const gpuest_learn_approx_set_t *s = &sets[i];
        double cache[NLEV] = {-1, -1, -1, -1, -1};
        for (int l = 0; l < NLEV && rc == GPUEST_OK; l++) {
            double limit = s->error[l], real = 0.0;
            int p = gpuest_learn_approx_predict(net, s->size, s->log10_cond, s->constraint, limit, NULL);
            int label = gpuest_learn_approx_label(s, limit);
            rc = real_error(s, p, rerun, ctx, cache, &r->reruns, &real, err);
            r->queries++;
            r->correct += p == label;
            if (real > limit)
                r->strict_violations++;
            if (!gpuest_learn_approx_within(real, limit))
                r->violations++;
            else if (p < label)
                r->safe_but_low++;
        }
    }
    gpuest_learn_net_destroy(net);
    free(use);
    return rc;
}

gpuest_err gpuest_learn_approx_eval(const gpuest_learn_approx_set_t *sets, size_t nsets, unsigned folds,
                                    const gpuest_learn_approx_opts_t *o, gpuest_learn_approx_rerun_fn rerun,
                                    void *ctx, gpuest_learn_approx_eval_t *out, gpuest_progress_t *progress,
                                    gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    /* Folds are assigned per dataset: a one-row-per-set view reuses the generic splitter. */
    gpuest_learn_data_t d;
    gpuest_learn_data_init(&d, 1, 1);
    gpuest_err rc = GPUEST_OK;
    double zero = 0.0;
    for (size_t i = 0; i < nsets && rc == GPUEST_OK; i++)
        rc = gpuest_learn_data_add(&d, &zero, &zero, sets[i].dataset);
    unsigned *fold = malloc((nsets ? nsets : 1) * sizeof *fold);
    if (rc != GPUEST_OK || !fold) {
        gpuest_learn_data_free(&d);
        free(fold);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    rc = gpuest_learn_kfold(&d, folds, o->seed, fold, err);
    gpuest_learn_data_free(&d);
    for (unsigned f = 0; f < folds && rc == GPUEST_OK; f++) {
        rc = eval_fold(sets, nsets, fold, f, o, rerun, ctx, out, err);
        gpuest_progress_update(progress, f + 1);
    }
    free(fold);
    if (rc != GPUEST_OK)
        return rc;
    out->datasets = nsets;
    out->folds = folds;
    out->accuracy = out->queries ? (double)out->correct / (double)out->queries : 0.0;
    out->violation_rate = out->queries ? (double)out->violations / (double)out->queries : 0.0;
    out->strict_violation_rate = out->queries ? (double)out->strict_violations / (double)out->queries : 0.0;
    return GPUEST_OK;
}
