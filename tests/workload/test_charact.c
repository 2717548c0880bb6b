/* test_charact.c: characterization statistics on hand-written CSV traces with answers worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "run_program.h"
#include "workload/workload.h"

#define TMP GPUEST_BINARY_DIR "/workload_test_tmp"

typedef struct {
    gpuest_charact_t s[4];
    int n;
    int lines;
} got_t;

static gpuest_err on_stats(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)err;
    got_t *g = ctx;
    if (g->n < 4)
        g->s[g->n++] = *s;
    return GPUEST_OK;
}

static gpuest_err on_line(void *ctx, const gpuest_memimg_t *img, uint64_t line, gpuest_error_t *err)
{
    (void)img, (void)err;
    got_t *g = ctx;
    g->lines++;
    assert_int_equal(line % 128, 0);
    return GPUEST_OK;
}

static void run(const char *text, const gpuest_charact_opts_t *o, got_t *g)
{
    mkdir(TMP, 0755);
    test_write_text(TMP "/ch.csv", text);
    gpuest_workload_t *wl;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_csv(TMP "/ch.csv", NULL, &wl, &err);
    if (rc != GPUEST_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, GPUEST_OK);
    memset(g, 0, sizeof *g);
    assert_int_equal(gpuest_workload_characterize(wl, o, on_stats, on_line, g, NULL, &err), GPUEST_OK);
    gpuest_workload_destroy(wl);
}

/* Two CTAs of one warp go to SMs 0 and 1 and issue in turn:
 *   t0 SM0: lanes 0-7 read bytes 0..31 of line L      (1 sector, nobody before: not shared)
 *   t1 SM1: 32 lanes read all of L                    (4 sectors, SM0 read L at t0: shared)
 *   t2 SM0: lanes 0-7 read bytes 32..63 of L          (1 sector, SM1 read L at t1: shared)
 * SM0's generation of L grows from sector 0 to sectors 0-1: inconsistent, 2 sectors.
 * SM1's generation: consistent, 4 sectors. */
static void test_sharing_and_consistency(void **state)
{
    (void)state;
    char text[4096], a0[400] = "", a1[800] = "", a2[400] = "";
    for (int k = 0; k < 32; k++) {
        char b[32];
        if (k < 8) {
            snprintf(b, sizeof b, "%s0x%x", k ? " " : "", 0x10000 + 4 * k);
            strcat(a0, b);
            snprintf(b, sizeof b, "%s0x%x", k ? " " : "", 0x10020 + 4 * k);
            strcat(a2, b);
        }
        snprintf(b, sizeof b, "%s0x%x", k ? " " : "", 0x10000 + 4 * k);
        strcat(a1, b);
    }
    snprintf(text, sizeof text,
             "gpuest_trace,1\nkernel,0,k,2,1,1,32,1,1,0,8\n"
             "inst,0,0,0,1,load,4,000000ff,%s\ninst,0,0,0,2,alu,0,ffffffff,\ninst,0,0,0,3,load,4,000000ff,%s\n"
             "inst,0,1,0,1,load,4,ffffffff,%s\n",
             a0, a2, a1);
    gpuest_charact_opts_t o;
    gpuest_charact_opts_default(&o);
    o.num_sms = 2;
    got_t g;
    run(text, &o, &g);
    assert_int_equal(g.n, 1);
    const gpuest_charact_t *s = &g.s[0];
    assert_int_equal(s->warps, 2);
    assert_int_equal(s->warp_instructions, 4);
    assert_int_equal(s->mem_instructions, 3);
    assert_int_equal(s->line_requests, 3);
    assert_int_equal(s->read_requests, 3);
    assert_int_equal(s->req_by_sectors[0], 2);
    assert_int_equal(s->req_by_sectors[3], 1);
    assert_int_equal(s->pdr, 2);
    assert_int_equal(s->fdr, 1);
    assert_int_equal(s->shared_requests, 2);
    /* t0 and t1 miss their SM's L1 (the second is a miss to a line SM0's miss asked for: shared);
     * t2 finds L in SM0's L1 (whole-line fills): a hit, not counted */
    assert_int_equal(s->read_by_sectors[0], 2);
    assert_int_equal(s->read_by_sectors[3], 1);
    assert_int_equal(s->miss_reads, 2);
    assert_int_equal(s->shared_misses, 1);
    assert_int_equal(s->gen_ica[1], 1);
    assert_int_equal(s->gen_ca[3], 1);
    assert_int_equal(s->gen_ca[0] + s->gen_ca[1] + s->gen_ca[2] + s->gen_ica[2] + s->gen_ica[3], 0);
    assert_int_equal(s->distinct_lines, 1);
    assert_int_equal(g.lines, 1);
    /* On one SM nothing is shared between SMs. */
    o.num_sms = 1;
    run(text, &o, &g);
    assert_int_equal(g.s[0].shared_requests, 0);
}

/* A direct-mapped 4-line L1: lines L and L + 512 share a set, so reading L, L+512, L gives three
 * generations of one sector each, all consistent; a store makes no generation. Two kernels give
 * two rows. */
static void test_eviction(void **state)
{
    (void)state;
    const char *text = "gpuest_trace,1\nkernel,0,a,1,1,1,32,1,1,0,8\n"
                       "inst,0,0,0,1,load,4,00000001,0x20000\n"
                       "inst,0,0,0,2,load,4,00000001,0x20200\n"
                       "inst,0,0,0,3,load,4,00000001,0x20004\n"
                       "inst,0,0,0,4,store,4,00000001,0x20400\n"
                       "kernel,1,b,1,1,1,32,1,1,0,8\n"
                       "inst,1,0,0,1,load,8,00000003,0x30000 0x30078\n";
    gpuest_charact_opts_t o;
    gpuest_charact_opts_default(&o);
    o.l1_lines = 4;
    o.l1_assoc = 1;
    got_t g;
    run(text, &o, &g);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.s[0].kernel, "a");
    assert_int_equal(g.s[0].gen_ca[0], 3);
    assert_int_equal(g.s[0].line_requests, 4);
    assert_int_equal(g.s[0].read_requests, 3);
    assert_int_equal(g.s[0].distinct_lines, 3);
    /* kernel b: 8 bytes at 0x30000 (sector 0) and 0x30078 (sector 3), one half-warp: one request */
    assert_int_equal(g.s[1].line_requests, 1);
    assert_int_equal(g.s[1].req_by_sectors[1], 1);
    assert_int_equal(g.s[1].gen_ca[1], 1);
    assert_int_equal(g.s[1].launch, 1);
    /* bad options are refused */
    o.l1_lines = 6;
    o.l1_assoc = 4;
    gpuest_workload_t *wl;
    gpuest_error_t err;
    assert_int_equal(gpuest_workload_open_csv(TMP "/ch.csv", NULL, &wl, &err), GPUEST_OK);
    assert_int_equal(gpuest_workload_characterize(wl, &o, NULL, NULL, NULL, NULL, &err), GPUEST_EINVAL);
    gpuest_workload_destroy(wl);
}

/* The greedy-burst order (gto_bursts) and the turn callback on two warps of one CTA, each
 *   pc1 load A (dst 8), pc2 load B (dst 9), pc3 alu reads 8, pc4 load C (dst 10):
 * one instruction a turn walks A0 A1 B0 B1 C0 C1 (10 turns: 4 instructions and the end each);
 * bursts stop at the alu that needs the first load: A0 B0 A1 B1 C0 C1 in 4 turns (the end is
 * found inside the second burst). Fails when a burst ignores the registers (A0 B0 C0 ...), does
 * not stop at the use, loses the held instruction (C missing) or names the warps wrongly. */
typedef struct {
    uint64_t lines[16];
    int n;
    uint32_t turns[16];
    int nturns;
} order_t;

static gpuest_err on_order_access(void *ctx, const gpuest_memimg_t *img, int sm, uint64_t line, int is_load,
                                  gpuest_error_t *err)
{
    (void)img, (void)sm, (void)is_load, (void)err;
    order_t *o = ctx;
    if (o->n < 16)
        o->lines[o->n++] = line;
    return GPUEST_OK;
}

static gpuest_err on_order_turn(void *ctx, int sm, uint32_t warp, gpuest_error_t *err)
{
    (void)sm, (void)err;
    order_t *o = ctx;
    if (o->nturns < 16)
        o->turns[o->nturns++] = warp;
    return GPUEST_OK;
}

static void walk_order(int bursts, order_t *got)
{
    const char *text = "gpuest_trace,2\nkernel,0,k,1,1,1,64,1,1,0,16\n"
                       "inst,0,0,0,1,load,4,00000001,0x10000,8,\n"
                       "inst,0,0,0,2,load,4,00000001,0x10100,9,\n"
                       "inst,0,0,0,3,alu,0,00000001,,1,8\n"
                       "inst,0,0,0,4,load,4,00000001,0x10200,10,\n"
                       "inst,0,0,1,1,load,4,00000001,0x20000,8,\n"
                       "inst,0,0,1,2,load,4,00000001,0x20100,9,\n"
                       "inst,0,0,1,3,alu,0,00000001,,1,8\n"
                       "inst,0,0,1,4,load,4,00000001,0x20200,10,\n";
    mkdir(TMP, 0755);
    test_write_text(TMP "/order.csv", text);
    gpuest_workload_t *wl;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_csv(TMP "/order.csv", NULL, &wl, &err);
    if (rc != GPUEST_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, GPUEST_OK);
    gpuest_charact_opts_t o;
    gpuest_charact_opts_default(&o);
    o.num_sms = 1;
    o.gto_bursts = bursts;
    o.access_cb = on_order_access;
    o.turn_cb = on_order_turn;
    memset(got, 0, sizeof *got);
    o.access_ctx = got;
    assert_int_equal(gpuest_workload_characterize(wl, &o, NULL, NULL, NULL, NULL, &err), GPUEST_OK);
    gpuest_workload_destroy(wl);
}

static void test_gto_bursts(void **state)
{
    (void)state;
    order_t g;
    walk_order(0, &g);
    const uint64_t lockstep[6] = {0x10000, 0x20000, 0x10100, 0x20100, 0x10200, 0x20200};
    assert_int_equal(g.n, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(g.lines[i], lockstep[i]);
    assert_int_equal(g.nturns, 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(g.turns[i], (uint32_t)(i % 2));
    walk_order(1, &g);
    const uint64_t burst[6] = {0x10000, 0x10100, 0x20000, 0x20100, 0x10200, 0x20200};
    assert_int_equal(g.n, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(g.lines[i], burst[i]);
    assert_int_equal(g.nturns, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(g.turns[i], (uint32_t)(i % 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sharing_and_consistency),
        cmocka_unit_test(test_eviction),
        cmocka_unit_test(test_gto_bursts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
