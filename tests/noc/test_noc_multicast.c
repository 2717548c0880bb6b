/* test_noc_multicast.c: in-router multicast replication (coalescing paper section 4): exact delivery, tree link
 * loads worked by hand on a 4x4 mesh, the crossbar's one-cycle replication, and no deadlock at saturation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "noc/noc.h"
#include "noc_fixture.h"

/* The shared mesh, with YX replies (the multicast cases below are worked for it). */
static gpuest_noc_cfg_t mesh_cfg(int k, int vcs)
{
    gpuest_noc_cfg_t c = noc_fixture_mesh(k, vcs);
    c.routing_reply = GPUEST_ROUTE_YX;
    return c;
}


static void check_ok(const gpuest_noc_t *noc)
{
    gpuest_error_t e = {0};
    if (gpuest_noc_check(noc, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
}

/* Flits carried by the router-to-router link src -> dst (0 if there is no such link). */
static uint64_t link_flits(const gpuest_noc_t *noc, int kind, int src, int dst)
{
    for (int i = 0; i < gpuest_noc_num_links(noc); i++) {
        gpuest_noc_link_t l;
        gpuest_noc_link_info(noc, i, &l);
        if (l.kind == kind && l.src_node == src && l.dst_node == dst)
            return l.flits;
    }
    return 0;
}

/* Sends one multicast from src to dests[0..n) and runs the network dry; checks that every destination
 * receives it exactly once, nothing else receives anything, and each copy crossed the DOR distance. */
static void send_and_drain(gpuest_noc_t *noc, int src, const int *dests, int n, int cls, int flits, int k,
                           int64_t *ejected)
{
    gpuest_noc_send_t s = {.src = src, .dests = dests, .num_dests = n, .cls = cls, .flits = flits, .created = -1};
    uint64_t id;
    gpuest_error_t e = {0};
    if (gpuest_noc_inject(noc, &s, &id, &e) != GPUEST_OK)
        fail_msg("inject: %s", e.msg);
    assert_int_equal(gpuest_noc_in_flight(noc), (uint64_t)n);
    int nodes = gpuest_noc_num_nodes(noc);
    int *got = calloc((size_t)nodes, sizeof(int));
    for (int t = 0; t < 2000 && gpuest_noc_in_flight(noc) > 0; t++) {
        gpuest_noc_step(noc);
        check_ok(noc);
        gpuest_noc_packet_t p;
        for (int d = 0; d < nodes; d++)
            while (gpuest_noc_eject(noc, d, &p)) {
                assert_int_equal(p.id, id);
                assert_int_equal(p.src, src);
                assert_int_equal(p.dst, d);
                assert_int_equal(p.flits, flits);
                assert_int_equal(p.cls, cls);
                if (k > 0)
                    assert_int_equal(p.hops, abs(src % k - d % k) + abs(src / k - d / k));
                got[d]++;
                if (ejected)
                    ejected[d] = p.ejected;
            }
    }
    assert_int_equal(gpuest_noc_in_flight(noc), 0);
    for (int d = 0; d < nodes; d++) {
        int want = 0;
        for (int i = 0; i < n; i++)
            want += dests[i] == d;
        if (got[d] != want)
            fail_msg("node %d received the multicast %d times (expected %d)", d, got[d], want);
    }
    free(got);
}

/* 4x4 mesh, node = row * 4 + col, row 0 at the top. Source 13 = (row 3, col 1); destinations
 * 0 (0,0), 3 (0,3), 5 (1,1), 14 (3,2), 15 (3,3) and the source itself.
 * XY tree (class 0): 13->12->8->4->0 (west, then north), 13->14->15->11->7->3 (east, then north),
 * 13->9->5 (north); 14 and 15 lie on the east branch. Union: 11 links, each carrying the packet's
 * F flits once; the unicast copies would have crossed 4 + 5 + 2 + 1 + 2 = 14 links.
 * YX tree (class 1): 13->9->5->1 (north), then 1->0 (west) and 1->2->3 (east); 13->14->15 (east).
 * Union: 8 links. The injection link of 13 carries F flits once (the source-NI replication this
 * replaces carried 6 F). */
static void test_mesh_tree_links(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = mesh_cfg(4, 4);
    gpuest_noc_t *noc = noc_fixture_make(&c, 2, 0);
    const int dests[] = {0, 3, 5, 14, 15, 13};
    const int F = 4;
    send_and_drain(noc, 13, dests, 6, GPUEST_NOC_REQUEST, F, 4, NULL);
    static const int xy[][2] = {{13, 12}, {12, 8}, {8, 4}, {4, 0}, {13, 14}, {14, 15},
                                {15, 11}, {11, 7}, {7, 3}, {13, 9}, {9, 5}};
    uint64_t total = 0;
    for (int i = 0; i < gpuest_noc_num_links(noc); i++) {
        gpuest_noc_link_t l;
        gpuest_noc_link_info(noc, i, &l);
        if (l.kind == 0)
            total += l.flits;
    }
    for (size_t i = 0; i < sizeof xy / sizeof xy[0]; i++)
        if (link_flits(noc, 0, xy[i][0], xy[i][1]) != F)
            fail_msg("XY tree: link %d->%d carried %llu flits (expected %d)", xy[i][0], xy[i][1],
                     (unsigned long long)link_flits(noc, 0, xy[i][0], xy[i][1]), F);
    assert_int_equal(total, 11 * F);
    assert_int_equal(link_flits(noc, 1, 13, 13), F); /* injection: once */
    for (int i = 0; i < 6; i++)
        assert_int_equal(link_flits(noc, 2, dests[i], dests[i]), F);

    gpuest_noc_stats_reset(noc);
    send_and_drain(noc, 13, dests, 6, GPUEST_NOC_REPLY, F, 4, NULL);
    static const int yx[][2] = {{13, 9}, {9, 5}, {5, 1}, {1, 0}, {1, 2}, {2, 3}, {13, 14}, {14, 15}};
    total = 0;
    for (int i = 0; i < gpuest_noc_num_links(noc); i++) {
        gpuest_noc_link_t l;
        gpuest_noc_link_info(noc, i, &l);
        if (l.kind == 0)
            total += l.flits;
    }
    for (size_t i = 0; i < sizeof yx / sizeof yx[0]; i++)
        assert_int_equal(link_flits(noc, 0, yx[i][0], yx[i][1]), F);
    assert_int_equal(total, 8 * F);
    assert_int_equal(link_flits(noc, 1, 13, 13), F);
    gpuest_noc_destroy(noc);
}

/* Every set over a 4x4 mesh from several sources reaches exactly its members (random sets, long
 * and short packets, with unicast traffic around them), and the statistics count one injection and
 * one ejection per member. */
static void test_mesh_random_sets(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = mesh_cfg(4, 4);
    gpuest_noc_t *noc = noc_fixture_make(&c, 2, 0);
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(11, &rng), GPUEST_OK);
    for (int trial = 0; trial < 60; trial++) {
        int perm[16], n = 2 + (int)gpuest_rng_below(rng, 15);
        for (int i = 0; i < 16; i++)
            perm[i] = i;
        for (int i = 0; i < n; i++) { /* partial Fisher-Yates: n distinct nodes */
            int j = i + (int)gpuest_rng_below(rng, (uint64_t)(16 - i));
            int x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        int src = (int)gpuest_rng_below(rng, 16);
        send_and_drain(noc, src, perm, n, trial % 2, 1 + trial % 8, 4, NULL);
    }
    gpuest_noc_stats_t st;
    gpuest_noc_stats(noc, &st);
    assert_int_equal(st.cls[0].packets_injected + st.cls[1].packets_injected, 60);
    gpuest_rng_destroy(rng);
    gpuest_noc_destroy(noc);
}

/* Crossbar: mux-based replication. On an idle switch all copies leave in the same cycle, so every
 * member receives the tail at the cycle a unicast packet would; the injection port carries it once. */
static void test_crossbar_one_cycle(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = mesh_cfg(4, 2);
    c.topology = GPUEST_TOPO_CROSSBAR;
    gpuest_noc_t *noc = noc_fixture_make(&c, 1, 8);
    const int dests[] = {1, 4, 6, 7};
    int64_t ej[8] = {0};
    int64_t t0 = gpuest_noc_now(noc);
    send_and_drain(noc, 2, dests, 4, 0, 3, 0, ej);
    for (int i = 1; i < 4; i++)
        assert_int_equal(ej[dests[i]], ej[dests[0]]);
    int64_t mc_lat = ej[1] - t0;
    assert_int_equal(link_flits(noc, 1, 2, 2), 3);
    /* the same packet as unicast takes the same time */
    gpuest_noc_send_t s = {.src = 2, .dst = 6, .cls = 0, .flits = 3, .created = -1};
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, NULL), GPUEST_OK);
    int64_t t1 = gpuest_noc_now(noc);
    gpuest_noc_packet_t p;
    int64_t got = -1;
    for (int t = 0; t < 200 && got < 0; t++) {
        gpuest_noc_step(noc);
        if (gpuest_noc_eject(noc, 6, &p))
            got = p.ejected - t1;
    }
    assert_int_equal(got, mc_lat);
    gpuest_noc_destroy(noc);
}

/* Bad multicast sets are refused with a message, and nothing is queued. */
static void test_bad_sets(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = mesh_cfg(4, 4);
    gpuest_noc_t *noc = noc_fixture_make(&c, 2, 0);
    gpuest_error_t e = {0};
    const int dup[] = {3, 5, 3}, out[] = {1, 16};
    gpuest_noc_send_t s = {.src = 0, .dests = dup, .num_dests = 3, .flits = 2, .created = -1};
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_EINVAL);
    s.dests = out;
    s.num_dests = 2;
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_ERANGE);
    const int ok[] = {1, 2};
    s.dests = ok;
    s.flits = 9; /* longer than the 8-flit VC buffer: replication could wait on a sibling */
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "8-flit"));
    assert_int_equal(gpuest_noc_in_flight(noc), 0);
    gpuest_noc_destroy(noc);
}

/* n distinct nodes of 0..nodes-1 drawn uniformly into set. */
static void pick_distinct(gpuest_rng_t *rng, int nodes, int *set, int n)
{
    for (int i = 0; i < n; i++) {
        int d, dup;
        do {
            d = (int)gpuest_rng_below(rng, (uint64_t)nodes);
            dup = 0;
            for (int j = 0; j < i; j++)
                dup |= set[j] == d;
        } while (dup);
        set[i] = d;
    }
}

/* Mixed unicast and multicast at saturation on the 8x8 mesh of mesh56 (4 VCs, 2 per class): every
 * node offers more than the network accepts for `cycles`, requests are unicast (9 flits, longer than
 * a buffer), replies are multicast (1..8 flits) or unicast, then injection stops and everything must
 * drain. Deadlock freedom (docs/noc.md): a multicast packet fits one VC buffer, so every replica can
 * take all its flits without waiting for a sibling; what remains is dimension-order routing inside
 * each class's VCs (acyclic) and a class split that keeps replies independent of requests. */
static void saturate(gpuest_routing_t req, gpuest_routing_t rep, int64_t cycles, uint64_t seed)
{
    gpuest_noc_cfg_t c = mesh_cfg(8, 4);
    c.routing_delay = 0;
    c.routing_request = req;
    c.routing_reply = rep;
    gpuest_noc_t *noc = noc_fixture_make(&c, 2, 0);
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(seed, &rng), GPUEST_OK);
    gpuest_error_t e = {0};
    uint64_t sent = 0, received = 0;
    for (int64_t t = 0; t < cycles + 20000; t++) {
        for (int s = 0; s < 64 && t < cycles; s++) {
            int cls = (int)gpuest_rng_below(rng, 2);
            if (!gpuest_noc_can_inject(noc, s, cls))
                continue;
            int set[8], n = cls == GPUEST_NOC_REPLY ? 1 + (int)gpuest_rng_below(rng, 8) : 1;
            pick_distinct(rng, 64, set, n);
            int flits = cls == GPUEST_NOC_REQUEST ? 9 : 1 + (int)gpuest_rng_below(rng, 8);
            gpuest_noc_send_t p = {.src = s, .dst = set[0], .dests = n > 1 ? set : NULL, .num_dests = n > 1 ? n : 0,
                                   .cls = cls, .flits = flits, .created = -1};
            if (gpuest_noc_inject(noc, &p, NULL, &e) != GPUEST_OK)
                fail_msg("inject: %s", e.msg);
            sent += (uint64_t)n;
        }
        gpuest_noc_step(noc);
        gpuest_noc_packet_t pk;
        for (int d = 0; d < 64; d++)
            while (gpuest_noc_eject(noc, d, &pk))
                received++;
        if (t % 997 == 0)
            check_ok(noc);
        if (gpuest_noc_now(noc) - gpuest_noc_last_progress(noc) > 1000)
            fail_msg("no flit moved for 1000 cycles at cycle %lld (%s-%s): deadlock", (long long)t,
                     gpuest_net_routing_name(req), gpuest_net_routing_name(rep));
        if (t >= cycles && gpuest_noc_in_flight(noc) == 0)
            break;
    }
    check_ok(noc);
    assert_int_equal(gpuest_noc_in_flight(noc), 0);
    assert_int_equal(received, sent);
    assert_true(sent > 5000);
    gpuest_rng_destroy(rng);
    gpuest_noc_destroy(noc);
}

static void test_saturation_no_deadlock(void **state)
{
    (void)state;
    int64_t cycles = getenv("GPUEST_NOC_FULL") ? 200000 : 6000;
    gpuest_routing_t o1 = 0;
    assert_int_equal(gpuest_net_routing_find("o1turn", &o1, NULL), GPUEST_OK);
    saturate(GPUEST_ROUTE_XY, GPUEST_ROUTE_XY, cycles, 1);
    saturate(GPUEST_ROUTE_XY, GPUEST_ROUTE_YX, cycles, 2);
    saturate(o1, o1, cycles, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_tree_links),
        cmocka_unit_test(test_mesh_random_sets),
        cmocka_unit_test(test_crossbar_one_cycle),
        cmocka_unit_test(test_bad_sets),
        cmocka_unit_test(test_saturation_no_deadlock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
