/* test_sample_gather.c: fast-forward's load latency by lines missed (gpuest_sample_opts_t.ff_gather,
 * src/sim/sample_gather.c).
 *
 * 1. The table of expected largest draws, worked by hand on four latencies 10, 20, 30, 40 (given
 *    unsorted, one with sm.c's L2-miss flag in its top bit): the largest of one draw is their mean
 *    25; of two, sum_j x_(j) ((j/4)^2 - ((j-1)/4)^2) = (10 x 1 + 20 x 3 + 30 x 5 + 40 x 7) / 16 =
 *    31.25; of three, (10 x 1 + 20 x 7 + 30 x 19 + 40 x 37) / 64 = 34.375. Fails if the flag bit is
 *    kept, the values are not sorted, or the weights are not the steps of F^n.
 * 2. A scripted kernel whose even CTAs gather (each load: 32 lanes on 32 lines, all DRAM reads) and
 *    whose odd CTAs stream (each load: one line), the same instructions each: in detailed mode a
 *    gather waits its slowest line, so the gathering CTAs stay resident longer and the machine holds
 *    more of them than the launch order alone gives. The sampled units' IPC (sum over the middle
 *    units) against the same units with every gap in detail (the reference mode) is checked with
 *    the default fast-forward and with ff_gather: asserted that ff_gather's error is smaller than
 *    the default's (numbers in the test's output and docs/estimator.md). Fails when the table is not
 *    taken from the unit's latencies or not applied to the load (ff_gather then is the default). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sample_gather.h"
#include "study/study.h"
#include "sample_script.h"

static void table_is_the_expected_largest_draw(void **state)
{
    (void)state;
    const uint32_t lat[4] = {30, 0x80000000u | 10u, 40, 20};
    uint32_t scratch[4];
    double e[GPUEST_GATHER_MAX_LINES + 1];
    e[1] = -1;
    assert_int_equal(gpuest_gather_table(lat, 0, scratch, e), 0);
    assert_true(e[1] == -1); /* no latencies: the table is left alone */
    assert_int_equal(gpuest_gather_table(lat, 4, scratch, e), 1);
    assert_true(fabs(e[1] - 25.0) < 1e-9);
    assert_true(fabs(e[2] - 31.25) < 1e-9);
    assert_true(fabs(e[3] - 34.375) < 1e-9);
    /* of 64 draws the largest is 40 unless all 64 miss it: 40 - 10 (3/4)^64 - ... */
    double e64 = 40.0 - 10.0 * pow(0.75, 64) - 10.0 * pow(0.5, 64) - 10.0 * pow(0.25, 64);
    assert_true(fabs(e[GPUEST_GATHER_MAX_LINES] - e64) < 1e-9);
}

#define WARPS 4u
#define LOAD_BASE 0x40000000ull
#define CTAS 240u
#define ITERS 40u

/* Per iteration: a load (register 1), then an ALU instruction that reads it (register 2). Even CTAs
 * gather: lane l reads line (warp's base + l x ITERS + i); odd CTAs read one line. */
static gpuest_err warp_next(void *ctx, void *warp, gpuest_inst_t *in, gpuest_error_t *err)
{
    (void)err;
    const sample_script_t *s = ctx;
    sample_script_warp_t *w = warp;
    memset(in, 0, sizeof *in);
    in->active_mask = 0xFFFFFFFFu;
    uint32_t i = w->step / 2, k = w->step % 2;
    in->pc = k * GPUEST_GEN_INST_BYTES;
    if (i >= s->iters) {
        in->kind = GPUEST_INST_END;
        return GPUEST_OK;
    }
    if (k == 0) {
        uint64_t base = ((uint64_t)w->cta * WARPS + w->warp) * s->iters * 32;
        in->kind = GPUEST_INST_MEM;
        in->op = GPUEST_MEM_LOAD;
        in->size = 4;
        for (uint64_t lane = 0; lane < 32; lane++) {
            uint64_t line = w->cta % 2 ? base + i : base + lane * s->iters + i;
            uint64_t off = w->cta % 2 ? lane * 4 : 0;
            in->addr[lane] = LOAD_BASE + line * GPUEST_LINE_BYTES + off;
        }
        in->dst[in->ndst++] = 1;
    } else {
        in->kind = GPUEST_INST_COMPUTE;
        in->lat = GPUEST_LAT_ALU;
        in->dst[in->ndst++] = 2;
        in->src[in->nsrc++] = 1;
    }
    w->step++;
    return GPUEST_OK;
}

static void sample(int reference, int gather, gpuest_sample_result_t *r)
{
    gpuest_error_t err;
    gpuest_sample_opts_t o;
    sample_script_opts(&o, 2000, 5);
    o.reference = reference;
    /* ff_gather is an option of the plain schedule (the sampler's default takes back-pressure's draws) */
    o.ff_backpressure = o.ff_miss_stalls = o.ff_l2_split = 0;
    o.ff_gather = gather;
    if (sample_script_run(&o, "gather_stream", CTAS, WARPS, ITERS, warp_next, r, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
}

static void gather_latency_brings_units_to_the_exact_ones(void **state)
{
    (void)state;
    gpuest_sample_result_t ref, plain, gat;
    sample(1, 0, &ref);
    sample(0, 0, &plain);
    sample(0, 1, &gat);
    assert_int_equal(gat.num_units, ref.num_units);
    assert_true(gat.ff_warp_insts > gat.detailed_warp_insts); /* most of the kernel was fast-forwarded */
    assert_true(gat.ff_schedule_hash != plain.ff_schedule_hash);
    double xr = sample_script_middle_ipc(&ref), xp = sample_script_middle_ipc(&plain), xg = sample_script_middle_ipc(&gat);
    printf("middle units' IPC: exact %.3f, fast-forward %.3f (%+.2f %%), with ff_gather %.3f (%+.2f %%)\n", xr,
           xp, 100 * (xp / xr - 1), xg, 100 * (xg / xr - 1));
    assert_true(fabs(xg / xr - 1) < fabs(xp / xr - 1));
    gpuest_sample_result_free(&ref);
    gpuest_sample_result_free(&plain);
    gpuest_sample_result_free(&gat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(table_is_the_expected_largest_draw),
                                       cmocka_unit_test(gather_latency_brings_units_to_the_exact_ones)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
