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

#include "learn/learn.h"

static void test_label(void **state)
{
    (void)state;
    gpuest_learn_approx_set_t s = {0, 100, 0, 0, {0.0, 0.0, 1e-3, 0.5, 1.0}};
    assert_int_equal(gpuest_learn_approx_label(&s, 0.0), 8);    /* ties at zero: the largest */
    assert_int_equal(gpuest_learn_approx_label(&s, 1e-3), 12);
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

/* Synthetic application: error = 2^(bits-24) * cond-factor * size-factor, with a little noise. */
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

/* The small network both prediction tests use: 40 seeded datasets, short training. */
static gpuest_learn_net_t *train_small(double confidence, gpuest_learn_approx_report_t *rep)
{
    gpuest_learn_approx_set_t sets[40];
    make_sets(sets, 40, 3);
    gpuest_learn_approx_opts_t o;
    gpuest_learn_approx_defaults(&o);
    o.epochs_rprop = 600;
    o.epochs_incremental = 50;
    o.confidence = confidence;
    gpuest_learn_net_t *net = NULL;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_approx_train(sets, 40, &o, &net, rep, &err), GPUEST_OK);
    return net;
}

static void test_train_predict(void **state)
{
    (void)state;
    gpuest_learn_approx_report_t rep;
    gpuest_learn_net_t *net = train_small(0.0, &rep);
    assert_true(rep.train_accuracy >= 0.9);
    /* cond 3, size 256: e(12) = 2^-12 * 0.1 = 2.4e-5 (x1-1.2); a limit of 3e-5 allows 12 bits. */
    unsigned w = 99;
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 3e-5, &w), 12);
    assert_int_equal(w, 0);
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

/* Index of the level a bit count stands for (bits 4..20). */
static int level_of(int bits)
{
    return bits / 4 - 1;
}

/* The step-down rule: an answer whose output is below the confidence c, or whose next lower
 * level scores at least c times it, becomes that lower level; never below 4 bits. The outputs
 * are read from the network itself so the thresholds straddle them exactly. */
static void test_confidence_step_down(void **state)
{
    (void)state;
    gpuest_learn_net_t *net = train_small(0.5, NULL);
    double c;
    assert_true(gpuest_learn_net_get_meta(net, "confidence", &c)); /* stored with the model */
    assert_double_equal(c, 0.5, 0.0);

    assert_int_equal(gpuest_learn_net_set_meta(net, "confidence", 0.0), GPUEST_OK); /* off */
    int p = gpuest_learn_approx_predict(net, 256, 3.0, 0, 3e-5, NULL);
    assert_true(p >= 8);
    double x[4], y[GPUEST_LEARN_APPROX_LEVELS];
    gpuest_learn_approx_features(256, 3.0, 0, 3e-5, x);
    gpuest_learn_net_run(net, x, y);
    int a = level_of(p);
    double r = y[a - 1] / y[a];
    assert_true(r < 0.5 && y[a] > 0.5); /* a confident answer, so both thresholds can be placed */
    /* c just under the ratio: the level below scores more than c times the answer, step down. */
    assert_int_equal(gpuest_learn_net_set_meta(net, "confidence", r * 0.99), GPUEST_OK);
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 3e-5, NULL), p - 4);
    /* c just over the ratio (and under the answer's output): the answer stands. */
    assert_int_equal(gpuest_learn_net_set_meta(net, "confidence", r * 1.01), GPUEST_OK);
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 3e-5, NULL), p);
    /* The answer's own output below c: one step down, and only one. */
    if (y[a] < 1.0 / 1.01) {
        assert_int_equal(gpuest_learn_net_set_meta(net, "confidence", y[a] * 1.01), GPUEST_OK);
        assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 3e-5, NULL), p - 4);
    }
    /* A 4-bit answer has no lower level to step to (0 bits is the guard's answer alone). */
    assert_int_equal(gpuest_learn_net_set_meta(net, "confidence", 0.0), GPUEST_OK);
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 1.5e-7, NULL), 4);
    assert_int_equal(gpuest_learn_net_set_meta(net, "confidence", 1.0), GPUEST_OK);
    assert_int_equal(gpuest_learn_approx_predict(net, 256, 3.0, 0, 1.5e-7, NULL), 4);
    gpuest_learn_net_destroy(net);

    /* Off by default: no metadata row is written, so existing models are unchanged. */
    net = train_small(0.0, NULL);
    assert_false(gpuest_learn_net_get_meta(net, "confidence", &c));
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

static void test_eval(void **state)
{
    (void)state;
    gpuest_learn_approx_set_t sets[30];
    make_sets(sets, 30, 5);
    gpuest_learn_approx_opts_t o;
    gpuest_learn_approx_defaults(&o);
    o.epochs_rprop = 600;
    o.epochs_incremental = 50;
    gpuest_learn_approx_eval_t r;
    int calls = 0;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_approx_eval(sets, 30, 3, &o, rerun, &calls, &r, NULL, &err), GPUEST_OK);
    assert_int_equal(r.datasets, 30);
    assert_int_equal(r.folds, 3);
    assert_int_equal(r.queries, 150);
    assert_int_equal((size_t)calls, r.reruns);
    assert_true(r.reruns > 0 && r.reruns <= 150);
    assert_true(r.accuracy >= 0.9);
    assert_true(r.violation_rate <= 0.05);
    assert_int_equal(gpuest_learn_approx_eval(sets, 30, 31, &o, NULL, NULL, &r, NULL, &err), GPUEST_ERANGE);
}

/* The models committed under models/ load and answer with a level for every application. */
static void test_committed_models(void **state)
{
    (void)state;
    static const char *const apps[] = {"kmeans", "lud", "gaussian", "atax", "bicg",
                                       "2dconv", "scalarprod", "srad2", "hybridsort"};
    for (size_t i = 0; i < sizeof apps / sizeof apps[0]; i++) {
        char np[512], sp[512];
        snprintf(np, sizeof np, "%s/models/approx-%s.net", GPUEST_SOURCE_DIR, apps[i]);
        snprintf(sp, sizeof sp, "%s/models/approx-%s.scale.csv", GPUEST_SOURCE_DIR, apps[i]);
        gpuest_learn_net_t *net = NULL;
        gpuest_error_t err;
        gpuest_err rc = gpuest_learn_net_load(np, sp, 4, GPUEST_LEARN_APPROX_LEVELS, &net, &err);
        if (rc != GPUEST_OK)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, GPUEST_OK);
        double lo, hi;
        gpuest_learn_net_input_range(net, 0, &lo, &hi);
        int bits = gpuest_learn_approx_predict(net, exp2(0.5 * (lo + hi)), 3.0, 10, 0.5, NULL);
        assert_true(bits == 0 || bits == 4 || bits == 8 || bits == 12 || bits == 16 || bits == 20);
        gpuest_learn_net_destroy(net);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label),
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_train_predict),
        cmocka_unit_test(test_confidence_step_down),
        cmocka_unit_test(test_eval),
        cmocka_unit_test(test_committed_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
