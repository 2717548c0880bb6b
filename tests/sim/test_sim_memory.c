/* test_sim_memory.c: the memory side of the simulator against counts worked out by hand: L1 MSHR
 * reservation fails, L2 write-back / fetch-on-write / eviction, bounded L2 MSHR merging, sub-partitions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_source.h"

#define A GPUEST_MEMIMG_BASE

static script_inst_t mem(gpuest_mem_op_t op, uint64_t addr, uint32_t stride, int only_cta)
{
    return (script_inst_t){GPUEST_INST_MEM, op, GPUEST_LAT_ALU, addr, stride, 4, 1, only_cta, 0, 0, 0};
}

/* The data path alone: no instruction or constant fetch traffic. */
static void preset(gpuest_config_t *c, const char *name)
{
    gpuest_error_t e;
    assert_int_equal(gpuest_config_preset(c, name, &e), GPUEST_OK);
    c->core.perfect_inst_const_cache = 1;
}


static gpuest_err run(const gpuest_config_t *c, script_t *s, gpuest_sim_opts_t *o, gpuest_sim_result_t *r)
{
    gpuest_sim_source_t src;
    gpuest_error_t e = {0};
    script_source(&src, s);
    gpuest_err rc = gpuest_sim_run(c, &src, o, r, &e);
    if (rc != GPUEST_OK)
        printf("# %s\n", e.msg);
    return rc;
}

/* ---------------------------------------------------------------- L1 MSHRs */
typedef struct {
    int n;
    uint64_t cycle[128];
    int mc[128];
    uint64_t line[128];
} misses_t;

static void on_miss(void *ctx, const gpuest_sim_req_info_t *q, uint64_t cycle)
{
    misses_t *m = ctx;
    if (m->n < 128) {
        m->cycle[m->n] = cycle;
        m->line[m->n] = q->line;
        m->mc[m->n] = q->mc;
        m->n++;
    }
}

/* One SM; CTA 0 loads 32 lines, CTA 1 another 32 (one load instruction each, a
 * line per lane). Returns the L1-miss cycles and the reservation fails. */
static uint64_t mshr_run(int mshrs, misses_t *m)
{
    gpuest_config_t c;
    preset(&c, "fermi");
    c.core.num_sms = 1;
    c.l1.mshrs = mshrs;
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, A, 128, 0), mem(GPUEST_MEM_LOAD, A + 65536, 128, 1)};
    script_kernel(&s, 0, NULL, 2, 2, p);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    memset(m, 0, sizeof *m);
    o.hooks.ctx = m;
    o.hooks.l1_miss = on_miss;
    gpuest_sim_result_t r;
    assert_int_equal(run(&c, &s, &o, &r), GPUEST_OK);
    assert_int_equal(r.total.read_requests, 64);
    assert_int_equal(m->n, 64);
    uint64_t fails = r.total.l1_reservation_fails;
    assert_int_equal(fails, r.total.l1_mshr_stalls + r.total.l1_missq_stalls);
    gpuest_sim_result_free(&r);
    return fails;
}

static void test_l1_mshr_reservation_fail(void **st)
{
    (void)st;
    misses_t m32, m64;
    uint64_t f32 = mshr_run(32, &m32), f64 = mshr_run(64, &m64);
    /* GTX480: 32 MSHRs taken at miss time. The 33rd line must wait for the first
     * fill: an isolated DRAM read alone is 242 core cycles of memory latency. */
    printf("# 32 MSHRs: miss 32 at %llu (miss 31 at %llu), %llu reservation fails; 64 MSHRs: miss 32 at %llu\n",
           (unsigned long long)m32.cycle[32], (unsigned long long)m32.cycle[31], (unsigned long long)f32,
           (unsigned long long)m64.cycle[32]);
    assert_true(m32.cycle[31] < 100);
    assert_true(m32.cycle[32] > 240);
    /* with 64 the second load's lines follow at once (the miss queue's pace) */
    assert_true(m64.cycle[32] - m64.cycle[31] <= 3);
    assert_true(f32 > f64 + 100); /* every waiting cycle of the 33rd line failed reservation */
}

/* ---------------------------------------------------------------- L2 write policy */
static void test_l2_write_back_fetch_on_write(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    /* fermi L2: 6 channels x 2 sub-partitions of 32 KB, 8-way, 128-byte lines: 32
     * sets; addr -> channel (addr / 256) mod 6, sub-partition bit 7, set (addr /
     * 1536) mod 32. A + k x 49152 (= 1536 x 32) is in A's channel, sub-partition
     * and set for every k. */
    script_t s = {0};
    script_inst_t store[] = {mem(GPUEST_MEM_STORE, A, 4, -1)}; /* one whole line */
    script_inst_t fill_set[] = {mem(GPUEST_MEM_LOAD, A + 49152, 49152, -1)}; /* 32 lines of A's set */
    script_kernel(&s, 0, NULL, 1, 1, store);
    script_kernel(&s, 1, NULL, 1, 1, store);
    script_kernel(&s, 2, NULL, 1, 1, fill_set);
    gpuest_sim_result_t r;
    assert_int_equal(run(&c, &s, NULL, &r), GPUEST_OK);
    const gpuest_sim_stats_t *k0 = &r.kernels[0], *k1 = &r.kernels[1], *k2 = &r.kernels[2];
    /* write miss: the write goes to DRAM and the line is fetched (GPGPU-Sim 3.x 'W') */
    assert_int_equal(k0->l2_misses, 1);
    assert_int_equal(k0->dram_writes, 1);
    assert_int_equal(k0->dram_reads, 1);
    /* the fetched line is present: a write hit stays in the L2 (write-back) */
    assert_int_equal(k1->l2_hits, 1);
    assert_int_equal(k1->dram_writes, 0);
    assert_int_equal(k1->dram_reads, 0);
    /* 32 reads to the set: 7 take the invalid ways, the 8th evicts the dirty line
     * (one write-back); the later ones evict clean lines */
    assert_int_equal(k2->l2_misses, 32);
    assert_int_equal(k2->dram_reads, 32);
    assert_int_equal(k2->dram_writes, 1);
    assert_int_equal(r.requests_sent, r.replies_received);
    gpuest_sim_result_free(&r);
}

/* ---------------------------------------------------------------- L2 MSHR merging */
static void merge_run(int merge, uint64_t expect_misses, uint64_t expect_merges, uint64_t expect_hits)
{
    gpuest_config_t c;
    preset(&c, "fermi");
    c.l2.mshr_merge = merge;
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, A, 4, -1)};
    script_kernel(&s, 0, NULL, 5, 1, p); /* five CTAs on five SMs read line A at the same time */
    gpuest_sim_result_t r;
    assert_int_equal(run(&c, &s, NULL, &r), GPUEST_OK);
    assert_int_equal(r.total.read_requests, 5);
    assert_int_equal(r.total.dram_reads, 1);
    assert_int_equal(r.total.l2_misses, expect_misses);
    assert_int_equal(r.total.l2_mshr_merges, expect_merges);
    assert_int_equal(r.total.l2_hits, expect_hits);
    gpuest_sim_result_free(&r);
}

static void test_l2_mshr_merge_bound(void **st)
{
    (void)st;
    merge_run(4, 4, 3, 1); /* GTX480 A:32:4: an entry holds 4 requests; the 5th waits and hits */
    merge_run(8, 5, 4, 0); /* room for all five */
}

/* ---------------------------------------------------------------- sub-partitions */
typedef struct {
    int n;
    int mc[8];
    uint64_t line[8];
} accepts_t;

static void on_accept(void *ctx, const gpuest_sim_req_info_t *q, uint64_t cycle)
{
    (void)cycle;
    accepts_t *a = ctx;
    if (a->n < 8) {
        a->mc[a->n] = q->mc;
        a->line[a->n] = q->line;
        a->n++;
    }
}

static void test_sub_partitions(void **st)
{
    (void)st;
    for (int mesh = 0; mesh <= 1; mesh++) {
        gpuest_config_t c;
        preset(&c, mesh ? "mesh56" : "fermi");
        script_t s = {0};
        script_inst_t p[] = {mem(GPUEST_MEM_LOAD, A + 256 * 3, 8, -1)}; /* lines A + 768 and A + 896 */
        script_kernel(&s, 0, NULL, 1, 1, p);
        accepts_t a = {0};
        gpuest_sim_opts_t o;
        gpuest_sim_opts_default(&o);
        o.hooks.ctx = &a;
        o.hooks.mc_accept = on_accept;
        gpuest_sim_result_t r;
        assert_int_equal(run(&c, &s, &o, &r), GPUEST_OK);
        assert_int_equal(a.n, 2);
        int first = a.line[0] < a.line[1] ? 0 : 1;
        int chan = gpuest_config_mc_of_address(&c, A + 768);
        if (mesh) { /* one node per channel */
            assert_int_equal(a.mc[first], chan);
            assert_int_equal(a.mc[1 - first], chan);
        } else { /* GTX480: two sub-partitions per channel, alternate lines */
            assert_int_equal(a.mc[first], 2 * chan);
            assert_int_equal(a.mc[1 - first], 2 * chan + 1);
        }
        gpuest_sim_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_l1_mshr_reservation_fail),
        cmocka_unit_test(test_l2_write_back_fetch_on_write),
        cmocka_unit_test(test_l2_mshr_merge_bound),
        cmocka_unit_test(test_sub_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
