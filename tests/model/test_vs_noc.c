/* test_vs_noc.c: the model against our cycle-level NoC simulator on GPU many-to-few traffic (8x8 and 6x6). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/core.h"
#include "model_test_util.h"
#include "noc/noc.h"

static double simulate(const gpuest_config_t *cfg, double rate)
{
    gpuest_noc_opts_t o;
    gpuest_noc_traffic_t t;
    gpuest_noc_measure_cfg_t m;
    gpuest_noc_result_t r;
    gpuest_error_t err;
    int req, rep;
    gpuest_model_gpu_packet_flits(cfg, &req, &rep);
    gpuest_noc_opts_default(&o);
    o.num_classes = 2;
    gpuest_noc_traffic_default(&t);
    t.pattern = GPUEST_NOC_TRAFFIC_GPU;
    t.rate = rate;
    t.packet_flits = rep;
    t.request_flits = req;
    t.seed = 5;
    t.num_mcs = cfg->mc.num_mcs;
    assert_int_equal(gpuest_config_mc_nodes(cfg, t.mc_nodes, &err), GPUEST_OK);
    gpuest_noc_measure_default(&m);
    m.sample_period = 3000; /* short periods keep the sanitizer build quick */
    assert_int_equal(gpuest_noc_measure(&cfg->noc, &o, &t, &m, NULL, &r, &err), GPUEST_OK);
    assert_false(r.saturated);
    return r.avg_packet_latency;
}

/* At 30 % and 50 % of the model's saturation rate the two agree within 5 %. */
static void check_preset(const char *preset, gpuest_routing_t reply)
{
    gpuest_config_t cfg;
    gpuest_model_pattern_t p;
    gpuest_model_result_t r;
    double sat;
    assert_int_equal(gpuest_config_preset(&cfg, preset, NULL), GPUEST_OK);
    cfg.noc.routing_reply = reply;
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_saturation(&cfg, &p, NULL, &sat, NULL), GPUEST_OK);
    const double fr[] = {0.3, 0.5};
    for (int i = 0; i < 2; i++) {
        double rate = fr[i] * sat;
        assert_int_equal(gpuest_model_noc_point(&cfg, &p, rate, NULL, &r, NULL), GPUEST_OK);
        double sim = simulate(&cfg, rate);
        double e = (r.avg_packet_latency - sim) / sim;
        printf("%s reply %s rate %.5f: simulated %.2f, model %.2f (%+.1f %%)\n", preset, gpuest_routing_name(reply),
               rate, sim, r.avg_packet_latency, 100 * e);
        assert_true(fabs(e) <= 0.05);
    }
}

static void test_mesh56_xy_yx(void **state)
{
    (void)state;
    check_preset("mesh56", GPUEST_ROUTE_YX);
}

static void test_mesh56_xy_xy(void **state)
{
    (void)state;
    check_preset("mesh56", GPUEST_ROUTE_XY);
}

static void test_mesh28(void **state)
{
    (void)state;
    check_preset("mesh28", GPUEST_ROUTE_XY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh56_xy_yx),
        cmocka_unit_test(test_mesh56_xy_xy),
        cmocka_unit_test(test_mesh28),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
