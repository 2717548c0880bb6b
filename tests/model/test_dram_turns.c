/* test_dram_turns.c: the DRAM data bus's read/write turnarounds in the closed GPU model
 * (gpu_model.c, bus_cycles_per_access).
 *
 * fermi's channel moves a 128-byte line in 4 bus cycles (2 column commands of 2 cycles); a
 * turnaround idles the bus tCDLR + tCL = 17 cycles (write to read) or 2 (read to write), 9.5 on
 * average. A workload that misses the L2 on every request and hits every DRAM row is bound by the
 * channels' data buses once enough warps wait, so its throughput is inversely proportional to the
 * bus cycles per access: 4 + 9.5 t with t turnarounds per access. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

static void dram_bound(gpuest_model_workload_t *w, double turns)
{
    memset(w, 0, sizeof *w);
    w->insts_per_request = 1.0;
    w->l1_hit_rate = 0.0;
    w->l2_hit_rate = 0.0;
    w->dram_per_request = 1.0;
    w->row_hit_rate = 1.0;
    w->write_fraction = 0.0;
    w->threads_per_warp_inst = 32;
    w->dram_turns_per_access = turns;
}

static gpuest_gpu_estimate_t solve(double turns)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    /* fermi's request window of 16 slots (dram_window.c) would bind first at 0.5 turnarounds: 16 /
     * (100 + (12 + 4 + 8.75) x 700 / 924) = 0.135 requests a core cycle per channel, under the bus's
     * 924 / 700 / 8.75 = 0.151. A wide window leaves the bus, the term under test, to bind. */
    cfg.dram.queue_size = 1024;
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_model_workload_t w;
    dram_bound(&w, turns);
    gpuest_gpu_params_t p = {1.0, 1.0, 1.0};
    gpuest_gpu_estimate_t e;
    if (gpuest_gpu_model_solve(m, &w, NULL, &p, &e, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    gpuest_gpu_model_destroy(m);
    return e;
}

/* Bus-bound at 0.5 and at 1 turnaround per access: IPC in the ratio (4 + 4.75) / (4 + 9.5) =
 * 0.648. Fails when turnarounds are ignored (1.0), charged a write-to-read gap each (4 + 17 t:
 * 12.5 / 21 = 0.595), or counted per command instead of per access. */
static void test_turnarounds_slow_a_bus_bound_machine(void **state)
{
    (void)state;
    gpuest_gpu_estimate_t half = solve(0.5), one = solve(1.0);
    assert_true(half.bottleneck_util > 0.97 && one.bottleneck_util > 0.97);
    double r = one.ipc / half.ipc, want = (4.0 + 4.75) / (4.0 + 9.5);
    if (fabs(r / want - 1.0) > 0.02)
        fail_msg("IPC ratio %.4f, expected %.4f (bus-bound)", r, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_turnarounds_slow_a_bus_bound_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
