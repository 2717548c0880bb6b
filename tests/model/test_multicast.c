/* test_multicast.c: multicast link loads of the analytical model worked by hand (fixed set, random sets, O1TURN). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/core.h"
#include "model_test_util.h"

#define BIT(n) (UINT64_C(1) << (n))

static gpuest_model_noc_t *build_flow(const gpuest_config_t *cfg, int nodes, gpuest_routing_t rt,
                                      const gpuest_model_mcast_t *f, int flits)
{
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    assert_int_equal(gpuest_model_traffic_init(&t, nodes, 1, NULL), GPUEST_OK);
    t.packet_flits[0] = flits;
    t.routing[0] = rt;
    assert_int_equal(gpuest_model_traffic_add_mcast(&t, f, NULL), GPUEST_OK);
    gpuest_error_t e = {0};
    if (gpuest_model_noc_create(cfg, &t, &m, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    gpuest_model_traffic_free(&t);
    return m;
}

static double load(const gpuest_model_noc_t *m, int r, int p) { return gpuest_model_noc_port_load(m, r, p, -1); }

/* Sum of all router-to-router port loads (ports 0..3). */
static double link_total(const gpuest_model_noc_t *m)
{
    double s = 0.0;
    for (int r = 0; r < gpuest_model_noc_num_routers(m); r++)
        for (int p = 0; p < 4; p++)
            s += load(m, r, p);
    return s;
}

/* The same tree as the simulator test (tests/noc/test_noc_multicast.c): 4x4 mesh, source 13 =
 * (row 3, col 1), set {0, 3, 5, 14, 15}, lambda packets of F flits per cycle.
 * XY: 13 W, 12 N, 8 N, 4 N (to 0); 13 E, 14 E, 15 N, 11 N, 7 N (to 3); 13 N, 9 N (to 5): 11 links,
 * each lambda F. The E link of 13 is shared by 3, 14 and 15 and still carries lambda F once.
 * YX: 13 N, 9 N, 5 N, 1 W, 1 E, 2 E; 13 E, 14 E: 8 links. Ejection at each member: lambda F. */
static void test_fixed_set_tree(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    booksim_mesh(&cfg, 4, 4, 8);
    const double lam = 0.01;
    const int F = 4;
    gpuest_model_mcast_t f = {.cls = 0, .src = 13, .dests = BIT(0) | BIT(3) | BIT(5) | BIT(14) | BIT(15), .rate = lam};
    gpuest_model_noc_t *m = build_flow(&cfg, 16, GPUEST_ROUTE_XY, &f, F);
    const int xy[][2] = {{13, GPUEST_NET_PORT_W}, {12, GPUEST_NET_PORT_N}, {8, GPUEST_NET_PORT_N},
                         {4, GPUEST_NET_PORT_N},  {13, GPUEST_NET_PORT_E}, {14, GPUEST_NET_PORT_E},
                         {15, GPUEST_NET_PORT_N}, {11, GPUEST_NET_PORT_N}, {7, GPUEST_NET_PORT_N},
                         {13, GPUEST_NET_PORT_N}, {9, GPUEST_NET_PORT_N}};
    for (size_t i = 0; i < sizeof xy / sizeof xy[0]; i++)
        assert_double_equal(load(m, xy[i][0], xy[i][1]), lam * F, 1e-15);
    assert_double_equal(link_total(m), 11 * lam * F, 1e-12);
    const int members[] = {0, 3, 5, 14, 15};
    for (int i = 0; i < 5; i++)
        assert_double_equal(load(m, members[i], GPUEST_NET_PORT_LOCAL), lam * F, 1e-15);
    assert_double_equal(load(m, 13, GPUEST_NET_PORT_LOCAL), 0.0, 0.0);
    /* five deliveries per packet, hops 4 + 5 + 2 + 1 + 2 = 14 over 5 */
    gpuest_model_result_t res;
    assert_int_equal(gpuest_model_noc_eval(m, 1.0, NULL, &res, NULL), GPUEST_OK);
    assert_double_equal(res.cls[0].packets, 5 * lam, 1e-15);
    assert_double_equal(res.cls[0].avg_hops, 14.0 / 5.0, 1e-12);
    assert_double_equal(res.offered_rate, lam * F / 1.0, 1e-15); /* one injecting node */
    assert_double_equal(res.accepted_rate, 5 * lam * F, 1e-12);
    gpuest_model_noc_destroy(m);

    m = build_flow(&cfg, 16, GPUEST_ROUTE_YX, &f, F);
    const int yx[][2] = {{13, GPUEST_NET_PORT_N}, {9, GPUEST_NET_PORT_N}, {5, GPUEST_NET_PORT_N}, {1, GPUEST_NET_PORT_W},
                         {1, GPUEST_NET_PORT_E},  {2, GPUEST_NET_PORT_E}, {13, GPUEST_NET_PORT_E}, {14, GPUEST_NET_PORT_E}};
    for (size_t i = 0; i < sizeof yx / sizeof yx[0]; i++)
        assert_double_equal(load(m, yx[i][0], yx[i][1]), lam * F, 1e-15);
    assert_double_equal(link_total(m), 8 * lam * F, 1e-12);
    gpuest_model_noc_destroy(m);
}

/* Random sets: 3x3 mesh, source 4 (the centre), 2 members drawn from all 9 nodes, XY.
 * East link of 4: used when a member lies in column 2 ({2, 5, 8}): 1 - C(6,2)/C(9,2) = 21/36.
 * North link of 4 (to 1): only member 1 routes through it: 1 - C(8,2)/C(9,2) = 8/36, as does the
 * north link of 5 (to 2) and every ejection port (a node is a member with probability 2/9). */
static void test_random_sets(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    booksim_mesh(&cfg, 3, 4, 8);
    const double lam = 0.02;
    gpuest_model_mcast_t f = {.cls = 0, .src = 4, .dests = 0x1ff, .size_min = 2, .size_max = 2, .rate = lam};
    gpuest_model_noc_t *m = build_flow(&cfg, 9, GPUEST_ROUTE_XY, &f, 1);
    assert_double_equal(load(m, 4, GPUEST_NET_PORT_E), lam * 21.0 / 36.0, 1e-15);
    assert_double_equal(load(m, 4, GPUEST_NET_PORT_W), lam * 21.0 / 36.0, 1e-15);
    assert_double_equal(load(m, 4, GPUEST_NET_PORT_N), lam * 8.0 / 36.0, 1e-15);
    assert_double_equal(load(m, 5, GPUEST_NET_PORT_N), lam * 8.0 / 36.0, 1e-15);
    for (int d = 0; d < 9; d++)
        assert_double_equal(load(m, d, GPUEST_NET_PORT_LOCAL), lam * 2.0 / 9.0, 1e-15);
    gpuest_model_noc_destroy(m);
    /* sizes 2..3 average the two probabilities: size 3 gives 1 - C(6,3)/C(9,3) = 64/84 */
    f.size_max = 3;
    m = build_flow(&cfg, 9, GPUEST_ROUTE_XY, &f, 1);
    assert_double_equal(load(m, 4, GPUEST_NET_PORT_E), lam * 0.5 * (21.0 / 36.0 + 64.0 / 84.0), 1e-15);
    gpuest_model_noc_destroy(m);
}

/* O1TURN spreads a packet over its XY and its YX tree with equal weight: 4x4, 13 -> {3, 15}. */
static void test_o1turn_halves(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    booksim_mesh(&cfg, 4, 4, 8);
    gpuest_routing_t o1;
    assert_int_equal(gpuest_net_routing_find("o1turn", &o1, NULL), GPUEST_OK);
    gpuest_model_mcast_t f = {.cls = 0, .src = 13, .dests = BIT(3) | BIT(15), .rate = 0.02};
    gpuest_model_noc_t *m = build_flow(&cfg, 16, o1, &f, 1);
    /* XY tree {13E, 14E, 15N, 11N, 7N}; YX tree {13N, 9N, 5N, 1E, 2E, 13E, 14E} */
    assert_double_equal(load(m, 13, GPUEST_NET_PORT_E), 0.02, 1e-15);
    assert_double_equal(load(m, 14, GPUEST_NET_PORT_E), 0.02, 1e-15);
    assert_double_equal(load(m, 15, GPUEST_NET_PORT_N), 0.01, 1e-15);
    assert_double_equal(load(m, 13, GPUEST_NET_PORT_N), 0.01, 1e-15);
    assert_double_equal(load(m, 2, GPUEST_NET_PORT_E), 0.01, 1e-15);
    assert_double_equal(link_total(m), 0.5 * 0.02 * (5 + 7), 1e-15);
    gpuest_model_noc_destroy(m);
}

/* Bad flows are refused with a message. */
static void test_bad_flows(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    booksim_mesh(&cfg, 3, 4, 8);
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_model_traffic_init(&t, 9, 1, NULL), GPUEST_OK);
    gpuest_model_mcast_t f = {.cls = 0, .src = 4, .dests = BIT(1) | BIT(12), .rate = 0.1}; /* node 12 > 8 */
    assert_int_equal(gpuest_model_traffic_add_mcast(&t, &f, NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_create(&cfg, &t, &m, &e), GPUEST_EINVAL);
    assert_null(m);
    gpuest_model_traffic_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_set_tree),
        cmocka_unit_test(test_random_sets),
        cmocka_unit_test(test_o1turn_halves),
        cmocka_unit_test(test_bad_flows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
