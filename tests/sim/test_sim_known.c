/* test_sim_known.c: the simulator against values worked out by hand: L1 hit, isolated L2 hit and DRAM read, schedulers, limits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noc/noc.h"
#include "script_source.h"

#define A GPUEST_MEMIMG_BASE

static script_inst_t mem(gpuest_mem_op_t op, uint64_t addr)
{
    return (script_inst_t){GPUEST_INST_MEM, op, GPUEST_LAT_ALU, addr, 4, 4, 1, -1, 0, 0, 0};
}

/* A load writing register dst that reads register src (-1: none). */
static script_inst_t load_reg(uint64_t addr, int dst, int src)
{
    script_inst_t i = mem(GPUEST_MEM_LOAD, addr);
    i.dst = (uint8_t)(dst + 1);
    i.src = (uint8_t)(src + 1);
    return i;
}

static script_inst_t compute(uint32_t repeat)
{
    return (script_inst_t){GPUEST_INST_COMPUTE, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, 0, 0, 0, repeat, -1, 0, 0, 0};
}

static script_inst_t barrier(void)
{
    return (script_inst_t){GPUEST_INST_BARRIER, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, 0, 0, 0, 1, -1, 0, 0, 0};
}

static void preset(gpuest_config_t *c, const char *name)
{
    gpuest_error_t e;
    assert_int_equal(gpuest_config_preset(c, name, &e), GPUEST_OK);
}


static gpuest_err run(const gpuest_config_t *c, script_t *s, gpuest_sim_opts_t *o, gpuest_sim_result_t *r,
                      gpuest_error_t *e)
{
    gpuest_sim_source_t src;
    script_source(&src, s);
    return gpuest_sim_run(c, &src, o, r, e);
}

/* ------------------------------------------------------------ L1 hit */


static void check_l1_hit(const char *name)
{
    gpuest_config_t c;
    preset(&c, name);
    c.core.perfect_inst_const_cache = 1; /* the data path alone */
    script_t s = {0};
    /* the second load's address depends on the first's value: it issues after the fill */
    script_inst_t p[] = {load_reg(A, 1, -1), load_reg(A, 2, 1)};
    script_kernel(&s, 0, NULL, 1, 2, p);
    script_loads_t l = {0};
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = &l;
    o.hooks.load_done = script_on_load;
    gpuest_sim_result_t r;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, &o, &r, &e), GPUEST_OK);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.misses[0], 1);
    assert_int_equal(l.hits[1], 1);
    assert_int_equal(l.misses[1], 0);
    assert_int_equal(l.done[1] - l.issue[1], (uint64_t)c.l1.hit_latency);
    assert_int_equal(r.total.l1_accesses, 2);
    assert_int_equal(r.total.l1_hits, 1);
    gpuest_sim_result_free(&r);
}

static void test_l1_hit_fermi(void **st)
{
    (void)st;
    check_l1_hit("fermi");
}

static void test_l1_hit_mesh56(void **st)
{
    (void)st;
    check_l1_hit("mesh56");
}

/* ------------------------------------------------------------ isolated L2 hit and DRAM read */
/* Memory latency of an isolated read that misses the L2, in core cycles, from the
 * preset's parts (not from the simulator's own helpers). */
static double isolated_dram_read(const gpuest_config_t *c)
{
    const gpuest_dram_cfg_t *d = &c->dram;
    assert_int_equal(d->burst_length * d->chip_bytes * d->chips_per_channel, 64); /* two bursts per 128-byte line */
    double dram_cycles = d->tRCD + d->tCCDL + d->tCL + d->burst_length / d->data_rate;
    return c->l2.hit_latency + d->latency + dram_cycles * c->core.clock_mhz / c->dram.clock_mhz;
}

static void test_isolated_dram_by_hand(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    /* 120 + 100 + (12 + 3 + 12 + 2) x 700 / 924 = 241.97 core cycles */
    assert_true(isolated_dram_read(&c) > 241.96 && isolated_dram_read(&c) < 241.98);
    preset(&c, "mesh56");
    /* 120 + 100 + 29 x 1400 / 924 = 263.94 */
    assert_true(isolated_dram_read(&c) > 263.93 && isolated_dram_read(&c) < 263.95);
}

static void check_isolated(const char *name)
{
    gpuest_config_t c;
    preset(&c, name);
    c.core.perfect_inst_const_cache = 1; /* the data path alone: no instruction fetch traffic */
    gpuest_error_t e = {0};
    /* kernel 0 reads A from DRAM; kernel 1 starts with a cold L1 and hits the L2 */
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, A)};
    script_kernel(&s, 0, NULL, 1, 1, p);
    script_kernel(&s, 1, NULL, 1, 1, p);
    gpuest_sim_result_t r;
    assert_int_equal(run(&c, &s, NULL, &r, &e), GPUEST_OK);
    assert_int_equal(r.num_kernels, 2);

    int sm_nodes[64], mc_nodes[GPUEST_MAX_MCS];
    assert_int_equal(gpuest_config_sm_nodes(&c, sm_nodes, &e), GPUEST_OK);
    assert_int_equal(gpuest_config_mc_nodes(&c, mc_nodes, &e), GPUEST_OK);
    int sm = sm_nodes[0], mc = mc_nodes[gpuest_config_mc_of_address(&c, A)], hops = 0;
    if (c.noc.topology == GPUEST_TOPO_MESH)
        hops = abs(sm / c.noc.k - mc / c.noc.k) + abs(sm % c.noc.k - mc % c.noc.k);
    int reply_flits = gpuest_sim_packet_flits(&c.noc, 128);
    /* the presets run core, interconnect and L2 on one clock: network cycles are core cycles */
    assert_true(c.core.clock_mhz == c.noc.clock_mhz && c.core.clock_mhz == c.l2.clock_mhz);
    double zl_req = (double)gpuest_noc_zero_load_latency(&c.noc, hops, 1);
    double zl_rep = (double)gpuest_noc_zero_load_latency(&c.noc, hops, reply_flits);

    const gpuest_sim_stats_t *d = &r.kernels[0], *h = &r.kernels[1];
    printf("# %s hops %d: zero-load request %.0f reply %.0f | DRAM read req %.3f mem %.3f reply %.3f | L2 hit req "
           "%.3f mem %.3f reply %.3f\n",
           name, hops, zl_req, zl_rep, d->req_latency, d->mem_latency, d->reply_latency, h->req_latency,
           h->mem_latency, h->reply_latency);
    assert_int_equal(d->read_requests, 1);
    assert_int_equal(d->dram_reads, 1);
    assert_int_equal(h->read_requests, 1);
    assert_int_equal(h->l2_hits, 1);
    assert_int_equal(h->dram_reads, 0);
    /* L2 hit: exactly the minimum L2 latency plus the unloaded round trip */
    assert_true(h->req_latency == zl_req);
    assert_true(h->mem_latency == (double)c.l2.hit_latency);
    assert_true(h->reply_latency == zl_rep);
    assert_true(h->miss_latency == zl_req + c.l2.hit_latency + zl_rep);
    /* DRAM read: the pipeline the preset describes, up to one DRAM and one L2 clock
     * edge of alignment: ROP (l2.hit_latency) + fixed DRAM pipeline (dram.latency) +
     * the closed-bank read (ACT, tRCD, two 64-byte bursts tCCDL apart, tCL, burst) */
    double dram = isolated_dram_read(&c);
    assert_true(d->req_latency == zl_req);
    assert_true(d->reply_latency == zl_rep);
    assert_true(d->mem_latency >= dram - 1e-9);
    assert_true(d->mem_latency <= dram + 2.0);
    gpuest_sim_result_free(&r);
}

static void test_isolated_fermi(void **st)
{
    (void)st;
    check_isolated("fermi");
}

static void test_isolated_mesh56(void **st)
{
    (void)st;
    check_isolated("mesh56");
}

/* ------------------------------------------------------------ DRAM row buffer */
static void test_dram_rows_fermi(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    c.core.perfect_inst_const_cache = 1; /* the data path alone: no instruction fetch traffic */
    /* A and A + 128 share a 256-byte interleaving chunk (same channel, same DRAM row, other L2 line
     * and other sub-partition);
     * A + 196608 is 128 chunks further in the same MC: local offset 32 KB = row_bytes x banks,
     * so the same bank and the next row. */
    uint64_t far = (uint64_t)c.dram.row_bytes * (uint64_t)c.dram.banks / (uint64_t)c.mc.interleave_bytes *
                   (uint64_t)c.mc.interleave_bytes * (uint64_t)c.mc.num_mcs;
    assert_int_equal(far, 196608);
    assert_int_equal(gpuest_config_mc_of_address(&c, A), gpuest_config_mc_of_address(&c, A + 128));
    assert_int_equal(gpuest_config_mc_of_address(&c, A), gpuest_config_mc_of_address(&c, A + far));
    script_t s = {0};
    script_inst_t p0[] = {mem(GPUEST_MEM_LOAD, A)}, p1[] = {mem(GPUEST_MEM_LOAD, A + 128)},
                  p2[] = {mem(GPUEST_MEM_LOAD, A + far)};
    script_kernel(&s, 0, NULL, 1, 1, p0);
    script_kernel(&s, 1, NULL, 1, 1, p1);
    script_kernel(&s, 2, NULL, 1, 1, p2);
    gpuest_sim_result_t r;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, NULL, &r, &e), GPUEST_OK);
    double dram_to_core = c.core.clock_mhz / c.dram.clock_mhz, min = isolated_dram_read(&c);
    double hit = min - c.dram.tRCD * dram_to_core, conflict = min + c.dram.tRP * dram_to_core;
    printf("# DRAM closed %.3f, row hit %.3f (expect %.3f), row conflict %.3f (expect %.3f)\n",
           r.kernels[0].mem_latency, r.kernels[1].mem_latency, hit, r.kernels[2].mem_latency, conflict);
    assert_int_equal(r.kernels[1].dram_row_hits, 1);
    assert_int_equal(r.kernels[2].dram_row_hits, 0);
    assert_int_equal(r.kernels[2].dram_reads, 1);
    /* up to one DRAM and one L2 clock edge of alignment each */
    assert_true(r.kernels[1].mem_latency >= hit - 1e-9 && r.kernels[1].mem_latency <= hit + 2.0);
    assert_true(r.kernels[2].mem_latency >= conflict - 1e-9 && r.kernels[2].mem_latency <= conflict + 2.0);
    gpuest_sim_result_free(&r);
}

/* ------------------------------------------------------------ schedulers
 * One scheduler, two warps of ten independent ALU instructions and a load each.
 * GTO keeps the oldest warp until it cannot issue: warp 0 issues at cycles
 * 0..9 and its load at 10, then warp 1 at 11..20 and its load at 21. LRR
 * alternates: warp 0 at even cycles (load at 20), warp 1 at odd ones (load at
 * 21). The load issue cycles come from the load-completion hook. */
static void check_sched(gpuest_warp_sched_t sched, uint64_t load0, uint64_t load1, double expect_cps)
{
    gpuest_config_t c;
    preset(&c, "fermi");
    c.core.scheduler = sched;
    c.core.schedulers_per_sm = 1;
    c.core.perfect_inst_const_cache = 1;
    script_t s = {0};
    script_inst_t p[] = {compute(10), mem(GPUEST_MEM_LOAD, A)};
    script_kernel(&s, 0, NULL, 1, 2, p);
    s.kernels[0].warps_per_cta = 2;
    script_loads_t l = {0};
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = &l;
    o.hooks.load_done = script_on_load;
    gpuest_sim_result_t r;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, &o, &r, &e), GPUEST_OK);
    assert_int_equal(r.total.warp_instructions, 22);
    assert_int_equal(l.n, 2);
    uint64_t a = l.issue[0] < l.issue[1] ? l.issue[0] : l.issue[1], b = l.issue[0] ^ l.issue[1] ^ a;
    assert_int_equal(a, load0);
    assert_int_equal(b, load1);
    assert_true(r.total.cycles_per_schedule == expect_cps);
    gpuest_sim_result_free(&r);
}

static void test_gto_order(void **st)
{
    (void)st;
    check_sched(GPUEST_WSCHED_GTO, 10, 21, 11.0); /* two runs of 11 issues */
}

static void test_lrr_order(void **st)
{
    (void)st;
    check_sched(GPUEST_WSCHED_LRR, 20, 21, 1.0);
}

/* ------------------------------------------------------------ stores, barriers, atomics */
static void test_store_barrier_atomic(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_STORE, A), barrier(), mem(GPUEST_MEM_LOAD, A),
                         mem(GPUEST_MEM_ATOMIC, A + 4096), compute(3)};
    script_kernel(&s, 0, NULL, 1, 5, p);
    s.kernels[0].warps_per_cta = 4;
    s.kernels[0].ctas = 3;
    gpuest_sim_result_t r;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, NULL, &r, &e), GPUEST_OK);
    assert_int_equal(r.total.store_requests, 12);
    assert_int_equal(r.total.atomic_requests, 12);
    assert_int_equal(r.requests_sent, r.replies_received);
    assert_int_equal(r.outstanding, 0);
    assert_int_equal(r.total.warp_instructions, 12 * 7);
    gpuest_sim_result_free(&r);
}

/* ------------------------------------------------------------ errors and limits */
static void stall_reply(void *ctx, const gpuest_sim_req_info_t *q, const uint8_t *data, gpuest_sim_reply_t *r)
{
    (void)ctx;
    (void)q;
    (void)data;
    r->inject_delay = 1000000000; /* a reply that never leaves: the warp waits forever */
}

/* ------------------------------------------------------------ the reply hook's effects, by hand */
typedef struct {
    script_loads_t l;               /* first: script_on_load takes the same pointer */
    gpuest_sim_reply_t set;  /* what the hook answers (flits 0: keep the uncompressed size) */
    int calls;
} reply_ctx_t;

/* Answers `set` for the load's line A; the warp's instruction fetches pass untouched. */
static void fixed_reply(void *ctx, const gpuest_sim_req_info_t *q, const uint8_t *data, gpuest_sim_reply_t *r)
{
    (void)data;
    reply_ctx_t *x = ctx;
    if (q->line != A)
        return;
    int flits = r->flits;
    *r = x->set;
    if (!r->flits)
        r->flits = flits;
    x->calls++;
}

/* One load from DRAM on fermi with the hook answering `set` (hooked = 0: no hook at all);
 * returns the load's latency in core cycles, fills *r. */
static uint64_t one_load(int hooked, gpuest_sim_reply_t set, gpuest_sim_result_t *r)
{
    gpuest_config_t c;
    preset(&c, "fermi");
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, A)};
    script_kernel(&s, 0, NULL, 1, 1, p);
    reply_ctx_t x = {.set = set};
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = &x;
    o.hooks.load_done = script_on_load;
    if (hooked)
        o.hooks.mc_reply = fixed_reply;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, &o, r, &e), GPUEST_OK);
    assert_int_equal(x.l.n, 1);
    assert_int_equal(x.calls, hooked ? 1 : 0);
    return x.l.done[0] - x.l.issue[0];
}

static void test_reply_hook_effects(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    gpuest_sim_result_t r;
    gpuest_sim_reply_t none = {0};
    uint64_t base = one_load(0, none, &r);
    int raw_flits = gpuest_sim_packet_flits(&c.noc, 128);
    /* the load's reply and the instruction fetches', every one a whole line */
    uint64_t base_flits = r.total.flits[1], base_packets = r.total.packets[1];
    assert_int_equal(base_flits, raw_flits * (r.total.read_requests + r.total.front_requests));
    gpuest_sim_result_free(&r);
    /* the reply pipe of a hook that changes nothing adds nothing */
    assert_int_equal(one_load(1, none, &r), base);
    gpuest_sim_result_free(&r);
    /* decompression: exactly fill_delay core cycles more */
    gpuest_sim_reply_t fill = {.fill_delay = 7};
    assert_int_equal(one_load(1, fill, &r), base + 7);
    gpuest_sim_result_free(&r);
    /* compression: 10 L2 cycles before injection, seen in core cycles (edges may round by one) */
    gpuest_sim_reply_t comp = {.inject_delay = 10};
    double l2_in_core = 10.0 * c.core.clock_mhz / c.l2.clock_mhz;
    uint64_t d = one_load(1, comp, &r) - base;
    assert_true((double)d >= l2_in_core - 1.0 && (double)d <= l2_in_core + 2.0);
    gpuest_sim_result_free(&r);
    /* a smaller packet is what travels */
    gpuest_sim_reply_t small = {.flits = 2};
    assert_true(one_load(1, small, &r) <= base);
    assert_int_equal(r.total.flits[1], base_flits - raw_flits + 2);
    gpuest_sim_result_free(&r);
    /* a control packet to the same SM, and one to every SM, in the reply class */
    gpuest_sim_reply_t ctrl = {.ctrl_flits = 3, .bcast_flits = 2};
    one_load(1, ctrl, &r);
    assert_int_equal(r.total.ctrl_packets, 1 + c.core.num_sms);
    assert_int_equal(r.total.ctrl_flits, 3 + 2 * c.core.num_sms);
    assert_int_equal(r.total.flits[1], base_flits + 3 + 2 * c.core.num_sms);
    assert_int_equal(r.total.packets[1], base_packets + 1 + c.core.num_sms);
    gpuest_sim_result_free(&r);
}

static void test_watchdog(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    script_t s = {0};
    script_inst_t p[] = {mem(GPUEST_MEM_LOAD, A)};
    script_kernel(&s, 0, NULL, 1, 1, p);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.watchdog_cycles = 3000;
    o.hooks.mc_reply = stall_reply;
    gpuest_sim_result_t r;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, &o, &r, &e), GPUEST_EDEADLOCK);
    assert_non_null(strstr(e.msg, "SM 0 warp slot 0"));
    gpuest_sim_result_free(&r);
}

static void test_cta_too_big(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    script_t s = {0};
    script_inst_t p[] = {compute(1)};
    script_kernel(&s, 0, NULL, 1, 1, p);
    s.kernels[0].warps_per_cta = (uint32_t)c.core.warps_per_sm + 1;
    gpuest_sim_result_t r;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, NULL, &r, &e), GPUEST_EINVAL);
    assert_non_null(strstr(e.msg, "a CTA needs"));
    gpuest_sim_result_free(&r);
}

static void test_max_instructions(void **st)
{
    (void)st;
    gpuest_config_t c;
    preset(&c, "fermi");
    script_t s = {0};
    script_inst_t p[] = {compute(1000)};
    script_kernel(&s, 0, NULL, 1, 1, p);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.max_instructions = 100;
    gpuest_sim_result_t r;
    gpuest_error_t e = {0};
    assert_int_equal(run(&c, &s, &o, &r, &e), GPUEST_OK);
    assert_int_equal(r.stopped_by_limit, 1);
    assert_int_equal(r.num_kernels, 1);
    assert_int_equal(r.kernels[0].partial, 1);
    assert_int_equal(r.total.warp_instructions, 100);
    assert_int_equal(s.open_warps, 0); /* every stream closed */
    gpuest_sim_result_free(&r);
}

static void test_packet_flits(void **st)
{
    (void)st;
    gpuest_noc_cfg_t n = {0};
    n.flit_bytes = 32;
    assert_int_equal(gpuest_sim_packet_flits(&n, 128), 5);
    n.flit_bytes = 16;
    assert_int_equal(gpuest_sim_packet_flits(&n, 128), 9);
    assert_int_equal(gpuest_sim_packet_flits(&n, 0), 1);
    n.header_bytes = 8;
    assert_int_equal(gpuest_sim_packet_flits(&n, 128), 9); /* ceil(136 / 16) */
    assert_int_equal(gpuest_sim_packet_flits(&n, 32), 3);  /* ceil(40 / 16) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packet_flits),     cmocka_unit_test(test_l1_hit_fermi),
        cmocka_unit_test(test_l1_hit_mesh56),    cmocka_unit_test(test_isolated_fermi),
        cmocka_unit_test(test_isolated_mesh56),  cmocka_unit_test(test_dram_rows_fermi),
        cmocka_unit_test(test_isolated_dram_by_hand),
        cmocka_unit_test(test_gto_order),
        cmocka_unit_test(test_lrr_order),         cmocka_unit_test(test_store_barrier_atomic),
        cmocka_unit_test(test_watchdog),         cmocka_unit_test(test_cta_too_big),
        cmocka_unit_test(test_reply_hook_effects),
        cmocka_unit_test(test_max_instructions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
