/* test_setres_relief.c: WarpPool's relief of the L1's set reservations in the closed model
 * (src/model/setres_relief.c, warppool_rule.c): the blocked share and the SM's time by hand, the
 * two forms' use of the walk's scale through the solve, and a point without a pool left alone. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "blocked_workload.h"
#include "model/model.h"

static gpuest_gpu_model_t *model(void) { return blocked_model(); }

/* with profile = 1 a scoreboard workload (an LD/ST station), else a token one */
static void blocked_workload(gpuest_model_workload_t *w, int profile) { blocked_workload_with(w, profile, 10); }

static void pool_transform(gpuest_model_transform_t *t, double scale)
{
    gpuest_model_transform_identity(t);
    t->l1_merge_windows = 2;
    t->l1_hit_extra_latency = 2.0;
    t->ldst_pool_lines = 32;
    t->ldst_block_scale = scale;
}

/* 1 - f + f s, by hand; f from the blocking, the miss latency and the read rate. The second case is
 * fermi 2dconv's calibration baseline (models/calibrations/fermi-2dconv-small.cal: 12.9256 cycles a
 * read at 173.08, IPC 85.140 at 31.954 threads a warp instruction, 2.43403 instructions and
 * 0.0935673 writes a request, 15 SMs): 0.85502, the share the simulator's counters give
 * independently (4,094,989 stall cycles / 15 SMs / 319,299 cycles = 0.8550, docs/estimator.md).
 * Fails when the blocking is not scaled to the miss latency, the writes are counted as reads, the
 * rate is not per SM, or the share is not capped at 1. */
static void by_hand(void **state)
{
    (void)state;
    assert_float_equal(gpuest_model_setres_time_scale(0.5, 0.8), 0.9, 1e-15);
    assert_float_equal(gpuest_model_setres_time_scale(0.5, 1.4), 1.2, 1e-15);
    assert_float_equal(gpuest_model_setres_time_scale(1.5, 0.8), 0.8, 1e-15); /* f capped at 1 */
    assert_true(gpuest_model_setres_time_scale(0.0, 0.8) == 1.0);
    assert_true(gpuest_model_setres_time_scale(0.5, 0.0) == 1.0); /* not measured */
    gpuest_model_workload_t w;
    blocked_workload(&w, 0);
    w.write_fraction = 0.25;
    /* 6 x 450 / 300 = 9 cycles a read; 1.5 / 15 / 8 x 0.75 = 0.009375 reads a cycle: 0.084375 */
    assert_float_equal(gpuest_model_blocked_share(&w, 1.5, 450.0, 15), 0.084375, 1e-15);
    assert_float_equal(gpuest_model_blocked_share(&w, 30.0, 450.0, 15), 1.0, 1e-15);
    assert_true(gpuest_model_blocked_share(&w, 1.5, 450.0, 0) == 0.0);
    w.ldst_block_per_read = 12.925617069629443;
    w.block_miss_latency = 173.08262735938388;
    w.insts_per_request = 2.4340302811824079;
    w.write_fraction = 0.093567251461988299;
    double f = gpuest_model_blocked_share(&w, 85.140348075001796 / 31.954350974196945, 173.08262735938388, 15);
    assert_float_equal(f, 0.85502, 1e-5);
}

/* Token form: the pool's IPC with the scale is its IPC without it over 1 - f + f s, f at the solve
 * without it; the scoreboard form: the scale multiplies the LD/ST station's blocking, so the solve
 * equals the solve of the workload blocked s x 6 cycles without the scale, bit for bit. Fails when
 * the relief is applied to the wrong form, not at all, or twice. */
static void through_the_solve(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model();
    gpuest_gpu_params_t p = {1.0, 1.0, 1.0};
    gpuest_error_t err;
    gpuest_model_workload_t w;
    gpuest_model_transform_t t0, ts;
    pool_transform(&t0, 0.0);
    pool_transform(&ts, 0.7);
    gpuest_gpu_estimate_t e0, es;

    blocked_workload(&w, 0);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t0, &p, &e0, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &ts, &p, &es, &err), GPUEST_OK);
    double f = gpuest_model_blocked_share(&w, e0.warp_ipc, e0.miss_latency, 15);
    assert_true(f > 0.01);
    assert_float_equal(es.ipc, e0.ipc / (1.0 - f + f * 0.7), 1e-12 * e0.ipc);
    assert_true(es.amat == e0.amat);

    blocked_workload(&w, 1);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &ts, &p, &es, &err), GPUEST_OK);
    w.ldst_block_per_read = 6.0 * 0.7;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t0, &p, &e0, &err), GPUEST_OK);
    assert_true(es.ipc == e0.ipc);
    assert_true(es.amat == e0.amat);
    w.ldst_block_per_read = 6.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t0, &p, &e0, &err), GPUEST_OK);
    assert_true(es.ipc > e0.ipc); /* less blocking, more IPC */
    gpuest_gpu_model_destroy(m);
}

/* A point without a pool (a compressed reply, no merge windows) is the same bit for bit whatever
 * ldst_block_scale holds, in both forms, and the pool's part of a transform includes the scale.
 * Fails when the relief leaks into another technique's solve or survives without_pool. */
static void other_points_unchanged(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model();
    gpuest_gpu_params_t p = {1.0, 1.0, 1.0};
    gpuest_error_t err;
    for (int profile = 0; profile < 2; profile++) {
        gpuest_model_workload_t w;
        blocked_workload(&w, profile);
        gpuest_model_transform_t a, b;
        gpuest_model_transform_identity(&a);
        a.reply_flit_hist[2] = 0.5;
        a.reply_flit_hist[5] = 0.5;
        b = a;
        b.ldst_block_scale = 0.5;
        gpuest_gpu_estimate_t ea, eb;
        assert_int_equal(gpuest_gpu_model_solve(m, &w, &a, &p, &ea, &err), GPUEST_OK);
        assert_int_equal(gpuest_gpu_model_solve(m, &w, &b, &p, &eb, &err), GPUEST_OK);
        assert_true(ea.ipc == eb.ipc && ea.amat == eb.amat && ea.mc_stall_ratio == eb.mc_stall_ratio);
    }
    gpuest_model_transform_t t, rest;
    pool_transform(&t, 0.7);
    gpuest_model_transform_without_pool(&t, &rest);
    assert_true(rest.ldst_block_scale == 0.0);
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(by_hand),
        cmocka_unit_test(through_the_solve),
        cmocka_unit_test(other_points_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
