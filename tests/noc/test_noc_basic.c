/* test_noc_basic.c: zero-load latencies worked out by hand, flit conservation, ordering, credits, back-pressure, determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "noc/noc.h"
#include "noc_fixture.h"
#include "noc/noc_int.h" /* private layout, for the corruption test only */


/* Sends one packet through an empty network; returns its latency. */
static int64_t one_packet(gpuest_noc_t *noc, int src, int dst, int cls, int flits, int *hops)
{
    gpuest_noc_send_t s = {.src = src, .dst = dst, .cls = cls, .flits = flits, .created = -1};
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, NULL), GPUEST_OK);
    gpuest_noc_packet_t p;
    for (int i = 0; i < 10000; i++) {
        gpuest_noc_step(noc);
        if (gpuest_noc_eject(noc, dst, &p)) {
            assert_int_equal(p.src, src);
            assert_int_equal(p.flits, flits);
            *hops = p.hops;
            return p.ejected - p.created;
        }
    }
    fail_msg("packet %d -> %d never arrived", src, dst);
    return -1;
}

/* Default pipeline: NI->router link 2 cycles (latency 1 + the input read of
 * the next cycle), per router RC+VA+SA+ST = 4, per link 1 + 1 = 2... giving
 * 7 + 5*hops + (flits - 1), BookSim's measured fit (reference README). */
static void test_zero_load_default(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(8, 4);
    gpuest_noc_t *noc = noc_fixture_make(&c, 1, 0);
    struct {
        int src, dst, flits, hops;
        int64_t expect;
    } cases[] = {
        {0, 0, 1, 0, 7},       /* to itself: one router */
        {0, 1, 1, 1, 12},      /* one hop east */
        {9, 1, 1, 1, 12},      /* one hop north */
        {0, 63, 1, 14, 77},    /* corner to corner */
        {0, 63, 5, 14, 81},    /* + 4 body flits */
        {27, 36, 3, 2, 19},    /* (3,3) -> (4,4) */
        {56, 7, 9, 14, 85},    /* bottom-left -> top-right, 9 flits (more than one buffer) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int hops = -1;
        int64_t lat = one_packet(noc, cases[i].src, cases[i].dst, 0, cases[i].flits, &hops);
        assert_int_equal(hops, cases[i].hops);
        assert_int_equal(lat, cases[i].expect);
        assert_int_equal(lat, gpuest_noc_zero_load_latency(&c, hops, cases[i].flits));
    }
    gpuest_noc_destroy(noc);
}

/* Look-ahead routing (routing_delay 0), 2-cycle links and credit/output delays,
 * by hand for 0 -> 2 on a 4x4 (2 hops), injected at cycle 0: the injection
 * link delivers at 0 + 2 + 1 = 3; router 0: VA 3, SA 4, ST 5; a router link
 * delivers 2 + 1 + output_delay 1 = 4 later: router 1 VA 9, SA 10, ST 11;
 * router 2 VA 15, SA 16, ST 17; ejection link: 21. A second flit adds 1. */
static void test_zero_load_custom(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(4, 2);
    c.routing_delay = 0;
    c.link_latency = 2;
    c.output_delay = 1;
    c.credit_delay = 2;
    gpuest_noc_t *noc = noc_fixture_make(&c, 1, 0);
    int hops;
    assert_int_equal(one_packet(noc, 0, 2, 0, 1, &hops), 21);
    assert_int_equal(hops, 2);
    assert_int_equal(one_packet(noc, 0, 2, 0, 2, &hops), 22);
    assert_int_equal(gpuest_noc_zero_load_latency(&c, 2, 2), 22);
    gpuest_noc_destroy(noc);
}

/* XY and YX take different paths: the latency is the same, the links differ. */
static void test_routing_xy_yx(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(4, 2);
    c.routing_request = GPUEST_ROUTE_XY;
    c.routing_reply = GPUEST_ROUTE_YX;
    gpuest_noc_t *noc = noc_fixture_make(&c, 2, 0);
    int hops;
    /* request 0 -> 5 goes east first: link 0->1 carries it */
    assert_int_equal(one_packet(noc, 0, 5, GPUEST_NOC_REQUEST, 1, &hops), 12 + 5);
    /* reply 0 -> 5 goes south first: link 0->4 */
    assert_int_equal(one_packet(noc, 0, 5, GPUEST_NOC_REPLY, 1, &hops), 12 + 5);
    int saw_01 = 0, saw_04 = 0, saw_15 = 0, saw_45 = 0;
    for (int i = 0; i < gpuest_noc_num_links(noc); i++) {
        gpuest_noc_link_t l;
        gpuest_noc_link_info(noc, i, &l);
        if (l.kind != 0)
            continue;
        if (l.src_node == 0 && l.dst_node == 1)
            saw_01 = (int)l.flits;
        if (l.src_node == 0 && l.dst_node == 4)
            saw_04 = (int)l.flits;
        if (l.src_node == 1 && l.dst_node == 5)
            saw_15 = (int)l.flits;
        if (l.src_node == 4 && l.dst_node == 5)
            saw_45 = (int)l.flits;
    }
    assert_int_equal(saw_01, 1);
    assert_int_equal(saw_15, 1);
    assert_int_equal(saw_04, 1);
    assert_int_equal(saw_45, 1);
    gpuest_noc_destroy(noc);
}

/* Crossbar: one switch, so every path is one router: 7 + (flits - 1). */
static void test_crossbar(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(0, 2);
    c.topology = GPUEST_TOPO_CROSSBAR;
    c.class_split = GPUEST_SPLIT_PHYSICAL;
    gpuest_noc_t *noc = noc_fixture_make(&c, 2, 21);
    int hops;
    assert_int_equal(one_packet(noc, 3, 17, GPUEST_NOC_REQUEST, 1, &hops), 7);
    assert_int_equal(one_packet(noc, 17, 3, GPUEST_NOC_REPLY, 4, &hops), 10);
    assert_int_equal(hops, 0);
    gpuest_noc_destroy(noc);
}

/* A crossbar of 2 flits per port and cycle runs two switch cycles per
 * interconnect cycle: one packet takes 7 + (F - 1) switch cycles, so
 * 1 flit: 3 cycles (7/2 rounded down at the cycle the tail is seen), 4 flits: 5;
 * and a saturated crossbar accepts about twice as many flits. */
static void test_crossbar_bandwidth(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(0, 2);
    c.topology = GPUEST_TOPO_CROSSBAR;
    c.class_split = GPUEST_SPLIT_PHYSICAL;
    c.xbar_port_flits = 2;
    gpuest_noc_t *noc = noc_fixture_make(&c, 2, 8);
    int hops;
    assert_int_equal(one_packet(noc, 1, 6, GPUEST_NOC_REQUEST, 1, &hops), 3);
    assert_int_equal(one_packet(noc, 6, 1, GPUEST_NOC_REPLY, 4, &hops), 5);
    assert_int_equal(gpuest_noc_zero_load_latency(&c, 0, 4), 5);
    gpuest_noc_destroy(noc);

    gpuest_noc_opts_t o;
    gpuest_noc_opts_default(&o);
    o.num_classes = 1;
    o.num_nodes = 8;
    gpuest_noc_traffic_t t;
    gpuest_noc_traffic_default(&t);
    t.rate = 4.0; /* a 4-flit packet every cycle: far beyond both */
    t.packet_flits = 4;
    gpuest_noc_result_t r1, r2;
    gpuest_error_t e = {0};
    c.xbar_port_flits = 1;
    assert_int_equal(gpuest_noc_throughput(&c, &o, &t, 1000, 2000, &r1, &e), GPUEST_OK);
    c.xbar_port_flits = 2;
    assert_int_equal(gpuest_noc_throughput(&c, &o, &t, 1000, 2000, &r2, &e), GPUEST_OK);
    assert_true(r1.accepted_rate < 1.0);
    assert_true(r2.accepted_rate > 1.6 * r1.accepted_rate);
}

/* Heavy random traffic with small ejection queues that back-pressure the
 * network: every packet arrives once, whole and in order; credits stay
 * consistent (checked every few cycles); flits in == flits out. */
static void run_conservation(gpuest_noc_cfg_t c, int classes, uint64_t seed)
{
    c.eject_queue = 2;
    c.inject_queue = 4;
    gpuest_noc_t *noc = noc_fixture_make(&c, classes, c.topology == GPUEST_TOPO_CROSSBAR ? 12 : 0);
    int n = gpuest_noc_num_nodes(noc);
    enum { NPKT = 6000 };
    uint8_t *seen = calloc(NPKT, 1);
    int *dst_of = calloc(NPKT, sizeof(int));
    int *len_of = calloc(NPKT, sizeof(int));
    assert_non_null(seen);
    srand((unsigned)seed);
    int sent = 0, got = 0;
    gpuest_error_t e = {0};
    for (int64_t cyc = 0; got < NPKT && cyc < 400000; cyc++) {
        for (int s = 0; s < n && sent < NPKT; s++) {
            if (rand() % 3)
                continue;
            int cls = rand() % classes;
            if (!gpuest_noc_can_inject(noc, s, cls))
                continue;
            int d = rand() % n;
            int len = 1 + rand() % 6;
            dst_of[sent] = d;
            len_of[sent] = len;
            gpuest_noc_send_t p = {.src = s, .dst = d, .cls = cls, .flits = len, .created = -1,
                                   .payload = (void *)(intptr_t)(sent + 1)};
            assert_int_equal(gpuest_noc_inject(noc, &p, NULL, &e), GPUEST_OK);
            sent++;
        }
        gpuest_noc_step(noc);
        /* drain slowly: one packet per node every other cycle */
        if (cyc % 2 == 0)
            for (int d = 0; d < n; d++) {
                gpuest_noc_packet_t p;
                if (!gpuest_noc_eject(noc, d, &p))
                    continue;
                int id = (int)(intptr_t)p.payload - 1;
                assert_true(id >= 0 && id < sent);
                assert_int_equal(seen[id], 0);
                seen[id] = 1;
                assert_int_equal(p.dst, dst_of[id]);
                assert_int_equal(p.dst, d);
                assert_int_equal(p.flits, len_of[id]);
                got++;
            }
        if (cyc % 5 == 0 && gpuest_noc_check(noc, &e) != GPUEST_OK)
            fail_msg("cycle %lld: %s", (long long)cyc, e.msg);
    }
    assert_int_equal(got, NPKT);
    assert_int_equal(gpuest_noc_in_flight(noc), 0);
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_OK);
    gpuest_noc_stats_t st;
    gpuest_noc_stats(noc, &st);
    uint64_t fin = 0, fout = 0, pin = 0, pout = 0, expect = 0;
    for (int c2 = 0; c2 < GPUEST_NOC_MAX_CLASSES; c2++) {
        fin += st.cls[c2].flits_injected;
        fout += st.cls[c2].flits_ejected;
        pin += st.cls[c2].packets_injected;
        pout += st.cls[c2].packets_ejected;
    }
    for (int i = 0; i < NPKT; i++)
        expect += (uint64_t)len_of[i];
    assert_int_equal(fin, expect);
    assert_int_equal(fout, expect);
    assert_int_equal(pin, NPKT);
    assert_int_equal(pout, NPKT);
    free(seen);
    free(dst_of);
    free(len_of);
    gpuest_noc_destroy(noc);
}

static void test_conservation_mesh(void **state)
{
    (void)state;
    run_conservation(noc_fixture_mesh(4, 4), 2, 11);
    gpuest_noc_cfg_t c = noc_fixture_mesh(4, 1);
    c.class_split = GPUEST_SPLIT_PHYSICAL;
    c.buffer_flits = 2; /* shorter than most packets: wormhole across routers */
    c.routing_reply = GPUEST_ROUTE_YX;
    run_conservation(c, 2, 12);
}

static void test_conservation_crossbar(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(0, 2);
    c.topology = GPUEST_TOPO_CROSSBAR;
    run_conservation(c, 2, 13);
}

/* The credit check holds while a packet is in flight and must notice a
 * corrupted credit count (the test reaches into the private layout). */
static void test_check_detects_corruption(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(3, 2);
    gpuest_noc_t *noc = noc_fixture_make(&c, 1, 0);
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_OK);
    gpuest_noc_send_t s = {.src = 0, .dst = 8, .cls = 0, .flits = 3, .created = -1};
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_OK);
    for (int i = 0; i < 12; i++) {
        gpuest_noc_step(noc);
        assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_OK);
    }
    noc->routers[4].ovc[0].credits--; /* a lost credit */
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_ECORRUPT);
    noc->routers[4].ovc[0].credits += 2; /* a credit too many */
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_ECORRUPT);
    noc->routers[4].ovc[0].credits--;
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_OK);
    noc->routers[8].ivc[0].state = NOC_VC_ROUTING; /* an empty VC cannot be routing */
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_ECORRUPT);
    noc->routers[8].ivc[0].state = NOC_VC_IDLE;
    assert_int_equal(gpuest_noc_check(noc, &e), GPUEST_OK);
    gpuest_noc_destroy(noc);
}

static void test_backpressure_and_errors(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(2, 2);
    c.inject_queue = 3;
    gpuest_noc_t *noc = noc_fixture_make(&c, 1, 0);
    gpuest_error_t e = {0};
    gpuest_noc_send_t s = {.src = 0, .dst = 3, .cls = 0, .flits = 2, .created = -1};
    for (int i = 0; i < 3; i++)
        assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_OK);
    assert_false(gpuest_noc_can_inject(noc, 0, 0));
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_EBUSY);
    assert_true(gpuest_noc_can_inject(noc, 1, 0));
    s.dst = 4;
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_ERANGE);
    s.dst = 3;
    s.cls = 1;
    assert_int_equal(gpuest_noc_inject(noc, &s, NULL, &e), GPUEST_ERANGE);
    gpuest_noc_destroy(noc);

    gpuest_noc_opts_t o;
    gpuest_noc_opts_default(&o);
    o.num_classes = 3;
    gpuest_noc_cfg_t bad = noc_fixture_mesh(4, 2);
    gpuest_noc_t *x = NULL;
    assert_int_equal(gpuest_noc_create(&bad, &o, &x, &e), GPUEST_ERANGE); /* 2 VCs for 3 classes */
    assert_non_null(strstr(e.msg, "noc.vcs"));
    bad = noc_fixture_mesh(4, 4);
    bad.vc_alloc_delay = 0;
    assert_int_equal(gpuest_noc_create(&bad, &o, &x, &e), GPUEST_ERANGE);
    assert_null(x);
}

/* Multicast (replicated at the source NI for now): one copy per destination, same id. */
static void test_multicast(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(4, 2);
    gpuest_noc_t *noc = noc_fixture_make(&c, 1, 0);
    int dests[] = {5, 10, 15};
    uint64_t id = 0;
    gpuest_noc_send_t s = {.src = 0, .dests = dests, .num_dests = 3, .cls = 0, .flits = 2, .created = -1};
    assert_int_equal(gpuest_noc_inject(noc, &s, &id, NULL), GPUEST_OK);
    assert_int_equal(gpuest_noc_in_flight(noc), 3);
    int got = 0;
    for (int i = 0; i < 200; i++) {
        gpuest_noc_step(noc);
        for (int d = 0; d < 3; d++) {
            gpuest_noc_packet_t p;
            if (gpuest_noc_eject(noc, dests[d], &p)) {
                assert_int_equal(p.id, id);
                got++;
            }
        }
    }
    assert_int_equal(got, 3);
    gpuest_noc_destroy(noc);
}

/* Same seed, same statistics (bit for bit); another seed differs. */
static void test_determinism(void **state)
{
    (void)state;
    gpuest_noc_cfg_t c = noc_fixture_mesh(4, 2);
    gpuest_noc_opts_t o;
    gpuest_noc_opts_default(&o);
    o.num_classes = 1;
    gpuest_noc_traffic_t t;
    gpuest_noc_traffic_default(&t);
    t.rate = 0.3;
    t.packet_flits = 3;
    t.seed = 42;
    gpuest_noc_measure_cfg_t m;
    gpuest_noc_measure_default(&m);
    m.sample_period = 1000;
    gpuest_noc_result_t a, b, d;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_noc_measure(&c, &o, &t, &m, NULL, &a, &e), GPUEST_OK);
    assert_int_equal(gpuest_noc_measure(&c, &o, &t, &m, NULL, &b, &e), GPUEST_OK);
    assert_memory_equal(&a, &b, sizeof a);
    t.seed = 43;
    assert_int_equal(gpuest_noc_measure(&c, &o, &t, &m, NULL, &d, &e), GPUEST_OK);
    assert_true(a.avg_packet_latency != d.avg_packet_latency);
    assert_false(a.saturated);
    assert_true(a.packets > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_load_default),
        cmocka_unit_test(test_zero_load_custom),
        cmocka_unit_test(test_routing_xy_yx),
        cmocka_unit_test(test_crossbar),
        cmocka_unit_test(test_crossbar_bandwidth),
        cmocka_unit_test(test_conservation_mesh),
        cmocka_unit_test(test_conservation_crossbar),
        cmocka_unit_test(test_check_detects_corruption),
        cmocka_unit_test(test_backpressure_and_errors),
        cmocka_unit_test(test_multicast),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
