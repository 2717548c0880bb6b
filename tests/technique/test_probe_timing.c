/* test_probe_timing.c: the fifth session's parts of the remote-L1 probing estimate, worked by hand:
 * the walk's in-flight window on the holder count, the PC predictor run over the walk's misses
 * from its cold start, the probe traversal's latency scale from the node placement, and the
 * closed model's pricing of probe traversals and probe lookups. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "probe_test_util.h"
#include "technique/technique.h"
#include "technique/technique_int.h"

#define TMP GPUEST_BINARY_DIR "/probe_timing_tmp"

/* One kernel of four one-warp CTAs (CTA i on SM i, one round of the walk): SMs 0, 1, 2 read all
 * of line A, SM 3 line B, each with one load at pc 8. */
static gpuest_workload_t *four_misses(void)
{
    static const unsigned lines[] = {0x10000, 0x10000, 0x10000, 0x20000};
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,1\nkernel,0,k,4,1,1,32,1,1,0,8\n");
    for (int i = 0; i < 4; i++) {
        fprintf(f, "inst,0,%d,0,8,load,4,ffffffff,", i);
        for (int k = 0; k < 32; k++)
            fprintf(f, "%s0x%x", k ? " " : "", lines[i] + 4 * k);
        fprintf(f, "\n");
    }
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/t.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return wl;
}

typedef struct {
    uint64_t holders[GPUEST_CHARACT_MAX_HOLDERS + 1];
    int calls, bad_pc;
} seen_t;

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)err;
    seen_t *x = ctx;
    for (int k = 0; k <= GPUEST_CHARACT_MAX_HOLDERS; k++)
        x->holders[k] += s->miss_holders[k];
    return GPUEST_OK;
}

static gpuest_err on_miss(void *ctx, int sm, uint32_t pc, int holders, gpuest_error_t *err)
{
    (void)err;
    (void)sm;
    (void)holders;
    seen_t *x = ctx;
    x->calls++;
    x->bad_pc += pc != 8;
    return GPUEST_OK;
}

/* The four misses are the launch's misses 0, 1, 2, 3. SM 1's miss of A (miss 1) finds SM 0's line
 * filled at miss 0, SM 2's (miss 2) finds SM 0's and SM 1's. With a window of d misses a line
 * filled at miss f counts from miss f + d on: d = 0 or 1: holders 0, 1, 2, 0; d = 2: SM 1 sees
 * none (0 + 2 > 1), SM 2 sees SM 0 only (1 + 2 > 2): 0, 0, 1, 0; d = 3: none. The miss callback
 * sees every miss with its pc. Fails when the window is ignored, off by one, or the fill time is
 * taken at the wrong miss. */
static void test_holder_window_by_hand(void **state)
{
    (void)state;
    static const uint64_t delay[] = {0, 1, 2, 3};
    static const uint64_t want[4][3] = {{2, 1, 1}, {2, 1, 1}, {3, 1, 0}, {4, 0, 0}};
    for (int d = 0; d < 4; d++) {
        gpuest_workload_t *wl = four_misses();
        gpuest_charact_opts_t o;
        gpuest_charact_opts_default(&o);
        o.num_sms = 4;
        o.holder_delay = delay[d];
        seen_t x;
        memset(&x, 0, sizeof x);
        o.miss_cb = on_miss;
        o.access_ctx = &x;
        gpuest_error_t e = {0};
        if (gpuest_workload_characterize(wl, &o, on_launch, NULL, &x, NULL, &e) != GPUEST_OK)
            fail_msg("%s", e.msg);
        gpuest_workload_destroy(wl);
        for (int k = 0; k < 3; k++)
            if (x.holders[k] != want[d][k])
                fail_msg("window %d: %d holders on %d misses, expected %d", (int)delay[d], k, (int)x.holders[k],
                         (int)want[d][k]);
        assert_int_equal(x.calls, 4);
        assert_int_equal(x.bad_pc, 0);
    }
}

/* The predictor from its cold start, one SM, one PC, 40 misses. A probed miss answers with
 * probability f, dealt every 1/f probes. State 0 probes all 32 misses of its window and stays
 * when at least 4 answer: f = 1/8 gives replies at probes 8, 16, 24, 32 (4: stays, all 40 misses
 * probed); f = 1/9 at 9, 18, 27 (3: at miss 33 it moves to state 1, whose window of 64 probes every
 * 4th miss: misses 33 and 37, 34 in all); f = 0 the same 34. Fails when the walk takes the
 * predictor's stationary law (4/256 of the misses for f = 0), deals the replies wrongly, or judges
 * the window at the wrong miss. */
static void test_predictor_cold_start_by_hand(void **state)
{
    (void)state;
    static const int others[] = {8, 9, 55};
    static const int k[] = {1, 1, 0};
    static const uint64_t want[] = {40, 34, 34};
    for (int c = 0; c < 3; c++) {
        tech_ppw_t *w = NULL;
        gpuest_error_t e = {0};
        assert_int_equal(tech_ppw_create(1, others[c], 1, 1.0, &w, &e), GPUEST_OK);
        uint64_t probed = 0;
        for (int i = 0; i < 40; i++)
            probed += (uint64_t)tech_ppw_miss(w, 0, 8, k[c]);
        assert_int_equal(probed, want[c]);
        assert_int_equal(tech_ppw_misses(w), 40);
        assert_int_equal(tech_ppw_probed(w)[k[c]], want[c]);
        assert_int_equal(tech_ppw_miss(w, 1, 8, 0), 0); /* no such SM */
        tech_ppw_destroy(w);
    }
}

/* mesh56: an 8 x 8 mesh, MCs on the bottom row (nodes 56-63), SMs on rows 0-6 in index order. The
 * open model's zero-load latency of a one-flit packet over h hops is 4 h + 6 there (3-cycle
 * routers, 1-cycle links, NIs). SM to MC: mean rows 4, mean columns 63/24, so 4 x 6.625 + 6 = 32.5.
 * Index chain (SM s to s + 1): 49 one-hop steps in the rows, 6 row ends of 8 hops, 55 -> 0 of 13:
 * (4 x 110 + 6 x 56) / 56 = 776 / 56. Any other SM: over all ordered pairs the mean distance is
 * 16/7 + 63/24, so over the 56 x 55 distinct pairs 3136 x (16/7 + 63/24) / 3080 = 5 hops: 26.
 * fermi (a crossbar): 1. Fails when hops are taken for latency (0.297 and 0.755), the chain's
 * order is not the SMs' index order, or the MC placement is misread. */
static void test_trip_scale_by_hand(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "mesh56", &e), GPUEST_OK);
    assert_float_equal(tech_probe_trip_scale(&c, 1), 776.0 / 56.0 / 32.5, 1e-12);
    assert_float_equal(tech_probe_trip_scale(&c, 0), 26.0 / 32.5, 1e-12);
    assert_int_equal(gpuest_config_preset(&c, "fermi", &e), GPUEST_OK);
    assert_float_equal(tech_probe_trip_scale(&c, 1), 1.0, 0.0);
}

/* The closed model's probe pricing. Probe traversals at a scale are priced at the request
 * network's zero-load delay, which does not grow with the load: at twice the scale the request
 * latency's excess over the no-probe solve doubles to within the small shift of the loaded request
 * delay between the two solves; at the loaded delay (no scale, as before) they cost more than at
 * scale 1 once the network carries load. Probe lookups at the visited SMs' L1 ports cost
 * throughput. Fails when the scale is ignored, applied twice, or the lookups are dropped. */
static void test_probe_pricing(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_model_workload_t w;
    probe_test_workload(&w);
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_gpu_estimate_t base, half, one, loaded, look;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.probe_extra_trips = 4.0;
    t.probe_trip_scale = 0.5;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &half, &err), GPUEST_OK);
    t.probe_trip_scale = 1.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &one, &err), GPUEST_OK);
    t.probe_trip_scale = 0.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &loaded, &err), GPUEST_OK);
    double ex_half = half.req_latency - base.req_latency, ex_one = one.req_latency - base.req_latency;
    if (!(ex_half > 0) || fabs(ex_one / ex_half - 2.0) > 0.1)
        fail_msg("request latency over the base: %g at scale 0.5, %g at scale 1", ex_half, ex_one);
    assert_true(loaded.req_latency > one.req_latency);
    gpuest_model_transform_identity(&t);
    t.probe_visits_per_read = 20.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &look, &err), GPUEST_OK);
    assert_true(look.ipc < base.ipc);
    gpuest_gpu_model_destroy(m);
}

/* The probe class of the open model's gpu traffic on mesh56 (SMs on nodes 0-55): reads only, so the
 * gpu pattern has two classes and the probes are class 2, one-flit, on the request routing,
 * answered by nothing. Index chain at 0.5 packets per SM a cycle: 0.5 from node i to node i + 1
 * and from 55 to 0, nothing else; the other shape spreads 0.5 over the 55 other SMs (0.5 / 55 a
 * pair), never to an MC node or to itself. Fails when the chain skips the wrap, a rate is not
 * the SM's own, the probes land in the request or reply class, or they reach the MCs. */
static void test_probe_class_by_hand(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "mesh56", &e), GPUEST_OK);
    for (int chain = 1; chain >= 0; chain--) {
        gpuest_model_pattern_t p;
        assert_int_equal(gpuest_model_pattern_init(&p, "gpu", &e), GPUEST_OK);
        gpuest_model_traffic_t t;
        assert_int_equal(gpuest_model_traffic_build(&t, &p, &c, 1.0, &e), GPUEST_OK);
        assert_int_equal(t.num_classes, 2);
        double req_before = 0.0;
        for (int s = 0; s < 64; s++)
            for (int d = 0; d < 64; d++)
                req_before += *gpuest_model_traffic_at(&t, 0, s, d);
        assert_int_equal(gpuest_model_traffic_add_probes(&t, &c, 0.5, chain, 1, &e), GPUEST_OK);
        assert_int_equal(t.num_classes, 3);
        assert_int_equal(t.packet_flits[2], 1);
        assert_int_equal(t.reply_class[2], -1);
        assert_int_equal(t.routing[2], c.noc.routing_request);
        double sum = 0.0, req_after = 0.0;
        for (int s = 0; s < 64; s++)
            for (int d = 0; d < 64; d++) {
                double r = *gpuest_model_traffic_at(&t, 2, s, d), want = 0.0;
                if (s < 56 && d < 56 && s != d)
                    want = chain ? (d == (s + 1) % 56 ? 0.5 : 0.0) : 0.5 / 55;
                if (fabs(r - want) > 1e-15)
                    fail_msg("%s: probes %d -> %d at %g, expected %g", chain ? "chain" : "spread", s, d, r, want);
                sum += r;
                req_after += *gpuest_model_traffic_at(&t, 0, s, d);
            }
        assert_float_equal(sum, 28.0, 1e-12);
        assert_float_equal(req_after, req_before, 0.0);
        gpuest_model_traffic_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_holder_window_by_hand),
                                       cmocka_unit_test(test_predictor_cold_start_by_hand),
                                       cmocka_unit_test(test_trip_scale_by_hand), cmocka_unit_test(test_probe_pricing),
                                       cmocka_unit_test(test_probe_class_by_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
