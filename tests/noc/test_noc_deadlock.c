/* test_noc_deadlock.c: no deadlock at and beyond saturation for every routing, class split and MC placement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "noc/noc.h"

/* A request/reply protocol with finite queues everywhere: SMs send 1-flit
 * requests to MCs as fast as their NIs accept them; an MC takes a request off
 * the network only while it has room for the reply (8 pending), and replies are
 * 5 flits. Requests and replies depend on each other, so sharing buffers
 * between the classes could deadlock; the class split must prevent it. */
typedef struct {
    int *pending;      /* per node: replies waiting at an MC */
    int *reply_dst;    /* per node: ring of 8 destinations */
    int *head;
} mc_state_t;

static void run_protocol(const gpuest_noc_cfg_t *cfg, int nodes, const int *mcs, int nmcs, int64_t cycles,
                         uint64_t seed)
{
    gpuest_noc_opts_t o;
    gpuest_noc_opts_default(&o);
    o.num_classes = 2;
    o.num_nodes = nodes;
    gpuest_noc_t *noc = NULL;
    gpuest_error_t e = {0};
    if (gpuest_noc_create(cfg, &o, &noc, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    int n = gpuest_noc_num_nodes(noc);
    uint8_t *is_mc = calloc((size_t)n, 1);
    mc_state_t mc = {calloc((size_t)n, sizeof(int)), calloc((size_t)n * 8, sizeof(int)), calloc((size_t)n, sizeof(int))};
    for (int i = 0; i < nmcs; i++)
        is_mc[mcs[i]] = 1;
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(seed, &rng), GPUEST_OK);
    uint64_t replies = 0, blocked = 0;
    int64_t drain_at = cycles, worst_gap = 0;
    for (int64_t t = 0; t < cycles + 50000; t++) {
        for (int s = 0; s < n; s++) {
            if (is_mc[s]) {
                gpuest_noc_packet_t p;
                while (mc.pending[s] < 8 && gpuest_noc_eject(noc, s, &p)) {
                    assert_int_equal(p.cls, GPUEST_NOC_REQUEST);
                    mc.reply_dst[s * 8 + (mc.head[s] + mc.pending[s]) % 8] = p.src;
                    mc.pending[s]++;
                }
                while (mc.pending[s] > 0 && gpuest_noc_can_inject_flits(noc, s, GPUEST_NOC_REPLY, 5)) {
                    gpuest_noc_send_t r = {.src = s, .dst = mc.reply_dst[s * 8 + mc.head[s]],
                                           .cls = GPUEST_NOC_REPLY, .flits = 5, .created = -1};
                    assert_int_equal(gpuest_noc_inject(noc, &r, NULL, &e), GPUEST_OK);
                    mc.head[s] = (mc.head[s] + 1) % 8;
                    mc.pending[s]--;
                }
            } else {
                gpuest_noc_packet_t p;
                while (gpuest_noc_eject(noc, s, &p)) {
                    assert_int_equal(p.cls, GPUEST_NOC_REPLY);
                    replies++;
                }
                if (t < drain_at && !gpuest_noc_can_inject(noc, s, GPUEST_NOC_REQUEST))
                    blocked++;
                else if (t < drain_at) {
                    gpuest_noc_send_t q = {.src = s, .dst = mcs[gpuest_rng_below(rng, (uint64_t)nmcs)],
                                           .cls = GPUEST_NOC_REQUEST, .flits = 1, .created = -1};
                    assert_int_equal(gpuest_noc_inject(noc, &q, NULL, &e), GPUEST_OK);
                }
            }
        }
        gpuest_noc_step(noc);
        int64_t gap = gpuest_noc_now(noc) - gpuest_noc_last_progress(noc);
        if (t < drain_at && gap > worst_gap)
            worst_gap = gap;
        if (t >= drain_at && gpuest_noc_in_flight(noc) == 0) {
            int idle = 1;
            for (int s = 0; s < n; s++)
                if (mc.pending[s])
                    idle = 0;
            if (idle)
                break;
        }
        if (t % 4096 == 0 && gpuest_noc_check(noc, &e) != GPUEST_OK)
            fail_msg("cycle %lld: %s", (long long)t, e.msg);
    }
    for (int s = 0; s < n; s++) { /* replies delivered in the last cycle */
        gpuest_noc_packet_t p;
        while (!is_mc[s] && gpuest_noc_eject(noc, s, &p))
            replies++;
    }
    /* while loaded, some flit moved every few cycles; afterwards everything drained */
    assert_true(worst_gap < 64);
    assert_int_equal(gpuest_noc_in_flight(noc), 0);
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_OK);
    gpuest_noc_stats_t st;
    gpuest_noc_stats(noc, &st);
    assert_int_equal(st.cls[GPUEST_NOC_REPLY].packets_ejected, replies);
    assert_int_equal(st.cls[GPUEST_NOC_REQUEST].packets_ejected, replies);
    assert_true(replies > 0);
    assert_true(blocked > (uint64_t)cycles); /* SMs found their NI full: beyond saturation */
    gpuest_rng_destroy(rng);
    free(is_mc);
    free(mc.pending);
    free(mc.reply_dst);
    free(mc.head);
    gpuest_noc_destroy(noc);
}

/* Cycles of a case: short in the everyday suite; GPUEST_NOC_FULL=1 in the
 * environment runs every case for 10^6 cycles (bench/RESULTS.md records it). */
static int64_t case_cycles(int64_t everyday)
{
    const char *full = getenv("GPUEST_NOC_FULL");
    return (full && strcmp(full, "1") == 0) ? 1000000 : everyday;
}

static void placement_nodes(gpuest_config_t *c, gpuest_mc_placement_t pl, int *mcs)
{
    gpuest_error_t e = {0};
    c->noc.mc_placement = pl;
    if (pl == GPUEST_MCPLACE_LIST) {
        c->noc.num_mc_nodes = c->mc.num_mcs;
        for (int i = 0; i < c->mc.num_mcs; i++)
            c->noc.mc_nodes[i] = (i * 7 + 3) % (c->noc.k * c->noc.k);
    }
    if (gpuest_config_mc_nodes(c, mcs, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
}

/* 4x4 mesh, 4 MCs: every routing pair x class split x placement. */
static void test_all_combinations(void **state)
{
    (void)state;
    const gpuest_routing_t routes[][2] = {
        {GPUEST_ROUTE_XY, GPUEST_ROUTE_XY},
        {GPUEST_ROUTE_XY, GPUEST_ROUTE_YX},
        {GPUEST_ROUTE_YX, GPUEST_ROUTE_XY},
        {GPUEST_ROUTE_YX, GPUEST_ROUTE_YX},
    };
    const gpuest_mc_placement_t places[] = {GPUEST_MCPLACE_BOTTOM, GPUEST_MCPLACE_TOP_BOTTOM, GPUEST_MCPLACE_EDGE,
                                            GPUEST_MCPLACE_DIAMOND, GPUEST_MCPLACE_LIST};
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "mesh56", NULL), GPUEST_OK);
    c.noc.k = 4;
    c.mc.num_mcs = 4;
    c.noc.vcs = 2;
    c.noc.buffer_flits = 4;
    int cases = 0;
    for (size_t r = 0; r < 4; r++)
        for (int split = 0; split < 2; split++)
            for (size_t p = 0; p < 5; p++) {
                c.noc.routing_request = routes[r][0];
                c.noc.routing_reply = routes[r][1];
                c.noc.class_split = split ? GPUEST_SPLIT_PHYSICAL : GPUEST_SPLIT_VIRTUAL;
                int mcs[GPUEST_MAX_MCS];
                placement_nodes(&c, places[p], mcs);
                run_protocol(&c.noc, 16, mcs, 4, case_cycles(3000), 100 + (uint64_t)cases);
                cases++;
            }
    assert_int_equal(cases, 40);
}

/* The full-size mesh56 machine with GPGPU-Sim's 56/8 MC map, and the Fermi crossbar. */
static void test_presets(void **state)
{
    (void)state;
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "mesh56", NULL), GPUEST_OK);
    const int map[8] = {3, 15, 17, 29, 36, 47, 49, 61};
    c.noc.routing_reply = GPUEST_ROUTE_YX;
    run_protocol(&c.noc, 64, map, 8, case_cycles(6000), 1);
    assert_int_equal(gpuest_config_preset(&c, "fermi", NULL), GPUEST_OK);
    int mcs[GPUEST_MAX_MCS];
    assert_int_equal(gpuest_config_mc_nodes(&c, mcs, NULL), GPUEST_OK);
    run_protocol(&c.noc, c.core.num_sms + c.mc.num_mcs, mcs, c.mc.num_mcs, case_cycles(6000), 2);
}

/* One long run: 10^6 cycles beyond saturation on a 3x3 mesh with XY-YX
 * routing and VC partitioning (1 VC per class, the tightest case). */
static void test_million_cycles(void **state)
{
    (void)state;
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "mesh56", NULL), GPUEST_OK);
    c.noc.k = 3;
    c.noc.vcs = 2;
    c.noc.buffer_flits = 2;
    c.noc.routing_reply = GPUEST_ROUTE_YX;
    const int mcs[2] = {1, 7};
    run_protocol(&c.noc, 9, mcs, 2, 1000000, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_combinations),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_million_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
