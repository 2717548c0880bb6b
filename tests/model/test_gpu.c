/* test_gpu.c: GPU many-to-few traffic, the MC reply path and the one-call helpers on the presets. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "model_test_util.h"

static void check_components(const gpuest_model_result_t *r)
{
    double tot = 0.0, lat = 0.0;
    for (int c = 0; c < r->num_classes; c++) {
        const gpuest_model_class_result_t *k = &r->cls[c];
        if (k->packets <= 0.0)
            continue;
        assert_true(isfinite(k->avg_latency));
        assert_true(k->hop_wait >= 0.0 && k->source_queue >= 0.0 && k->mc_queue >= 0.0);
        assert_true(k->avg_latency >= k->avg_network_latency);
        assert_true(fabs(k->avg_latency - (k->zero_load + k->serialization + k->hop_wait + k->source_queue +
                                           k->mc_queue)) < 1e-9);
        tot += k->packets;
        lat += k->packets * k->avg_latency;
    }
    assert_double_equal(r->avg_packet_latency, lat / tot, 1e-9);
}

/* mesh56: 56 SMs -> 8 MCs (bottom row) requests of 1 flit, replies of 9 flits. An MC injects
 * 9 flits per request at 1 flit/cycle, so with each SM issuing x requests per cycle an MC
 * carries 56 x / 8 x 9 flits per cycle: x <= 8 / (9 * 56) = 0.0159 (the MC reply bound).
 * XY replies first run along the bottom row, whose middle links carry about half of the MCs'
 * replies: they saturate well below that bound (the hot spot the coalescing paper removes with
 * XY-YX routing); with YX replies leave the MC row at once and the MC injection bound rules. */
static void test_mesh56_gpu(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_model_pattern_t p;
    gpuest_model_result_t r;
    int req, rep;
    assert_int_equal(gpuest_config_preset(&cfg, "mesh56", NULL), GPUEST_OK);
    gpuest_model_gpu_packet_flits(&cfg, &req, &rep);
    assert_int_equal(req, 1);
    assert_int_equal(rep, 9);
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", NULL), GPUEST_OK);
    double bound = 8.0 / (9.0 * 56.0), sat_xy, sat_yx;
    cfg.noc.routing_reply = GPUEST_ROUTE_XY;
    assert_int_equal(gpuest_model_noc_saturation(&cfg, &p, NULL, &sat_xy, NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.99 * sat_xy, NULL, &r, NULL), GPUEST_OK);
    assert_false(r.saturated);
    assert_true(r.bottleneck_kind == 0 || r.bottleneck_kind == 1); /* a router port, */
    assert_true(r.bottleneck_router >= 56);                        /* in the MC row */
    cfg.noc.routing_reply = GPUEST_ROUTE_YX;
    assert_int_equal(gpuest_model_noc_saturation(&cfg, &p, NULL, &sat_yx, NULL), GPUEST_OK);
    assert_true(sat_xy < 0.6 * bound);
    assert_true(sat_yx <= bound * (1 + 1e-3) && sat_yx > 0.9 * bound);
    assert_true(sat_yx > 2.0 * sat_xy);
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 1.05 * sat_yx, NULL, &r, NULL), GPUEST_OK);
    assert_true(r.saturated);
    double prev_stall = -1.0, prev_req = 0.0;
    for (double f = 0.2; f < 0.96; f += 0.15) {
        assert_int_equal(gpuest_model_noc_point(&cfg, &p, f * sat_yx, NULL, &r, NULL), GPUEST_OK);
        assert_false(r.saturated);
        assert_int_equal(r.num_classes, 2);
        check_components(&r);
        assert_true(r.mc_stall_ratio >= prev_stall);
        assert_true(r.cls[0].avg_latency > prev_req);
        prev_stall = r.mc_stall_ratio;
        prev_req = r.cls[0].avg_latency;
    }
    /* close to saturation the MC reply queue fills, the MC refuses requests and they wait in
     * the request network (coalescing paper, 2.1) */
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.995 * sat_yx, NULL, &r, NULL), GPUEST_OK);
    assert_false(r.saturated);
    assert_true(r.bottleneck_kind == 2 || r.bottleneck_router >= 56);
    assert_true(r.mc_full_prob > 0.0);
    assert_true(r.mc_stall_ratio > 0.1);
    assert_true(r.cls[0].mc_queue > 0.0);
    assert_true(r.cls[1].mc_queue > r.cls[1].hop_wait);
}

/* fermi: two crossbars (physical split), 15 SMs and 6 MCs. */
static void test_fermi_gpu(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_model_pattern_t p;
    gpuest_model_result_t r;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", NULL), GPUEST_OK);
    double sat;
    assert_int_equal(gpuest_model_noc_saturation(&cfg, &p, NULL, &sat, NULL), GPUEST_OK);
    assert_true(sat > 0.0 && sat < 1.0);
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.5 * sat, NULL, &r, NULL), GPUEST_OK);
    check_components(&r);
    /* crossbar: no router-to-router hops */
    assert_double_equal(r.cls[0].avg_hops, 0.0, 0.0);
    /* writes add two more classes */
    p.write_fraction = 0.25;
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.3 * sat, NULL, &r, NULL), GPUEST_OK);
    assert_int_equal(r.num_classes, 4);
    check_components(&r);
}

static void test_bad_input(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_model_pattern_t p;
    gpuest_model_result_t r;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_pattern_init(&p, "tornado", &err), GPUEST_ENOKEY);
    assert_non_null(strstr(err.msg, "tornado"));
    assert_int_equal(gpuest_config_preset(&cfg, "mesh56", NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_pattern_init(&p, "hotspot", NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.1, NULL, &r, &err), GPUEST_EINVAL);
    p.num_hotspots = 2;
    p.hotspot_nodes[0] = 3;
    p.hotspot_nodes[1] = 99;
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.1, NULL, &r, &err), GPUEST_ERANGE);
    p.hotspot_nodes[1] = 60;
    p.hotspot_rates[0] = 3.0;
    p.hotspot_rates[1] = 1.0;
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.01, NULL, &r, &err), GPUEST_OK);
    assert_false(r.saturated);
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.05, NULL, &r, &err), GPUEST_OK);
    assert_true(r.saturated); /* 64 x 0.05 x 3/4 flits per cycle into one ejection port */
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, -0.05, NULL, &r, &err), GPUEST_ERANGE);
    assert_int_equal(gpuest_model_pattern_init(&p, "transpose", NULL), GPUEST_OK);
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_point(&cfg, &p, 0.05, NULL, &r, &err), GPUEST_EUNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh56_gpu),
        cmocka_unit_test(test_fermi_gpu),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
