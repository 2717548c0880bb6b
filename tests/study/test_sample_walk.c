/* test_sample_walk.c: the two-speed fast-forward (gpuest_sample_opts_t.ff_walk, src/sim/sample_walk.c;
 * docs/estimator.md, "Sampled simulation: an untimed walk before a timed window (ninth session)").
 *
 *   1. Off by default, and off means main's sampler: the tiny hotspot run of test_sample_tail_off.c
 *      (fermi, input and sample seed 3, 8 units of 200 warp instructions, 200 cycles' warming) has
 *      the units recorded there (commit 2ce34a9), and with the walk on its middle units move (so the
 *      run has gaps for the option to change). Catches a hook that walks, or changes the gap's split,
 *      without the option (checked: with ff_rates_t.walk set unconditionally, it fails).
 *   2. Instructions are conserved and every launch ends: on a scripted kernel with barriers (CTAs
 *      of four warps: two loads, a barrier, ALU work, a store; 15 SMs), with windows of 0 and 1
 *      units, detailed + fast-forwarded warp instructions equal the counting pass's total, the
 *      walk took some (all of fast-forward with window 0, part of it with window 1), and the run
 *      finishes: the fast-forward to each launch's end is walked whole, and a walk that left a
 *      CTA unstarted or a warp at a barrier forever ends that launch with CTAs not done, which the
 *      sampler reports as an error (EDEADLOCK). Catches a walk that counts a warp's retirement as
 *      an instruction (checked: the totals differ) and one that assigns no CTA when a warp
 *      retires (checked: the walk runs dry early and the timed schedule, which assigns them, takes
 *      the rest of each gap, so with window 0 the walked count falls short of fast-forward's).
 *   3. The walk warms as fast-forward does: with one SM and one warp streaming loads of distinct
 *      lines (512 KB, less than the L2's 768 KB), the order of the instructions cannot differ
 *      between the walk and the timed schedule, so the L2's tags at the end of the run (line,
 *      valid sectors, dirty) must be the same whether every gap ran timed (the default) or walked
 *      (window 0). Catches a walk that skips the functional warming (checked: with the walk's
 *      step called with warm = 0 the hashes differ) or skips instructions' memory accesses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "study/study.h"
#include "sample_script.h"
#include "hotspot_tiny_units.h"

/* ---- 1. off by default: the recorded units of test_sample_tail_off.c */
static void hotspot_tiny(int walk, gpuest_study_sampled_t *s)
{
    gpuest_sample_opts_t o;
    hotspot_tiny_opts(&o);
    assert_int_equal(o.ff_walk, 0);
    o.ff_walk = walk;
    o.ff_window_units = 0.5;
    hotspot_tiny_run(&o, s);
}

static void off_leaves_units_unchanged(void **state)
{
    (void)state;
    gpuest_study_sampled_t s;
    hotspot_tiny(0, &s);
    assert_int_equal(s.raw.ff_walk_warp_insts, 0);
    hotspot_tiny_assert_recorded(&s);
    gpuest_study_sampled_free(&s);
    hotspot_tiny(1, &s);
    assert_true(s.raw.ff_walk_warp_insts > 0);
    int moved = 0;
    for (size_t i = 0; i < s.raw.num_units && i < 12; i++)
        moved |= s.raw.units[i].cycles != k_cycles[i] || s.raw.units[i].thread_insts != k_thread[i];
    assert_true(moved);
    gpuest_study_sampled_free(&s);
}

/* ---- 2. a barrier kernel: conservation, and every launch ends */
#define BAR_WARPS 4u
#define BAR_CHAIN 8u

static gpuest_err barrier_next(void *ctx, void *warp, gpuest_inst_t *in, gpuest_error_t *err)
{
    (void)ctx;
    (void)err;
    sample_script_warp_t *w = warp;
    memset(in, 0, sizeof *in);
    in->active_mask = 0xFFFFFFFFu;
    uint32_t k = w->step++;
    in->pc = k * GPUEST_GEN_INST_BYTES;
    uint64_t base = 0x40000000ull + ((uint64_t)w->cta * BAR_WARPS + w->warp) * 2 * GPUEST_LINE_BYTES;
    if (k < 2) { /* two loads of whole lines of its own (registers 1, 2) */
        in->kind = GPUEST_INST_MEM;
        in->op = GPUEST_MEM_LOAD;
        in->size = 4;
        for (int lane = 0; lane < 32; lane++)
            in->addr[lane] = base + k * GPUEST_LINE_BYTES + (uint64_t)lane * 4;
        in->dst[in->ndst++] = (uint8_t)(1 + k);
    } else if (k == 2) {
        in->kind = GPUEST_INST_BARRIER;
    } else if (k < 3 + BAR_CHAIN) { /* a dependent chain from the loaded values */
        in->kind = GPUEST_INST_COMPUTE;
        in->lat = GPUEST_LAT_ALU;
        in->dst[in->ndst++] = 3;
        in->src[in->nsrc++] = k == 3 ? 1 : 3;
        if (k == 3)
            in->src[in->nsrc++] = 2;
    } else if (k == 3 + BAR_CHAIN) {
        in->kind = GPUEST_INST_MEM;
        in->op = GPUEST_MEM_STORE;
        in->size = 4;
        for (int lane = 0; lane < 32; lane++)
            in->addr[lane] = 0x80000000ull + ((uint64_t)w->cta * BAR_WARPS + w->warp) * GPUEST_LINE_BYTES +
                             (uint64_t)lane * 4;
        in->src[in->nsrc++] = 3;
    } else {
        in->kind = GPUEST_INST_END;
    }
    return GPUEST_OK;
}

static void barrier_run(double window, gpuest_sample_result_t *r)
{
    gpuest_sample_opts_t o;
    sample_script_opts(&o, 1000, 5);
    o.units = 4;
    o.ff_walk = 1;
    o.ff_window_units = window;
    gpuest_error_t err;
    if (sample_script_run(&o, "walk_barrier", 4000, BAR_WARPS, 0, barrier_next, r, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
}

static void walk_conserves_and_finishes(void **state)
{
    (void)state;
    const uint64_t total = 4000ull * BAR_WARPS * (4 + BAR_CHAIN); /* 2 loads, barrier, chain, store */
    gpuest_sample_result_t r;
    barrier_run(0, &r);
    assert_int_equal(r.kernel_warp_insts[0], total);
    assert_int_equal(r.detailed_warp_insts + r.ff_warp_insts, total);
    assert_true(r.ff_walk_warp_insts > 0);
    assert_int_equal(r.ff_walk_warp_insts, r.ff_warp_insts); /* window 0: every gap walked whole */
    gpuest_sample_result_free(&r);
    barrier_run(1, &r);
    assert_int_equal(r.detailed_warp_insts + r.ff_warp_insts, total);
    assert_true(r.ff_walk_warp_insts > 0);
    assert_true(r.ff_walk_warp_insts < r.ff_warp_insts); /* the timed windows took the rest */
    gpuest_sample_result_free(&r);
}

/* ---- 3. one SM, one warp: the walk leaves the L2 as the timed schedule does */
static gpuest_err one_warp_run(int walk, gpuest_sample_result_t *r, gpuest_error_t *err)
{
    gpuest_config_t cfg;
    gpuest_err rc = gpuest_config_preset(&cfg, "fermi", err);
    if (rc != GPUEST_OK)
        return rc;
    cfg.core.num_sms = 1;
    gpuest_sample_opts_t o;
    sample_script_opts(&o, 200, 7);
    o.units = 4;
    o.ff_walk = walk;
    o.ff_window_units = 0;
    sample_script_t a, b;
    gpuest_sim_source_t sa, sb;
    sample_script_one(&sa, &a, "walk_one_warp", 1, 1, 4096, sample_script_stream_use);
    sample_script_one(&sb, &b, "walk_one_warp", 1, 1, 4096, sample_script_stream_use);
    return gpuest_sim_sample(&cfg, &sa, &sb, &o, r, err);
}

static void walk_warms_as_timed(void **state)
{
    (void)state;
    gpuest_sample_result_t timed, walked;
    gpuest_error_t err;
    if (one_warp_run(0, &timed, &err) != GPUEST_OK || one_warp_run(1, &walked, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    assert_true(timed.ff_warp_insts > 4096); /* most of the 8,192 instructions fast-forwarded */
    assert_int_equal(walked.ff_walk_warp_insts, walked.ff_warp_insts);
    assert_true(walked.ff_walk_warp_insts > 4096);
    assert_true(timed.l2_tags_hash == walked.l2_tags_hash);
    gpuest_sample_result_free(&timed);
    gpuest_sample_result_free(&walked);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(off_leaves_units_unchanged),
                                       cmocka_unit_test(walk_conserves_and_finishes),
                                       cmocka_unit_test(walk_warms_as_timed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
