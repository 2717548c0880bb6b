/* test_sample_speed.c: sampled simulation's fast paths (src/sim/sample.c: the counting pass by
 * gpuest_warp_count, fast-forward's reuse of each SM's attention) give the units, counts and
 * positions of the paths they replaced (gpuest_sample_opts_t.slow_paths), bit for bit, on real
 * generator workloads (srad small, gemm and spmv tiny) with units short enough that most of each
 * kernel is fast-forwarded; with the default fast-forward and with all three of its options.
 * The sixth session's bulk form of the LD/ST unit's parked warps (a bit set released at the unit's
 * free cycle, the list when the bulk waits for another cycle) is checked against the list alone by
 * a hash of every fast-forwarded issue's (SM, slot, virtual cycle): a warp released a cycle early
 * or late moves it (and, on these workloads, the instruction counts too).
 * Seventh session: the same comparison on the default fast-forward (back-pressure, miss stalls,
 * L2-split draws) for srad small (the list fallback runs there too), spmv tiny and bfs small, now
 * that the bulk hold pass takes the ready memory warps from a bit set of the memory flags (mbits)
 * and the released bulk is made ready a word at a time. Checked: with mbits not updated for a
 * warp started in fast-forward, srad, gemm and spmv fail here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"

static void run(const char *name, gpuest_scale_t scale, int all3, int slow, gpuest_sample_result_t *r)
{
    gpuest_error_t err;
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_workload_t *a = NULL, *b = NULL;
    assert_int_equal(gpuest_workload_create(name, scale, 3, &a, &err), GPUEST_OK);
    assert_int_equal(gpuest_workload_create(name, scale, 3, &b, &err), GPUEST_OK);
    gpuest_sim_source_t sa, sb;
    gpuest_sim_source_workload(&sa, a);
    gpuest_sim_source_workload(&sb, b);
    gpuest_sample_opts_t o;
    gpuest_sample_opts_default(&o);
    o.units = 6;
    o.unit_insts = 300;
    o.warm_cycles = 300;
    o.warm_amats = 2;
    o.seed = 7;
    o.ff_backpressure = o.ff_miss_stalls = o.ff_l2_split = all3;
    o.slow_paths = slow;
    gpuest_err rc = gpuest_sim_sample(&cfg, &sa, &sb, &o, r, &err);
    if (rc != GPUEST_OK)
        fail_msg("%s: %s", name, err.msg);
    gpuest_workload_destroy(a);
    gpuest_workload_destroy(b);
}

static void same_as_slow_paths(const char *name, gpuest_scale_t scale, int all3, int fallback)
{
    gpuest_sample_result_t f, s;
    run(name, scale, all3, 0, &f);
    run(name, scale, all3, 1, &s);
    assert_true(f.ff_warp_insts > 0); /* fast-forward ran: the reuse was exercised */
    assert_true(f.ff_warp_insts > f.detailed_warp_insts / 4);
    assert_int_equal(f.num_kernels, s.num_kernels);
    assert_memory_equal(f.kernel_warp_insts, s.kernel_warp_insts, f.num_kernels * sizeof *f.kernel_warp_insts);
    assert_memory_equal(f.kernel_thread_insts, s.kernel_thread_insts, f.num_kernels * sizeof *f.kernel_thread_insts);
    assert_int_equal(f.ff_warp_insts, s.ff_warp_insts);
    assert_int_equal(f.detailed_warp_insts, s.detailed_warp_insts);
    assert_int_equal(f.detailed_cycles, s.detailed_cycles);
    assert_int_equal(f.drain_cycles, s.drain_cycles);
    assert_int_equal(f.num_units, s.num_units);
    assert_true(f.num_units > 2);
    assert_memory_equal(f.units, s.units, f.num_units * sizeof *f.units);
    /* every fast-forwarded instruction issued by the same warp at the same virtual cycle */
    assert_true(f.ff_schedule_hash == s.ff_schedule_hash);
    /* the bit set parked the LD/ST unit's waiters (the list alone on the slow path), and as many
     * wake-ups were parked either way */
    assert_true(f.ff_parks_bulk > 0);
    assert_true(s.ff_parks_bulk == 0);
    assert_true(f.ff_parks_bulk + f.ff_parks_list == s.ff_parks_list);
    if (fallback) /* the bulk waited for another cycle when the unit's free cycle moved: the list took it */
        assert_true(f.ff_parks_list > 0);
    gpuest_sample_result_free(&f);
    gpuest_sample_result_free(&s);
}

static void srad_small_default(void **state) { (void)state; same_as_slow_paths("srad", GPUEST_SCALE_SMALL, 0, 1); }
static void srad_small_new_default(void **state) { (void)state; same_as_slow_paths("srad", GPUEST_SCALE_SMALL, 1, 1); }
static void spmv_new_default(void **state) { (void)state; same_as_slow_paths("spmv", GPUEST_SCALE_TINY, 1, 0); }
static void bfs_small_new_default(void **state) { (void)state; same_as_slow_paths("bfs", GPUEST_SCALE_SMALL, 1, 0); }
static void gemm_all_three(void **state) { (void)state; same_as_slow_paths("gemm", GPUEST_SCALE_TINY, 1, 0); }
static void spmv_default(void **state) { (void)state; same_as_slow_paths("spmv", GPUEST_SCALE_TINY, 0, 0); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(srad_small_default),
        cmocka_unit_test(gemm_all_three),
        cmocka_unit_test(spmv_default),
        cmocka_unit_test(srad_small_new_default),
        cmocka_unit_test(spmv_new_default),
        cmocka_unit_test(bfs_small_new_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
