/* fann_test_model.h: tiny trained FANN mode-selector models for the tests of the fann policy
 * (test_l1c_model.c, test_l1c_period.c, test_l1compression.c; static functions, one copy each). */
#ifndef GPUEST_TESTS_FANN_TEST_MODEL_H
#define GPUEST_TESTS_FANN_TEST_MODEL_H

#include <stdio.h>

#include "learn/learn.h"
#include "technique/technique.h"

/* Trains a network on d (hidden 4, 300 epochs, the learn module's seed) and saves it in dir as
 * latte-fann.net / .scale.csv with the metadata asked for: rule_span and margin when >= 0,
 * range_guard when guard is set, period when period is set. */
static inline void fann_test_train_save(const gpuest_learn_data_t *d, const char *dir, double span, double margin,
                                        int guard, int period)
{
    gpuest_learn_train_opts_t o;
    gpuest_learn_train_defaults(&o);
    o.hidden = 4;
    o.epochs = 300;
    gpuest_learn_net_t *net = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_learn_train(d, &o, &net, &e), GPUEST_OK);
    if (span >= 0)
        assert_int_equal(gpuest_learn_net_set_meta(net, "rule_span", span), GPUEST_OK);
    if (margin >= 0)
        assert_int_equal(gpuest_learn_net_set_meta(net, "margin", margin), GPUEST_OK);
    if (guard)
        assert_int_equal(gpuest_learn_net_set_meta(net, "range_guard", 1), GPUEST_OK);
    if (period)
        assert_int_equal(gpuest_learn_net_set_meta(net, "period", 1), GPUEST_OK);
    char np[512], sp[512];
    snprintf(np, sizeof np, "%s/latte-fann.net", dir);
    snprintf(sp, sizeof sp, "%s/latte-fann.scale.csv", dir);
    assert_int_equal(gpuest_learn_net_save(net, np, sp, &e), GPUEST_OK);
    gpuest_learn_net_destroy(net);
}

/* A network trained to answer `target` for every input (100 rows where only x[8] varies, inside
 * [0.1, 0.9]), saved in dir with the metadata of a rule-relative model (rule_span 5 %, the given
 * margin) and, when period is set, of a period model. */
static inline void fann_test_write_model(const char *dir, const double target[GPUEST_L1C_FANN_OUTPUTS], double margin,
                                         int period)
{
    gpuest_learn_data_t d;
    gpuest_learn_data_init(&d, GPUEST_L1C_FANN_FEATURES, GPUEST_L1C_FANN_OUTPUTS);
    for (int i = 0; i < 100; i++) {
        double x[GPUEST_L1C_FANN_FEATURES] = {0};
        x[8] = 0.1 + 0.008 * i;
        assert_int_equal(gpuest_learn_data_add(&d, x, target, 0), GPUEST_OK);
    }
    fann_test_train_save(&d, dir, 0.05, margin, 0, period);
    gpuest_learn_data_free(&d);
}

#endif
