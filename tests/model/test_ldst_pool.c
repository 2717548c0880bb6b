/* test_ldst_pool.c: WarpPool's LD/ST unblocking in the closed model (src/model/ldst_pool.c): the
 * overlap of a warp's compute dependences with its loads' wait in the pool, worked by hand, and its
 * effect through the scoreboard model's solve. */
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

/* a scoreboard workload whose warps wait dep cycles an epoch on compute results */
static void blocked_workload(gpuest_model_workload_t *w, double dep) { blocked_workload_with(w, 1, dep); }

/* A pool transform: merge windows with nothing merged (so only the unblocking can act), 2 cycles. */
static void pool_transform(gpuest_model_transform_t *t, double queues)
{
    gpuest_model_transform_identity(t);
    t->l1_merge_windows = 2;
    t->l1_hit_extra_latency = 2.0;
    t->ldst_pool_lines = queues;
}

/* min(wait, dep) x min(1, pool / waiting), by hand. Fails on a missing cap by the dependences or
 * by the wait, or on a held share that is not pool / waiting once the pool is full. */
static void overlap_by_hand(void **state)
{
    (void)state;
    assert_true(gpuest_model_pool_overlap(32, 16, 10, 6) == 6.0);  /* all held; dep the smaller */
    assert_true(gpuest_model_pool_overlap(32, 16, 4, 6) == 4.0);   /* all held; the wait the smaller */
    assert_true(gpuest_model_pool_overlap(32, 64, 10, 20) == 5.0); /* half the waiting lines held */
    assert_true(fabs(gpuest_model_pool_overlap(4, 100, 50, 40) - 1.6) < 1e-12); /* 4 of 100 held: 0.04 x 40 */
    assert_true(gpuest_model_pool_overlap(32, 64, 0, 20) == 0.0);  /* no wait at the unit */
    assert_true(gpuest_model_pool_overlap(32, 64, 10, 0) == 0.0);  /* no dependence to overlap */
    assert_true(gpuest_model_pool_overlap(0, 64, 10, 20) == 0.0);  /* no pool */
}

/* Through the solve: with the pool's queues the warps' dependences overlap their wait at the blocked
 * LD/ST unit, so IPC rises over the same pool without them (ldst_pool_lines 0, the model before),
 * the overlap is reported, positive and at most the dependence delay of a customer cycle (alpha 1:
 * one epoch, 40 cycles); a pool of 1 queue holds less of the waiting lines than one of 32 and
 * saves less. Without dependences (dep 0) the unblocking changes nothing, bit for bit. Fails when
 * the overlap is not applied to the own-warp delay, not bounded by the dependences, or ignores the
 * pool's size. */
static void pool_unblocks_the_warps(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model();
    gpuest_gpu_params_t p = {1.0, 1.0, 1.0};
    gpuest_error_t err;
    gpuest_model_workload_t w;
    blocked_workload(&w, 40.0);
    gpuest_model_transform_t t0, t1, t32;
    pool_transform(&t0, 0.0);
    pool_transform(&t1, 1.0);
    pool_transform(&t32, 32.0);
    gpuest_gpu_estimate_t e0, e1, e32;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t0, &p, &e0, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t1, &p, &e1, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t32, &p, &e32, &err), GPUEST_OK);
    assert_true(e0.pool_overlap == 0.0);
    if (!(e32.pool_overlap > 0.0 && e32.pool_overlap <= 40.0))
        fail_msg("overlap %g cycles with 32 queues, expected in (0, 40]", e32.pool_overlap);
    if (!(e1.pool_overlap < e32.pool_overlap))
        fail_msg("overlap %g with 1 queue, %g with 32", e1.pool_overlap, e32.pool_overlap);
    if (!(e32.ipc > e1.ipc && e1.ipc >= e0.ipc))
        fail_msg("IPC %g (32 queues), %g (1), %g (no unblocking)", e32.ipc, e1.ipc, e0.ipc);

    blocked_workload(&w, 0.0);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t0, &p, &e0, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t32, &p, &e32, &err), GPUEST_OK);
    assert_true(e32.pool_overlap == 0.0);
    assert_true(e32.ipc == e0.ipc);
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlap_by_hand),
        cmocka_unit_test(pool_unblocks_the_warps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
