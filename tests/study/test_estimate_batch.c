/* test_estimate_batch.c: the batch form of the estimate (points sharing the network part of the
 * model) gives exactly the single estimates, and reuses a network only where it may. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "study/study.h"
#include "srad_calibration.h"

/* A fermi calibration with srad-like measured inputs (values of a v2 run) and a warp profile. */
static void calibration(gpuest_calibration_t *c) { srad_calibration(c, 1, 0); }

static void batch_equals_single(void **state)
{
    (void)state;
    static gpuest_calibration_t c;
    calibration(&c);
    gpuest_error_t err;
    gpuest_config_t base;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    /* same network (L2 latency, DRAM clock and timing), another network (flit width), and back */
    gpuest_config_t pts[5];
    for (int i = 0; i < 5; i++)
        pts[i] = base;
    pts[1].l2.hit_latency = 240;
    pts[2].dram.clock_mhz = base.dram.clock_mhz * 0.75;
    pts[2].dram.tCL += 6;
    pts[3].noc.flit_bytes = 16;
    pts[4].l2.hit_latency = 60;
    gpuest_study_batch_t *b = NULL;
    assert_int_equal(gpuest_study_batch_create(&b, &err), GPUEST_OK);
    double ipc[5];
    for (int i = 0; i < 5; i++) {
        gpuest_study_estimate_t eb, es;
        assert_int_equal(gpuest_study_estimate_in(b, &c, &pts[i], NULL, 0.95, &eb, &err), GPUEST_OK);
        assert_int_equal(gpuest_study_estimate(&c, &pts[i], NULL, 0.95, &es, &err), GPUEST_OK);
        assert_memory_equal(&eb.ipc, &es.ipc, sizeof es.ipc); /* bit for bit, interval included */
        assert_memory_equal(&eb.amat, &es.amat, sizeof es.amat);
        ipc[i] = es.ipc.v;
    }
    gpuest_study_batch_destroy(b);
    /* the points differ: a batch that kept the first machine's L2 or DRAM would not */
    assert_true(ipc[1] < ipc[0] && ipc[4] > ipc[0] && ipc[2] != ipc[0] && ipc[3] != ipc[0]);
}

/* The same with two kernel phases of different write shares (each phase keeps its own model of the
 * machine, retargeted with the batch's): batch estimates bit-identical to single ones, and a phase
 * that kept the first machine's L2 latency (a phase model not retargeted) would differ. */
static void batch_equals_single_with_phases(void **state)
{
    (void)state;
    static gpuest_calibration_t c;
    calibration(&c);
    c.nphases = 2;
    for (int k = 0; k < 2; k++) {
        c.phases[k].w = c.runs[0].in;
        c.phases[k].warp_insts = 1000.0 * (k + 1);
        c.phases[k].line_reqs = 300.0;
        c.phases[k].reads = 200.0;
    }
    c.phases[1].w.write_fraction = 0.05;
    c.phases[1].w.insts_per_request = 6.0;
    c.phases[1].w.active_warps = 12.0;
    gpuest_error_t err;
    gpuest_config_t base;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    gpuest_config_t pts[4] = {base, base, base, base};
    pts[1].l2.hit_latency = 240;
    pts[2].noc.flit_bytes = 16;
    pts[3].l2.hit_latency = 60;
    gpuest_study_batch_t *b = NULL;
    assert_int_equal(gpuest_study_batch_create(&b, &err), GPUEST_OK);
    double ipc[4];
    for (int i = 0; i < 4; i++) {
        gpuest_study_estimate_t eb, es;
        assert_int_equal(gpuest_study_estimate_in(b, &c, &pts[i], NULL, 0.95, &eb, &err), GPUEST_OK);
        assert_int_equal(gpuest_study_estimate(&c, &pts[i], NULL, 0.95, &es, &err), GPUEST_OK);
        assert_memory_equal(&eb.ipc, &es.ipc, sizeof es.ipc);
        assert_memory_equal(&eb.amat, &es.amat, sizeof es.amat);
        ipc[i] = es.ipc.v;
    }
    gpuest_study_batch_destroy(b);
    assert_true(ipc[1] < ipc[0] && ipc[3] > ipc[0] && ipc[2] != ipc[0]);
}

static void retarget_only_same_network(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_config_t base, other;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    gpuest_gpu_model_t *m = NULL;
    assert_int_equal(gpuest_gpu_model_create(&base, &m, &err), GPUEST_OK);
    other = base;
    other.dram.tRCD += 4;
    assert_int_equal(gpuest_gpu_model_retarget(m, &other), 1);
    other = base;
    other.mc.reply_queue = 2; /* the open model's MC reply path */
    assert_int_equal(gpuest_gpu_model_retarget(m, &other), 0);
    other = base;
    other.noc.vcs = 2;
    assert_int_equal(gpuest_gpu_model_retarget(m, &other), 0);
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(batch_equals_single), cmocka_unit_test(batch_equals_single_with_phases),
                                       cmocka_unit_test(retarget_only_same_network)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
