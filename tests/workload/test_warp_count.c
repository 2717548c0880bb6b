/* test_warp_count.c: gpuest_warp_count (sampled simulation's counting pass) against the
 * instruction-by-instruction walk it replaces, on every generator's real streams. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "wl_testutil.h"

/* The old path: gpuest_warp_next to the END, counting instructions and active lanes. */
static void walk(gpuest_warp_t *w, uint64_t *wi, uint64_t *ti)
{
    gpuest_error_t err;
    gpuest_inst_t in;
    for (;;) {
        assert_int_equal(gpuest_warp_next(w, &in, &err), GPUEST_OK);
        if (in.kind == GPUEST_INST_END)
            return;
        (*wi)++;
        *ti += (uint64_t)__builtin_popcount(in.active_mask);
    }
}

/* Two handed-out instructions are the same, addresses included where they carry them. */
static void same_inst(const gpuest_inst_t *a, const gpuest_inst_t *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->pc, b->pc);
    assert_int_equal(a->active_mask, b->active_mask);
    assert_int_equal(a->size, b->size);
    assert_int_equal(a->op, b->op);
    if (a->kind == GPUEST_INST_END)
        return;
    if (gpuest_inst_has_addr(a))
        assert_memory_equal(a->addr, b->addr, sizeof a->addr);
}

/* Every launch of two copies of `name` in step: each warp first hands out `skip` instructions
 * with gpuest_warp_next on both copies (so the count starts inside a buffer and crosses refills),
 * then the rest is walked on one and counted on the other. The totals, per warp and per launch,
 * must be equal, and the counted warp must be finished (END on the next call). */
static void check_generator(const char *name)
{
    gpuest_workload_t *a = wlt_create(name, 3), *b = wlt_create(name, 3);
    gpuest_error_t err;
    int launches = 0;
    uint64_t total = 0;
    for (;;) {
        gpuest_launch_t la, lb;
        int da = 0, db = 0;
        assert_int_equal(gpuest_workload_next_launch(a, &la, &da, &err), GPUEST_OK);
        assert_int_equal(gpuest_workload_next_launch(b, &lb, &db, &err), GPUEST_OK);
        assert_int_equal(da, db);
        if (da)
            break;
        uint64_t la_wi = 0, la_ti = 0, lb_wi = 0, lb_ti = 0;
        for (uint32_t c = 0; c < la.num_ctas; c++)
            for (uint32_t w = 0; w < la.warps_per_cta; w++) {
                gpuest_warp_t *wa = NULL, *wb = NULL;
                assert_int_equal(gpuest_warp_open(a, c, w, &wa, &err), GPUEST_OK);
                assert_int_equal(gpuest_warp_open(b, c, w, &wb, &err), GPUEST_OK);
                uint32_t skip = (c * 7u + w * 3u) % 100u; /* 0 .. 99: before, at and past the first refill */
                gpuest_inst_t in;
                int ended = 0;
                for (uint32_t j = 0; j < skip && !ended; j++) {
                    gpuest_inst_t ia;
                    assert_int_equal(gpuest_warp_next(wa, &ia, &err), GPUEST_OK);
                    assert_int_equal(gpuest_warp_next(wb, &in, &err), GPUEST_OK);
                    same_inst(&ia, &in); /* b's warp objects were counted before: no address left out */
                    ended = in.kind == GPUEST_INST_END;
                }
                uint64_t wi = 0, ti = 0, ci = 0, ct = 0;
                if (!ended) {
                    walk(wa, &wi, &ti);
                    assert_int_equal(gpuest_warp_count(wb, &ci, &ct, &err), GPUEST_OK);
                }
                assert_int_equal(ci, wi);
                assert_int_equal(ct, ti);
                assert_int_equal(gpuest_warp_next(wb, &in, &err), GPUEST_OK);
                assert_int_equal(in.kind, GPUEST_INST_END);
                la_wi += wi, la_ti += ti, lb_wi += ci, lb_ti += ct;
                gpuest_warp_close(wa);
                gpuest_warp_close(wb);
            }
        assert_int_equal(la_wi, lb_wi);
        assert_int_equal(la_ti, lb_ti);
        total += lb_wi;
        assert_int_equal(gpuest_workload_end_launch(a, &err), GPUEST_OK);
        assert_int_equal(gpuest_workload_end_launch(b, &err), GPUEST_OK);
        launches++;
    }
    assert_true(launches > 0);
    assert_true(total > 0); /* something was counted after the skipped instructions */
    gpuest_workload_destroy(a);
    gpuest_workload_destroy(b);
}

static void test_count_every_generator(void **state)
{
    (void)state;
    for (size_t g = 0; gpuest_generators[g]; g++)
        check_generator(gpuest_generators[g]->name);
}

/* A fresh warp counted whole: the same totals as the walk, from the first instruction. */
static void test_count_whole_warp(void **state)
{
    (void)state;
    gpuest_workload_t *a = wlt_create("gemm", 1), *b = wlt_create("gemm", 1);
    gpuest_error_t err;
    gpuest_launch_t l;
    int done = 0;
    assert_int_equal(gpuest_workload_next_launch(a, &l, &done, &err), GPUEST_OK);
    assert_int_equal(gpuest_workload_next_launch(b, &l, &done, &err), GPUEST_OK);
    assert_false(done);
    gpuest_warp_t *wa = NULL, *wb = NULL;
    assert_int_equal(gpuest_warp_open(a, 0, 0, &wa, &err), GPUEST_OK);
    assert_int_equal(gpuest_warp_open(b, 0, 0, &wb, &err), GPUEST_OK);
    uint64_t wi = 0, ti = 0, ci = 5, ct = 7; /* the count adds to what is there */
    walk(wa, &wi, &ti);
    assert_int_equal(gpuest_warp_count(wb, &ci, &ct, &err), GPUEST_OK);
    assert_true(wi > 64); /* more than one buffer */
    assert_int_equal(ci, wi + 5);
    assert_int_equal(ct, ti + 7);
    gpuest_warp_close(wa);
    gpuest_warp_close(wb);
    gpuest_workload_destroy(a);
    gpuest_workload_destroy(b);
}

/* The counting fills skip the lanes' addresses (eighth session): a warp object recycled after a
 * count must hand out its instructions whole again. Every warp of gemm's first launch is counted
 * on b and walked on a; then the next launch's warps (b's recycled objects) are handed out on
 * both and compared instruction by instruction, addresses included. Fails when the counting mode
 * outlives the count (the flag not cleared when the object is reused). */
static void test_recycled_after_count(void **state)
{
    (void)state;
    gpuest_workload_t *a = wlt_create("gemm", 1), *b = wlt_create("gemm", 1);
    gpuest_error_t err;
    gpuest_launch_t l;
    int done = 0;
    assert_int_equal(gpuest_workload_next_launch(a, &l, &done, &err), GPUEST_OK);
    assert_int_equal(gpuest_workload_next_launch(b, &l, &done, &err), GPUEST_OK);
    assert_false(done);
    gpuest_warp_t *wa = NULL, *wb = NULL;
    uint64_t wi = 0, ci = 0, ct = 0;
    assert_int_equal(gpuest_warp_open(b, 0, 0, &wb, &err), GPUEST_OK);
    assert_int_equal(gpuest_warp_count(wb, &ci, &ct, &err), GPUEST_OK);
    gpuest_warp_close(wb);
    assert_int_equal(gpuest_warp_open(a, 0, 1, &wa, &err), GPUEST_OK);
    assert_int_equal(gpuest_warp_open(b, 0, 1, &wb, &err), GPUEST_OK); /* the object just counted */
    int mem = 0;
    for (;;) {
        gpuest_inst_t ia, ib;
        assert_int_equal(gpuest_warp_next(wa, &ia, &err), GPUEST_OK);
        assert_int_equal(gpuest_warp_next(wb, &ib, &err), GPUEST_OK);
        same_inst(&ia, &ib);
        if (ia.kind == GPUEST_INST_END)
            break;
        mem += ia.kind == GPUEST_INST_MEM;
        wi++;
    }
    assert_true(mem > 64); /* past the first buffer: refills made after the count */
    assert_true(wi > 0 && ci > 0 && ct > 0);
    gpuest_warp_close(wa);
    gpuest_warp_close(wb);
    gpuest_workload_destroy(a);
    gpuest_workload_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_every_generator),
        cmocka_unit_test(test_count_whole_warp),
        cmocka_unit_test(test_recycled_after_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
