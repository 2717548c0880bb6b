/* test_sim_invariants.c: invariants of full runs on generated workloads: one reply per request, latency split, determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"

/* The presets as they are; tiny inputs keep a Debug (sanitizer) run at a few seconds. */
static void small_machine(gpuest_config_t *c, const char *preset)
{
    gpuest_error_t e;
    assert_int_equal(gpuest_config_preset(c, preset, &e), GPUEST_OK);
}

static gpuest_err run_workload(const gpuest_config_t *c, const char *name, uint64_t seed, gpuest_sim_result_t *r,
                               gpuest_error_t *e)
{
    gpuest_workload_t *wl = NULL;
    gpuest_err rc = gpuest_workload_create(name, GPUEST_SCALE_TINY, seed, &wl, e);
    if (rc != GPUEST_OK)
        return rc;
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.watchdog_cycles = 50000;
    rc = gpuest_sim_run(c, &src, &o, r, e);
    gpuest_workload_destroy(wl);
    return rc;
}

static void check_stats(const gpuest_sim_stats_t *s, const gpuest_config_t *c)
{
    /* Cross-component counts only (identities that hold by construction, such as
     * the latency split, hits + misses == accesses or merges <= misses, and ranges
     * every output satisfies were removed: they cannot fail). Every read request
     * reaching an MC is a locality read: the L1D's, the L1I's and the L1C's. */
    assert_int_equal(s->locality_reads, s->read_requests + s->front_requests);
    assert_true(s->front_requests <= s->l1i_misses + s->l1c_misses);
    /* packets: one request and one reply per memory request of the window */
    assert_int_equal(s->packets[0], s->read_requests + s->write_requests + s->front_requests);
    assert_int_equal(s->packets[1], s->replies);
    /* request flits, counted by the network, against what the L1 sent: a head flit per request
     * (the presets have no header bytes in the data flits) and each write's data, its sectors,
     * in flits (32-byte sectors fill whole 16- and 32-byte flits). Catches a write size counted
     * in lines or in requests instead of the sectors the packets carry. */
    assert_int_equal(c->noc.header_bytes, 0);
    assert_int_equal(32 % c->noc.flit_bytes, 0);
    assert_true(s->write_bytes % 32 == 0 && s->write_bytes <= 128 * s->write_requests);
    assert_int_equal(s->flits[0], s->read_requests + s->front_requests + s->write_requests +
                                      s->write_bytes / (uint64_t)c->noc.flit_bytes);
}

static void check_workload(const char *preset, const char *name)
{
    gpuest_config_t c;
    small_machine(&c, preset);
    gpuest_sim_result_t a, b;
    gpuest_error_t e = {0};
    gpuest_err rc = run_workload(&c, name, 7, &a, &e);
    if (rc != GPUEST_OK)
        fail_msg("%s on %s: %s", name, preset, e.msg);
    printf("# %s/%s: %zu kernels, %llu cycles, %llu warp insts, ipc %.2f, miss lat %.1f = %.1f + %.1f + %.1f, "
           "stall %.3f, loc960 %.3f\n",
           preset, name, a.num_kernels, (unsigned long long)a.total.cycles,
           (unsigned long long)a.total.warp_instructions, a.total.ipc, a.total.miss_latency, a.total.req_latency,
           a.total.mem_latency, a.total.reply_latency, a.total.mc_stall_ratio, a.total.intercore_locality[3]);
    assert_true(a.total.warp_instructions > 0);
    assert_true(a.total.read_requests > 0);
    /* every memory request got exactly one reply (duplicates fail the run with ECORRUPT) */
    assert_int_equal(a.requests_sent, a.replies_received);
    assert_int_equal(a.outstanding, 0);
    check_stats(&a.total, &c);
    uint64_t cycles = 0, insts = 0;
    for (size_t k = 0; k < a.num_kernels; k++) {
        check_stats(&a.kernels[k], &c);
        cycles += a.kernels[k].cycles;
        insts += a.kernels[k].warp_instructions;
    }
    assert_int_equal(cycles, a.total.cycles);
    assert_int_equal(insts, a.total.warp_instructions);
    /* same seed, same statistics, bit for bit */
    assert_int_equal(run_workload(&c, name, 7, &b, &e), GPUEST_OK);
    assert_int_equal(a.num_kernels, b.num_kernels);
    assert_memory_equal(&a.total, &b.total, sizeof a.total);
    assert_memory_equal(a.kernels, b.kernels, a.num_kernels * sizeof *a.kernels);
    assert_int_equal(a.num_samples, b.num_samples);
    if (a.num_samples)
        assert_memory_equal(a.samples, b.samples, a.num_samples * sizeof *a.samples);
    gpuest_sim_result_free(&a);
    gpuest_sim_result_free(&b);
}

static void test_bfs_fermi(void **st)
{
    (void)st;
    check_workload("fermi", "bfs");
}

static void test_gemm_fermi(void **st)
{
    (void)st;
    check_workload("fermi", "gemm");
}

static void test_spmv_mesh56(void **st)
{
    (void)st;
    check_workload("mesh56", "spmv");
}

static void test_hotspot_mesh28(void **st)
{
    (void)st;
    check_workload("mesh28", "hotspot");
}

static void test_kmeans_latte15(void **st)
{
    (void)st;
    check_workload("latte15", "kmeans");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bfs_fermi),      cmocka_unit_test(test_gemm_fermi),
        cmocka_unit_test(test_spmv_mesh56),    cmocka_unit_test(test_hotspot_mesh28),
        cmocka_unit_test(test_kmeans_latte15),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
