/* test_dram_window.c: the DRAM channel's request window (dram_window.c; docs/estimator.md, "Channel
 * counts, sixth session"): Erlang C's wait worked by hand, and the closed model bounded by
 * queue_size / hold requests per channel when every request misses the L2. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

/* One slot is M/M/1: a = 0.5 x 1, B(1) = 0.5 / 1.5 = 1/3, C = (1/3) / (1 - 0.5 x 2/3) = 0.5 = rho,
 * wait = 0.5 x 1 / (1 - 0.5) = 1 (M/M/1: rho / (mu - lambda)). Two slots at a = 1 (0.01 x 100):
 * B(1) = 1/2, B(2) = 0.5 / 2.5 = 0.2, C = 0.2 / (1 - 0.5 x 0.8) = 1/3 (= 2 rho^2 / (1 + rho)),
 * wait = (1/3) x 100 / (2 - 1) = 33.33. Fails on Erlang B in place of C, a wait per server
 * (hold / c) in place of hold / (c - a), or an off-by-one in the recursion. */
static void test_erlang_c_by_hand(void **state)
{
    (void)state;
    assert_true(fabs(gpuest_model_dram_window_wait(0.5, 1.0, 1) - 1.0) < 1e-12);
    assert_true(fabs(gpuest_model_dram_window_wait(0.01, 100.0, 2) - 100.0 / 3.0) < 1e-9);
}

/* Past the slots the load is held at 0.98 of them: one slot, a = 2 -> 0.98, C = 0.98, wait =
 * 0.98 / 0.02 = 49 (finite: the closed model's iteration may overshoot). No load, no hold or no slot:
 * no wait. Fails when the cap is missing (a negative or infinite wait) or placed elsewhere. */
static void test_capped_and_empty(void **state)
{
    (void)state;
    assert_true(fabs(gpuest_model_dram_window_wait(2.0, 1.0, 1) - 49.0) < 1e-9);
    assert_true(gpuest_model_dram_window_wait(0.0, 100.0, 16) == 0.0);
    assert_true(gpuest_model_dram_window_wait(0.1, 0.0, 16) == 0.0);
    assert_true(gpuest_model_dram_window_wait(0.1, 100.0, 0) == 0.0);
}

static gpuest_gpu_estimate_t solve(int queue_size)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    cfg.dram.queue_size = queue_size;
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_model_workload_t w;
    memset(&w, 0, sizeof w);
    w.insts_per_request = 1.0;
    w.l2_hit_rate = 0.0;
    w.dram_per_request = 1.0;
    w.row_hit_rate = 1.0;
    w.threads_per_warp_inst = 32;
    gpuest_gpu_params_t p = {1.0, 1.0, 1.0};
    gpuest_gpu_estimate_t e;
    if (gpuest_gpu_model_solve(m, &w, NULL, &p, &e, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    gpuest_gpu_model_destroy(m);
    return e;
}

/* Every request is a read that misses the L2 and hits its row, no turnaround: a slot is held for
 * 100 + (tCL 12 + one burst 4 + bus 4) x 700 / 924 = 115.15 core cycles, so 6 channels of 16 slots
 * move at most 6 x 16 / 115.15 = 0.8336 reads per core cycle (one warp instruction per read), while
 * their buses (4 DRAM cycles a line) would take 1.98. With 16 slots the model stays under the
 * window's bound; with 1024 slots (no window) the same machine goes past it. Fails when the window
 * is ignored (both past the bound), when its hold leaves out the fixed pipeline (bound 6 x 16 / 15:
 * never reached) or when its wait is not fed back into the closed network. */
static void test_window_bounds_an_all_miss_machine(void **state)
{
    (void)state;
    double bound = 6.0 * 16.0 / (100.0 + 20.0 * 700.0 / 924.0);
    gpuest_gpu_estimate_t w16 = solve(16), wide = solve(1024);
    double r16 = w16.warp_ipc, rwide = wide.warp_ipc;
    if (!(r16 < bound && r16 > 0.8 * bound))
        fail_msg("16 slots: %.4f reads per cycle, bound %.4f", r16, bound);
    if (!(rwide > bound))
        fail_msg("1024 slots: %.4f reads per cycle, not past the bound %.4f", rwide, bound);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erlang_c_by_hand),
        cmocka_unit_test(test_capped_and_empty),
        cmocka_unit_test(test_window_bounds_an_all_miss_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
