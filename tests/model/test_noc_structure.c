/* test_noc_structure.c: the closed model on NoC structure changes: the hot links' usable capacity
 * taken at the open model's own contention constants (not the fitted kappa), write requests sized
 * by the bytes they carry, and the credit loop of an NI's injection channel (docs/estimator.md, "NoC structure points on mesh56"). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

static void mesh56(gpuest_config_t *cfg, const char *set)
{
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(cfg, "mesh56", &err), GPUEST_OK);
    if (set)
        assert_int_equal(gpuest_config_set(cfg, set, "test", &err), GPUEST_OK);
}

/* mesh56: 16-byte flits, the header is its own flit (header_bytes 0): a write carrying one
 * 32-byte sector is 1 + 2 = 3 flits, two sectors 5, a full line 9 (the reply's size); a mean
 * of 51.2 bytes (60 % one sector, 40 % two) is 1 + 3.2 = 4.2 flits. With an 8-byte header
 * sharing the flits: (8 + 64) / 16 = 4.5. */
static void write_flits_sizing(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    mesh56(&cfg, NULL);
    assert_true(gpuest_model_write_flits(&cfg, 0.0) == 9.0); /* not measured: a full line */
    assert_true(gpuest_model_write_flits(&cfg, 32.0) == 3.0);
    assert_true(gpuest_model_write_flits(&cfg, 64.0) == 5.0);
    assert_true(fabs(gpuest_model_write_flits(&cfg, 51.2) - 4.2) < 1e-12);
    assert_true(gpuest_model_write_flits(&cfg, 128.0) == 9.0);
    mesh56(&cfg, "noc.header_bytes=8");
    assert_true(gpuest_model_write_flits(&cfg, 64.0) == 4.5);
}

/* gpu pattern at 0.01 request flits per SM per cycle (1-flit requests: 0.01 packets), half of
 * them writes of 3 flits: 56 SMs x 0.005 x 3 = 0.84 write flits per cycle; 0 keeps the reply's
 * 9 flits (2.52). */
static void write_class_flits(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    mesh56(&cfg, NULL);
    gpuest_error_t err;
    gpuest_model_pattern_t p;
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", &err), GPUEST_OK);
    p.write_fraction = 0.5;
    p.write_flits = 3;
    gpuest_model_traffic_t t;
    assert_int_equal(gpuest_model_traffic_build(&t, &p, &cfg, 0.01, &err), GPUEST_OK);
    assert_true(fabs(gpuest_model_traffic_flits(&t, 2) - 0.84) < 1e-12);
    gpuest_model_traffic_free(&t);
    p.write_flits = 0;
    assert_int_equal(gpuest_model_traffic_build(&t, &p, &cfg, 0.01, &err), GPUEST_OK);
    assert_true(fabs(gpuest_model_traffic_flits(&t, 2) - 2.52) < 1e-12);
    gpuest_model_traffic_free(&t);
}

/* A network-bound workload (every read hits the L2, few instructions per read) on mesh56 with YX
 * requests: the request class then runs along the MC row, and the open model saturates at a VC of
 * that row. At its default constants it saturates at 0.0161 request flits per SM per cycle (the
 * hottest link, an MC's reply link, then carries 49 x 0.0161 = 0.79 flits per cycle); at 10 x its
 * contention constant at 0.0090 (0.44 flits per cycle). The closed model's hottest link must run up
 * to the first capacity whatever the fitted kappa: with the capacity taken at kappa (the bug this
 * guards against) the kappa = 10 solve stops at 0.44. */
static void hot_capacity_without_kappa(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    mesh56(&cfg, "noc.routing_request=yx");
    gpuest_error_t err;
    gpuest_model_pattern_t p;
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", &err), GPUEST_OK);
    p.write_fraction = 0.25;
    double sat = 0.0;
    assert_int_equal(gpuest_model_noc_saturation(&cfg, &p, NULL, &sat, &err), GPUEST_OK);
    double cap = 49.0 * sat;
    assert_true(cap > 0.78 && cap < 0.80);
    gpuest_model_workload_t w;
    memset(&w, 0, sizeof w);
    w.insts_per_request = 2.0;
    w.l2_hit_rate = 1.0;
    w.row_hit_rate = 1.0;
    w.write_fraction = 0.25;
    w.threads_per_warp_inst = 32;
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    double util[2];
    for (int i = 0; i < 2; i++) {
        gpuest_gpu_params_t prm = {8.0, 1.0, i == 0 ? 1.0 : 10.0};
        gpuest_gpu_estimate_t e;
        assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &prm, &e, &err), GPUEST_OK);
        util[i] = e.link_util_max;
        assert_true(util[i] <= cap * (1 + 1e-6));
    }
    assert_true(util[1] > 0.6); /* not held at the kappa = 10 saturation (0.44) */
    assert_true(util[0] > 0.6);
    gpuest_gpu_model_destroy(m);
}

/* The NI's credit loop (noc_credit.c): mesh56 (1-cycle links) has R = 2 x 2 + 1 = 5, link
 * latency 2 gives 7. Flit i leaves at max(t_(i-1) + 1, t_(i-B) + R): 9 flits on a 4-flit VC at
 * 0 1 2 3, 5 6 7 8, 10 -> 11 cycles; 3-flit buffers: 0 1 2, 5 6 7, 10 11 12 -> 13; 2-flit: 4 x 5 + 1
 * = 21; 8-flit buffers and packets that fit the buffer stream (9, 3). */
static void credit_send_time(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    mesh56(&cfg, NULL);
    assert_int_equal(gpuest_model_inject_credit_rtt(&cfg.noc), 5);
    mesh56(&cfg, "noc.link_latency=2");
    assert_int_equal(gpuest_model_inject_credit_rtt(&cfg.noc), 7);
    assert_true(gpuest_model_credit_send_time(9, 4, 5) == 11.0);
    assert_true(gpuest_model_credit_send_time(9, 3, 5) == 13.0);
    assert_true(gpuest_model_credit_send_time(9, 2, 5) == 21.0);
    assert_true(gpuest_model_credit_send_time(9, 8, 5) == 9.0);
    assert_true(gpuest_model_credit_send_time(3, 4, 5) == 3.0);
    assert_true(gpuest_model_credit_send_time(10, 5, 5) == 10.0); /* B = R: streams */
}

/* Read-only gpu traffic on mesh56 with 4-flit buffers: each MC injects 56 x rate / 8 replies per
 * cycle, 11 cycles each (above), so its port saturates by rate = 8 / (56 x 11) = 0.012987 request
 * flits per SM per cycle; the model must saturate there or just below (without the credit loop it
 * saturated at 0.0150, the 9-flit bound 8 / (56 x 9) = 0.01587 being out of reach by its other
 * waits). The cycle-level NoC saturates at 0.0119. */
static void short_buffers_cap_injection(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    mesh56(&cfg, "noc.buffer_flits=4");
    gpuest_error_t err;
    gpuest_model_pattern_t p;
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", &err), GPUEST_OK);
    double sat = 0.0, bound = 8.0 / (56.0 * 11.0);
    assert_int_equal(gpuest_model_noc_saturation(&cfg, &p, NULL, &sat, &err), GPUEST_OK);
    assert_true(sat <= bound * (1 + 2e-4));
    assert_true(sat > 0.9 * bound);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(write_flits_sizing), cmocka_unit_test(write_class_flits),
                                       cmocka_unit_test(hot_capacity_without_kappa), cmocka_unit_test(credit_send_time),
                                       cmocka_unit_test(short_buffers_cap_injection)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
