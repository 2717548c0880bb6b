/* test_sim_probe.c: the remote-L1 probing messages of the simulator (sim/probe.c), driven by a
 * scripted plan hook on mesh28 (CTA k runs on SM k):
 *  - a probe that reaches an L1 holding the line brings it back from that SM, without an L2 access;
 *  - a probe whose targets all miss comes home as a NACK and the read goes on to the L2;
 *  - a probe stuck behind local accesses (local-access priority) lets the 2048-cycle timeout fire;
 *  - a full incoming probe queue deflects later probes to their next target;
 *  - probes at saturation (every SM probing every other SM with three probes) end without a
 *    protocol deadlock and with every request answered once;
 *  - LA-LLC: an L2 hit forwarded to the line's last reader comes from that L1; when the reader
 *    no longer has it the read goes back to the L2, which answers it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "script_source.h"
#include "sim/sim.h"

#define LINE_A (GPUEST_MEMIMG_BASE)
#define LINE_B (GPUEST_MEMIMG_BASE + 0x100000)

typedef struct {
    int targets[GPUEST_SIM_PROBE_MAX_SMS]; /* plan for every requester: these targets (in order) */
    int ntargets, nprobes, two_level;
    int mode;                              /* T_* below */
    int supplier, busy;                    /* SMs of the first miss of line A / line B (-1 none yet) */
    int done_total;
    uint8_t seen[64];
    uint64_t ev[GPUEST_SIM_PEV_COUNT];
    int done_n, done_supplier[64], done_sm[64];
    uint64_t load_done[64]; /* per SM: completion cycle of its (last) load */
    uint64_t load_issue[64];
} probe_ctx_t;

/* What the scripted plan probes (the SM a CTA lands on is the simulator's business, so roles are
 * learnt from the lines: the first SM to miss line A holds it, the first to miss line B is busy):
 * T_SUPPLIER the SM holding A; T_LIST targets[] as given; T_BUSY the busy SM, then the one holding
 * A; T_ALL every other SM, for every line. */
enum { T_SUPPLIER = 0, T_LIST, T_BUSY, T_ALL };

static void plan(void *ctx, const gpuest_sim_probe_query_t *q, uint64_t cycle, gpuest_sim_probe_plan_t *pl)
{
    probe_ctx_t *c = ctx;
    (void)cycle;
    if (c->mode != T_ALL) {
        if (q->line == LINE_B && c->busy < 0)
            c->busy = q->sm;
        if (q->line != LINE_A || q->sm == c->busy)
            return;
        if (c->supplier < 0) {
            c->supplier = q->sm;
            return;
        }
    }
    pl->action = GPUEST_SIM_PROBE_SEND;
    pl->nprobes = c->nprobes;
    pl->two_level = c->two_level;
    pl->ntargets = 0;
    if (c->mode == T_SUPPLIER || c->mode == T_BUSY) {
        if (c->mode == T_BUSY)
            pl->targets[pl->ntargets++] = (int16_t)c->busy;
        pl->targets[pl->ntargets++] = (int16_t)c->supplier;
        return;
    }
    for (int t = 0; t < c->ntargets; t++)
        if (c->targets[t] != q->sm)
            pl->targets[pl->ntargets++] = (int16_t)c->targets[t];
}

static void done(void *ctx, int sm, uint32_t pc, int supplier, uint64_t cycle)
{
    probe_ctx_t *c = ctx;
    (void)pc;
    (void)cycle;
    c->done_total++;
    if (c->done_n < 64) {
        c->done_sm[c->done_n] = sm;
        c->done_supplier[c->done_n++] = supplier;
    }
}

static void on_event(void *ctx, int ev, int sm)
{
    (void)sm;
    ((probe_ctx_t *)ctx)->ev[ev]++;
}

static void on_load(void *ctx, int sm, int slot, uint64_t issue, uint64_t d, int hits, int misses)
{
    probe_ctx_t *c = ctx;
    (void)slot;
    (void)hits;
    (void)misses;
    if (sm < 64 && !c->seen[sm]) { /* each SM's first load */
        c->seen[sm] = 1;
        c->load_issue[sm] = issue;
        c->load_done[sm] = d;
    }
}

static const script_inst_t load_a = {GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, LINE_A, 4, 4, 1, -1, 0, 0, 0};

/* A dependent ALU chain of n instructions on register 2 (4 cycles each): a delay. */
static script_inst_t delay(int n, int cta)
{
    return (script_inst_t){GPUEST_INST_COMPUTE, 0, GPUEST_LAT_ALU, 0, 0, 0, (uint32_t)n, cta, 3, 3, 0};
}

static void run(script_t *s, probe_ctx_t *c, gpuest_sim_result_t *r)
{
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "mesh28", NULL), GPUEST_OK);
    cfg.core.perfect_inst_const_cache = 1; /* only the scripted loads reach the network */
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.sample_interval = 0;
    o.hooks.ctx = c;
    o.hooks.probe_plan = plan;
    o.hooks.probe_done = done;
    o.hooks.probe_event = on_event;
    o.hooks.load_done = on_load;
    script_run_drained(&cfg, s, &o, r);
}

/* CTA 0 (SM 0) reads line A (twice: the second read hits); CTA 1 (SM 1) reads it 2000 cycles later. */
static void two_sm_kernel(script_t *s, int ctas)
{
    memset(s, 0, sizeof *s);
    script_inst_t k[3];
    k[0] = load_a;
    k[0].only_cta = 0;
    k[1] = delay(500, 1);
    k[2] = load_a;
    script_kernel(s, 0, NULL, (uint32_t)ctas, 3, k);
}

static void test_probe_hit_returns_line_from_that_sm(void **state)
{
    (void)state;
    script_t s;
    two_sm_kernel(&s, 2);
    probe_ctx_t c = {.mode = T_SUPPLIER, .nprobes = 1, .supplier = -1, .busy = -1};
    gpuest_sim_result_t r;
    run(&s, &c, &r);
    /* CTA 1's miss of A: one probe to CTA 0's SM, which holds A, answers with the line */
    assert_true(c.supplier >= 0);
    assert_int_equal(c.done_n, 1);
    assert_true(c.done_sm[0] != c.supplier);
    assert_int_equal(c.done_supplier[0], c.supplier);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_PROBE_SENT], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_DATA_SENT], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_REMOTE_HIT], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_NACK], 0);
    /* only SM 0's miss reached an L2; SM 0's second read of A hit its own L1 */
    assert_int_equal(r.total.l2_accesses, 1);
    assert_int_equal(r.total.packets[0], 2); /* SM 0's request + the probe */
    assert_int_equal(r.total.packets[1], 2); /* the L2's reply + SM 0's probe data */
    /* the remote line is faster than the supplier's own L2 round trip (a DRAM miss) */
    int req = c.done_sm[0], sup = c.supplier;
    assert_true(c.load_done[req] - c.load_issue[req] < c.load_done[sup] - c.load_issue[sup]);
    gpuest_sim_result_free(&r);
}

static void test_nack_chain_ends_at_the_l2(void **state)
{
    (void)state;
    script_t s;
    two_sm_kernel(&s, 2);
    /* SMs 7, 9 and 20 run no CTA: the probe visits them in turn and comes home empty */
    probe_ctx_t c = {.mode = T_LIST, .targets = {7, 9, 20}, .ntargets = 3, .nprobes = 1, .supplier = -1, .busy = -1};
    gpuest_sim_result_t r;
    run(&s, &c, &r);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_PROBE_SENT], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_FORWARD], 3); /* 5 -> 9, 9 -> 20, 20 -> home */
    assert_int_equal(c.ev[GPUEST_SIM_PEV_NACK], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_ALL_NACK], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_REMOTE_HIT], 0);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_TIMEOUT], 0);
    assert_int_equal(c.done_n, 1);
    assert_int_equal(c.done_supplier[0], -1);
    assert_int_equal(r.total.l2_accesses, 2); /* the read went on to the L2 after the NACK */
    assert_int_equal(r.total.packets[0], 1 + 1 + 3 + 1); /* two L2 requests, the probe, 3 forwards */
    assert_true(c.supplier != 7 && c.supplier != 9 && c.supplier != 20 && c.done_sm[0] != 7 && c.done_sm[0] != 9 &&
                c.done_sm[0] != 20);
    gpuest_sim_result_free(&r);
}

/* CTA 0 reads line A; CTA 2 streams L1 hits of line B every cycle for a long time, so a probe at its
 * SM waits (local accesses have priority); every other CTA reads A later, probing CTA 2's SM first,
 * then CTA 0's. */
static void busy_target_kernel(script_t *s, int ctas)
{
    memset(s, 0, sizeof *s);
    script_kernel_t *k = &s->kernels[0];
    s->nkernels = 1;
    k->ctas = (uint32_t)ctas;
    k->warps_per_cta = 8;
    k->regs_per_thread = 16;
    k->ninsts = 4;
    k->insts[0] = (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, LINE_A, 4, 4, 1, 0, 0, 0, 0};
    k->insts[1] = (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, LINE_B, 4, 4, 3000, 2, 0, 0, 0};
    k->insts[2] = delay(400, -1);
    k->insts[3] = load_a;
}

static void test_timeout_fires(void **state)
{
    (void)state;
    script_t s;
    busy_target_kernel(&s, 3);
    probe_ctx_t c = {.mode = T_BUSY, .nprobes = 1, .supplier = -1, .busy = -1};
    gpuest_sim_result_t r;
    run(&s, &c, &r);
    /* CTA 1's probe waits at the busy SM behind its local hits; after 2048 cycles the L2 request
     * leaves (the probe never reaches CTA 0's SM in time) */
    assert_int_equal(c.ev[GPUEST_SIM_PEV_PROBE_SENT], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_TIMEOUT], 1);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_REMOTE_HIT], 0);
    assert_true(c.ev[GPUEST_SIM_PEV_LOCAL_WAIT] >= 2048);
    assert_int_equal(c.done_n, 1);
    uint64_t lat = c.load_done[c.done_sm[0]] - c.load_issue[c.done_sm[0]];
    assert_true(lat >= 2048);
    assert_true(lat < 2048 + 1500); /* the timeout, then one L2 round trip (a DRAM miss) */
    assert_int_equal(c.done_n, 1);
    assert_int_equal(c.done_supplier[0], -1);
    /* the stale probe, served after the stream, came home late and was discarded */
    assert_int_equal(c.ev[GPUEST_SIM_PEV_LATE], 1);
    gpuest_sim_result_free(&r);
}

static void test_full_probe_queue_deflects(void **state)
{
    (void)state;
    enum { REQUESTERS = 14 }; /* CTA 1 and CTAs 3..15; the incoming queue holds 8 */
    script_t s;
    busy_target_kernel(&s, 2 + REQUESTERS);
    probe_ctx_t c = {.mode = T_BUSY, .nprobes = 1, .supplier = -1, .busy = -1};
    gpuest_sim_result_t r;
    run(&s, &c, &r);
    /* CTAs that share an SM share its miss, so count the probes actually sent */
    uint64_t n = c.ev[GPUEST_SIM_PEV_PROBE_SENT];
    assert_true(n > 8);
    /* 8 probes queue at the busy SM and time out; the others are deflected to CTA 0's SM, which has A */
    assert_int_equal(c.ev[GPUEST_SIM_PEV_DEFLECT], n - 8);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_TIMEOUT], 8);
    assert_int_equal(c.ev[GPUEST_SIM_PEV_REMOTE_HIT], n - 8);
    uint64_t from_supplier = 0;
    for (int k = 0; k < c.done_n; k++)
        from_supplier += c.done_supplier[k] == c.supplier;
    assert_int_equal(from_supplier, n - 8);
    /* the 8 queued probes, served after the stream, went on to the supplier: their data came late */
    assert_int_equal(c.ev[GPUEST_SIM_PEV_LATE], 8);
    gpuest_sim_result_free(&r);
}

/* Every SM reads the same 64 lines (two passes, so L1s hold them), probing all other SMs with
 * three two-level probes each: the request network saturates with probes and forwards. */
static void test_no_deadlock_at_saturation(void **state)
{
    (void)state;
    script_t s;
    memset(&s, 0, sizeof s);
    script_kernel_t *k = &s.kernels[0];
    s.nkernels = 1;
    k->ctas = 28 * 2;
    k->warps_per_cta = 8;
    k->regs_per_thread = 16;
    k->ninsts = 2;
    /* lanes 128 bytes apart: 32 lines per load, the same for every warp */
    k->insts[0] = (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, LINE_A, 128, 4, 4, -1, 0, 0, 0};
    k->insts[1] = (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, LINE_A + 4096, 128, 4, 4, -1,
                                  0, 0, 0};
    probe_ctx_t c = {.mode = T_ALL, .nprobes = 3, .two_level = 1, .supplier = -1, .busy = -1};
    for (int t = 0; t < 28; t++)
        c.targets[t] = t;
    c.ntargets = 28;
    /* probe every line of the two loads, not only LINE_A */
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "mesh28", NULL), GPUEST_OK);
    cfg.core.perfect_inst_const_cache = 1;
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.sample_interval = 0;
    o.watchdog_cycles = 50000;
    o.hooks.ctx = &c;
    o.hooks.probe_plan = plan;
    o.hooks.probe_done = done;
    o.hooks.probe_event = on_event;
    gpuest_sim_result_t r;
    script_run_drained(&cfg, &s, &o, &r);
    assert_true(c.ev[GPUEST_SIM_PEV_PROBE_SENT] > 0);
    /* every probed miss ended exactly once: from a remote L1 or from its L2 */
    assert_int_equal(c.ev[GPUEST_SIM_PEV_REMOTE_HIT] + c.ev[GPUEST_SIM_PEV_TIMEOUT] + c.ev[GPUEST_SIM_PEV_ALL_NACK],
                     (uint64_t)c.done_total);
    assert_true(c.ev[GPUEST_SIM_PEV_REMOTE_HIT] > 0);
    gpuest_sim_result_free(&r);
}

/* LA-LLC through the simulator: the L2 remembers each line's last reader (the test's table). */
typedef struct {
    probe_ctx_t p;
    int last[4]; /* last reader of LINE_A, -1 none */
    int hits;
} llc_ctx_t;

static int llc_read(void *ctx, int mc, int sm, uint64_t line, int hit)
{
    llc_ctx_t *c = ctx;
    (void)mc;
    if (line != LINE_A)
        return -1;
    int last = c->last[0];
    c->last[0] = sm;
    c->hits += hit;
    return hit ? last : -1;
}

static void run_llc(script_t *s, llc_ctx_t *c, gpuest_sim_result_t *r)
{
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "mesh28", NULL), GPUEST_OK);
    cfg.core.perfect_inst_const_cache = 1;
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.sample_interval = 0;
    o.hooks.ctx = c;
    o.hooks.llc_read = llc_read;
    o.hooks.probe_event = on_event; /* c->p is the first member */
    script_run_drained(&cfg, s, &o, r);
}

static void test_llc_forwards_hit_to_last_reader(void **state)
{
    (void)state;
    script_t s;
    two_sm_kernel(&s, 2);
    llc_ctx_t c = {.last = {-1}};
    gpuest_sim_result_t r;
    run_llc(&s, &c, &r);
    /* CTA 1's read hits the L2, which sends it to CTA 0's SM; that L1 answers */
    assert_int_equal(c.hits, 1);
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_LLC_FORWARD], 1);
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_DATA_SENT], 1);
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_REMOTE_HIT], 1);
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_LLC_BACK], 0);
    assert_int_equal(r.total.packets[0], 3); /* two reads, the forward */
    assert_int_equal(r.total.packets[1], 2); /* the L2's reply to CTA 0, CTA 0's line to CTA 1 */
    gpuest_sim_result_free(&r);
}

static void test_llc_miss_at_reader_goes_back_to_l2(void **state)
{
    (void)state;
    script_t s;
    memset(&s, 0, sizeof s);
    script_inst_t k[4];
    k[0] = load_a;
    k[0].only_cta = 0;
    k[0].dst = 1; /* the store reads the loaded register: it leaves after the line is in the L1 */
    k[1] = (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_STORE, GPUEST_LAT_ALU, LINE_A, 4, 4, 1, 0, 0, 1, 0};
    k[2] = delay(500, 1);
    k[3] = load_a;
    k[3].only_cta = 1;
    script_kernel(&s, 0, NULL, 2, 4, k);
    llc_ctx_t c = {.last = {-1}};
    gpuest_sim_result_t r;
    run_llc(&s, &c, &r);
    /* CTA 0's store evicted its copy (write-evict L1): the forward misses there and the read goes
     * back to its L2, which answers it itself (no second forward) */
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_LLC_FORWARD], 1);
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_LLC_BACK], 1);
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_REMOTE_HIT], 0);
    assert_int_equal(c.p.ev[GPUEST_SIM_PEV_DATA_SENT], 0);
    assert_int_equal(r.total.packets[0], 5); /* read, store, read, forward, the read back to the L2 */
    assert_int_equal(r.total.packets[1], 3); /* the two reads' L2 replies and the store's ack */
    gpuest_sim_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_hit_returns_line_from_that_sm),
        cmocka_unit_test(test_nack_chain_ends_at_the_l2),
        cmocka_unit_test(test_timeout_fires),
        cmocka_unit_test(test_full_probe_queue_deflects),
        cmocka_unit_test(test_no_deadlock_at_saturation),
        cmocka_unit_test(test_llc_forwards_hit_to_last_reader),
        cmocka_unit_test(test_llc_miss_at_reader_goes_back_to_l2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
