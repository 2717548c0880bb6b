/* test_noc_reuse.c: the open NoC model's sweeps with the reuse of results computed for equal
 * inputs in the same sweep (output and input groups of one shape, M/D/1/K across MC nodes, the
 * G/G/c wait of equal inputs) against the same model computing every one afresh, bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/model_int.h"
#include "model_test_util.h"

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void assert_same_result(const gpuest_model_result_t *a, const gpuest_model_result_t *b)
{
    assert_int_equal(a->saturated, b->saturated);
    assert_int_equal(a->iterations, b->iterations);
    assert_int_equal(a->bottleneck_router, b->bottleneck_router);
    assert_int_equal(a->bottleneck_port, b->bottleneck_port);
    assert_int_equal(a->bottleneck_kind, b->bottleneck_kind);
    assert_true(same(a->max_util, b->max_util));
    assert_true(same(a->mc_stall_ratio, b->mc_stall_ratio));
    assert_true(same(a->mc_full_prob, b->mc_full_prob));
    assert_true(same(a->mc_inject_util, b->mc_inject_util));
    assert_true(same(a->avg_packet_latency, b->avg_packet_latency));
    for (int c = 0; c < a->num_classes; c++) {
        assert_true(same(a->cls[c].avg_latency, b->cls[c].avg_latency));
        assert_true(same(a->cls[c].hop_wait, b->cls[c].hop_wait));
        assert_true(same(a->cls[c].source_queue, b->cls[c].source_queue));
        assert_true(same(a->cls[c].mc_queue, b->cls[c].mc_queue));
    }
}

/* Two models of the same network and traffic, one reusing and one computing every result: the
 * same warm and cold evaluations (rising scales at two contention constants, then from zero) and
 * the same saturation search give the same bits. Returns how many results the first reused. */
static long compare_reuse(const gpuest_config_t *cfg, const gpuest_model_traffic_t *t)
{
    gpuest_model_noc_t *a = NULL, *b = NULL;
    assert_int_equal(gpuest_model_noc_create(cfg, t, &a, NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_create(cfg, t, &b, NULL), GPUEST_OK);
    gpuest_model_noc_set_reuse(b, 0);
    gpuest_model_params_t pp[2];
    gpuest_model_params_default(&pp[0]);
    pp[1] = pp[0];
    pp[1].kappa *= 10.0;
    double root_a = 0.0, root_b = 0.0;
    assert_int_equal(gpuest_model_noc_saturation_root(a, &pp[0], 0.0, 4.0, 1e-6, &root_a, NULL, NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_saturation_root(b, &pp[0], 0.0, 4.0, 1e-6, &root_b, NULL, NULL), GPUEST_OK);
    assert_true(same(root_a, root_b));
    assert_true(root_a > 0.0);
    for (int p = 0; p < 2; p++)
        for (int i = 1; i <= 12; i++) { /* up to 1.2 x the saturation scale: stable and saturated */
            gpuest_model_result_t ra, rb;
            double s = root_a * 0.1 * i;
            gpuest_err ea = gpuest_model_noc_eval_warm(a, s, &pp[p], &ra, NULL);
            gpuest_err eb = gpuest_model_noc_eval_warm(b, s, &pp[p], &rb, NULL);
            assert_int_equal(ea, eb);
            assert_same_result(&ra, &rb);
            ea = gpuest_model_noc_eval(a, 0.93 * s, &pp[p], &ra, NULL);
            eb = gpuest_model_noc_eval(b, 0.93 * s, &pp[p], &rb, NULL);
            assert_int_equal(ea, eb);
            assert_same_result(&ra, &rb);
        }
    assert_int_equal(gpuest_model_noc_reused(b), 0);
    long reused = gpuest_model_noc_reused(a);
    gpuest_model_noc_destroy(a);
    gpuest_model_noc_destroy(b);
    return reused;
}

/* The GPU traffic of a preset (request and reply classes, writes): fermi's crossbar, where every
 * SM port and every MC port is alike, so most groups are reused; mesh56, where only ejections can
 * be. */
static void test_preset_gpu_traffic(void **state)
{
    (void)state;
    static const char *const presets[] = {"fermi", "mesh56"};
    for (int i = 0; i < 2; i++) {
        gpuest_config_t cfg;
        assert_int_equal(gpuest_config_preset(&cfg, presets[i], NULL), GPUEST_OK);
        gpuest_model_pattern_t p;
        assert_int_equal(gpuest_model_pattern_init(&p, "gpu", NULL), GPUEST_OK);
        gpuest_model_gpu_packet_flits(&cfg, &p.request_flits, &p.reply_flits);
        p.write_fraction = 0.3;
        gpuest_model_traffic_t t;
        assert_int_equal(gpuest_model_traffic_build(&t, &p, &cfg, 1.0, NULL), GPUEST_OK);
        long reused = compare_reuse(&cfg, &t);
        if (i == 0)
            assert_true(reused > 1000);
        gpuest_model_traffic_free(&t);
    }
}

/* A crossbar whose ports are alike in shape but not in load, so a result taken for the wrong
 * inputs shows: SMs 0-7 send to MCs 0-2 and SMs 8-14 to MCs 3-5 at one rate (the SMs' input groups
 * have one shape, but the two halves read different output waits); MC j replies to its half's SMs
 * at 7, 8, 9 / 128 (MCs 0-2) and 8, 10, 11 / 128 (MCs 3-5) packets a cycle each, so the MCs' output
 * groups of a half have one shape but different refusal waits, and MCs 0 and 3 inject exactly the
 * same reply rate (8 x 7 = 7 x 8) with different reply services (their SMs' ports are loaded
 * differently): an M/D/1/K solution keyed on the rate alone would be taken for the wrong MC. Fails
 * when a result is reused without its refusal wait, its output waits or its service being equal,
 * or across sweeps. */
static void test_asymmetric_crossbar(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", NULL), GPUEST_OK);
    int sms = cfg.core.num_sms, mcs = cfg.mc.num_mcs;
    gpuest_model_traffic_t t;
    assert_int_equal(gpuest_model_traffic_init(&t, sms + mcs, 2, NULL), GPUEST_OK);
    t.packet_flits[0] = 1;
    t.packet_flits[1] = 5;
    t.reply_class[0] = 1;
    t.routing[0] = t.routing[1] = GPUEST_ROUTE_XY;
    static const double reply[6] = {7, 8, 9, 8, 10, 11};
    assert_int_equal(sms, 15);
    assert_int_equal(mcs, 6);
    for (int s = 0; s < sms; s++)
        for (int j = 0; j < mcs; j++) {
            int half = s < 8 ? 0 : 1;
            if ((j < mcs / 2) != (half == 0))
                continue;
            *gpuest_model_traffic_at(&t, 0, s, sms + j) = 0.05;
            *gpuest_model_traffic_at(&t, 1, sms + j, s) = reply[j] / 128.0;
        }
    long reused = compare_reuse(&cfg, &t);
    assert_true(reused > 0);
    gpuest_model_traffic_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preset_gpu_traffic),
        cmocka_unit_test(test_asymmetric_crossbar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
