/* test_sim_core.c: the SM core against cycle counts worked by hand: scoreboard stalls, loads in flight,
 * instruction-cache misses, constant-cache hits and misses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noc/noc.h"
#include "script_source.h"
#include "sim/sim_int.h" /* SIM_CODE_BASE, SIM_CONST_BASE, SIM_LOADS_PER_WARP */

#define A GPUEST_MEMIMG_BASE

/* Register operands are given as register + 1 (0: none), as script_inst_t stores them. */
static script_inst_t load(uint64_t addr, int dst, int src)
{
    return (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, addr, 4, 4, 1, -1,
                           (uint8_t)(dst + 1), (uint8_t)(src + 1), 0};
}

static script_inst_t alu(int dst, int src, int src2)
{
    return (script_inst_t){GPUEST_INST_COMPUTE, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, 0, 0, 0, 1, -1,
                           (uint8_t)(dst + 1), (uint8_t)(src + 1), (uint8_t)(src2 + 1)};
}

/* A __constant__ read: every lane reads 4 bytes at offset. */
static script_inst_t cread(uint64_t offset, int dst, int src)
{
    return (script_inst_t){GPUEST_INST_COMPUTE, GPUEST_MEM_LOAD, GPUEST_LAT_CONST, offset, 0, 4, 1, -1,
                           (uint8_t)(dst + 1), (uint8_t)(src + 1), 0};
}




static void machine(gpuest_config_t *c, int perfect_front)
{
    gpuest_error_t e;
    assert_int_equal(gpuest_config_preset(c, "fermi", &e), GPUEST_OK);
    c->core.perfect_inst_const_cache = perfect_front;
}

static void run(const gpuest_config_t *c, script_t *s, script_loads_t *l, gpuest_sim_result_t *r)
{
    gpuest_sim_source_t src;
    script_source(&src, s);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = l;
    o.hooks.load_done = script_on_load;
    gpuest_error_t e = {0};
    gpuest_err rc = gpuest_sim_run(c, &src, &o, r, &e);
    if (rc != GPUEST_OK)
        printf("# %s\n", e.msg);
    assert_int_equal(rc, GPUEST_OK);
}

/* Unloaded L2-hit round trip of a read from SM sm to the MC of addr, core cycles:
 * request packet, minimum L2 latency, reply packet (the fermi preset runs core,
 * interconnect and L2 on one clock). */
static int l2_round_trip(const gpuest_config_t *c, int sm, uint64_t addr)
{
    gpuest_error_t e;
    int sm_nodes[64], mc_nodes[GPUEST_MAX_MCS];
    assert_int_equal(gpuest_config_sm_nodes(c, sm_nodes, &e), GPUEST_OK);
    assert_int_equal(gpuest_config_mc_nodes(c, mc_nodes, &e), GPUEST_OK);
    assert_true(c->core.clock_mhz == c->noc.clock_mhz && c->core.clock_mhz == c->l2.clock_mhz);
    int s = sm_nodes[sm], m = mc_nodes[gpuest_config_mc_of_address(c, addr)], hops = 0;
    if (c->noc.topology == GPUEST_TOPO_MESH)
        hops = abs(s / c->noc.k - m / c->noc.k) + abs(s % c->noc.k - m % c->noc.k);
    return (int)(gpuest_noc_zero_load_latency(&c->noc, hops, 1) + c->l2.hit_latency +
                 gpuest_noc_zero_load_latency(&c->noc, hops, gpuest_sim_packet_flits(&c->noc, 128)));
}

/* ------------------------------------------------------------ scoreboard */

/* load R1 <- [A]; add R2 <- R1 (or independent); load R3 <- [A + 4096 + R2].
 * Dependent: the add waits for the fill of R1 (received at cycle done0, issued
 * the next cycle), the second load for the add's 4-cycle write-back:
 * issue1 = done0 + 1 + alu_latency. Independent: the add issues at cycle 1 and
 * the load when the add's result is back, cycle 1 + alu_latency, while the
 * first load is still in flight. */
static void check_dependence(int dependent)
{
    gpuest_config_t c;
    machine(&c, 1);
    script_t s = {0};
    script_inst_t p[] = {load(A, 1, -1), alu(2, dependent ? 1 : -1, -1), load(A + 4096, 3, 2)};
    script_kernel(&s, 0, NULL, 1, 3, p);
    script_loads_t l = {0};
    gpuest_sim_result_t r;
    run(&c, &s, &l, &r);
    assert_int_equal(l.n, 2);
    int first = l.issue[0] == 0 ? 0 : 1, second = 1 - first;
    assert_int_equal(l.issue[first], 0);
    printf("# %s: load 0 issued 0 done %llu, load 1 issued %llu done %llu\n", dependent ? "dependent" : "independent",
           (unsigned long long)l.done[first], (unsigned long long)l.issue[second],
           (unsigned long long)l.done[second]);
    if (dependent)
        assert_int_equal(l.issue[second], l.done[first] + 1 + (uint64_t)c.core.alu_latency);
    else
        assert_int_equal(l.issue[second], 1 + (uint64_t)c.core.alu_latency);
    assert_true(l.done[first] > 100); /* a DRAM read: the dependent case really waited */
    gpuest_sim_result_free(&r);
}

static void test_dependent_stalls(void **st)
{
    (void)st;
    check_dependence(1);
}

static void test_independent_runs_ahead(void **st)
{
    (void)st;
    check_dependence(0);
}

/* A load whose destination is still pending (write after write) waits like a reader. */
static void test_waw_stalls(void **st)
{
    (void)st;
    gpuest_config_t c;
    machine(&c, 1);
    script_t s = {0};
    script_inst_t p[] = {load(A, 1, -1), load(A + 4096, 1, -1)};
    script_kernel(&s, 0, NULL, 1, 2, p);
    script_loads_t l = {0};
    gpuest_sim_result_t r;
    run(&c, &s, &l, &r);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.issue[0], 0);
    assert_int_equal(l.issue[1], l.done[0] + 1);
    gpuest_sim_result_free(&r);
}

/* Nine independent loads to distinct lines: the first eight issue back to back
 * (one per cycle through the LD/ST unit) and are all in flight together; the
 * ninth needs a free load slot, the cycle after the first one completes. */
static void test_loads_in_flight(void **st)
{
    (void)st;
    assert_int_equal(SIM_LOADS_PER_WARP, 8);
    gpuest_config_t c;
    machine(&c, 1);
    script_t s = {0};
    script_inst_t p[9];
    for (int k = 0; k < 9; k++) /* distinct L1 sets: the L1 reserves a way per miss (4-way sets) */
        p[k] = load(A + (uint64_t)k * (8192 + 128), 10 + k, -1);
    script_kernel(&s, 0, NULL, 1, 9, p);
    script_loads_t l = {0};
    gpuest_sim_result_t r;
    run(&c, &s, &l, &r);
    assert_int_equal(l.n, 9);
    uint64_t seen = 0, first_done = UINT64_MAX, ninth = 0;
    for (int k = 0; k < 9; k++) {
        if (l.issue[k] < 8)
            seen |= 1u << l.issue[k];
        else
            ninth = l.issue[k];
        if (l.issue[k] < 8 && l.done[k] < first_done)
            first_done = l.done[k];
    }
    assert_int_equal(seen, 0xFF);       /* issued at cycles 0..7 */
    assert_true(first_done > 7);        /* none returned before the eighth issued */
    assert_int_equal(ninth, first_done + 1);
    assert_int_equal(r.total.read_requests, 9);
    gpuest_sim_result_free(&r);
}

/* ------------------------------------------------------------ instruction cache */

/* Kernel 0 ("k", one CTA on SM 0) brings its code line into the L2 (and SM 0's
 * L1I). Kernel 1 runs the same code on two CTAs: SM 0 hits its L1I, SM 1 misses
 * and waits one L2-hit round trip for the line, then issues the cycle after the
 * fill. So kernel 1 takes exactly round trip + 1 cycles longer than with a
 * perfect instruction cache. */
static uint64_t icache_kernel_cycles(int perfect, gpuest_sim_result_t *keep)
{
    gpuest_config_t c;
    machine(&c, perfect);
    script_t s = {0};
    script_inst_t p[] = {alu(1, -1, -1)};
    script_kernel(&s, 0, "k", 1, 1, p);
    script_kernel(&s, 1, "k", 2, 1, p);
    script_loads_t l = {0};
    gpuest_sim_result_t r;
    run(&c, &s, &l, &r);
    assert_int_equal(r.num_kernels, 2);
    uint64_t cycles = r.kernels[1].cycles;
    *keep = r;
    return cycles;
}

static void test_icache_miss_round_trip(void **st)
{
    (void)st;
    gpuest_config_t c;
    machine(&c, 0);
    gpuest_sim_result_t real, ideal;
    uint64_t with_misses = icache_kernel_cycles(0, &real), perfect = icache_kernel_cycles(1, &ideal);
    int rt = l2_round_trip(&c, 1, SIM_CODE_BASE);
    printf("# kernel 1: %llu cycles, %llu with a perfect L1I, L2 round trip %d\n", (unsigned long long)with_misses,
           (unsigned long long)perfect, rt);
    assert_int_equal(with_misses, perfect + (uint64_t)rt + 1);
    /* kernel 0: one fetch, one miss, to DRAM; kernel 1: SM 0 hits, SM 1 misses and hits the L2 */
    assert_int_equal(real.kernels[0].l1i_accesses, 1);
    assert_int_equal(real.kernels[0].l1i_misses, 1);
    assert_int_equal(real.kernels[0].dram_reads, 1);
    assert_int_equal(real.kernels[1].l1i_accesses, 2);
    assert_int_equal(real.kernels[1].l1i_misses, 1);
    assert_int_equal(real.kernels[1].l2_hits, 1);
    assert_int_equal(real.kernels[1].front_requests, 1);
    assert_int_equal(real.kernels[1].read_requests, 0); /* not an L1D miss */
    assert_int_equal(ideal.total.l1i_accesses, 0);
    gpuest_sim_result_free(&real);
    gpuest_sim_result_free(&ideal);
}

/* 32 instructions of 8 bytes span two 128-byte lines (pcs 0..120, 128..248):
 * two fetches that change line, two misses. */
static void test_icache_lines(void **st)
{
    (void)st;
    gpuest_config_t c;
    machine(&c, 0);
    script_t s = {0};
    script_inst_t many[SCRIPT_MAX_INSTS];
    for (int k = 0; k < SCRIPT_MAX_INSTS; k++)
        many[k] = alu(1 + k % 4, -1, -1);
    script_kernel(&s, 0, NULL, 1, SCRIPT_MAX_INSTS, many);
    script_loads_t l = {0};
    gpuest_sim_result_t r;
    run(&c, &s, &l, &r);
    assert_int_equal(SCRIPT_MAX_INSTS * GPUEST_GEN_INST_BYTES, 256);
    assert_int_equal(r.total.l1i_accesses, 2);
    assert_int_equal(r.total.l1i_misses, 2);
    assert_int_equal(r.total.front_requests, 2);
    gpuest_sim_result_free(&r);
}

/* ------------------------------------------------------------ constant cache */

/* c1: offset 0, cold: misses to DRAM. c2 (after c1): offset 4, the same 64-byte
 * L1C line: hits. c3 (after c2): offset 64, the next L1C line, whose 128-byte
 * L2 line c1 brought in: misses the L1C, hits the L2, and completes one round
 * trip plus the constant-cache latency after it issued. */
static void test_const_cache(void **st)
{
    (void)st;
    gpuest_config_t c;
    machine(&c, 0);
    script_t s = {0};
    script_inst_t p[] = {cread(0, 1, -1), cread(4, 2, 1), cread(64, 3, 2), alu(4, 3, -1)};
    script_kernel(&s, 0, NULL, 1, 4, p);
    script_loads_t l = {0};
    gpuest_sim_result_t r;
    run(&c, &s, &l, &r);
    assert_int_equal(r.total.l1c_accesses, 3);
    assert_int_equal(r.total.l1c_misses, 2);
    assert_int_equal(r.total.front_requests, 3); /* one instruction line, two constant lines */
    assert_int_equal(l.n, 2);                    /* the two misses occupied load slots */
    int rt = l2_round_trip(&c, 0, SIM_CONST_BASE + 64);
    printf("# constant miss to the L2: %llu cycles (round trip %d + %d)\n",
           (unsigned long long)(l.done[1] - l.issue[1]), rt, c.core.const_latency);
    assert_int_equal(l.done[1] - l.issue[1], (uint64_t)(rt + c.core.const_latency));
    assert_true(l.done[0] - l.issue[0] > (uint64_t)(rt + c.core.const_latency)); /* DRAM */
    /* c2 issued when c1's value was written back (its done cycle) and hit; c3
     * issued when c2's value was written back, const_latency later */
    assert_int_equal(l.issue[1], l.done[0] + (uint64_t)c.core.const_latency);
    gpuest_sim_result_free(&r);
}

/* With the perfect front end, constant reads never miss and nothing is fetched. */
static void test_const_perfect(void **st)
{
    (void)st;
    gpuest_config_t c;
    machine(&c, 1);
    script_t s = {0};
    script_inst_t p[] = {cread(0, 1, -1), cread(64, 2, 1)};
    script_kernel(&s, 0, NULL, 1, 2, p);
    script_loads_t l = {0};
    gpuest_sim_result_t r;
    run(&c, &s, &l, &r);
    assert_int_equal(r.total.l1c_misses, 0);
    assert_int_equal(r.total.front_requests, 0);
    assert_int_equal(l.n, 0);
    gpuest_sim_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_stalls),   cmocka_unit_test(test_independent_runs_ahead),
        cmocka_unit_test(test_waw_stalls),         cmocka_unit_test(test_loads_in_flight),
        cmocka_unit_test(test_icache_miss_round_trip), cmocka_unit_test(test_icache_lines),
        cmocka_unit_test(test_const_cache),        cmocka_unit_test(test_const_perfect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
