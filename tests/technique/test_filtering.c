/* test_filtering.c: critical-word data filtering (technique.filtering).
 *  - the simulator's L1D sector mode on hand-built access sequences, driven by test hooks in
 *    place of the request controller: FM, HI and SM misses, the exact sectors each request asks
 *    for (the MSHR bitmap), merging, and a fill that waits for every sub-request;
 *  - the technique through its hooks: the data-filter table (OR-merging, overflow to FDR), DF-MAN
 *    keeping the better of original and zero-filled input, DF-TRUC's packet size worked by hand,
 *    the request controller's thresholds;
 *  - the configuration checks (compositions it rejects). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../sim/script_source.h"
#include "tech_stat.h"
#include "technique/technique.h"

#define BASE GPUEST_MEMIMG_BASE

/* ------------------------------------------------------------ the simulator's sector mode */
typedef struct {
    unsigned answer;    /* the request controller's answer: 0 = only the critical sectors, else this mask */
    unsigned sm_answer; /* its answer to SM misses (0: as answer) */
    int whole_reply;    /* 1: every reply carries the whole line (as an overflowed PDR) */
    int nmiss, kinds[16];
    unsigned asked[16]; /* sectors of each request the MC accepted, in acceptance order */
    int naccept;
    int nwin;
    unsigned win_used[16];
    int win_ica[16];
    script_loads_t loads;
} probe_t;

static unsigned p_request(void *ctx, const gpuest_sim_sector_miss_t *m)
{
    probe_t *p = ctx;
    if (p->nmiss < 16)
        p->kinds[p->nmiss] = m->kind;
    p->nmiss++;
    if (m->kind == GPUEST_SIM_MISS_SM && p->sm_answer)
        return p->sm_answer;
    return p->answer ? p->answer : m->need;
}

static void p_accept(void *ctx, const gpuest_sim_req_info_t *req, uint64_t cyc)
{
    (void)cyc;
    probe_t *p = ctx;
    if (p->naccept < 16)
        p->asked[p->naccept] = req->sectors;
    p->naccept++;
}

static void p_reply(void *ctx, const gpuest_sim_req_info_t *req, const uint8_t *data, gpuest_sim_reply_t *r)
{
    (void)data;
    probe_t *p = ctx;
    r->sectors = p->whole_reply ? 0 : req->sectors;
}

static void p_window(void *ctx, int sm, unsigned used, int ica, int evicted)
{
    (void)sm;
    (void)evicted;
    probe_t *p = ctx;
    if (p->nwin < 16) {
        p->win_used[p->nwin] = used;
        p->win_ica[p->nwin] = ica;
    }
    p->nwin++;
}

/* A load of `bytes` contiguous bytes at BASE + off (one lane each byte up to 32, stride 1 or 2). */
static script_inst_t load(uint64_t off, uint32_t stride, uint8_t dst, uint8_t src)
{
    return (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, BASE + off, stride, 1, 1, -1, dst, src, 0};
}

static void on_load(void *ctx, int sm, int slot, uint64_t issue, uint64_t done, int hits, int misses)
{
    script_on_load(&((probe_t *)ctx)->loads, sm, slot, issue, done, hits, misses);
}

static void run(probe_t *p, int n, const script_inst_t *insts, gpuest_sim_result_t *r)
{
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "fermi", NULL), GPUEST_OK);
    c.core.perfect_inst_const_cache = 1;
    script_t s = {0};
    script_kernel(&s, 0, NULL, 1, n, insts);
    gpuest_sim_source_t src;
    script_source(&src, &s);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = p;
    o.hooks.l1_sector_request = p_request;
    o.hooks.l1_sector_window = p_window;
    o.hooks.mc_accept = p_accept;
    o.hooks.mc_reply = p_reply;
    o.hooks.load_done = on_load;
    gpuest_error_t e = {0};
    if (gpuest_sim_run(&c, &src, &o, r, &e) != GPUEST_OK)
        fail_msg("simulation failed: %s", e.msg);
}

/* Sector 0 of a line (FM), then, once it is filled, sector 2 (HI: the line is cached without it),
 * then sector 0 again (a hit on the partial line). Each request asks for its sector alone. */
static void test_fm_then_hi_then_hit(void **state)
{
    (void)state;
    probe_t p = {0};
    script_inst_t in[] = {load(0, 1, 1, 0), load(64, 1, 2, 1), load(0, 1, 3, 2)};
    gpuest_sim_result_t r;
    run(&p, 3, in, &r);
    assert_int_equal(p.nmiss, 2);
    assert_int_equal(p.kinds[0], GPUEST_SIM_MISS_FM);
    assert_int_equal(p.kinds[1], GPUEST_SIM_MISS_HI);
    assert_int_equal(p.naccept, 2);
    assert_int_equal(p.asked[0], 0x1);
    assert_int_equal(p.asked[1], 0x4);
    assert_int_equal(r.total.l1_accesses, 3);
    assert_int_equal(r.total.l1_hits, 1);
    assert_int_equal(r.total.read_requests, 2);
    /* the HI's entry used sectors 0 and 2 of the line, and the second need was outside the first */
    assert_int_equal(p.nwin, 2);
    assert_int_equal(p.win_used[0], 0x1);
    assert_int_equal(p.win_ica[0], 0);
    assert_int_equal(p.win_used[1], 0x5);
    assert_int_equal(p.win_ica[1], 1);
    gpuest_sim_result_free(&r);
}

/* Three independent loads issue back to back while the first is pending: sector 0 (FM), sectors
 * 0-1 (SM: the MSHR bitmap holds 0 only, so exactly sector 1 is sent), sector 1 (merged: asked
 * for already). */
static void test_subsequent_miss_sends_exactly_the_missing_sectors(void **state)
{
    (void)state;
    probe_t p = {0};
    script_inst_t in[] = {load(0, 1, 1, 0), load(0, 2, 2, 0), load(32, 1, 3, 0)};
    gpuest_sim_result_t r;
    run(&p, 3, in, &r);
    assert_int_equal(p.nmiss, 2);
    assert_int_equal(p.kinds[0], GPUEST_SIM_MISS_FM);
    assert_int_equal(p.kinds[1], GPUEST_SIM_MISS_SM);
    assert_int_equal(p.naccept, 2);
    assert_int_equal(p.asked[0], 0x1);
    assert_int_equal(p.asked[1], 0x2);
    assert_int_equal(r.total.l1_mshr_merges, 1);
    assert_int_equal(r.total.read_requests, 2);
    gpuest_sim_result_free(&r);
}

/* The request controller asks for the whole line at an SM miss: the bitmap already holds sector 0,
 * so the sub-request carries the other three (0xE), never sector 0 again. And with the whole line
 * asked at the FM, a later need of that line merges: nothing more is sent. */
static void test_subsequent_miss_whole_line_skips_requested_sectors(void **state)
{
    (void)state;
    probe_t p = {.sm_answer = 0xF};
    script_inst_t in[] = {load(0, 1, 1, 0), load(64, 1, 2, 0)};
    gpuest_sim_result_t r;
    run(&p, 2, in, &r);
    assert_int_equal(p.naccept, 2);
    assert_int_equal(p.asked[0], 0x1);
    assert_int_equal(p.asked[1], 0xE);
    gpuest_sim_result_free(&r);
    probe_t q = {.answer = 0xF};
    run(&q, 2, in, &r);
    assert_int_equal(q.naccept, 1);
    assert_int_equal(q.asked[0], 0xF);
    assert_int_equal(q.nmiss, 1);
    assert_int_equal(r.total.l1_mshr_merges, 1);
    gpuest_sim_result_free(&r);
}

/* The FM's reply comes back first, but the line becomes valid (and its waiting loads complete) only
 * when the SM's sub-request is back too: both loads complete in the same cycle, later than a lone
 * sector-0 load does. */
static void test_fill_waits_for_every_sub_request(void **state)
{
    (void)state;
    probe_t p = {0};
    script_inst_t two[] = {load(0, 1, 1, 0), load(64, 1, 2, 0)};
    gpuest_sim_result_t r;
    run(&p, 2, two, &r);
    assert_int_equal(p.loads.n, 2);
    assert_true(p.loads.done[0] == p.loads.done[1]);
    gpuest_sim_result_free(&r);
    probe_t q = {0};
    run(&q, 1, two, &r);
    assert_int_equal(q.loads.n, 1);
    assert_true(q.loads.done[0] < p.loads.done[0]);
    gpuest_sim_result_free(&r);
}

/* A reply that carries the whole line (the MC served the PDR whole) empties the bitmap at once:
 * the entry completes before the sub-request's own reply, which is absorbed when it arrives (the
 * run ends with every request answered once: the simulator checks). */
static void test_whole_reply_completes_entry_early(void **state)
{
    (void)state;
    probe_t p = {.whole_reply = 1};
    script_inst_t two[] = {load(0, 1, 1, 0), load(64, 1, 2, 0), load(96, 1, 3, 2)};
    gpuest_sim_result_t r;
    run(&p, 3, two, &r);
    assert_int_equal(p.naccept, 2); /* the third load hits: the line is whole */
    assert_int_equal(r.total.l1_hits, 1);
    assert_int_equal(r.requests_sent, r.replies_received);
    assert_int_equal(r.outstanding, 0);
    gpuest_sim_result_free(&r);
}

/* ------------------------------------------------------------ the technique through its hooks */
typedef struct {
    gpuest_config_t cfg;
    gpuest_memimg_t *img;
    gpuest_technique_set_t *set;
    gpuest_sim_hooks_t h;
} tf_t;

static void tech(tf_t *f, int mode, int table)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(gpuest_config_preset(&f->cfg, "mesh56", NULL), GPUEST_OK);
    f->cfg.technique.filtering = mode;
    f->cfg.technique.filter_table_entries = table;
    gpuest_error_t e = {0};
    gpuest_alloc_t *a = NULL;
    assert_int_equal(gpuest_memimg_create(&f->img, &e), GPUEST_OK);
    assert_int_equal(gpuest_memimg_alloc(f->img, "a", GPUEST_DT_UINT32, 4096, &a, &e), GPUEST_OK);
    gpuest_memimg_set_has_values(f->img, 1);
    gpuest_technique_env_t env = {&f->cfg, f->img, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    assert_int_equal(gpuest_technique_set_create(&env, &f->h, &f->set, &e), GPUEST_OK);
    assert_non_null(f->h.l1_sector_request);
    assert_non_null(f->h.mc_accept);
    assert_non_null(f->h.mc_reply);
}

static void tech_done(tf_t *f)
{
    gpuest_technique_set_destroy(f->set);
    gpuest_memimg_destroy(f->img);
}

static double stat(tf_t *f, const char *name) { return tech_stat(f->set, name); }

static void accept(tf_t *f, int32_t id, int sm, uint64_t line, unsigned sectors)
{
    gpuest_sim_req_info_t info = {line, (uint8_t)sectors, GPUEST_MEM_LOAD, sm, 0, id, sectors != 0xF};
    f->h.mc_accept(f->h.ctx, &info, 0);
}

static gpuest_sim_reply_t reply(tf_t *f, int32_t id, int sm, uint64_t line, unsigned sectors, const uint8_t *data)
{
    gpuest_sim_req_info_t info = {line, (uint8_t)sectors, GPUEST_MEM_LOAD, sm, 0, id, sectors != 0xF};
    gpuest_sim_reply_t r = {.flits = 9};
    f->h.mc_reply(f->h.ctx, &info, data, &r);
    return r;
}

static int flits_of(const tf_t *f, uint32_t bits)
{
    return gpuest_packet_flits(bits, f->cfg.noc.flit_bytes, f->cfg.noc.header_bytes);
}

/* Two PDRs of one SM and line merge (OR) in one entry: the first reply carries both regions and the
 * second, whose sectors went with it, is a header-only packet carrying none (thesis 3.4.1.3.1: one
 * merged reply with "1100"); another SM's PDR of the line has its own entry; a PDR that joins the
 * entry after its first reply is owed its own sectors. */
static void test_table_or_merges_same_sm_and_line(void **state)
{
    (void)state;
    tf_t f;
    tech(&f, GPUEST_FILTER_DF_TRUC, 256);
    uint8_t zero[128] = {0};
    accept(&f, 1, 3, 0x1000, 0x1);
    accept(&f, 2, 3, 0x1000, 0x4);
    accept(&f, 3, 4, 0x1000, 0x8);
    assert_int_equal(reply(&f, 1, 3, 0x1000, 0x1, zero).sectors, 0x5);
    accept(&f, 4, 3, 0x1000, 0x2); /* the entry lives on (request 2 has no reply yet) */
    assert_int_equal(reply(&f, 3, 4, 0x1000, 0x8, zero).sectors, 0x8);
    gpuest_sim_reply_t r = reply(&f, 2, 3, 0x1000, 0x4, zero);
    assert_int_equal(r.sectors, 0x2); /* request 4's sector: owed, carried by the next reply */
    r = reply(&f, 4, 3, 0x1000, 0x2, zero);
    assert_int_equal(r.sectors, GPUEST_SIM_REPLY_NO_SECTORS);
    assert_int_equal(r.flits, 1);
    assert_true(stat(&f, "filtering.table_merged") == 2);
    assert_true(stat(&f, "filtering.merged_empty_replies") == 1);
    assert_true(stat(&f, "filtering.table_overflows") == 0);
    tech_done(&f);
}

/* A two-entry table: the third PDR with a new key overflows and is served whole (sector map 0xF,
 * plain DPC); once a reply frees an entry a new PDR registers again. */
static void test_table_overflow_serves_whole_line(void **state)
{
    (void)state;
    tf_t f;
    tech(&f, GPUEST_FILTER_DF_TRUC, 2);
    uint8_t zero[128] = {0};
    accept(&f, 1, 0, 0x1000, 0x1);
    accept(&f, 2, 0, 0x2000, 0x1);
    accept(&f, 3, 0, 0x3000, 0x1);
    accept(&f, 4, 0, 0x1000, 0x2); /* a key already held still merges */
    assert_true(stat(&f, "filtering.table_overflows") == 1);
    assert_int_equal(reply(&f, 3, 0, 0x3000, 0x1, zero).sectors, 0xF);
    assert_int_equal(reply(&f, 1, 0, 0x1000, 0x1, zero).sectors, 0x3);
    assert_int_equal(reply(&f, 4, 0, 0x1000, 0x2, zero).sectors, GPUEST_SIM_REPLY_NO_SECTORS); /* frees it */
    accept(&f, 5, 0, 0x5000, 0x4);
    assert_true(stat(&f, "filtering.table_overflows") == 1);
    assert_int_equal(reply(&f, 5, 0, 0x5000, 0x4, zero).sectors, 0x4);
    tech_done(&f);
}

/* DF-TRUC of an all-zero line with one critical sector: 8 words, every plane uniform: C + 32
 * status bits + 32 plane values = 65 bits; payload 64 + the 4-bit sector map = 68 bits. A whole
 * line (FDR) of zeros: 64 bits of DPC payload. */
static void test_df_truc_size_by_hand(void **state)
{
    (void)state;
    tf_t f;
    tech(&f, GPUEST_FILTER_DF_TRUC, 256);
    uint8_t zero[128] = {0};
    accept(&f, 1, 0, 0x1000, 0x1);
    gpuest_sim_reply_t r = reply(&f, 1, 0, 0x1000, 0x1, zero);
    assert_int_equal(r.flits, flits_of(&f, 68));
    assert_int_equal(r.fill_delay, 1);
    assert_int_equal(r.inject_delay, 2);
    r = reply(&f, 2, 0, 0x1000, 0xF, zero);
    assert_int_equal(r.flits, flits_of(&f, 64));
    tech_done(&f);
}

/* DF-MAN keeps the better input. (a) sector 0 zero, sectors 1-3 random: the original line does
 * not compress (payload 1024 bits), the zero-filled one is all zero (68 bits): manipulated wins.
 * (b) a line of all ones: the original is 32 uniform planes (64 bits), zero-filling three sectors
 * breaks every plane: the original must be kept, so the reply is no larger than plain DPC. */
static void test_df_man_keeps_better_input(void **state)
{
    (void)state;
    tf_t f;
    tech(&f, GPUEST_FILTER_DF_MAN, 256);
    uint8_t line[128] = {0};
    uint32_t x = 12345u;
    for (int i = 32; i < 128; i++) {
        x = x * 1103515245u + 12345u;
        line[i] = (uint8_t)(x >> 16);
    }
    accept(&f, 1, 0, 0x1000, 0x1);
    gpuest_sim_reply_t r = reply(&f, 1, 0, 0x1000, 0x1, line);
    assert_int_equal(r.flits, flits_of(&f, 68));
    assert_true(stat(&f, "filtering.man_chose_zero_filled") == 1);
    uint8_t ones[128];
    memset(ones, 0xFF, sizeof ones);
    accept(&f, 2, 0, 0x2000, 0x1);
    r = reply(&f, 2, 0, 0x2000, 0x1, ones);
    assert_int_equal(r.flits, flits_of(&f, 64 + 4));
    assert_true(stat(&f, "filtering.man_chose_zero_filled") == 1);
    assert_int_equal(r.inject_delay, 3); /* DPC + the compare-and-select stage */
    tech_done(&f);
}

static void window(tf_t *f, int sm, unsigned used, int ica)
{
    f->h.l1_sector_window(f->h.ctx, sm, used, ica, 0);
}

static unsigned ask(tf_t *f, int sm, int kind, unsigned need, unsigned used)
{
    gpuest_sim_sector_miss_t m = {sm, 0x1000, kind, (uint8_t)need, 0, (uint8_t)used, 0};
    return f->h.l1_sector_request(f->h.ctx, &m);
}

/* Request controller (thesis Fig. 4.5) with window 16, ICA threshold 50 %, FDR threshold 90 %:
 * 8 ICA of 16 in the 64-B window is not above 50 % (critical sectors), 9 is (whole line); the
 * 96-B window is separate; an SM miss fetches the whole line; 15 FDRs of 16 (93.75 %) force
 * whole lines even for a consistent pattern, 14 (87.5 %) do not. */
static void test_request_controller_thresholds(void **state)
{
    (void)state;
    tf_t f;
    tech(&f, GPUEST_FILTER_DF_MAN, 256);
    for (int k = 0; k < 16; k++)
        window(&f, 0, 0x3, k >= 8);
    assert_int_equal(ask(&f, 0, GPUEST_SIM_MISS_FM, 0x1, 0x1), 0x1);
    assert_int_equal(ask(&f, 0, GPUEST_SIM_MISS_FM, 0x1, 0x3), 0x1);
    window(&f, 0, 0x3, 1); /* pushes out a consistent outcome: 9 of 16 */
    assert_int_equal(ask(&f, 0, GPUEST_SIM_MISS_FM, 0x1, 0x3), 0xF);
    assert_int_equal(ask(&f, 0, GPUEST_SIM_MISS_HI, 0x1, 0x7), 0x1); /* 96-B window: empty */
    assert_int_equal(ask(&f, 1, GPUEST_SIM_MISS_FM, 0x1, 0x3), 0x1); /* another SM's windows */
    assert_int_equal(ask(&f, 1, GPUEST_SIM_MISS_SM, 0x2, 0x3), 0xF);
    for (int k = 0; k < 16; k++)
        window(&f, 2, k < 2 ? 0x1 : 0xF, 0);
    assert_int_equal(ask(&f, 2, GPUEST_SIM_MISS_FM, 0x1, 0x1), 0x1);
    window(&f, 2, 0xF, 0);
    assert_int_equal(ask(&f, 2, GPUEST_SIM_MISS_FM, 0x1, 0x1), 0xF);
    tech_done(&f);
}

/* ------------------------------------------------------------ configuration */
static void test_rejected_compositions(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "mesh56", NULL), GPUEST_OK);
    c.technique.filtering = GPUEST_FILTER_DF_MAN;
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    /* the estimator has a transform (filtering_model.c, tests/technique/test_tech_model.c) */
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_MODEL, &e), GPUEST_OK);
    snprintf(c.technique.compression, sizeof c.technique.compression, "dpc");
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "technique.compression"));
    assert_int_equal(gpuest_config_preset(&c, "fermi", NULL), GPUEST_OK); /* a machine PCUs accept */
    c.technique.filtering = GPUEST_FILTER_DF_TRUC;
    c.technique.coalescing = GPUEST_COALESCE_PCU;
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "technique.coalescing"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fm_then_hi_then_hit),
        cmocka_unit_test(test_subsequent_miss_sends_exactly_the_missing_sectors),
        cmocka_unit_test(test_subsequent_miss_whole_line_skips_requested_sectors),
        cmocka_unit_test(test_fill_waits_for_every_sub_request),
        cmocka_unit_test(test_whole_reply_completes_entry_early),
        cmocka_unit_test(test_table_or_merges_same_sm_and_line),
        cmocka_unit_test(test_table_overflow_serves_whole_line),
        cmocka_unit_test(test_df_truc_size_by_hand),
        cmocka_unit_test(test_df_man_keeps_better_input),
        cmocka_unit_test(test_request_controller_thresholds),
        cmocka_unit_test(test_rejected_compositions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
