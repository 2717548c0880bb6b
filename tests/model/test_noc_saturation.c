/* test_noc_saturation.c: the continuous saturation search on a case solved by hand, its bracket
 * handling, and warm-started evaluations against evaluations from zero. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/core.h"
#include "model_test_util.h"

/* 2 x 2 mesh (BookSim router: routing + VC allocation = 2 cycles, 2 VCs, 8-flit buffers), one
 * class of 2-flit packets, XY routing, two flows of lambda packets per cycle at scale 1: node 0 ->
 * node 1 (one hop east) and node 3 -> node 1 (one hop in Y). They meet only at router 1's ejection
 * port; each flow is alone on every other port. By hand, at scale s (x = s lambda):
 *  - a port fed by one input waits 0 (Karol's finite-input factor 1 - sum rho_i^2 / rho^2 = 0);
 *  - the ejection port of router 1: rho = 2 x L = 4x, m2 = 2 x L^2, factor 1/2, so
 *    W = kappa m2 / (2 (1 - rho)) / 2 = kappa x L^2 / (2 (1 - 4x)) = 3x / (1 - 4x) (kappa 1.5);
 *  - the input VCs of router 1 (one flow each, no conflicts: it has one output): service
 *    2 + L + W, utilisation x (4 + 3x / (1 - 4x)) / 2 (2 VCs); the source queues: 2x; the input
 *    VCs at the sources: x (2 + 2) / 2 = 2x.
 * The router-1 input VCs reach utilisation 1 first: x (4 + 3x / (1 - 4x)) = 2, i.e.
 * 13 x^2 - 12 x + 2 = 0, x* = (12 - sqrt(40)) / 26 = 0.2182846..., below the ejection port's
 * bound 1/4 (where a search on the link load alone would put it). */
static const double lam = 0.5;

static gpuest_model_noc_t *hand_case(void)
{
    gpuest_config_t cfg;
    booksim_mesh(&cfg, 2, 2, 8);
    gpuest_model_traffic_t t;
    assert_int_equal(gpuest_model_traffic_init(&t, 4, 1, NULL), GPUEST_OK);
    t.packet_flits[0] = 2;
    t.routing[0] = GPUEST_ROUTE_XY;
    t.reply_class[0] = -1;
    *gpuest_model_traffic_at(&t, 0, 0, 1) = lam;
    *gpuest_model_traffic_at(&t, 0, 3, 1) = lam;
    gpuest_model_noc_t *m = NULL;
    assert_int_equal(gpuest_model_noc_create(&cfg, &t, &m, NULL), GPUEST_OK);
    gpuest_model_traffic_free(&t);
    return m;
}

static double hand_root(void)
{
    return (12.0 - sqrt(40.0)) / 26.0 / lam;
}

/* The model itself agrees with the hand calculation: stable just below, saturated just above, the
 * bottleneck is an input VC of router 1. */
static void test_hand_case_matches_model(void **state)
{
    (void)state;
    gpuest_model_noc_t *m = hand_case();
    gpuest_model_result_t r;
    double s = hand_root();
    assert_int_equal(gpuest_model_noc_eval(m, s * (1 - 1e-7), NULL, &r, NULL), GPUEST_OK);
    assert_false(r.saturated);
    assert_int_equal(r.bottleneck_kind, 1);
    assert_int_equal(r.bottleneck_router, 1);
    assert_double_equal(r.max_util, 1.0, 1e-5);
    assert_int_equal(gpuest_model_noc_eval(m, s * (1 + 1e-7), NULL, &r, NULL), GPUEST_ESATURATED);
    assert_true(r.saturated);
    gpuest_model_noc_destroy(m);
}

/* The root search finds x* to its 1e-6 bracket (a midpoint within half the bracket, 5e-7 of its upper end). The
 * bisection it replaced (16 halvings of [0, the scale where the hottest link carries 1 flit per cycle] = [0, 0.5]) left
 * an error up to 0.5 / 2^17 = 3.8e-6, 8.7e-6 relative: it fails this check, and so does a search
 * on the link load alone (root 0.25 / lambda). It needs fewer evaluations than that bisection's 17. */
static void test_root_of_hand_case(void **state)
{
    (void)state;
    gpuest_model_noc_t *m = hand_case();
    double s = 0.0, want = hand_root();
    int evals = 0;
    assert_int_equal(gpuest_model_noc_saturation_root(m, NULL, 0.0, 1.0, 1e-6, &s, &evals, NULL), GPUEST_OK);
    assert_double_equal(s, want, 6e-7 * want);
    assert_true(evals > 0 && evals < 17);
    /* wrong hints: a lower end already saturated, an upper end still stable */
    assert_int_equal(gpuest_model_noc_saturation_root(m, NULL, 1.5 * want, 2.0 * want, 1e-6, &s, NULL, NULL),
                     GPUEST_OK);
    assert_double_equal(s, want, 6e-7 * want);
    assert_int_equal(gpuest_model_noc_saturation_root(m, NULL, 0.2 * want, 0.5 * want, 1e-6, &s, NULL, NULL),
                     GPUEST_OK);
    assert_double_equal(s, want, 6e-7 * want);
    /* a tight hint around the root closes in two evaluations */
    assert_int_equal(
        gpuest_model_noc_saturation_root(m, NULL, want * (1 - 4e-7), want * (1 + 4e-7), 1e-6, &s, &evals, NULL),
        GPUEST_OK);
    assert_int_equal(evals, 2);
    assert_double_equal(s, want, 6e-7 * want);
    assert_int_equal(gpuest_model_noc_saturation_root(m, NULL, 0.5, 0.4, 1e-6, &s, NULL, NULL), GPUEST_EINVAL);
    gpuest_model_noc_destroy(m);
}

/* Warm-started evaluations (rising scales, then a higher kappa) give the evaluations from zero's
 * results, on the mesh56 GPU traffic whose waits feed back (MC refusals, long reply packets). */
static void test_warm_equals_cold(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_model_pattern_t p;
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    assert_int_equal(gpuest_config_preset(&cfg, "mesh56", NULL), GPUEST_OK);
    cfg.noc.buffer_flits = 2; /* shorter than a reply: wormhole blocking couples the waits, */
    cfg.noc.vcs = 2;          /* one VC per message class: a blocked packet holds its link */
    cfg.mc.reply_queue = 1;   /* and so do the refusals of a nearly full MC reply path */
    cfg.noc.inject_queue = 1;
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_traffic_build(&t, &p, &cfg, 1.0, NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_create(&cfg, &t, &m, NULL), GPUEST_OK);
    gpuest_model_traffic_free(&t);
    double sat = 0.0;
    assert_int_equal(gpuest_model_noc_saturation_scale(m, NULL, &sat, NULL), GPUEST_OK);
    gpuest_model_params_t pp;
    gpuest_model_params_default(&pp);
    int warm_sweeps = 0, cold_sweeps = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            pp.kappa *= 1.01;
        static const double at[] = {0.2, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99};
        for (size_t j = 0; j < sizeof at / sizeof at[0]; j++) {
            double s = sat * at[j];
            gpuest_model_result_t w, c;
            gpuest_err rw = gpuest_model_noc_eval_warm(m, s, &pp, &w, NULL);
            gpuest_err rc = gpuest_model_noc_eval(m, s, &pp, &c, NULL);
            assert_int_equal(rw, rc);
            assert_int_equal(w.saturated, c.saturated);
            if (c.saturated)
                continue;
            assert_double_equal(w.avg_packet_latency, c.avg_packet_latency, 1e-7 * c.avg_packet_latency);
            assert_double_equal(w.max_util, c.max_util, 1e-9);
            assert_double_equal(w.mc_stall_ratio, c.mc_stall_ratio, 1e-7);
            warm_sweeps += w.iterations;
            cold_sweeps += c.iterations;
        }
    }
    assert_true(warm_sweeps < cold_sweeps); /* the warm start saves sweeps where the waits couple */
    gpuest_model_noc_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_case_matches_model),
        cmocka_unit_test(test_root_of_hand_case),
        cmocka_unit_test(test_warm_equals_cold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
