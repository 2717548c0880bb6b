/* test_sim_warppool.c: WarpPool (technique.coalescing = warppool) against outcomes worked by hand on
 * one fermi SM whose CTAs are one warp each (a CTA's only_cta instructions give each warp its own
 * addresses):
 *  - two warps' loads of one line become one L1 access, answered to both at the same cycle;
 *  - the selector is FIFO over queues (the oldest request first), not queue order, and the pool
 *    keeps accepting and merging while the L1 access at its head stalls;
 *  - a store between two loads of a line keeps them apart;
 *  - the pool's latency adds exactly warppool_latency cycles to an L1 hit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "script_source.h"

#define A GPUEST_MEMIMG_BASE
#define LINE(k) (A + (uint64_t)(k) * 128 * 64) /* distinct lines, apart in every cache set mapping */

/* One line per warp (lanes 4 bytes apart), only in CTA cta (-1: every CTA); dst register + 1. */
static script_inst_t mem(gpuest_mem_op_t op, uint64_t addr, int cta, int dst)
{
    return (script_inst_t){GPUEST_INST_MEM, op, GPUEST_LAT_ALU, addr, 4, 4, 1, cta, (uint8_t)dst, 0, 0};
}

static script_inst_t use(int src) /* waits for register src - 1 */
{
    return (script_inst_t){GPUEST_INST_COMPUTE, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, 0, 0, 0, 1, -1, 0, (uint8_t)src, 0};
}

static void machine(gpuest_config_t *c, int coalescing, int latency)
{
    assert_int_equal(gpuest_config_preset(c, "fermi", NULL), GPUEST_OK);
    c->core.num_sms = 1;
    c->core.perfect_inst_const_cache = 1;
    c->core.schedulers_per_sm = 1;
    c->core.scheduler = GPUEST_WSCHED_GTO; /* warps issue their loads oldest first: CTA 0, 1, 2, ... */
    c->technique.coalescing = coalescing;
    c->technique.warppool_latency = latency;
}

typedef struct {
    script_loads_t loads;
    int nmiss;
    uint64_t miss_line[16];
} rec_t;

static void on_load(void *ctx, int sm, int slot, uint64_t issue, uint64_t done, int hits, int misses)
{
    script_on_load(&((rec_t *)ctx)->loads, sm, slot, issue, done, hits, misses);
}

static void on_miss(void *ctx, const gpuest_sim_req_info_t *q, uint64_t cycle)
{
    (void)cycle;
    rec_t *r = ctx;
    if (r->nmiss < 16)
        r->miss_line[r->nmiss++] = q->line;
}

static void run(const gpuest_config_t *c, script_t *s, rec_t *rec, gpuest_sim_result_t *r)
{
    memset(rec, 0, sizeof *rec);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = rec;
    o.hooks.load_done = on_load;
    o.hooks.l1_miss = on_miss;
    script_run_drained(c, s, &o, r);
}

/* Two warps load the same line one cycle apart; the first is due after 2 cycles in the pool, so
 * the second has joined its queue: one L1 access (a miss), one request to the MC, both loads
 * answered by its fill. Without the pool the second is an L1 access merged into the MSHR. */
static void test_two_warps_one_l1_access(void **st)
{
    (void)st;
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, LINE(0), -1, 1)};
    script_kernel(&s, 0, NULL, 2, 1, p);
    gpuest_config_t c;
    rec_t rec;
    gpuest_sim_result_t r;

    machine(&c, GPUEST_COALESCE_NONE, 2);
    run(&c, &s, &rec, &r);
    assert_int_equal(r.total.l1_accesses, 2);
    assert_int_equal(r.total.l1_mshr_merges, 1);
    assert_int_equal(r.total.warppool_requests, 0);
    gpuest_sim_result_free(&r);

    machine(&c, GPUEST_COALESCE_WARPPOOL, 2);
    run(&c, &s, &rec, &r);
    assert_int_equal(r.total.warppool_requests, 2);
    assert_int_equal(r.total.warppool_merged, 1);
    assert_int_equal(r.total.warppool_accesses, 1);
    assert_int_equal(r.total.l1_accesses, 1);
    assert_int_equal(r.total.l1_misses, 1);
    assert_int_equal(r.total.l1_mshr_merges, 0);
    assert_int_equal(r.total.read_requests, 1);
    assert_int_equal(rec.nmiss, 1);
    assert_int_equal(rec.loads.n, 2);
    assert_true(rec.loads.done[0] == rec.loads.done[1]); /* one fill answers both */
    assert_int_equal(rec.loads.issue[1], rec.loads.issue[0] + 1);
    gpuest_sim_result_free(&r);
}

/* One MSHR, so the second distinct miss stalls until the first fill. Warps 0..3 load X, Y, Z, Y:
 * X (queue 0) is sent; Y (queue 1) stalls at the head; Z arrives after X left and takes the
 * freed queue 0; warp 3's Y joins queue 1 while it stalls. FIFO sends Y (the older) before Z
 * although Z sits in the lower queue: misses X, Y, Z, and three L1 accesses for four loads. */
static void test_fifo_order_and_merge_while_stalled(void **st)
{
    (void)st;
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, LINE(1), 0, 1), mem(GPUEST_MEM_LOAD, LINE(2), 1, 1),
                         mem(GPUEST_MEM_LOAD, LINE(3), 2, 1), mem(GPUEST_MEM_LOAD, LINE(2), 3, 1)};
    script_kernel(&s, 0, NULL, 4, 4, p);
    gpuest_config_t c;
    machine(&c, GPUEST_COALESCE_WARPPOOL, 2);
    c.l1.mshrs = 1;
    rec_t rec;
    gpuest_sim_result_t r;
    run(&c, &s, &rec, &r);
    assert_int_equal(rec.nmiss, 3);
    assert_true(rec.miss_line[0] == LINE(1));
    assert_true(rec.miss_line[1] == LINE(2));
    assert_true(rec.miss_line[2] == LINE(3));
    assert_int_equal(r.total.warppool_requests, 4);
    assert_int_equal(r.total.warppool_merged, 1);
    assert_int_equal(r.total.l1_accesses, 3);
    assert_int_equal(r.total.read_requests, 3);
    assert_int_equal(rec.loads.n, 4);
    assert_true(r.total.l1_mshr_stalls > 100); /* Y waited for X's fill: the merge happened meanwhile */
    gpuest_sim_result_free(&r);
}

/* Warps 0, 1, 2: load X, store X, load X, all in the pool before the first is due (latency 10).
 * The store closes X's load queue, so the second load is not answered by the first load's
 * access (made before the store): three L1 accesses, nothing merged. */
static void test_store_keeps_loads_apart(void **st)
{
    (void)st;
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, LINE(4), 0, 1), mem(GPUEST_MEM_STORE, LINE(4), 1, 0),
                         mem(GPUEST_MEM_LOAD, LINE(4), 2, 1)};
    script_kernel(&s, 0, NULL, 3, 3, p);
    gpuest_config_t c;
    machine(&c, GPUEST_COALESCE_WARPPOOL, 10);
    rec_t rec;
    gpuest_sim_result_t r;
    run(&c, &s, &rec, &r);
    assert_int_equal(r.total.warppool_requests, 3);
    assert_int_equal(r.total.warppool_merged, 0);
    assert_int_equal(r.total.warppool_accesses, 3);
    assert_int_equal(r.total.store_requests, 1);
    assert_int_equal(rec.loads.n, 2);
    gpuest_sim_result_free(&r);

    /* the same with two loads only: they merge (the test above fails for the store's reason) */
    script_inst_t q[] = {mem(GPUEST_MEM_LOAD, LINE(4), 0, 1), mem(GPUEST_MEM_LOAD, LINE(4), 2, 1)};
    script_kernel(&s, 0, NULL, 3, 2, q);
    run(&c, &s, &rec, &r);
    assert_int_equal(r.total.warppool_merged, 1);
    assert_int_equal(r.total.warppool_accesses, 1);
    assert_int_equal(rec.loads.n, 2);
    gpuest_sim_result_free(&r);
}

/* One warp loads X, waits for it, loads X again (an L1 hit). The pool puts its latency on the
 * hit's critical path: the hit takes exactly warppool_latency cycles longer than without it. */
static uint64_t hit_cycles(int coalescing, int latency)
{
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, LINE(5), -1, 1), use(1), mem(GPUEST_MEM_LOAD, LINE(5), -1, 2)};
    script_kernel(&s, 0, NULL, 1, 3, p);
    gpuest_config_t c;
    machine(&c, coalescing, latency);
    rec_t rec;
    gpuest_sim_result_t r;
    run(&c, &s, &rec, &r);
    assert_int_equal(rec.loads.n, 2);
    assert_int_equal(rec.loads.hits[1], 1);
    assert_int_equal(r.total.l1_hits, 1);
    gpuest_sim_result_free(&r);
    return rec.loads.done[1] - rec.loads.issue[1];
}

static void test_latency_on_hit_path(void **st)
{
    (void)st;
    uint64_t base = hit_cycles(GPUEST_COALESCE_NONE, 2);
    assert_int_equal(hit_cycles(GPUEST_COALESCE_WARPPOOL, 2), base + 2);
    assert_int_equal(hit_cycles(GPUEST_COALESCE_WARPPOOL, 7), base + 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_warps_one_l1_access),
        cmocka_unit_test(test_fifo_order_and_merge_while_stalled),
        cmocka_unit_test(test_store_keeps_loads_apart),
        cmocka_unit_test(test_latency_on_hit_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
