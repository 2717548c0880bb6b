/* test_approx_bits.c: the approximation-bit predictor: labels, training, prediction, warnings, eval. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#ifndef assert_double_equal /* older cmocka: compare in double, not float */
#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (double)(eps))
#endif

#include "approx/approx.h"
#include "learn/learn.h"

/* Pinned figures (see the tests that use them). */
#define PIN_TAU 0.5
#define PIN_NET_CORRECT 493
#define PIN_NET_STRICT 2
#define PIN_LOOKUP_CORRECT 134
#define PIN_LOOKUP_STRICT 0
/* The committed models on data/approx/test (docs/approx.md, held-out test table): app, metric,
 * datasets, network correct, network strict violations, lookup correct, lookup strict violations
 * (of 25 queries per dataset). */
#define PIN_MODELS                                                                                                     \
    {"kmeans", "hmpr", 200, 4758, 59, 1121, 0}, {"lud", "mre", 40, 908, 8, 292, 0},                                   \
        {"gaussian", "linf", 60, 1372, 14, 513, 0}, {"atax", "mre", 40, 982, 8, 963, 1},                               \
        {"bicg", "mre", 40, 996, 3, 982, 0}, {"2dconv", "mre", 40, 910, 6, 806, 2},                                   \
        {"scalarprod", "nrmse", 40, 975, 2, 693, 1}, {"srad2", "nrmse", 40, 994, 2, 975, 0},                          \
        {"hybridsort", "nrmse", 40, 994, 5, 993, 0},

static void test_label(void **state)
{
    (void)state;
    gpuest_learn_approx_set_t s = {0, 100, 0, 0, {0.0, 0.0, 1e-3, 0.5, 1.0}};
    assert_int_equal(gpuest_learn_approx_label(&s, 0.0), 8);    /* ties at zero: the largest */
    assert_int_equal(gpuest_learn_approx_label(&s, 1e-3), 12);
    assert_int_equal(gpuest_learn_approx_label(&s, 0.999e-3), 8); /* strict: no tolerance */
    assert_int_equal(gpuest_learn_approx_label(&s, 0.2), 12);
    assert_int_equal(gpuest_learn_approx_label(&s, 1.0), 20);
    gpuest_learn_approx_set_t t = {0, 100, 0, 0, {1e-6, 1e-5, 1e-4, 1e-3, 1e-2}};
    assert_int_equal(gpuest_learn_approx_label(&t, 1e-7), 0);   /* nothing is safe */
    /* A non-monotone error curve: the largest level under the limit counts. */
    gpuest_learn_approx_set_t u = {0, 100, 0, 0, {1e-3, 1e-1, 1e-4, 1.0, 1.0}};
    assert_int_equal(gpuest_learn_approx_label(&u, 1e-3), 12);
}

static void test_features(void **state)
{
    (void)state;
    double x[4];
    gpuest_learn_approx_features(1024, 3.5, 7, 0.0, x);
    assert_double_equal(x[0], 10.0, 1e-12);
    assert_double_equal(x[1], 3.5, 0.0);
    assert_double_equal(x[2], 7.0, 0.0);
    assert_double_equal(x[3], -9.0, 1e-12);
}

/* Synthetic application: error = 2^(bits-24) * cond-factor, with up to 20 % noise per level. */
static void make_sets(gpuest_learn_approx_set_t *sets, size_t n, uint64_t seed)
{
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(seed, &rng), GPUEST_OK);
    for (size_t i = 0; i < n; i++) {
        gpuest_learn_approx_set_t *s = &sets[i];
        s->dataset = (uint32_t)i;
        s->size = floor(64.0 * pow(16.0, gpuest_rng_uniform(rng)));
        s->log10_cond = 1.0 + 5.0 * gpuest_rng_uniform(rng);
        s->constraint = 0;
        for (int l = 0; l < GPUEST_LEARN_APPROX_LEVELS; l++) {
            double e = pow(2.0, gpuest_learn_approx_bits[l] - 24) * pow(10.0, s->log10_cond - 4.0) *
                       (1.0 + 0.2 * gpuest_rng_uniform(rng));
            s->error[l] = e > 1.0 ? 1.0 : e;
        }
    }
    gpuest_rng_destroy(rng);
}

static void small_opts(gpuest_learn_approx_opts_t *o)
{
    gpuest_learn_approx_defaults(o);
    o->hidden = 16;
    o->epochs_rprop = 300;
    o->epochs_incremental = 20;
}

/* The small network most tests use: 40 seeded datasets, short training. */
static gpuest_learn_net_t *train_small(double threshold, gpuest_learn_approx_report_t *rep)
{
    gpuest_learn_approx_set_t sets[40];
    make_sets(sets, 40, 3);
    gpuest_learn_approx_opts_t o;
    small_opts(&o);
    o.threshold = threshold;
    gpuest_learn_net_t *net = NULL;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_approx_train(sets, 40, &o, &net, rep, &err), GPUEST_OK);
    return net;
}

static void test_train_predict(void **state)
{
    (void)state;
    gpuest_learn_approx_report_t rep;
    gpuest_learn_net_t *net = train_small(0.5, &rep);
    assert_true(rep.train_accuracy >= 0.95);
    /* 40 sets x (24 drawn + 5 round + 2 per level) queries. */
    assert_int_equal(rep.rows, 40 * (24 + 5 + 10));
    /* cond 3: e(12) = 2^-12 x 0.1 x (1 to 1.2) = 2.44e-5 to 2.93e-5, e(16) 16x that. The median
     * estimate lies in (or next to) that band. */
    double est[GPUEST_LEARN_APPROX_LEVELS];
    gpuest_learn_approx_errors(net, 256, 3.0, 0, 0.5, est);
    assert_true(est[2] > 2.0e-5 && est[2] < 3.5e-5);
    assert_true(est[3] > 16 * 2.0e-5 && est[3] < 16 * 3.5e-5);
    unsigned w = 99;
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 1e-4, &w), 12);
    assert_int_equal(w, 0);
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 1e-3, &w), 16);
    /* Far below anything trained: do not approximate, and say so. */
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 1e-12, &w), 0);
    assert_true(w & GPUEST_LEARN_WARN_ERROR_LOW);
    /* Outside the trained factor ranges: warned. */
    gpuest_learn_approx_predict(net, 1 << 20, 9.0, 0, 1e-3, &w);
    assert_true(w & GPUEST_LEARN_WARN_SIZE);
    assert_true(w & GPUEST_LEARN_WARN_COND);
    assert_false(w & GPUEST_LEARN_WARN_CONSTRAINT);
    gpuest_learn_net_destroy(net);
}

/* The answer never falls when the limit grows, and a higher threshold never answers more
 * bits: both would break the promise "a larger limit is at least as safe". */
static void test_monotone(void **state)
{
    (void)state;
    gpuest_learn_net_t *net = train_small(0.5, NULL);
    for (double cond = 1.0; cond <= 6.0; cond += 2.5) {
        int last = 0;
        for (double le = -9.0; le <= 0.0; le += 0.15) {
            int b = gpuest_learn_approx_predict(net, 300, cond, 0, pow(10.0, le), NULL);
            assert_true(b >= last);
            last = b;
        }
        assert_int_equal(gpuest_learn_approx_predict(net, 300, cond, 0, 1.0, NULL), 20);
        double lo[GPUEST_LEARN_APPROX_LEVELS], hi[GPUEST_LEARN_APPROX_LEVELS];
        gpuest_learn_approx_errors(net, 300, cond, 0, 0.5, lo);
        gpuest_learn_approx_errors(net, 300, cond, 0, 0.95, hi);
        for (int l = 0; l < GPUEST_LEARN_APPROX_LEVELS; l++)
            assert_true(hi[l] >= lo[l]);
    }
    /* The model's own threshold and margin: margin 2 doubles every estimate. */
    double a[GPUEST_LEARN_APPROX_LEVELS], b[GPUEST_LEARN_APPROX_LEVELS];
    gpuest_learn_approx_errors(net, 300, 3.0, 0, 0.0, a);
    assert_int_equal(gpuest_learn_net_set_meta(net, "margin", 2.0), GPUEST_OK);
    gpuest_learn_approx_errors(net, 300, 3.0, 0, 0.0, b);
    for (int l = 0; l < GPUEST_LEARN_APPROX_LEVELS; l++)
        assert_double_equal(b[l], 2.0 * a[l], 1e-12 * a[l]);
    gpuest_learn_net_destroy(net);
}

/* The lookup baseline, worked by hand: the largest level whose worst training error is within
 * the limit; train() stores the worst error of every level over the training sets. */
static void test_lookup(void **state)
{
    (void)state;
    gpuest_learn_approx_set_t sets[40];
    make_sets(sets, 40, 3);
    gpuest_learn_net_t *net = train_small(0.5, NULL);
    for (int l = 0; l < GPUEST_LEARN_APPROX_LEVELS; l++) {
        double worst = 0.0, v;
        for (size_t i = 0; i < 40; i++)
            worst = sets[i].error[l] > worst ? sets[i].error[l] : worst;
        char name[16];
        snprintf(name, sizeof name, "worst_%d", gpuest_learn_approx_bits[l]);
        assert_true(gpuest_learn_net_get_meta(net, name, &v));
        assert_double_equal(v, worst, 0.0);
    }
    static const double worst[] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2};
    for (int l = 0; l < GPUEST_LEARN_APPROX_LEVELS; l++) {
        char name[16];
        snprintf(name, sizeof name, "worst_%d", gpuest_learn_approx_bits[l]);
        assert_int_equal(gpuest_learn_net_set_meta(net, name, worst[l]), GPUEST_OK);
    }
    assert_int_equal(gpuest_learn_approx_lookup(net, 1e-7), 0);
    assert_int_equal(gpuest_learn_approx_lookup(net, 1e-6), 4);
    assert_int_equal(gpuest_learn_approx_lookup(net, 5e-4), 12);
    assert_int_equal(gpuest_learn_approx_lookup(net, 0.999e-3), 12);
    assert_int_equal(gpuest_learn_approx_lookup(net, 1e-3), 16);
    assert_int_equal(gpuest_learn_approx_lookup(net, 1.0), 20);
    gpuest_learn_net_destroy(net);
}

/* Limits: per dataset `per` draws inside [smallest positive, largest] error of all the sets,
 * then the five round limits; the same seed gives the same draws, another seed others. */
static void test_draw_limits(void **state)
{
    (void)state;
    gpuest_learn_approx_set_t sets[3] = {{0, 100, 0, 0, {0.0, 2e-6, 1e-4, 1e-2, 0.5}},
                                         {1, 100, 0, 0, {0.0, 0.0, 3e-5, 1e-3, 0.8}},
                                         {2, 100, 0, 0, {1e-5, 1e-4, 1e-3, 1e-2, 0.1}}};
    double a[3 * 9], b[3 * 9], c[3 * 9];
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_approx_draw_limits(sets, 3, 4, 7, a, &err), GPUEST_OK);
    assert_int_equal(gpuest_learn_approx_draw_limits(sets, 3, 4, 7, b, &err), GPUEST_OK);
    assert_int_equal(gpuest_learn_approx_draw_limits(sets, 3, 4, 8, c, &err), GPUEST_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_true(memcmp(a, c, sizeof a) != 0);
    for (int i = 0; i < 3; i++) {
        for (int q = 0; q < 4; q++)
            assert_true(a[i * 9 + q] >= 2e-6 && a[i * 9 + q] <= 0.8);
        assert_double_equal(a[i * 9 + 4], 1e-4, 0.0);
        assert_double_equal(a[i * 9 + 8], 0.1, 0.0);
    }
    gpuest_learn_approx_set_t zero = {0, 100, 0, 0, {0, 0, 0, 0, 0}};
    assert_int_equal(gpuest_learn_approx_draw_limits(&zero, 1, 4, 7, a, &err), GPUEST_EINVAL);
}

/* Calibration picks the smallest threshold of its grid whose validation violation rate meets
 * the target: the chosen one meets it, the grid value below it does not. */
static void test_calibrate(void **state)
{
    (void)state;
    static const double grid[] = {0.5,   0.525, 0.55, 0.575, 0.6,  0.625, 0.65, 0.675, 0.7,  0.725, 0.75,
                                  0.775, 0.8,   0.825, 0.85, 0.875, 0.9,  0.925, 0.95, 0.975, 0.99};
    gpuest_learn_approx_set_t valid[20];
    make_sets(valid, 20, 11);
    gpuest_learn_net_t *net = train_small(0.5, NULL);
    double tau, meta;
    gpuest_learn_approx_eval_t v, r;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_approx_calibrate(net, valid, 20, 20, 5, 0.002, &tau, &v, &err), GPUEST_OK);
    assert_true(gpuest_learn_net_get_meta(net, "threshold", &meta));
    assert_double_equal(meta, tau, 0.0);
    assert_int_equal(v.queries, 20 * 25);
    assert_true(v.strict_violation_rate <= 0.002);
    /* The same figures come back from a test at the stored threshold (same sets, same draws). */
    assert_int_equal(gpuest_learn_approx_test(net, valid, 20, 20, 5, NULL, NULL, &r, NULL, NULL, &err), GPUEST_OK);
    assert_int_equal(r.correct, v.correct);
    assert_int_equal(r.strict_violations, v.strict_violations);
    size_t k = 0;
    while (grid[k] != tau)
        k++;
    assert_true(k > 0); /* this noisy set needs more than the median */
    assert_int_equal(gpuest_learn_net_set_meta(net, "threshold", grid[k - 1]), GPUEST_OK);
    assert_int_equal(gpuest_learn_approx_test(net, valid, 20, 20, 5, NULL, NULL, &r, NULL, NULL, &err), GPUEST_OK);
    assert_true(r.strict_violation_rate > 0.002);
    gpuest_learn_net_destroy(net);
}

/* Rerun callback: reports the stored error, counting calls. */
static gpuest_err rerun(void *ctx, const gpuest_learn_approx_set_t *s, int bits, double *error, gpuest_error_t *err)
{
    (void)err;
    (*(int *)ctx)++;
    *error = s->error[bits / 4 - 1];
    return GPUEST_OK;
}

/* Regression on a small fixed dataset: 40 synthetic training sets, threshold chosen on 20
 * validation sets, tested on 20 others. The figures are pinned: a change in the training
 * queries, the network, the decision or the scoring moves them. */
static void test_regression_small(void **state)
{
    (void)state;
    gpuest_learn_approx_set_t valid[20], test[20];
    make_sets(valid, 20, 11);
    make_sets(test, 20, 13);
    gpuest_learn_net_t *net = train_small(0.5, NULL);
    double tau;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_approx_calibrate(net, valid, 20, 20, 5, 0.01, &tau, NULL, &err), GPUEST_OK);
    gpuest_learn_approx_eval_t r, lk;
    int calls = 0;
    assert_int_equal(gpuest_learn_approx_test(net, test, 20, 20, 17, rerun, &calls, &r, &lk, NULL, &err), GPUEST_OK);
    print_message("threshold %.2f net %zu/%zu strict %zu, lookup %zu strict %zu, reruns %zu\n", tau, r.correct,
                  r.queries, r.strict_violations, lk.correct, lk.strict_violations, r.reruns);
    assert_int_equal(r.queries, 500);
    assert_int_equal(lk.queries, 500);
    assert_int_equal((size_t)calls, r.reruns);
    assert_true(r.reruns <= 20 * 5);
    assert_double_equal(tau, PIN_TAU, 0.0);
    assert_int_equal(r.correct, PIN_NET_CORRECT);
    assert_int_equal(r.strict_violations, PIN_NET_STRICT);
    assert_int_equal(lk.correct, PIN_LOOKUP_CORRECT);
    assert_int_equal(lk.strict_violations, PIN_LOOKUP_STRICT);
    gpuest_learn_net_destroy(net);
}

static void test_kfold_eval(void **state)
{
    (void)state;
    gpuest_learn_approx_set_t sets[30];
    make_sets(sets, 30, 5);
    gpuest_learn_approx_opts_t o;
    small_opts(&o);
    o.threshold = 0.9;
    o.limits_per_set = 10;
    gpuest_learn_approx_eval_t r;
    int calls = 0;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_approx_eval(sets, 30, 3, &o, rerun, &calls, &r, NULL, &err), GPUEST_OK);
    assert_int_equal(r.datasets, 30);
    assert_int_equal(r.folds, 3);
    assert_int_equal(r.queries, 30 * 15);
    assert_int_equal((size_t)calls, r.reruns);
    assert_true(r.accuracy >= 0.85);
    assert_true(r.strict_violation_rate <= 0.03);
    assert_int_equal(gpuest_learn_approx_eval(sets, 30, 31, &o, NULL, NULL, &r, NULL, &err), GPUEST_ERANGE);
}

/* Groups a collected CSV's primary-metric rows into sets (the CLI does the same). */
static size_t load_test_sets(const char *app, const char *metric, gpuest_learn_approx_set_t *sets, size_t cap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/data/approx/test/%s.csv", GPUEST_SOURCE_DIR, app);
    gpuest_approx_record_t *r = NULL;
    size_t n = 0, nsets = 0;
    gpuest_error_t err;
    assert_int_equal(gpuest_approx_read_csv(path, &r, &n, &err), GPUEST_OK);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].metric, metric) != 0)
            continue;
        assert_true(r[i].dataset < cap);
        gpuest_learn_approx_set_t *s = &sets[r[i].dataset];
        s->dataset = r[i].dataset;
        s->size = (double)r[i].size;
        s->log10_cond = r[i].log10_cond;
        s->constraint = (double)r[i].constraint;
        s->error[r[i].bits / 4 - 1] = r[i].error;
        nsets = r[i].dataset + 1 > nsets ? r[i].dataset + 1 : nsets;
    }
    free(r);
    return nsets;
}

/* The committed models on the committed test datasets (seed 3, never used in training or in
 * choosing a constant), 20 drawn + 5 round limits per dataset drawn with seed 3: the figures of
 * the table in docs/approx.md, pinned (net correct, net strict violations, lookup correct,
 * lookup strict violations), and the targets: strict violations <= 2 % everywhere. */
static void test_committed_models(void **state)
{
    (void)state;
    static const struct {
        const char *app, *metric;
        size_t datasets, correct, strict, lk_correct, lk_strict;
    } pins[] = {
        PIN_MODELS
    };
    static gpuest_learn_approx_set_t sets[400];
    size_t npins = sizeof pins / sizeof pins[0];
    gpuest_learn_approx_eval_t r[16], lk[16];
    assert_true(npins <= 16);
    for (size_t i = 0; i < npins; i++) {
        char np[512], sp[512];
        snprintf(np, sizeof np, "%s/models/approx-%s.net", GPUEST_SOURCE_DIR, pins[i].app);
        snprintf(sp, sizeof sp, "%s/models/approx-%s.scale.csv", GPUEST_SOURCE_DIR, pins[i].app);
        gpuest_learn_net_t *net = NULL;
        gpuest_error_t err;
        gpuest_err rc = gpuest_learn_net_load(np, sp, 4, GPUEST_LEARN_APPROX_LEVELS, &net, &err);
        if (rc != GPUEST_OK)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, GPUEST_OK);
        memset(sets, 0, sizeof sets);
        size_t n = load_test_sets(pins[i].app, pins[i].metric, sets, 400);
        assert_int_equal(n, pins[i].datasets);
        assert_int_equal(gpuest_learn_approx_test(net, sets, n, 20, 3, NULL, NULL, &r[i], &lk[i], NULL, &err), GPUEST_OK);
        print_message("{\"%s\", \"%s\", %zu, %zu, %zu, %zu, %zu},\n", pins[i].app, pins[i].metric, n, r[i].correct,
                      r[i].strict_violations, lk[i].correct, lk[i].strict_violations);
        assert_int_equal(r[i].queries, n * 25);
        gpuest_learn_net_destroy(net);
    }
    for (size_t i = 0; i < npins; i++) {
        assert_true(r[i].strict_violation_rate <= 0.02);
        assert_int_equal(r[i].correct, pins[i].correct);
        assert_int_equal(r[i].strict_violations, pins[i].strict);
        assert_int_equal(lk[i].correct, pins[i].lk_correct);
        assert_int_equal(lk[i].strict_violations, pins[i].lk_strict);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label),
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_train_predict),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_draw_limits),
        cmocka_unit_test(test_calibrate),
        cmocka_unit_test(test_regression_small),
        cmocka_unit_test(test_kfold_eval),
        cmocka_unit_test(test_committed_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
