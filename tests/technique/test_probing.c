/* test_probing.c: remote-L1 probing's decision parts (technique.probing):
 *  - the PC-based sharing predictor on a scripted stream of misses and replies: the W / S / T values
 *    of the paper's formulas, which misses of a window are predicted shared, and every transition;
 *  - the selectors: the paper's footnote example of supplier shares, the half-of-the-lowest share of
 *    a silent core, the period reset, the index order, distinct targets without the requester;
 *  - the configuration checks of the keys and the scenarios the technique plans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "technique/probing_int.h"
#include "technique/technique.h"

static void test_predictor_constants(void **state)
{
    (void)state;
    /* W_i = 32 x 2^i, S_i = W_i / 4^i, T_i = ceil(S_i / 8), 0 <= i <= 3 */
    static const int w[] = {32, 64, 128, 256}, s[] = {32, 16, 8, 4}, t[] = {4, 2, 1, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(probe_pred_window(i), w[i]);
        assert_int_equal(probe_pred_shared(i), s[i]);
        assert_int_equal(probe_pred_threshold(i), t[i]);
    }
}

/* Feeds one window of state i's misses for pc, answering `replies` of the predicted-shared ones;
 * returns how many were predicted shared and checks they are every 4^i-th miss. */
static int window(probe_pred_t *p, uint32_t pc, int i, int replies)
{
    int shared = 0;
    for (int k = 0; k < probe_pred_window(i); k++) {
        int pred = probe_pred_predict(p, pc);
        assert_int_equal(probe_pred_state(p, pc), i);
        assert_int_equal(pred, k % (1 << (2 * i)) == 0);
        if (pred && shared++ < replies)
            probe_pred_reply(p, pc);
    }
    return shared;
}

static void test_predictor_state_machine(void **state)
{
    (void)state;
    probe_pred_t p;
    probe_pred_init(&p);
    const uint32_t pc = 0x48;
    assert_int_equal(probe_pred_state(&p, pc), -1);
    /* strong shared: all 32 predicted shared; 4 replies (T0) keep it there */
    assert_int_equal(window(&p, pc, 0, 4), 32);
    /* 3 replies < T0 = 4: one step towards non-shared */
    assert_int_equal(window(&p, pc, 0, 3), 32);
    /* weak shared: 16 of 64; 2 replies (T1) move back to strong shared */
    assert_int_equal(window(&p, pc, 1, 2), 16);
    assert_int_equal(window(&p, pc, 0, 0), 32);
    assert_int_equal(window(&p, pc, 1, 1), 16);  /* 1 < T1: on to weak non-shared */
    assert_int_equal(window(&p, pc, 2, 0), 8);   /* 8 of 128; 0 < T2 = 1 */
    assert_int_equal(window(&p, pc, 3, 0), 4);   /* strong non-shared: 4 of 256, stays */
    assert_int_equal(window(&p, pc, 3, 1), 4);   /* one reply = T3: back to weak non-shared */
    assert_int_equal(window(&p, pc, 2, 1), 8);   /* and on to weak shared */
    assert_int_equal(probe_pred_predict(&p, pc), 1);
    assert_int_equal(probe_pred_state(&p, pc), 1);
    /* replies of another pc do not count for this one; a pc taking the entry starts afresh */
    probe_pred_reply(&p, pc + 64 * 8);
    const uint32_t other = pc + 64 * 8; /* same entry (pc / 8 modulo 64) */
    assert_int_equal(probe_pred_predict(&p, other), 1);
    assert_int_equal(probe_pred_state(&p, other), 0);
    assert_int_equal(probe_pred_state(&p, pc), -1);
    /* a pc in another entry is independent */
    assert_int_equal(probe_pred_state(&p, pc + 8), -1);
}

static void test_supplier_shares(void **state)
{
    (void)state;
    probe_sel_t s;
    assert_int_equal(probe_sel_init(&s, 4, NULL), GPUEST_OK);
    double w[4];
    /* no replies yet: every other core equally likely */
    probe_sel_weights(&s, 0, w);
    assert_true(w[0] == 0 && w[1] == 1 && w[2] == 1 && w[3] == 1);
    /* the paper's footnote: cores 1, 2, 3 replied 5, 3 and 2 times to core 0 in a period */
    for (int k = 0; k < 5; k++)
        probe_sel_reply(&s, 0, 1, 100);
    for (int k = 0; k < 3; k++)
        probe_sel_reply(&s, 0, 2, 200);
    for (int k = 0; k < 2; k++)
        probe_sel_reply(&s, 0, 3, 300);
    probe_sel_weights(&s, 0, w); /* the period is not over: still the last period's (none) */
    assert_true(w[1] == 1 && w[2] == 1);
    probe_sel_tick(&s, PROBE_SEL_PERIOD);
    probe_sel_weights(&s, 0, w);
    assert_true(w[0] == 0);
    assert_float_equal(w[1], 0.5, 1e-12);
    assert_float_equal(w[2], 0.3, 1e-12);
    assert_float_equal(w[3], 0.2, 1e-12);
    /* next period: core 2 silent, cores 1 and 3 reply 4 and 1 times: it gets half the lowest share */
    for (int k = 0; k < 4; k++)
        probe_sel_reply(&s, 0, 1, PROBE_SEL_PERIOD + 10);
    probe_sel_reply(&s, 0, 3, PROBE_SEL_PERIOD + 20);
    probe_sel_tick(&s, 2 * PROBE_SEL_PERIOD);
    probe_sel_weights(&s, 0, w);
    assert_float_equal(w[1], 0.8, 1e-12);
    assert_float_equal(w[2], 0.1, 1e-12);
    assert_float_equal(w[3], 0.2, 1e-12);
    /* another requester's counts are its own */
    probe_sel_weights(&s, 2, w);
    assert_true(w[0] == 1 && w[1] == 1 && w[2] == 0 && w[3] == 1);
    /* two periods with nothing: back to uniform */
    probe_sel_tick(&s, 4 * PROBE_SEL_PERIOD);
    probe_sel_weights(&s, 0, w);
    assert_true(w[1] == 1 && w[2] == 1 && w[3] == 1);
    probe_sel_free(&s);
}

static void test_selector_targets(void **state)
{
    (void)state;
    int16_t t[32];
    assert_int_equal(probe_sel_index(28, 26, 4, t), 4);
    assert_int_equal(t[0], 27);
    assert_int_equal(t[1], 0);
    assert_int_equal(t[2], 1);
    assert_int_equal(t[3], 2);
    probe_sel_t s;
    assert_int_equal(probe_sel_init(&s, 28, NULL), GPUEST_OK);
    for (int k = 0; k < 100; k++) /* core 9 supplies SM 3 almost always */
        probe_sel_reply(&s, 3, 9, 5);
    probe_sel_reply(&s, 3, 4, 5);
    probe_sel_tick(&s, PROBE_SEL_PERIOD);
    gpuest_rng_t *rng;
    assert_int_equal(gpuest_rng_create(7, &rng), GPUEST_OK);
    int first9 = 0;
    for (int trial = 0; trial < 200; trial++) {
        assert_int_equal(probe_sel_supplier(&s, rng, 3, 27, t), 27);
        int seen[28] = {0};
        for (int k = 0; k < 27; k++) {
            assert_true(t[k] >= 0 && t[k] < 28 && t[k] != 3);
            assert_int_equal(seen[t[k]]++, 0);
        }
        first9 += t[0] == 9;
    }
    /* core 9 carries 100 / (101 + 25 x 0.5) of the weight: it leads far more often than not */
    assert_true(first9 > 150);
    gpuest_rng_destroy(rng);
    probe_sel_free(&s);
}

/* The technique's plans, through its hooks. */
static void plan_with(int mode, int cores, int count, double rate, int nearest, gpuest_sim_probe_plan_t *pl)
{
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "mesh28", NULL), GPUEST_OK);
    c.technique.probing = mode;
    c.technique.probe_cores = cores;
    c.technique.probe_count = count;
    c.technique.probe_rate = rate;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_technique_set_t *set = NULL;
    gpuest_sim_hooks_t h;
    memset(&h, 0, sizeof h);
    assert_int_equal(gpuest_technique_set_create(&env, &h, &set, &e), GPUEST_OK);
    assert_non_null(h.probe_plan);
    gpuest_sim_probe_query_t q = {.line = 0x1000, .sectors = 0xF, .sm = 5, .pc = 8, .nearest = nearest};
    if (nearest >= 0)
        q.sharers[0] = UINT64_C(1) << nearest;
    memset(pl, 0, sizeof *pl);
    h.probe_plan(h.ctx, &q, 0, pl);
    gpuest_technique_set_destroy(set);
}

static void test_scenarios(void **state)
{
    (void)state;
    gpuest_sim_probe_plan_t pl;
    plan_with(GPUEST_PROBE_PP, 15, 2, 0.2, 11, &pl);
    assert_int_equal(pl.action, GPUEST_SIM_PROBE_ORACLE);
    plan_with(GPUEST_PROBE_PP, 15, 2, 0.2, -1, &pl); /* nobody holds it: the L2 */
    assert_int_equal(pl.action, GPUEST_SIM_PROBE_L2);
    plan_with(GPUEST_PROBE_DP, 15, 2, 0.2, 11, &pl); /* one probe straight to the nearest sharer */
    assert_int_equal(pl.action, GPUEST_SIM_PROBE_SEND);
    assert_int_equal(pl.nprobes, 1);
    assert_int_equal(pl.ntargets, 1);
    assert_int_equal(pl.targets[0], 11);
    plan_with(GPUEST_PROBE_IP, 15, 2, 1.0, 11, &pl); /* IP(15,2,1): 15 targets, two probes, two-level */
    assert_int_equal(pl.action, GPUEST_SIM_PROBE_SEND);
    assert_int_equal(pl.nprobes, 2);
    assert_int_equal(pl.two_level, 1);
    assert_int_equal(pl.ntargets, 15);
    plan_with(GPUEST_PROBE_IP, 15, 2, 1.0, -1, &pl); /* perfect knowledge: not shared, no probe */
    assert_int_equal(pl.action, GPUEST_SIM_PROBE_L2);
    plan_with(GPUEST_PROBE_IP, 15, 1, 0.0, 11, &pl); /* IP(15,1,0): S - 1 = 0 probes */
    assert_int_equal(pl.action, GPUEST_SIM_PROBE_L2);
    /* CCN: RP(27,1,1) with the index selector; a new pc starts strong shared */
    plan_with(GPUEST_PROBE_CCN, 15, 2, 0.2, -1, &pl);
    assert_int_equal(pl.action, GPUEST_SIM_PROBE_SEND);
    assert_int_equal(pl.nprobes, 1);
    assert_int_equal(pl.ntargets, 27);
    for (int k = 0; k < 27; k++)
        assert_int_equal(pl.targets[k], (5 + 1 + k) % 28);
}

static void test_config_checks(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "mesh28", NULL), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&c, "technique.probing=rp", "--set", &e), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&c, "technique.probe_cores=28", "--set", &e), GPUEST_OK);
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_EINVAL);
    assert_non_null(strstr(e.msg, "probe_cores"));
    c.technique.probe_cores = 2;
    c.technique.probe_count = 3; /* 3 probes cannot split 2 cores */
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_EINVAL);
    c.technique.probe_count = 2;
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    /* the estimator's transform takes pp, dp and ip; RP's predictor is refused, naming the key */
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_MODEL, &e), GPUEST_OK);
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_model_transform_t t;
    assert_int_equal(gpuest_technique_model_transform(&env, &t, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "technique.probing"));
    assert_int_equal(gpuest_config_set(&c, "technique.probing=magic", "--set", &e), GPUEST_EINVAL);
    assert_int_equal(gpuest_config_set(&c, "technique.probe_rate=1.5", "--set", &e), GPUEST_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predictor_constants), cmocka_unit_test(test_predictor_state_machine),
        cmocka_unit_test(test_supplier_shares),     cmocka_unit_test(test_selector_targets),
        cmocka_unit_test(test_scenarios),           cmocka_unit_test(test_config_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
