/* test_l1c_period.c: the fann policy with a period model (docs/latte-cc.md, "Sixth round:
 * decisions held for a period"), driven through the compressed L1's hooks by a scripted SM 0 on
 * the 32-set latte15 L1D (dedicated sets 0/8/16/24 none, 1/9/17/25 BDI, 2/10/18/26 SC).
 *
 * The script: EP 0 of every period carries the accesses of test_l1compression's scripted EP
 * (none's sets 10 hits / 40 misses, BDI's 25 / 25 with 2-cycle hits, SC's 26 / 24 with 14-cycle
 * hits, misses 200 cycles, L1 hit 20 cycles, LT 0), EPs 1..9 only misses in a follower set. By
 * eq. 2 the rule picks BDI at every EP end (none 164, BDI 111, SC 113.68; the counters are the
 * period's until it ends, and LT stays 0), so any EP not in BDI was decided by the network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "learn/learn.h"
#include "technique/technique.h"
#include "technique/technique_int.h"
#include "fann_test_model.h"

#define FOLLOWER_SET 3
#define PERIODS 3

static char model_dir[64];

typedef struct {
    gpuest_config_t cfg;
    gpuest_technique_set_t *set;
    gpuest_sim_hooks_t h;
} fx_t;

static void fixture(fx_t *f, int policy)
{
    memset(f, 0, sizeof *f);
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&f->cfg, "latte15", &e), GPUEST_OK);
    f->cfg.l1.hit_latency = 20;
    f->cfg.technique.l1_compression = policy;
    gpuest_technique_env_t env = {&f->cfg, NULL, NULL, model_dir, 1, NULL, 0.0, 0.0, 0};
    if (gpuest_technique_set_create(&env, &f->h, &f->set, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
}

static void access_n(fx_t *f, int set, int hit, int n, int mode, int extra)
{
    for (int i = 0; i < n; i++) {
        gpuest_sim_l1c_event_t ev = {0};
        ev.set = set;
        ev.sets = 32;
        ev.line = (uint64_t)set * 128 + 0x100000;
        ev.hit = hit;
        ev.hit_latency = 20;
        ev.mode = mode;
        ev.extra_cycles = hit ? extra : 0;
        ev.sm_cycles = 1000; /* constant counters: LT = 0 over every EP */
        ev.miss_lat_sum = 2000;
        ev.miss_lat_n = 10;
        f->h.l1c_access(f->h.ctx, &ev);
    }
}

/* Runs PERIODS periods of the script; modes[e] is SM 0's mode during EP e. */
static void run_script(fx_t *f, int modes[PERIODS * 10])
{
    for (int e = 0; e < PERIODS * 10; e++) {
        modes[e] = tech_l1c_mode(f->h.ctx, 0);
        if (e % 10 == 0) {
            access_n(f, 0, 1, 10, GPUEST_L1C_NONE, 0);
            access_n(f, 0, 0, 40, 0, 0);
            access_n(f, 1, 1, 25, GPUEST_L1C_BDI, 2);
            access_n(f, 1, 0, 25, 0, 0);
            access_n(f, 2, 1, 26, GPUEST_L1C_SC, 14);
            access_n(f, 2, 0, 24, 0, 0);
            access_n(f, FOLLOWER_SET, 0, 256 - 150, 0, 0);
        } else {
            access_n(f, FOLLOWER_SET, 0, 256, 0, 0);
        }
    }
}

/* A network whose outputs are about `target` whatever the input (trained on constant targets;
 * only x[8] varies, inside [0.1, 0.9]), saved with the metadata of a period model (or, period 0,
 * of a per-EP rule-relative model). */
static void write_model(const double target[GPUEST_L1C_FANN_OUTPUTS], double margin, int period)
{
    fann_test_write_model(model_dir, target, margin, period);
}

/* gpuest_l1c_fann_decide_period by hand: outputs (0.5, 0.6, 0.55), span 5 %: BDI predicts
 * (0.6 - 0.5) x 2 x 0.05 = 1 % saving; above a 0.9 % margin it is held, at 1 % or more the rule
 * keeps the period (strictly above). All outputs at or under 0.5: the rule. Catches a decision
 * against the rule's output (there is none in a period model), a missing factor 2 (0.5 % would
 * fail 0.9 %), a margin compared with >= instead of >. */
static void test_decide_period_by_hand(void **state)
{
    (void)state;
    const double y[3] = {0.5, 0.6, 0.55}, low[3] = {0.5, 0.45, 0.2}, sc[3] = {0.2, 0.1, 0.8};
    assert_int_equal(gpuest_l1c_fann_decide_period(y, 0.05, 0.009), 1);
    assert_int_equal(gpuest_l1c_fann_decide_period(y, 0.05, 0.011), -1);
    assert_int_equal(gpuest_l1c_fann_decide_period(low, 0.05, 0), -1);
    assert_int_equal(gpuest_l1c_fann_decide_period(sc, 0.05, 0.02), 2); /* 3 % > 2 % */
}

/* A period model predicting a 4 % saving for SC ((0.9 - 0.5) x 2 x 5 %, margin 1 %) holds SC for
 * EPs 2..9 of every period, exactly: EPs 0 and 1 of each period are the rule's BDI, and the next
 * period starts in the rule's BDI again. Catches a hold decided at EP 0's end (EP 1 in SC), a hold
 * that lapses after one EP (EP 3 in BDI, the per-EP behaviour), a hold that outlives the period
 * (EP 10 in SC), and a hold taken only in the first period. */
static void test_period_holds_for_the_remaining_eps(void **state)
{
    (void)state;
    const double t[3] = {0.5, 0.5, 0.9};
    write_model(t, 0.01, 1);
    fx_t f;
    fixture(&f, GPUEST_L1COMP_FANN);
    int modes[PERIODS * 10];
    run_script(&f, modes);
    gpuest_technique_set_destroy(f.set);
    assert_int_equal(modes[0], GPUEST_L1C_NONE); /* before any EP end */
    for (int e = 1; e < PERIODS * 10; e++) {
        int want = e % 10 >= 2 ? GPUEST_L1C_SC : GPUEST_L1C_BDI;
        if (modes[e] != want)
            fail_msg("EP %d (EP %d of period %d): mode %d, want %d", e, e % 10, e / 10, modes[e], want);
    }
}

/* The same predicted saving under a 5 % margin: the rule decides
 * every EP, as latte_cc on the same script; so it does with outputs at 0.4 (every held mode
 * predicted 1 % dearer than the rule) and margin 0. And an old per-EP model (no 'period') with the SC
 * output high departs at EVERY EP end, EP 1 included, as before this round. Catches a fallback
 * that holds anyway (or holds none: -1 read as a mode), and a per-EP model read as a period one. */
static void test_fallback_is_the_rule_and_old_models_decide_per_ep(void **state)
{
    (void)state;
    int rule[PERIODS * 10], got[PERIODS * 10];
    fx_t f;
    fixture(&f, GPUEST_L1COMP_LATTE_CC);
    run_script(&f, rule);
    gpuest_technique_set_destroy(f.set);
    const double t[3] = {0.5, 0.5, 0.9}, flat[3] = {0.4, 0.4, 0.4}; /* every mode predicted 1 % dearer */
    write_model(t, 0.05, 1);
    fixture(&f, GPUEST_L1COMP_FANN);
    run_script(&f, got);
    gpuest_technique_set_destroy(f.set);
    assert_memory_equal(got, rule, sizeof rule);
    write_model(flat, 0.0, 1);
    fixture(&f, GPUEST_L1COMP_FANN);
    run_script(&f, got);
    gpuest_technique_set_destroy(f.set);
    assert_memory_equal(got, rule, sizeof rule);
    /* per-EP: SC's output 0.9 against the rule's BDI 0.5 predicts 4 % at every EP end */
    write_model(t, 0.01, 0);
    fixture(&f, GPUEST_L1COMP_FANN);
    run_script(&f, got);
    gpuest_technique_set_destroy(f.set);
    for (int e = 1; e < PERIODS * 10; e++)
        assert_int_equal(got[e], GPUEST_L1C_SC);
}

int main(void)
{
    snprintf(model_dir, sizeof model_dir, "/tmp/gpuest-l1cperiod-XXXXXX");
    if (!mkdtemp(model_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decide_period_by_hand),
        cmocka_unit_test(test_period_holds_for_the_remaining_eps),
        cmocka_unit_test(test_fallback_is_the_rule_and_old_models_decide_per_ep),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char p[128];
    snprintf(p, sizeof p, "%s/latte-fann.net", model_dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/latte-fann.scale.csv", model_dir);
    unlink(p);
    rmdir(model_dir);
    return rc;
}
