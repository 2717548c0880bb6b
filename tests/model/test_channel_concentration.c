/* test_channel_concentration.c: the DRAM stream's channel concentration in the closed GPU model
 * (gpu_model.c: channel_concentration scales the DRAM bank and bus demand per channel and narrows
 * the batch's spread over the channels, busy_fork; slice_concentration does the same at the L2 and
 * reply-injection stations).
 *
 * The workload of test_dram_turns.c at one turnaround per access: every request misses the L2 and
 * hits its DRAM row, so with enough warps waiting the channels' data buses bound the machine at
 * M / (4 + 9.5) accesses per DRAM cycle. A stream concentrated c times keeps M / c channels busy at once, so the
 * bound, and the bus-bound IPC, fall by c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

static gpuest_gpu_estimate_t solve_both(double conc, double slice_conc, double l2_hit)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_model_workload_t w;
    memset(&w, 0, sizeof w);
    w.insts_per_request = 1.0;
    w.l2_hit_rate = l2_hit;
    w.dram_per_request = 1.0 - l2_hit;
    w.row_hit_rate = 1.0;
    w.threads_per_warp_inst = 32;
    w.dram_turns_per_access = 1.0; /* 13.5 bus cycles per access: the bus, not the banks, binds */
    w.channel_concentration = conc;
    w.slice_concentration = slice_conc;
    gpuest_gpu_params_t p = {1.0, 1.0, 1.0};
    gpuest_gpu_estimate_t e;
    if (gpuest_gpu_model_solve(m, &w, NULL, &p, &e, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    gpuest_gpu_model_destroy(m);
    return e;
}

static gpuest_gpu_estimate_t solve(double conc) { return solve_both(conc, 0.0, 0.0); }

/* Bus-bound at concentration 1 and 2: the IPC halves (within 2 %: the bound is approached, not
 * reached). Fails when the concentration is ignored (ratio 1), applied to the bank station only
 * (the bus still binds: ratio 1), or taken as a share of the channels (demand x 1 / c: ratio above 1). */
static void test_concentration_halves_a_bus_bound_machine(void **state)
{
    (void)state;
    gpuest_gpu_estimate_t one = solve(1.0), two = solve(2.0);
    if (!(one.bottleneck_util > 0.97 && two.bottleneck_util > 0.97))
        fail_msg("not bound: utilisation %.3f, %.3f", one.bottleneck_util, two.bottleneck_util);
    double r = two.ipc / one.ipc;
    if (fabs(r / 0.5 - 1.0) > 0.02)
        fail_msg("IPC ratio %.4f, expected 0.5 (bus-bound)", r);
}

/* 0, the value of every workload the walk did not adjust (the calibrated channel map), is the
 * uniform spread: the same estimate as 1, bit for bit. Fails when 0 is taken as a factor (no DRAM
 * demand at all) or when the DRAM stations' spread differs from the uniform one at 1. */
static void test_zero_is_the_uniform_spread(void **state)
{
    (void)state;
    gpuest_gpu_estimate_t zero = solve(0.0), one = solve(1.0);
    assert_true(zero.ipc == one.ipc && zero.amat == one.amat);
}

/* Every request hits the L2. From an L2 access stream concentrated 2 times on, the MCs' busy reply
 * ports bind (6 ports for 15 SMs, 3 busy at a time); at 4 times the bound halves again, so the IPC
 * halves. The DRAM stream's concentration, with no DRAM access, changes nothing. Fails when
 * slice_concentration is ignored or put on the DRAM stations, when the ports keep their uniform
 * spread, or when the DRAM factor reaches the L2 side. */
static void test_slice_concentration_halves_a_port_bound_machine(void **state)
{
    (void)state;
    gpuest_gpu_estimate_t two = solve_both(1.0, 2.0, 1.0), four = solve_both(1.0, 4.0, 1.0);
    if (!(two.inject_util > 0.97 && four.inject_util > 0.97))
        fail_msg("reply ports not bound: utilisation %.3f, %.3f", two.inject_util, four.inject_util);
    double r = four.ipc / two.ipc;
    if (fabs(r / 0.5 - 1.0) > 0.02)
        fail_msg("IPC ratio %.4f, expected 0.5 (reply-port-bound)", r);
    gpuest_gpu_estimate_t one = solve_both(1.0, 1.0, 1.0), dram = solve_both(2.0, 1.0, 1.0);
    assert_true(dram.ipc == one.ipc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concentration_halves_a_bus_bound_machine),
        cmocka_unit_test(test_zero_is_the_uniform_spread),
        cmocka_unit_test(test_slice_concentration_halves_a_port_bound_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
