/* test_l1compression.c: the compressed L1D policies (technique.l1_compression) driven through
 * their hooks with scripted EPs (256 accesses of SM 0 on the 32-set latte15 L1D, whose dedicated
 * sets are 0/8/16/24 for none, 1/9/17/25 for BDI and 2/10/18/26 for the high-capacity mode):
 *  - the counting windows: insertions counted in EP 0 only, hits in EPs 0 and 1, follower sets
 *    never, everything reset when a period starts;
 *  - the period: the SC book is built from the first EP's lines, rebuilt from the last EP's, and
 *    the SC lines are invalidated exactly when the new period starts;
 *  - every policy's choice on one scripted EP, worked by hand from eq. 2 (clamped) and eq. 4. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "technique/technique.h"
#include "technique/technique_int.h"
#include "learn/learn.h"
#include "fann_test_model.h"

#include <unistd.h>

#define FOLLOWER_SET 3

typedef struct {
    gpuest_config_t cfg;
    gpuest_technique_set_t *set;
    gpuest_sim_hooks_t h;
    /* cumulative latency-tolerance counters the next event carries */
    uint64_t avail_sum, sm_cycles, issue, runs;
    int accesses;
} fx_t;

static const char *fixture_model_dir; /* models of the fann policy (NULL: "models") */

static void fixture(fx_t *f, int policy)
{
    memset(f, 0, sizeof *f);
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&f->cfg, "latte15", &e), GPUEST_OK);
    f->cfg.l1.hit_latency = 20;
    f->cfg.technique.l1_compression = policy;
    assert_int_equal(gpuest_technique_validate(&f->cfg, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    gpuest_technique_env_t env = {&f->cfg, NULL, NULL, fixture_model_dir, 1, NULL, 0.0, 0.0, 0};
    gpuest_err rc = gpuest_technique_set_create(&env, &f->h, &f->set, &e);
    if (rc != GPUEST_OK)
        fail_msg("%s", e.msg);
    assert_non_null(f->h.l1c_fill);
    assert_non_null(f->h.l1c_access);
}

static void done(fx_t *f) { gpuest_technique_set_destroy(f->set); }

static gpuest_sim_l1c_event_t event(fx_t *f, int set, int hit)
{
    gpuest_sim_l1c_event_t ev = {0};
    ev.sm = 0;
    ev.set = set;
    ev.sets = 32;
    ev.line = (uint64_t)set * 128 + 0x100000;
    ev.hit = hit;
    ev.hit_latency = 20;
    ev.avail_sum = f->avail_sum;
    ev.sm_cycles = f->sm_cycles;
    ev.sched_issue = f->issue;
    ev.sched_runs = f->runs;
    ev.miss_lat_sum = 2000; /* 200 cycles a miss */
    ev.miss_lat_n = 10;
    return ev;
}

/* n accesses to `set`; hits carry the line's mode, its decompression cycles and stack depth. */
static unsigned access_n(fx_t *f, int set, int hit, int n, int mode, int extra, int depth)
{
    unsigned mask = 0;
    for (int i = 0; i < n; i++) {
        gpuest_sim_l1c_event_t ev = event(f, set, hit);
        ev.mode = mode;
        ev.extra_cycles = hit ? extra : 0;
        ev.depth = depth;
        mask |= f->h.l1c_access(f->h.ctx, &ev);
        f->accesses++;
    }
    return mask;
}

/* Misses in the follower set up to the end of the current EP. */
static unsigned finish_ep(fx_t *f)
{
    int left = 256 - f->accesses % 256;
    unsigned mask = 0;
    if (left > 1)
        mask |= access_n(f, FOLLOWER_SET, 0, left - 1, 0, 0, 0);
    /* the EP's last access carries the tolerance counters of its end: LT over the EP */
    return mask | access_n(f, FOLLOWER_SET, 0, 1, 0, 0, 0);
}

static void counts(fx_t *f, int mode, uint64_t hits, uint64_t misses)
{
    uint64_t h, m;
    tech_l1c_counts(f->h.ctx, 0, mode, &h, &m);
    assert_int_equal(h, hits);
    assert_int_equal(m, misses);
}

/* ---------------------------------------------------------------- counting windows */
static void test_dedicated_set_windows(void **state)
{
    (void)state;
    fx_t f;
    fixture(&f, GPUEST_L1COMP_LATTE_CC);
    /* EP 0 (learning): hits and insertions counted, in both BDI sets used */
    access_n(&f, 1, 1, 5, GPUEST_L1C_BDI, 2, 0);
    access_n(&f, 9, 0, 7, 0, 0, 0);
    access_n(&f, FOLLOWER_SET, 1, 20, GPUEST_L1C_NONE, 0, 0); /* a follower: never counted */
    finish_ep(&f);
    counts(&f, GPUEST_L1C_BDI, 5, 7);
    counts(&f, GPUEST_L1C_NONE, 0, 0);
    /* EP 1: hits still counted, insertions no longer */
    access_n(&f, 17, 1, 3, GPUEST_L1C_BDI, 2, 0);
    access_n(&f, 1, 0, 4, 0, 0, 0);
    access_n(&f, 2, 1, 6, GPUEST_L1C_SC, 14, 0);
    finish_ep(&f);
    counts(&f, GPUEST_L1C_BDI, 8, 7);
    counts(&f, GPUEST_L1C_SC, 6, 0);
    /* EP 2: the window has closed */
    access_n(&f, 1, 1, 2, GPUEST_L1C_BDI, 2, 0);
    access_n(&f, 1, 0, 2, 0, 0, 0);
    finish_ep(&f);
    counts(&f, GPUEST_L1C_BDI, 8, 7);
    /* EPs 3..9, then a new period: the counters start again from zero and count again */
    for (int ep = 3; ep < 10; ep++)
        finish_ep(&f);
    counts(&f, GPUEST_L1C_BDI, 0, 0);
    access_n(&f, 25, 0, 3, 0, 0, 0);
    counts(&f, GPUEST_L1C_BDI, 0, 3);
    done(&f);
}

/* ---------------------------------------------------------------- period, SC book */
static void line_of(uint8_t *line, uint32_t word)
{
    for (int i = 0; i < 128; i += 4)
        memcpy(line + i, &word, 4);
}

static gpuest_sim_l1c_line_t fill(fx_t *f, int set, const uint8_t *line)
{
    gpuest_sim_l1c_event_t ev = event(f, set, 0);
    gpuest_sim_l1c_line_t out = {0};
    f->h.l1c_fill(f->h.ctx, &ev, line, &out);
    return out;
}

static void test_period_rebuilds_book_and_invalidates_sc_lines(void **state)
{
    (void)state;
    fx_t f;
    fixture(&f, GPUEST_L1COMP_STATIC_SC);
    uint8_t a[128], b[128];
    line_of(a, 0x12345678u);
    line_of(b, 0x9abcdef0u);
    /* EP 0 of the first period: no book yet, the line is stored raw; its words are sampled */
    gpuest_sim_l1c_line_t o = fill(&f, FOLLOWER_SET, a);
    assert_int_equal(o.mode, GPUEST_L1C_NONE);
    assert_int_equal(o.bytes, 128);
    assert_int_equal(finish_ep(&f), 0u);
    /* from EP 1 the first book codes A (32 words of its one value); B's value is not in it */
    o = fill(&f, FOLLOWER_SET, a);
    assert_int_equal(o.mode, GPUEST_L1C_SC);
    assert_true(o.bytes < 32);
    assert_int_equal(o.decomp_cycles, 14);
    assert_int_equal(fill(&f, FOLLOWER_SET, b).mode, GPUEST_L1C_NONE);
    /* EPs 1..8: no invalidation; EP 9 samples B and its last access starts the new period */
    for (int ep = 1; ep < 9; ep++)
        assert_int_equal(finish_ep(&f), 0u);
    fill(&f, FOLLOWER_SET, b);
    access_n(&f, FOLLOWER_SET, 0, 255, 0, 0, 0);
    assert_int_equal(access_n(&f, FOLLOWER_SET, 0, 1, 0, 0, 0), 1u << GPUEST_L1C_SC);
    /* the new book is B's: B is coded, A is not any more */
    assert_int_equal(fill(&f, FOLLOWER_SET, b).mode, GPUEST_L1C_SC);
    assert_int_equal(fill(&f, FOLLOWER_SET, a).mode, GPUEST_L1C_NONE);
    assert_int_equal(finish_ep(&f), 0u);
    done(&f);
}

static void test_static_bdi_never_invalidates(void **state)
{
    (void)state;
    fx_t f;
    fixture(&f, GPUEST_L1COMP_STATIC_BDI);
    uint8_t a[128];
    line_of(a, 0x12345678u);
    for (int ep = 0; ep < 12; ep++) {
        gpuest_sim_l1c_line_t o = fill(&f, ep % 3, a); /* no dedicated sets: every set is BDI */
        assert_int_equal(o.mode, GPUEST_L1C_BDI);
        assert_int_equal(o.decomp_cycles, 2);
        assert_true(o.bytes < 128);
        assert_int_equal(finish_ep(&f), 0u);
    }
    done(&f);
}

/* ---------------------------------------------------------------- policies on a scripted EP
 * EP 0: none's sets 10 hits / 40 misses, BDI's 25 / 25 (hits 2 cycles), the high-capacity
 * mode's 26 / 24 (hits 14 cycles, or BPC's 11); misses cost 200 cycles; L1 hit 20 cycles.
 * AMAT_GPU by hand, LT = 0: none (10*20 + 40*200)/50 = 164, BDI (25*22 + 25*200)/50 = 111,
 * SC (26*34 + 24*200)/50 = 113.68 -> BDI; LT = 10 warps x 4 cycles = 40 (every hit hidden):
 * 160, 100, 96 -> SC. */
static void scripted_ep(fx_t *f, int hc_mode, int hc_extra, int sc_deep, int bdi_deep, uint64_t avail)
{
    access_n(f, 0, 1, 10, GPUEST_L1C_NONE, 0, 0);
    access_n(f, 0, 0, 40, 0, 0, 0);
    access_n(f, 1, 1, 25 - bdi_deep, GPUEST_L1C_BDI, 2, 1);
    access_n(f, 9, 1, bdi_deep, GPUEST_L1C_BDI, 2, 6);
    access_n(f, 1, 0, 25, 0, 0, 0);
    access_n(f, 2, 1, 26 - sc_deep, hc_mode, hc_extra, 2);
    access_n(f, 10, 1, sc_deep, hc_mode, hc_extra, 5);
    access_n(f, 2, 0, 24, 0, 0, 0);
    f->avail_sum = avail * 1000;
    f->sm_cycles = 1000;
    f->issue = 4000;
    f->runs = 1000;
    finish_ep(f);
}

static int choice(int policy, int hc_mode, int hc_extra, int sc_deep, int bdi_deep, uint64_t avail)
{
    fx_t f;
    fixture(&f, policy);
    if (policy != GPUEST_L1COMP_STATIC_SC && policy != GPUEST_L1COMP_STATIC_BPC)
        assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_NONE); /* adaptive: none before any EP */
    scripted_ep(&f, hc_mode, hc_extra, sc_deep, bdi_deep, avail);
    int m = tech_l1c_mode(f.h.ctx, 0);
    done(&f);
    return m;
}

static void test_latte_cc_choice_follows_tolerance(void **state)
{
    (void)state;
    assert_int_equal(choice(GPUEST_L1COMP_LATTE_CC, GPUEST_L1C_SC, 14, 0, 0, 0), GPUEST_L1C_BDI);
    assert_int_equal(choice(GPUEST_L1COMP_LATTE_CC, GPUEST_L1C_SC, 14, 0, 0, 10), GPUEST_L1C_SC);
    /* LT = 3 x 4 = 12: none's hits 8 exposed, BDI's 10, SC's 22: none 161.6, BDI 105, SC 107.44 -> BDI */
    assert_int_equal(choice(GPUEST_L1COMP_LATTE_CC, GPUEST_L1C_SC, 14, 0, 0, 3), GPUEST_L1C_BDI);
}

/* BPC's 11 cycles, LT = 0: (26*31 + 24*200)/50 = 112.12 > BDI's 111 -> BDI; LT = 40 -> BPC. */
static void test_latte_cc_bdi_bpc_choice(void **state)
{
    (void)state;
    assert_int_equal(choice(GPUEST_L1COMP_LATTE_CC_BDI_BPC, GPUEST_L1C_BPC, 11, 0, 0, 0), GPUEST_L1C_BDI);
    assert_int_equal(choice(GPUEST_L1COMP_LATTE_CC_BDI_BPC, GPUEST_L1C_BPC, 11, 0, 0, 10), GPUEST_L1C_BPC);
}

/* Miss ratios 0.8, 0.5, 0.48: SC whatever the tolerance. */
static void test_adaptive_hit_count_choice(void **state)
{
    (void)state;
    assert_int_equal(choice(GPUEST_L1COMP_ADAPTIVE_HIT_COUNT, GPUEST_L1C_SC, 14, 0, 0, 0), GPUEST_L1C_SC);
    assert_int_equal(choice(GPUEST_L1COMP_ADAPTIVE_HIT_COUNT, GPUEST_L1C_SC, 14, 0, 0, 10), GPUEST_L1C_SC);
}

/* Alameldeen-Wood counters: SC 3 deep hits x 200 - 23 x 14 = 278, BDI 10 x 200 - 15 x 2 = 1970
 * -> BDI; with no deep hit both are negative (-364, -50) -> none. */
static void test_adaptive_cmp_choice(void **state)
{
    (void)state;
    assert_int_equal(choice(GPUEST_L1COMP_ADAPTIVE_CMP, GPUEST_L1C_SC, 14, 3, 10, 10), GPUEST_L1C_BDI);
    assert_int_equal(choice(GPUEST_L1COMP_ADAPTIVE_CMP, GPUEST_L1C_SC, 14, 0, 0, 10), GPUEST_L1C_NONE);
    /* SC 20 deep: 4000 - 6 x 14 = 3916 > BDI's 1970 -> SC */
    assert_int_equal(choice(GPUEST_L1COMP_ADAPTIVE_CMP, GPUEST_L1C_SC, 14, 20, 10, 0), GPUEST_L1C_SC);
}

/* Static policies keep their mode whatever an EP shows. */
static void test_static_choice(void **state)
{
    (void)state;
    assert_int_equal(choice(GPUEST_L1COMP_STATIC_SC, GPUEST_L1C_SC, 14, 0, 0, 0), GPUEST_L1C_SC);
    assert_int_equal(choice(GPUEST_L1COMP_STATIC_BPC, GPUEST_L1C_SC, 14, 0, 0, 0), GPUEST_L1C_BPC);
}

/* ---------------------------------------------------------------- the FANN selector's features
 * A scripted EP 0 (SM 0, every event with 64 valid lines): none's set 10 hits / 40 misses, BDI's
 * 20 hits (4 decompression cycles, queue position 1) / 30 misses, SC's 8 hits (28 cycles, queue
 * position 1) / 2 misses, 146 follower misses; counters: 6000 available-warp cycles over 2000
 * cycles, 1000 issues in 500 scheduler runs. By hand: avail 3, cycles per schedule 2, LT 6, hit
 * ratios 0.2 / 0.4 / 0.8, waits 4 and 28, miss rate 218/256, miss latency 200, queue depth 28/28,
 * capacity 64 x 128 / 16384 = 0.5, EP 0, mode none, hit extra (80 + 224) / 38 = 8; the rule's
 * estimates (eq. 2, LT 6, miss latency 200, hit latency 20 + wait): none (10 x 14 + 40 x 200) / 50
 * = 162.8, BDI (20 x 18 + 30 x 200) / 50 = 127.2, SC (8 x 42 + 2 x 200) / 10 = 73.6, so the rule's
 * choice is SC (one-hot 0, 0, 1). */
static gpuest_l1c_ep_t last_ep;
static int seen_eps;

static int capture_ep(void *ctx, const gpuest_l1c_ep_t *ep)
{
    (void)ctx;
    last_ep = *ep;
    seen_eps++;
    return -1;
}

static void access_q(fx_t *f, int set, int hit, int n, int mode, int extra, int qpos)
{
    for (int i = 0; i < n; i++) {
        gpuest_sim_l1c_event_t ev = event(f, set, hit);
        ev.mode = mode;
        ev.extra_cycles = hit ? extra : 0;
        ev.queue_pos = qpos;
        ev.valid_lines = 64;
        f->h.l1c_access(f->h.ctx, &ev);
        f->accesses++;
    }
}

static void feature_ep(fx_t *f)
{
    access_q(f, 0, 1, 10, GPUEST_L1C_NONE, 0, 0);
    access_q(f, 0, 0, 40, 0, 0, 0);
    access_q(f, 1, 1, 20, GPUEST_L1C_BDI, 4, 1);
    access_q(f, 1, 0, 30, 0, 0, 0);
    access_q(f, 2, 1, 8, GPUEST_L1C_SC, 28, 1);
    access_q(f, 2, 0, 2, 0, 0, 0);
    f->avail_sum = 6000;
    f->sm_cycles = 2000;
    f->issue = 1000;
    f->runs = 500;
    access_q(f, FOLLOWER_SET, 0, 146, 0, 0, 0);
}

static void test_fann_features_on_scripted_ep(void **state)
{
    (void)state;
    fx_t f;
    fixture(&f, GPUEST_L1COMP_LATTE_CC);
    seen_eps = 0;
    gpuest_l1c_set_ep_observer(capture_ep, NULL);
    feature_ep(&f);
    assert_int_equal(seen_eps, 1);
    static const double want[GPUEST_L1C_FANN_FEATURES] = {
        3, 2, 6, 0.2, 0.4, 0.8, 4, 28, 218.0 / 256, 218.0 / 256, 200, 1, 0.5, 0, 1, 0, 0, 8, 162.8, 127.2, 73.6,
        0, 0, 1};
    for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
        if (fabs(last_ep.x[i] - want[i]) > 1e-12)
            fail_msg("feature %s: %.17g, want %.17g", gpuest_l1c_fann_feature_names[i], last_ep.x[i], want[i]);
    assert_int_equal(last_ep.ep, 0);
    assert_int_equal(last_ep.mode, GPUEST_L1C_NONE);
    assert_int_equal(last_ep.choice, tech_l1c_mode(f.h.ctx, 0)); /* no override: the rule's choice runs */
    assert_int_equal(last_ep.choice, GPUEST_L1C_SC);            /* and the one-hot feature names it */
    /* EP 1, all misses: the change of the miss rate, EP 1, the mode chosen at the end of EP 0 */
    int m1 = tech_l1c_mode(f.h.ctx, 0);
    access_q(&f, FOLLOWER_SET, 0, 256, 0, 0, 0);
    assert_int_equal(seen_eps, 2);
    assert_true(fabs(last_ep.x[9] - (1.0 - 218.0 / 256)) < 1e-12);
    assert_true(last_ep.x[13] == 1.0);
    assert_true(last_ep.x[14 + (m1 == GPUEST_L1C_BDI ? 1 : m1 == GPUEST_L1C_SC ? 2 : 0)] == 1.0);
    assert_int_equal(last_ep.mode, m1);
    /* EP 1 counts no insertion (the window is EP 0) and its hits went to a follower set, so the
     * period's counters are those of EP 0 and the rule's estimates (miss latency still 200 with
     * no fill reported) only change through LT: EP 1 ran 0 cycles, so avail = cps = LT = 0 and
     * none = (10 x 20 + 8000) / 50 = 164, BDI = (20 x 24 + 6000) / 50 = 129.6, SC = (8 x 48 + 400)
     * / 10 = 78.4: still SC */
    assert_true(fabs(last_ep.x[18] - 164.0) < 1e-9 && fabs(last_ep.x[19] - 129.6) < 1e-9 &&
                fabs(last_ep.x[20] - 78.4) < 1e-9);
    assert_true(last_ep.x[21] == 0 && last_ep.x[22] == 0 && last_ep.x[23] == 1);
    gpuest_l1c_set_ep_observer(NULL, NULL);
    done(&f);
}

/* An observer's word replaces the rule's choice for the next EP. */
static int force_sc(void *ctx, const gpuest_l1c_ep_t *ep)
{
    (void)ctx;
    (void)ep;
    return GPUEST_L1C_SC;
}

static void test_observer_forces_mode(void **state)
{
    (void)state;
    fx_t f;
    fixture(&f, GPUEST_L1COMP_LATTE_CC);
    gpuest_l1c_set_ep_observer(force_sc, NULL);
    scripted_ep(&f, GPUEST_L1C_SC, 14, 0, 0, 0); /* the rule alone picks BDI here */
    gpuest_l1c_set_ep_observer(NULL, NULL);
    assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_SC);
    done(&f);
}

/* ---------------------------------------------------------------- the fann policy
 * A network trained here on one informative input: miss rate 0.9 -> BDI, 0.1 -> SC (every other
 * input constant, so scaled to 0). The policy must run the mode of its largest output: BDI after
 * the scripted EP (miss rate 0.85; LATTE-CC's rule picks SC there: AMAT_GPU none 162.8, BDI 127.2,
 * SC 73.6 at LT 6), SC after an EP of hits (miss rate 0). */
static char model_dir[64];

/* span, margin < 0: a model without the 'rule_span' / 'margin' metadata (largest output wins). */
static int model_guard; /* 1: write_model_meta also sets 'range_guard' */

static void write_model_meta(size_t n_in, double span, double margin)
{
    gpuest_learn_data_t d;
    gpuest_learn_data_init(&d, n_in, GPUEST_L1C_FANN_OUTPUTS);
    for (int i = 0; i < 200; i++) {
        double x[GPUEST_L1C_FANN_FEATURES] = {0}, y[GPUEST_L1C_FANN_OUTPUTS] = {0};
        int high = i % 2;
        x[8 % n_in] = (high ? 0.9 : 0.1) + 0.0005 * (i % 7);
        y[high ? 1 : 2] = 1.0;
        assert_int_equal(gpuest_learn_data_add(&d, x, y, 0), GPUEST_OK);
    }
    fann_test_train_save(&d, model_dir, span, margin, model_guard, 0);
    gpuest_learn_data_free(&d);
}

static void write_model(size_t n_in) { write_model_meta(n_in, -1, -1); }

static void test_fann_policy_applies_network(void **state)
{
    (void)state;
    write_model(GPUEST_L1C_FANN_FEATURES);
    fx_t f;
    fixture_model_dir = NULL;
    fixture(&f, GPUEST_L1COMP_LATTE_CC);
    feature_ep(&f);
    int rule = tech_l1c_mode(f.h.ctx, 0);
    done(&f);
    assert_int_equal(rule, GPUEST_L1C_SC);
    fixture_model_dir = model_dir;
    fixture(&f, GPUEST_L1COMP_FANN);
    assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_NONE);
    feature_ep(&f);
    assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_BDI);
    access_q(&f, FOLLOWER_SET, 1, 256, GPUEST_L1C_NONE, 0, 0); /* miss rate 0 */
    assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_SC);
    done(&f);
    fixture_model_dir = NULL;
}

/* gpuest_l1c_fann_decide by hand. Outputs (0.5, 0.6, 0.55), rule none, span 2 %: BDI is the
 * largest and predicts a saving of (0.6 - 0.5) x 2 x 0.02 = 0.4 %: above a 0.3 % margin it wins,
 * under a 0.5 % margin the rule's none stays (a decision without the factor 2 would predict 0.2 %
 * and keep none at 0.3 %; one that ignores the margin takes BDI at 0.5 %). Span 0: the largest
 * output whatever the rule. All outputs equal: the rule's choice with a span, the lowest index
 * without. The rule's own output largest: the rule. */
static void test_fann_decide_margin(void **state)
{
    (void)state;
    const double y[3] = {0.5, 0.6, 0.55}, flat[3] = {0.5, 0.5, 0.5}, y2[3] = {0.7, 0.4, 0.6};
    assert_int_equal(gpuest_l1c_fann_decide(y, 0, 0.02, 0.003), 1);
    assert_int_equal(gpuest_l1c_fann_decide(y, 0, 0.02, 0.005), 0);
    assert_int_equal(gpuest_l1c_fann_decide(y, 2, 0.02, 0.001), 1); /* (0.6 - 0.55) x 0.04 = 0.2 % > 0.1 % */
    assert_int_equal(gpuest_l1c_fann_decide(y, 2, 0.02, 0.003), 2);
    assert_int_equal(gpuest_l1c_fann_decide(y, 0, 0, 0.5), 1);
    assert_int_equal(gpuest_l1c_fann_decide(y, 1, 0.02, 0), 1);
    assert_int_equal(gpuest_l1c_fann_decide(flat, 2, 0.02, 0), 2);
    assert_int_equal(gpuest_l1c_fann_decide(flat, 2, 0, 0), 0);
    /* rule SC, none predicted (0.7 - 0.6) x 0.04 = 0.4 % cheaper */
    assert_int_equal(gpuest_l1c_fann_decide(y2, 2, 0.02, 0.003), 0);
    assert_int_equal(gpuest_l1c_fann_decide(y2, 2, 0.02, 0.004 + 1e-9), 2);
}

/* The policy reads the model's 'rule_span' and 'margin': the network of write_model outputs about
 * (0, 1, 0) after the scripted EP, where the rule picks SC; with span 2 % the predicted saving of
 * BDI is about (1 - 0) x 0.04 = 4 %: a 1 % margin takes BDI, a 5 % margin keeps the rule's SC. */
static void test_fann_policy_margin_from_model(void **state)
{
    (void)state;
    fx_t f;
    fixture_model_dir = model_dir;
    write_model_meta(GPUEST_L1C_FANN_FEATURES, 0.02, 0.01);
    fixture(&f, GPUEST_L1COMP_FANN);
    feature_ep(&f);
    assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_BDI);
    done(&f);
    write_model_meta(GPUEST_L1C_FANN_FEATURES, 0.02, 0.05);
    fixture(&f, GPUEST_L1COMP_FANN);
    feature_ep(&f);
    assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_SC);
    done(&f);
    fixture_model_dir = NULL;
}

/* The range guard. write_model's network saw x[8] in [0.1, 0.903] and every other input at 0: a
 * point with x[8] = 0.5 is inside, x[8] = 0.95 or x[3] = 0.1 outside. The scripted EP has
 * features far from 0, so a guarded model leaves the choice to the rule (SC) where the same
 * network unguarded picks BDI (test_fann_policy_applies_network). Catches a guard that ignores
 * the training range, checks only some inputs, or is applied without the model asking for it. */
static void test_fann_range_guard(void **state)
{
    (void)state;
    fx_t f;
    fixture_model_dir = model_dir;
    model_guard = 1;
    write_model(GPUEST_L1C_FANN_FEATURES);
    model_guard = 0;
    char np[128], sp[128];
    snprintf(np, sizeof np, "%s/latte-fann.net", model_dir);
    snprintf(sp, sizeof sp, "%s/latte-fann.scale.csv", model_dir);
    gpuest_learn_net_t *net = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_learn_net_load(np, sp, GPUEST_L1C_FANN_FEATURES, GPUEST_L1C_FANN_OUTPUTS, &net, &e),
                     GPUEST_OK);
    double x[GPUEST_L1C_FANN_FEATURES] = {0};
    x[8] = 0.5;
    assert_int_equal(gpuest_l1c_fann_in_range(net, x), 1);
    x[8] = 0.95;
    assert_int_equal(gpuest_l1c_fann_in_range(net, x), 0);
    x[8] = 0.5;
    x[3] = 0.1;
    assert_int_equal(gpuest_l1c_fann_in_range(net, x), 0);
    gpuest_learn_net_destroy(net);
    fixture(&f, GPUEST_L1COMP_FANN);
    feature_ep(&f);
    assert_int_equal(tech_l1c_mode(f.h.ctx, 0), GPUEST_L1C_SC);
    done(&f);
    fixture_model_dir = NULL;
}

/* Creating the fann policy without its model, with a damaged one or one of another shape is an
 * error naming the file. */
static void expect_create_error(const char *fragment)
{
    gpuest_config_t cfg;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&cfg, "latte15", &e), GPUEST_OK);
    cfg.technique.l1_compression = GPUEST_L1COMP_FANN;
    gpuest_technique_env_t env = {&cfg, NULL, NULL, model_dir, 1, NULL, 0.0, 0.0, 0};
    gpuest_sim_hooks_t h = {0};
    gpuest_technique_set_t *set = NULL;
    assert_int_not_equal(gpuest_technique_set_create(&env, &h, &set, &e), GPUEST_OK);
    gpuest_technique_set_destroy(set);
    if (!strstr(e.msg, fragment))
        fail_msg("error '%s' does not name '%s'", e.msg, fragment);
}

static void test_fann_model_errors(void **state)
{
    (void)state;
    char np[128], sp[128];
    snprintf(np, sizeof np, "%s/latte-fann.net", model_dir);
    snprintf(sp, sizeof sp, "%s/latte-fann.scale.csv", model_dir);
    unlink(np);
    unlink(sp);
    expect_create_error("latte-fann.scale.csv: cannot open"); /* missing */
    write_model(4);
    expect_create_error("network shape 4 x 3, expected 24 x 3"); /* 4 inputs, not 24 */
    write_model(18);
    expect_create_error("network shape 18 x 3, expected 24 x 3"); /* the first selector's 18 features */
    expect_create_error("18 features"); /* and the message says what an old model is */
    write_model(GPUEST_L1C_FANN_FEATURES);
    FILE *fp = fopen(np, "r+");
    assert_non_null(fp);
    fseek(fp, 40, SEEK_SET);
    fputs("garbage", fp); /* the network no longer matches its checksum */
    fclose(fp);
    expect_create_error("latte-fann.net: checksum does not match");
    unlink(np);
    unlink(sp);
}

int main(void)
{
    snprintf(model_dir, sizeof model_dir, "/tmp/gpuest-l1cfann-XXXXXX");
    if (!mkdtemp(model_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedicated_set_windows),
        cmocka_unit_test(test_period_rebuilds_book_and_invalidates_sc_lines),
        cmocka_unit_test(test_static_bdi_never_invalidates),
        cmocka_unit_test(test_latte_cc_choice_follows_tolerance),
        cmocka_unit_test(test_latte_cc_bdi_bpc_choice),
        cmocka_unit_test(test_adaptive_hit_count_choice),
        cmocka_unit_test(test_adaptive_cmp_choice),
        cmocka_unit_test(test_static_choice),
        cmocka_unit_test(test_fann_features_on_scripted_ep),
        cmocka_unit_test(test_observer_forces_mode),
        cmocka_unit_test(test_fann_policy_applies_network),
        cmocka_unit_test(test_fann_model_errors),
        cmocka_unit_test(test_fann_decide_margin),
        cmocka_unit_test(test_fann_policy_margin_from_model),
        cmocka_unit_test(test_fann_range_guard),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(model_dir);
    return rc;
}
