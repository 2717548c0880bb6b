/* test_coalescing.c: packet coalescing units (technique.coalescing = pcu).
 *  - through the technique's hooks alone: grouping, RGR-full refusal, a write to a grouped block,
 *    the ring-buffer order of stage 2 and its round robin with writes;
 *  - in the simulator: reads of one block from several SMs become one L2 access and one multicast
 *    reply that reaches exactly those SMs, once each; stage 1 keeps grouping while the L2 path is
 *    blocked;
 *  - the configuration checks (exit-code-2 errors). */
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

#define LINE_A UINT64_C(0x1000)
#define LINE_B UINT64_C(0x2000)
#define LINE_C UINT64_C(0x3000)

static void pcu_config(gpuest_config_t *c, int rgrs)
{
    assert_int_equal(gpuest_config_preset(c, "fermi", NULL), GPUEST_OK);
    c->technique.coalescing = GPUEST_COALESCE_PCU;
    c->technique.pcu_rgrs = rgrs;
}

typedef struct {
    gpuest_config_t cfg;
    gpuest_technique_set_t *set;
    gpuest_sim_hooks_t h;
} pcu_fixture_t;

static void fixture(pcu_fixture_t *f, int rgrs)
{
    memset(f, 0, sizeof *f);
    pcu_config(&f->cfg, rgrs);
    gpuest_technique_env_t env = {&f->cfg, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_technique_set_create(&env, &f->h, &f->set, &e), GPUEST_OK);
    assert_non_null(f->h.mc_front_accept);
    assert_non_null(f->h.mc_front_release);
    assert_non_null(f->h.mc_front_reply);
}

static int accept(pcu_fixture_t *f, int32_t req, int op, int sm, uint64_t line, int32_t *leader)
{
    gpuest_sim_req_info_t info = {line, 0xF, op, sm, 0, -1, 0};
    *leader = -1;
    return f->h.mc_front_accept(f->h.ctx, 0, req, &info, 0, leader);
}

static int32_t release(pcu_fixture_t *f) { return f->h.mc_front_release(f->h.ctx, 0, 1, 0); }

static double stat(pcu_fixture_t *f, const char *name) { return tech_stat(f->set, name); }

/* Three SMs read block A: the first opens a group, the others join it and name its read. */
static void test_reads_of_one_block_join_one_group(void **state)
{
    (void)state;
    pcu_fixture_t f;
    fixture(&f, 128);
    int32_t leader;
    assert_int_equal(accept(&f, 10, GPUEST_MEM_LOAD, 0, LINE_A, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 11, GPUEST_MEM_LOAD, 5, LINE_A, &leader), GPUEST_SIM_FRONT_JOIN);
    assert_int_equal(leader, 10);
    assert_int_equal(release(&f), 10); /* stage 2 sends the group's one read */
    assert_int_equal(release(&f), -1);
    /* the group stays open after stage 2 sent it, until the reply is made */
    assert_int_equal(accept(&f, 12, GPUEST_MEM_LOAD, 14, LINE_A, &leader), GPUEST_SIM_FRONT_JOIN);
    assert_int_equal(leader, 10);
    /* the same SM again cannot take a second bit: it opens a new group */
    assert_int_equal(accept(&f, 13, GPUEST_MEM_LOAD, 5, LINE_A, &leader), GPUEST_SIM_FRONT_HOLD);
    f.h.mc_front_reply(f.h.ctx, 0, 10);
    /* after the reply the block has only request 13's group */
    assert_int_equal(accept(&f, 14, GPUEST_MEM_LOAD, 1, LINE_A, &leader), GPUEST_SIM_FRONT_JOIN);
    assert_int_equal(leader, 13);
    assert_int_equal(release(&f), 13);
    f.h.mc_front_reply(f.h.ctx, 0, 13);
    assert_true(stat(&f, "coalescing.read_requests") == 5);
    assert_true(stat(&f, "coalescing.joined_requests") == 3);
    assert_true(stat(&f, "coalescing.read_reply_packets") == 2);
    assert_true(stat(&f, "coalescing.multicast_replies") == 2);
    assert_true(stat(&f, "coalescing.grouped_per_reply") == 2.5); /* (3 + 2) / 2 */
    assert_true(stat(&f, "coalescing.actual_locality") == 3.0 / 5.0);
    gpuest_technique_set_destroy(f.set);
}

/* Two RGRs: a third block is refused (it waits in the NI) until a reply frees one, while reads of
 * the blocks already held still join (stage 1 matches even when every RGR is taken). */
static void test_rgr_full_refuses_new_blocks(void **state)
{
    (void)state;
    pcu_fixture_t f;
    fixture(&f, 2);
    int32_t leader;
    assert_int_equal(accept(&f, 1, GPUEST_MEM_LOAD, 0, LINE_A, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 2, GPUEST_MEM_LOAD, 0, LINE_B, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 3, GPUEST_MEM_LOAD, 0, LINE_C, &leader), GPUEST_SIM_FRONT_REFUSE);
    assert_int_equal(accept(&f, 4, GPUEST_MEM_LOAD, 7, LINE_B, &leader), GPUEST_SIM_FRONT_JOIN);
    assert_int_equal(leader, 2);
    assert_int_equal(release(&f), 1);
    assert_int_equal(accept(&f, 3, GPUEST_MEM_LOAD, 0, LINE_C, &leader), GPUEST_SIM_FRONT_REFUSE);
    f.h.mc_front_reply(f.h.ctx, 0, 1); /* A's reply frees its RGR */
    assert_int_equal(accept(&f, 3, GPUEST_MEM_LOAD, 0, LINE_C, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(release(&f), 2);
    assert_int_equal(release(&f), 3);
    assert_true(stat(&f, "coalescing.refusals") == 2);
    assert_true(stat(&f, "coalescing.rgr_max") == 2);
    gpuest_technique_set_destroy(f.set);
}

/* Stage 2: reads leave in RGR allocation order (the pointer ring), alternating with writes; no room
 * in the L2 path: nothing leaves. */
static void test_stage2_ring_order_round_robin_with_writes(void **state)
{
    (void)state;
    pcu_fixture_t f;
    fixture(&f, 8);
    int32_t leader;
    /* the RGRs are taken in slots 0, 1, 2; freeing slot 0 and reallocating it puts D after C in the
     * ring although D sits in the lowest RGR: the order is the ring's, not the registers' */
    assert_int_equal(accept(&f, 20, GPUEST_MEM_LOAD, 0, 0x100, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(release(&f), 20);
    f.h.mc_front_reply(f.h.ctx, 0, 20);
    assert_int_equal(accept(&f, 1, GPUEST_MEM_LOAD, 0, LINE_A, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 2, GPUEST_MEM_LOAD, 1, LINE_B, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 30, GPUEST_MEM_STORE, 2, 0x9000, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 31, GPUEST_MEM_STORE, 3, 0xA000, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 3, GPUEST_MEM_LOAD, 2, LINE_C, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(f.h.mc_front_release(f.h.ctx, 0, 0, 0), -1); /* no room */
    /* the last request sent (20) was a read: a write goes first, then they alternate */
    int32_t want[] = {30, 1, 31, 2, 3, -1};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        assert_int_equal(release(&f), want[k]);
    gpuest_technique_set_destroy(f.set);
}

/* A write to a grouped block closes the group: a later read of the block opens a new group (it is
 * not answered by a read that reaches the L2 before the write), and stage 2 sends one block's
 * accesses in their arrival order even where the round robin would pick the other queue. */
static void test_write_to_grouped_block(void **state)
{
    (void)state;
    pcu_fixture_t f;
    fixture(&f, 8);
    int32_t leader;
    assert_int_equal(accept(&f, 1, GPUEST_MEM_LOAD, 0, LINE_A, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 2, GPUEST_MEM_STORE, 1, LINE_A, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 3, GPUEST_MEM_LOAD, 2, LINE_A, &leader), GPUEST_SIM_FRONT_HOLD); /* not a join */
    assert_int_equal(accept(&f, 4, GPUEST_MEM_LOAD, 3, LINE_A, &leader), GPUEST_SIM_FRONT_JOIN);
    assert_int_equal(leader, 3); /* the new group, not the one the write closed */
    /* round robin starts with the write (nothing sent yet counts as "last was a read"), but the
     * write must wait for the older read of its block */
    assert_int_equal(release(&f), 1);
    assert_int_equal(release(&f), 2);
    assert_int_equal(release(&f), 3);
    /* and a read may not overtake an older write: write B, then read B while a read of C is ahead */
    assert_int_equal(accept(&f, 5, GPUEST_MEM_STORE, 0, LINE_B, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 6, GPUEST_MEM_LOAD, 0, LINE_B, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(accept(&f, 7, GPUEST_MEM_STORE, 0, LINE_C, &leader), GPUEST_SIM_FRONT_HOLD);
    assert_int_equal(release(&f), 5); /* last was a read: the write */
    assert_int_equal(release(&f), 6); /* now the read of B may go */
    assert_int_equal(release(&f), 7);
    assert_true(stat(&f, "coalescing.write_closes") == 1);
    gpuest_technique_set_destroy(f.set);
}

/* ------------------------------------------------------------ in the simulator */
typedef struct {
    gpuest_sim_hooks_t pcu; /* the technique's hooks, called through */
    long done[64];          /* loads completed per SM */
    long l2_paths;          /* requests the front end released into the L2 path */
    uint64_t full_at[64];   /* per MC: 1 + the L2 cycle whose release found the request queue full */
    long accepted_full;     /* requests stage 1 took in such a cycle */
} wrap_t;

static int w_accept(void *ctx, int mc, int32_t req, const gpuest_sim_req_info_t *info, uint64_t cyc, int32_t *leader)
{
    wrap_t *w = ctx;
    int d = w->pcu.mc_front_accept(w->pcu.ctx, mc, req, info, cyc, leader);
    /* the release of this L2 cycle ran before (phase 1) and nothing leaves the queue in between */
    w->accepted_full += w->full_at[mc] == cyc + 1 && d != GPUEST_SIM_FRONT_REFUSE;
    return d;
}

static int32_t w_release(void *ctx, int mc, int room, uint64_t cyc)
{
    wrap_t *w = ctx;
    if (!room)
        w->full_at[mc] = cyc + 1;
    int32_t r = w->pcu.mc_front_release(w->pcu.ctx, mc, room, cyc);
    w->l2_paths += r >= 0;
    return r;
}

static void w_reply(void *ctx, int mc, int32_t req)
{
    wrap_t *w = ctx;
    w->pcu.mc_front_reply(w->pcu.ctx, mc, req);
}

static void w_done(void *ctx, int sm, int slot, uint64_t issue, uint64_t done, int hits, int misses)
{
    (void)slot;
    (void)issue;
    (void)done;
    (void)hits;
    (void)misses;
    wrap_t *w = ctx;
    w->done[sm]++;
}

/* `sms` CTAs (one per SM, one warp each) run one load at once whose lanes are `stride` bytes apart
 * (4: one 128-byte block; 128: 32 blocks), the same addresses on every SM; other SMs idle. */
static int request_queue; /* > 0: mc.request_queue and dram.queue_size for run_shared */

static void run_shared(int coalescing, int sms, int rgrs, uint32_t stride, gpuest_sim_result_t *r, wrap_t *w,
                       double *refusals)
{
    gpuest_config_t c;
    pcu_config(&c, rgrs);
    if (request_queue > 0) { /* one DRAM request per channel at a time: L2 misses stall the lookups */
        c.mc.request_queue = request_queue;
        c.dram.queue_size = request_queue;
        c.l2.hit_latency = 2; /* requests reach the queue while others still arrive */
    }
    c.technique.coalescing = coalescing;
    c.core.perfect_inst_const_cache = 1; /* only the scripted loads reach the MCs */
    script_t s = {0};
    s.nkernels = 1;
    script_kernel_t *k = &s.kernels[0];
    k->ctas = (uint32_t)sms;
    k->warps_per_cta = 1;
    k->regs_per_thread = 16;
    k->ninsts = 1;
    k->insts[0] = (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, GPUEST_MEMIMG_BASE, stride, 4, 1, -1,
                                  1, 0, 0};
    memset(w, 0, sizeof *w);
    gpuest_technique_set_t *set = NULL;
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_technique_set_create(&env, &w->pcu, &set, &e), GPUEST_OK);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = w;
    o.hooks.load_done = w_done;
    if (coalescing) {
        o.hooks.mc_front_accept = w_accept;
        o.hooks.mc_front_release = w_release;
        o.hooks.mc_front_reply = w_reply;
    }
    gpuest_sim_source_t src;
    script_source(&src, &s);
    gpuest_err rc = gpuest_sim_run(&c, &src, &o, r, &e);
    if (rc != GPUEST_OK)
        fail_msg("simulation failed: %s", e.msg);
    gpuest_technique_stat_t st[GPUEST_TECH_MAX_STATS];
    size_t n = gpuest_technique_set_stats(set, st, GPUEST_TECH_MAX_STATS);
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].name, "coalescing.refusals") == 0)
            *refusals = st[i].value;
    gpuest_technique_set_destroy(set);
}

static void run_shared_block(int coalescing, int sms, gpuest_sim_result_t *r, wrap_t *w)
{
    double refusals = 0;
    run_shared(coalescing, sms, 128, 4, r, w, &refusals);
}

static void test_one_l2_access_one_multicast_reply(void **state)
{
    (void)state;
    enum { N = 4 };
    gpuest_sim_result_t r;
    wrap_t w;
    run_shared_block(GPUEST_COALESCE_NONE, N, &r, &w);
    /* without PCUs: four reads reach the L2 and four reply packets leave */
    assert_int_equal(r.total.l2_accesses, N);
    assert_int_equal(r.total.packets[1], N);
    uint64_t base_flits = r.total.flits[1];
    gpuest_sim_result_free(&r);

    run_shared_block(GPUEST_COALESCE_PCU, N, &r, &w);
    assert_int_equal(w.l2_paths, 1);
    assert_int_equal(r.total.l2_accesses, 1);
    assert_int_equal(r.total.packets[1], 1);             /* one multicast packet injected */
    assert_int_equal(r.total.flits[1] * N, base_flits); /* one reply's flits, counted once */
    assert_int_equal(r.total.replies, N);                /* one copy ejected per member */
    assert_int_equal(r.requests_sent, r.replies_received);
    assert_int_equal(r.outstanding, 0); /* the multicast's carrier record is gone too */
    /* the 4 CTAs sit on 4 different SMs (fermi's CTA placement); each completed its load exactly
     * once, and no other SM did */
    long members = 0;
    for (int sm = 0; sm < 64; sm++) {
        assert_true(w.done[sm] == 0 || w.done[sm] == 1);
        members += w.done[sm];
    }
    assert_int_equal(members, N);
    gpuest_sim_result_free(&r);
}

/* Two RGRs per PCU against 8 SMs reading the same 32 blocks: stage 1 refuses and the NI holds
 * requests back, yet every request is answered exactly once (the simulator fails a run with a
 * request answered twice or never), every SM's load completes once, and the reads still group. */
static void test_rgr_pressure_loses_nothing(void **state)
{
    (void)state;
    enum { N = 8, LINES = 32 };
    gpuest_sim_result_t r;
    wrap_t w;
    double refusals = 0;
    run_shared(GPUEST_COALESCE_PCU, N, 2, 128, &r, &w, &refusals);
    assert_true(refusals > 0);
    assert_true(r.requests_sent >= LINES);
    assert_int_equal(r.replies_received, r.requests_sent);
    assert_int_equal(r.outstanding, 0);
    assert_true(r.total.l2_accesses < r.requests_sent);
    assert_int_equal(r.total.l2_accesses, w.l2_paths);
    long loads = 0; /* the CTA scheduler may put several CTAs on one SM: count the loads */
    for (int sm = 0; sm < 64; sm++)
        loads += w.done[sm];
    assert_int_equal(loads, N);
    gpuest_sim_result_free(&r);
}

/* Stage 1 keeps accepting and grouping while the MC request queue is full (one entry here, and
 * one DRAM request per channel, so a second L2 miss stalls the lookups and the queue fills): the
 * simulator must offer it requests then, where without a front end the NI is not drained. */
static void test_stage1_accepts_while_queue_full(void **state)
{
    (void)state;
    gpuest_sim_result_t r;
    wrap_t w;
    double refusals = 0;
    request_queue = 1;
    run_shared(GPUEST_COALESCE_PCU, 8, 128, 128, &r, &w, &refusals);
    request_queue = 0;
    assert_true(w.accepted_full > 0);
    assert_int_equal(r.replies_received, r.requests_sent);
    assert_int_equal(r.outstanding, 0);
    gpuest_sim_result_free(&r);
}

/* ------------------------------------------------------------ configuration */
static void test_config_checks(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    pcu_config(&c, 128);
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    /* the estimator has a transform for pcu (coalescing_model.c, tests/technique/test_tech_model.c) */
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_MODEL, &e), GPUEST_OK);
    /* with compression: refused (exit 2), naming both keys */
    snprintf(c.technique.compression, sizeof c.technique.compression, "bdi");
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "technique.compression"));
    /* mesh56: a 9-flit reply cannot be a multicast packet in 8-flit VC buffers */
    assert_int_equal(gpuest_config_preset(&c, "mesh56", NULL), GPUEST_OK);
    c.technique.coalescing = GPUEST_COALESCE_PCU;
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_EUNSUPPORTED);
    assert_int_equal(gpuest_exit_code(GPUEST_EUNSUPPORTED), 2);
    assert_non_null(strstr(e.msg, "noc.buffer_flits = 9"));
    c.noc.buffer_flits = 9;
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    /* warppool alone sends no multicast: no buffer rule; pcu+warppool keeps it */
    c.noc.buffer_flits = 8;
    assert_int_equal(gpuest_config_set(&c, "technique.coalescing=warppool", "--set", &e), GPUEST_OK);
    assert_int_equal(c.technique.coalescing, GPUEST_COALESCE_WARPPOOL);
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    /* the estimator's refusal of the WarpPool comes from the transform (test_tech_model.c) */
    assert_int_equal(gpuest_config_set(&c, "technique.coalescing=pcu+warppool", "--set", &e), GPUEST_OK);
    assert_int_equal(c.technique.coalescing, GPUEST_COALESCE_PCU_WARPPOOL);
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "pcu+warppool"));
    /* names that are not mechanisms are not values of the key */
    assert_int_equal(gpuest_config_set(&c, "technique.coalescing=warp_pool", "--set", &e), GPUEST_EINVAL);
}

/* PCU + WarpPool (paper Fig. 6): 4 SMs, two one-warp CTAs on each, every warp loading the same
 * block. Each SM's pool merges its two warps into one L1 access (4 in all, 4 requests), and the
 * PCU groups the 4 SMs' reads into one L2 access answered by one multicast reply: 8 loads served
 * by 4 L1 accesses, 1 L2 access and 1 reply packet, each SM receiving one copy. */
static void test_pcu_with_warppool(void **state)
{
    (void)state;
    gpuest_config_t c;
    pcu_config(&c, 128);
    c.technique.coalescing = GPUEST_COALESCE_PCU_WARPPOOL;
    c.core.num_sms = 4;
    c.core.perfect_inst_const_cache = 1;
    script_t s = {0};
    script_inst_t p[] = {{GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, GPUEST_MEMIMG_BASE, 4, 4, 1, -1, 1, 0, 0}};
    script_kernel(&s, 0, NULL, 8, 1, p);
    gpuest_technique_set_t *set = NULL;
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_error_t e = {0};
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    assert_int_equal(gpuest_technique_set_create(&env, &o.hooks, &set, &e), GPUEST_OK);
    assert_non_null(o.hooks.mc_front_accept);
    gpuest_sim_result_t r;
    script_run_drained(&c, &s, &o, &r);
    assert_int_equal(r.total.warppool_requests, 8);
    assert_int_equal(r.total.warppool_merged, 4);
    assert_int_equal(r.total.l1_accesses, 4);
    assert_int_equal(r.total.read_requests, 4);
    assert_int_equal(r.total.l2_accesses, 1);
    assert_int_equal(r.total.packets[1], 1);
    assert_int_equal(r.total.replies, 4);
    gpuest_sim_result_free(&r);
    gpuest_technique_set_destroy(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_of_one_block_join_one_group),
        cmocka_unit_test(test_rgr_full_refuses_new_blocks),
        cmocka_unit_test(test_stage2_ring_order_round_robin_with_writes),
        cmocka_unit_test(test_write_to_grouped_block),
        cmocka_unit_test(test_one_l2_access_one_multicast_reply),
        cmocka_unit_test(test_rgr_pressure_loses_nothing),
        cmocka_unit_test(test_stage1_accepts_while_queue_full),
        cmocka_unit_test(test_config_checks),
        cmocka_unit_test(test_pcu_with_warppool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
