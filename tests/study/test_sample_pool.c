/* test_sample_pool.c: back-pressure's rates pooled over the last K units
 * (gpuest_sample_opts_t.ff_pool, src/sim/sample_pool.c).
 *
 * 1. Hand-made unit rates, K = 2: unit a (10 stall cycles over 5 requests; latencies 100, 200),
 *    unit b (0 over 15; 300), unit c (30 over 10; 400, 500, 600). After a: 1 + 10/5 = 3; after b:
 *    1 + 10/20 = 1.5 (the ratio of sums; the mean of the units' ratios would be 2.0, the last unit
 *    alone 1.0); after c, a is dropped: 1 + 30/25 = 2.2 (the last alone 4.0; all three 1.8), and the
 *    latencies are b's then c's: 300, 400, 500, 600. Fails if the pool is not applied (last unit
 *    only), averages ratios, keeps more than K units or drops the wrong one.
 * 2. A unit of more latencies than the room keeps the first `cap`; no requests gives 0 (no rate).
 * 3. The option reaches the sampler: on a scripted memory-bound kernel K = 1 gives the schedule of
 *    the option off (the same fast-forward schedule hash and units: the last unit alone), and K = 4
 *    another one. Fails if ff_pool is not wired into fast-forward, or K = 1 is not the last unit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sample_pool.h"
#include "study/study.h"
#include "sample_script.h"

static void pool_takes_the_ratio_of_sums_over_the_last_k(void **state)
{
    (void)state;
    gpuest_ff_pool_t p;
    assert_int_equal(gpuest_ff_pool_init(&p, 2, 8), GPUEST_OK);
    const uint32_t la[] = {100, 200}, lb[] = {300}, lc[] = {400, 500, 600};
    uint32_t out[16];
    gpuest_ff_pool_push(&p, 10, 5, la, 2);
    assert_true(gpuest_ff_pool_occ(&p) == 3.0);
    assert_int_equal(gpuest_ff_pool_latencies(&p, out), 2);
    gpuest_ff_pool_push(&p, 0, 15, lb, 1);
    assert_true(gpuest_ff_pool_occ(&p) == 1.5);
    assert_int_equal(gpuest_ff_pool_latencies(&p, out), 3);
    assert_int_equal(out[0], 100);
    assert_int_equal(out[2], 300);
    gpuest_ff_pool_push(&p, 30, 10, lc, 3);
    assert_true(fabs(gpuest_ff_pool_occ(&p) - 2.2) < 1e-12);
    assert_int_equal(gpuest_ff_pool_latencies(&p, out), 4);
    const uint32_t want[] = {300, 400, 500, 600};
    for (int j = 0; j < 4; j++)
        assert_int_equal(out[j], want[j]);
    gpuest_ff_pool_free(&p);
}

static void pool_truncates_and_reports_no_rate(void **state)
{
    (void)state;
    gpuest_ff_pool_t p;
    assert_int_equal(gpuest_ff_pool_init(&p, 3, 2), GPUEST_OK);
    assert_true(gpuest_ff_pool_occ(&p) == 0.0);
    const uint32_t l[] = {7, 8, 9};
    uint32_t out[6];
    gpuest_ff_pool_push(&p, 4, 0, l, 3);
    assert_true(gpuest_ff_pool_occ(&p) == 0.0);
    assert_int_equal(gpuest_ff_pool_latencies(&p, out), 2);
    assert_int_equal(out[1], 8);
    gpuest_ff_pool_free(&p);
    assert_int_equal(gpuest_ff_pool_init(&p, 0, 2), GPUEST_EINVAL);
}

#define WARPS 8u

static void sample(int pool, gpuest_sample_result_t *r)
{
    gpuest_error_t err;
    gpuest_sample_opts_t o;
    sample_script_opts(&o, 3000, 5);
    o.ff_pool = pool;
    if (sample_script_run(&o, "stream_use", 300, WARPS, 60, sample_script_stream_use, r, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
}

static void option_reaches_fast_forward(void **state)
{
    (void)state;
    gpuest_sample_result_t off, one, four;
    sample(0, &off);
    sample(1, &one);
    sample(4, &four);
    printf("fast-forward schedule hash: off %016llx, K=1 %016llx, K=4 %016llx\n",
           (unsigned long long)off.ff_schedule_hash, (unsigned long long)one.ff_schedule_hash,
           (unsigned long long)four.ff_schedule_hash);
    assert_true(off.ff_warp_insts > off.detailed_warp_insts); /* most of the kernel was fast-forwarded */
    assert_true(off.ff_schedule_hash == one.ff_schedule_hash);
    assert_int_equal(off.num_units, one.num_units);
    for (size_t i = 0; i < off.num_units; i++)
        assert_int_equal(off.units[i].cycles, one.units[i].cycles);
    assert_true(four.ff_schedule_hash != off.ff_schedule_hash);
    gpuest_sample_result_free(&off);
    gpuest_sample_result_free(&one);
    gpuest_sample_result_free(&four);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(pool_takes_the_ratio_of_sums_over_the_last_k),
                                       cmocka_unit_test(pool_truncates_and_reports_no_rate),
                                       cmocka_unit_test(option_reaches_fast_forward)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
