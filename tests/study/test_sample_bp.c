/* test_sample_bp.c: fast-forward with the memory system's back-pressure
 * (gpuest_sample_opts_t.ff_backpressure, src/sim/sample.c ff_backpressure_t), on a scripted
 * memory-bound kernel: CTAs of eight warps, each warp a loop of a load of a line of its own
 * (every one a DRAM read) and an ALU instruction that uses it. The L1's MSHRs and miss queue stay
 * full, so in detailed mode the LD/ST unit stalls most cycles and GTO hands it to the oldest warps
 * whenever it frees: the resident CTAs stand staggered, young ones waiting. Without back-pressure
 * fast-forward issues every warp at the latency-bound pace and moves the resident CTAs in lock
 * step (whole waves starting and ending together), as on gemm/fermi/default (docs/estimator.md).
 *
 * Measured: the standard deviation of the resident CTAs' progress (instructions) at the middle
 * units' starts (gpuest_sample_unit_t.cta_spread, mean over the units), sample seeds 1 / 2 / 5:
 * exact (the reference mode: the same units with every gap in detail) 33.6 / 50.7 / 39.9,
 * fast-forward without back-pressure 18.1 / 21.7 / 12.0 (0.30-0.54 of the exact), with it
 * 49.2 / 50.1 / 44.5 (0.99-1.46). Asserted on seed 5: without back-pressure under 0.6 of the
 * exact spread (the kernel shows the lock step), with it between 0.8 and 1.6 of it. A
 * back-pressure that is not measured, not applied, or applied to the wrong counts leaves the
 * CTAs in lock step and fails the second check. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"
#include "sample_script.h"

#define WARPS 8u
#define CTAS 450u
#define ITERS 100u

static void sample(int reference, int bp, gpuest_sample_result_t *r)
{
    gpuest_error_t err;
    gpuest_sample_opts_t o;
    sample_script_opts(&o, 3000, 5);
    o.reference = reference;
    /* back-pressure alone against the plain schedule (the sampler's default has all three options) */
    o.ff_backpressure = bp;
    o.ff_miss_stalls = 0;
    o.ff_l2_split = 0;
    if (sample_script_run(&o, "stream_use", CTAS, WARPS, ITERS, sample_script_stream_use, r, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
}

/* Mean over the middle (non-census) units of the CTAs' progress spread at the unit's start. */
static double middle_spread(const gpuest_sample_result_t *r)
{
    double s = 0;
    int n = 0;
    for (size_t i = 0; i < r->num_units; i++)
        if (!r->units[i].census) {
            s += r->units[i].cta_spread;
            n++;
        }
    return n ? s / n : 0.0;
}

static void backpressure_staggers_ctas_as_detailed_mode_does(void **state)
{
    (void)state;
    gpuest_sample_result_t ref, plain, bp;
    sample(1, 0, &ref);
    sample(0, 0, &plain);
    sample(0, 1, &bp);
    assert_int_equal(bp.num_units, ref.num_units);
    assert_true(bp.ff_warp_insts > bp.detailed_warp_insts); /* most of the kernel was fast-forwarded */
    double sr = middle_spread(&ref), sp = middle_spread(&plain), sb = middle_spread(&bp);
    printf("CTA progress spread at the middle units' starts (instructions): exact %.1f, "
           "fast-forward %.1f, with back-pressure %.1f\n",
           sr, sp, sb);
    assert_true(sr > 0);
    assert_true(sp < 0.6 * sr);                  /* the kernel shows the lock step */
    assert_true(sb > 0.8 * sr && sb < 1.6 * sr); /* back-pressure staggers the CTAs again */
    gpuest_sample_result_free(&ref);
    gpuest_sample_result_free(&plain);
    gpuest_sample_result_free(&bp);
}

/* The same seed gives the same units, bit for bit, with back-pressure (its latency draws come
 * from their own stream of the sampler's seed). */
static void backpressure_is_deterministic(void **state)
{
    (void)state;
    gpuest_sample_result_t a, b;
    sample(0, 1, &a);
    sample(0, 1, &b);
    assert_int_equal(a.num_units, b.num_units);
    for (size_t i = 0; i < a.num_units; i++) {
        assert_int_equal(a.units[i].cycles, b.units[i].cycles);
        assert_int_equal(a.units[i].thread_insts, b.units[i].thread_insts);
        assert_true(a.units[i].cta_spread == b.units[i].cta_spread);
    }
    gpuest_sample_result_free(&a);
    gpuest_sample_result_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(backpressure_staggers_ctas_as_detailed_mode_does),
                                       cmocka_unit_test(backpressure_is_deterministic)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
