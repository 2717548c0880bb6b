/* test_xbar_clock.c: a crossbar with w flits per port in the open NoC model is the one-flit crossbar
 * clocked w times per interconnect cycle, as the simulator runs it (noc/network.c, gpuest_noc_step
 * runs the whole network w times a cycle): the pipeline, the serialization and every wait divided by
 * w, the saturation rate multiplied by w (docs/estimator.md, "Crossbar points on fermi"). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

static void fermi(gpuest_config_t *cfg, int port_flits)
{
    gpuest_error_t err;
    char set[64];
    assert_int_equal(gpuest_config_preset(cfg, "fermi", &err), GPUEST_OK);
    snprintf(set, sizeof set, "noc.xbar_port_flits=%d", port_flits);
    assert_int_equal(gpuest_config_set(cfg, set, "test", &err), GPUEST_OK);
}

/* fermi's crossbar: router pipeline 0 + 1 + 1 + 0 + 1 + 0 = 3 switch cycles, 1-cycle channels, no
 * router-to-router hop: 3 + (1 + 1) + 1 = 6 switch cycles for the head, + L - 1 for the tail. A
 * 5-flit reply: 10 switch cycles, 10 / 5 / 2.5 interconnect cycles at 1 / 2 / 4 flits per port; a
 * 1-flit request at 2: 3. (The former form, ceil(L / w) - 1 for the tail and the pipeline at full
 * cycles, gives 8 at w = 2.) */
static void zero_load_in_switch_cycles(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    fermi(&cfg, 1);
    assert_true(gpuest_model_zero_load(&cfg.noc, 0, 5) == 10.0);
    assert_true(gpuest_model_zero_load(&cfg.noc, 0, 1) == 6.0);
    fermi(&cfg, 2);
    assert_true(gpuest_model_zero_load(&cfg.noc, 0, 5) == 5.0);
    assert_true(gpuest_model_zero_load(&cfg.noc, 0, 1) == 3.0);
    fermi(&cfg, 4);
    assert_true(gpuest_model_zero_load(&cfg.noc, 0, 5) == 2.5);
}

static gpuest_model_noc_t *gpu_noc(const gpuest_config_t *cfg, double write_fraction)
{
    gpuest_error_t err;
    gpuest_model_pattern_t p;
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", &err), GPUEST_OK);
    p.write_fraction = write_fraction;
    gpuest_model_traffic_t t;
    assert_int_equal(gpuest_model_traffic_build(&t, &p, cfg, 1.0, &err), GPUEST_OK);
    gpuest_model_noc_t *m = NULL;
    assert_int_equal(gpuest_model_noc_create(cfg, &t, &m, &err), GPUEST_OK);
    gpuest_model_traffic_free(&t);
    return m;
}

static void near(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want) + 1e-12))
        fail_msg("got %.12g, want %.12g", got, want);
}

/* Read-only gpu traffic at nearly no load: every packet takes its zero-load time. One 5-flit reply
 * per 1-flit request: (6 + 10) / 2 = 8 interconnect cycles at one flit per port, 4 at two. */
static void no_load_latency(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    gpuest_model_result_t r;
    for (int w = 1; w <= 2; w++) {
        fermi(&cfg, w);
        gpuest_model_noc_t *m = gpu_noc(&cfg, 0.0);
        assert_int_equal(gpuest_model_noc_eval(m, 1e-9, NULL, &r, &err), GPUEST_OK);
        near(r.avg_packet_latency, 8.0 / w, 1e-6);
        gpuest_model_noc_destroy(m);
    }
}

/* The same network at twice the rate with two flits per port is the one-flit network in half the
 * time: every latency component halves, every utilisation is the same, and the saturation rate
 * doubles (with writes, so that both classes of both crossbars carry load). */
static void two_flit_port_is_a_faster_clock(void **state)
{
    (void)state;
    gpuest_config_t c1, c2;
    gpuest_error_t err;
    fermi(&c1, 1);
    fermi(&c2, 2);
    gpuest_model_noc_t *m1 = gpu_noc(&c1, 0.25), *m2 = gpu_noc(&c2, 0.25);
    const double s = 0.05;
    gpuest_model_result_t r1, r2;
    assert_int_equal(gpuest_model_noc_eval(m1, s, NULL, &r1, &err), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_eval(m2, 2 * s, NULL, &r2, &err), GPUEST_OK);
    assert_true(r1.max_util > 0.5); /* loaded enough for the waits to matter */
    near(r2.max_util, r1.max_util, 1e-9);
    near(r2.avg_packet_latency, r1.avg_packet_latency / 2, 1e-9);
    near(r2.accepted_rate, 2 * r1.accepted_rate, 1e-9);
    for (int c = 0; c < r1.num_classes; c++) {
        near(r2.cls[c].hop_wait, r1.cls[c].hop_wait / 2, 1e-9);
        near(r2.cls[c].source_queue, r1.cls[c].source_queue / 2, 1e-9);
        near(r2.cls[c].mc_queue, r1.cls[c].mc_queue / 2, 1e-9);
        near(r2.cls[c].serialization, r1.cls[c].serialization / 2, 0.0);
    }
    assert_true(r1.cls[1].hop_wait > 0.1); /* the replies do wait */
    gpuest_model_noc_destroy(m1);
    gpuest_model_noc_destroy(m2);
    gpuest_model_pattern_t p;
    assert_int_equal(gpuest_model_pattern_init(&p, "gpu", &err), GPUEST_OK);
    double sat1 = 0.0, sat2 = 0.0;
    assert_int_equal(gpuest_model_noc_saturation(&c1, &p, NULL, &sat1, &err), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_saturation(&c2, &p, NULL, &sat2, &err), GPUEST_OK);
    near(sat2, 2 * sat1, 1e-3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_load_in_switch_cycles),
        cmocka_unit_test(no_load_latency),
        cmocka_unit_test(two_flit_port_is_a_faster_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
