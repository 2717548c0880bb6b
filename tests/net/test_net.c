/* test_net.c: the shared network description: mesh and crossbar topologies, the routing registry, dimension-order
 * routes worked by hand, multicast splitting and packet sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/net.h"

static gpuest_net_topo_t mesh(int k)
{
    gpuest_net_topo_t t;
    assert_int_equal(gpuest_net_topo_init(&t, GPUEST_TOPO_MESH, k, 0, NULL), GPUEST_OK);
    return t;
}

/* 4x4: node 5 = (row 1, col 1). E -> 6 entering on W; S (row + 1) -> 9 entering on N; edges lead nowhere. */
static void test_mesh_topology(void **state)
{
    (void)state;
    gpuest_net_topo_t t = mesh(4);
    int in = -1;
    assert_int_equal(t.nodes, 16);
    assert_int_equal(t.ports, 5);
    assert_int_equal(gpuest_net_next(&t, 5, GPUEST_NET_PORT_E, &in), 6);
    assert_int_equal(in, GPUEST_NET_PORT_W);
    assert_int_equal(gpuest_net_next(&t, 5, GPUEST_NET_PORT_S, &in), 9);
    assert_int_equal(in, GPUEST_NET_PORT_N);
    assert_int_equal(gpuest_net_next(&t, 5, GPUEST_NET_PORT_N, &in), 1);
    assert_int_equal(in, GPUEST_NET_PORT_S);
    assert_int_equal(gpuest_net_next(&t, 3, GPUEST_NET_PORT_E, &in), -1);
    assert_int_equal(gpuest_net_next(&t, 12, GPUEST_NET_PORT_S, &in), -1);
    assert_int_equal(gpuest_net_next(&t, 5, GPUEST_NET_PORT_LOCAL, &in), -1);
    assert_int_equal(gpuest_net_eject_node(&t, 5, GPUEST_NET_PORT_LOCAL), 5);
    assert_int_equal(gpuest_net_eject_node(&t, 5, GPUEST_NET_PORT_E), -1);
    assert_int_equal(gpuest_net_hops(&t, 0, 15), 6);
    assert_int_equal(gpuest_net_num_links(&t), 48); /* 4 * k * (k - 1) */
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_net_topo_init(&t, GPUEST_TOPO_MESH, 33, 0, &e), GPUEST_ERANGE);
    assert_non_null(strstr(e.msg, "noc.k = 33"));
}

static void test_crossbar_topology(void **state)
{
    (void)state;
    gpuest_net_topo_t t;
    assert_int_equal(gpuest_net_topo_init(&t, GPUEST_TOPO_CROSSBAR, 0, 21, NULL), GPUEST_OK);
    assert_int_equal(t.routers, 1);
    assert_int_equal(t.ports, 21);
    assert_int_equal(gpuest_net_router_of(&t, 17), 0);
    assert_int_equal(gpuest_net_local_port(&t, 17), 17);
    assert_int_equal(gpuest_net_eject_node(&t, 0, 17), 17);
    assert_int_equal(gpuest_net_hops(&t, 3, 17), 0);
    assert_int_equal(gpuest_net_num_links(&t), 0);
    /* destination tag: the function is never consulted */
    gpuest_net_hop_t h = gpuest_net_route(&t, gpuest_net_routing(GPUEST_ROUTE_YX), 0, 9, 0);
    assert_int_equal(h.port, 9);
    assert_int_equal(h.vc_set, -1);
    assert_int_equal(gpuest_net_topo_init(&t, GPUEST_TOPO_CROSSBAR, 0, 1, NULL), GPUEST_ERANGE);
}

/* The registry: xy and yx pinned at 0 and 1 (configurations store the index), names listed in
 * order and NULL-terminated, an unknown name listing the known ones. */
static void test_registry(void **state)
{
    (void)state;
    assert_string_equal(gpuest_net_routing_names[GPUEST_ROUTE_XY], "xy");
    assert_string_equal(gpuest_net_routing_names[GPUEST_ROUTE_YX], "yx");
    int n = gpuest_net_num_routings();
    assert_null(gpuest_net_routing_names[n]);
    for (int i = 0; i < n; i++) {
        gpuest_routing_t id = -1;
        assert_int_equal(gpuest_net_routing_find(gpuest_net_routing_names[i], &id, NULL), GPUEST_OK);
        assert_int_equal(id, i);
        assert_string_equal(gpuest_net_routing(i)->name, gpuest_net_routing_names[i]);
    }
    assert_null(gpuest_net_routing(n));
    gpuest_error_t e = {0};
    gpuest_routing_t id;
    assert_int_equal(gpuest_net_routing_find("west_first", &id, &e), GPUEST_ENOKEY);
    assert_non_null(strstr(e.msg, "xy, yx, o1turn"));
}

/* Follows the route from src to dst and writes the ports taken, ejection included. */
static int path(const gpuest_net_topo_t *t, gpuest_routing_t rt, int choice, int src, int dst, int *ports)
{
    int r = src, n = 0;
    for (;;) {
        gpuest_net_hop_t h = gpuest_net_route(t, gpuest_net_routing(rt), r, dst, choice);
        ports[n++] = h.port;
        int in, nb = gpuest_net_next(t, r, h.port, &in);
        if (nb < 0)
            return n;
        r = nb;
    }
}

/* 4x4, 13 = (3,1) to 2 = (0,2): XY goes E once then N three times; YX N three times then E. */
static void test_dor_paths(void **state)
{
    (void)state;
    gpuest_net_topo_t t = mesh(4);
    int p[16];
    const int xy[] = {GPUEST_NET_PORT_E, GPUEST_NET_PORT_N, GPUEST_NET_PORT_N, GPUEST_NET_PORT_N, GPUEST_NET_PORT_LOCAL};
    const int yx[] = {GPUEST_NET_PORT_N, GPUEST_NET_PORT_N, GPUEST_NET_PORT_N, GPUEST_NET_PORT_E, GPUEST_NET_PORT_LOCAL};
    assert_int_equal(path(&t, GPUEST_ROUTE_XY, 0, 13, 2, p), 5);
    assert_memory_equal(p, xy, sizeof xy);
    assert_int_equal(path(&t, GPUEST_ROUTE_YX, 0, 13, 2, p), 5);
    assert_memory_equal(p, yx, sizeof yx);
    gpuest_net_hop_t h = gpuest_net_route(&t, gpuest_net_routing(GPUEST_ROUTE_XY), 13, 2, 0);
    assert_int_equal(h.vc_set, 0);
    h = gpuest_net_route(&t, gpuest_net_routing(GPUEST_ROUTE_XY), 2, 2, 0);
    assert_int_equal(h.port, GPUEST_NET_PORT_LOCAL);
    assert_int_equal(h.vc_set, -1);
}

/* Source 13 = (3,1) of a 4x4, set {0, 3, 5, 14, 15}. XY: 0 leaves west; 3, 14, 15 east; 5 north:
 * three branches in port order E, W, N. YX: 0, 3, 5 north; 14, 15 east. One node at the router
 * itself is a local branch. */
static void test_mcast_split(void **state)
{
    (void)state;
    gpuest_net_topo_t t = mesh(4);
    gpuest_net_branch_t b[64];
    gpuest_net_dests_t set = (1u << 0) | (1u << 3) | (1u << 5) | (1u << 14) | (1u << 15);
    int n = gpuest_net_mcast_split(&t, gpuest_net_routing(GPUEST_ROUTE_XY), 13, set, 0, b);
    assert_int_equal(n, 3);
    assert_int_equal(b[0].port, GPUEST_NET_PORT_E);
    assert_int_equal(b[0].dests, (1u << 3) | (1u << 14) | (1u << 15));
    assert_int_equal(b[1].port, GPUEST_NET_PORT_W);
    assert_int_equal(b[1].dests, 1u << 0);
    assert_int_equal(b[2].port, GPUEST_NET_PORT_N);
    assert_int_equal(b[2].dests, 1u << 5);
    n = gpuest_net_mcast_split(&t, gpuest_net_routing(GPUEST_ROUTE_YX), 13, set | (1u << 13), 0, b);
    assert_int_equal(n, 3);
    assert_int_equal(b[0].port, GPUEST_NET_PORT_E);
    assert_int_equal(b[0].dests, (1u << 14) | (1u << 15));
    assert_int_equal(b[1].port, GPUEST_NET_PORT_N);
    assert_int_equal(b[1].dests, (1u << 0) | (1u << 3) | (1u << 5));
    assert_int_equal(b[2].port, GPUEST_NET_PORT_LOCAL);
    assert_int_equal(b[2].dests, 1u << 13);
    assert_int_equal(gpuest_net_mcast_split(&t, gpuest_net_routing(GPUEST_ROUTE_XY), 13, 0, 0, b), 0);
}

/* Head flit separate when header_bytes <= 0; shared otherwise (mesh56: 16-byte flits, 9-flit replies). */
static void test_packet_sizes(void **state)
{
    (void)state;
    assert_int_equal(gpuest_net_packet_flits(16, 0, 128), 9);
    assert_int_equal(gpuest_net_packet_flits(32, 0, 128), 5);
    assert_int_equal(gpuest_net_packet_flits(16, 0, 0), 1);
    assert_int_equal(gpuest_net_packet_flits(16, 8, 128), 9); /* 136 bytes */
    assert_int_equal(gpuest_net_packet_flits(32, 8, 0), 1);
    assert_int_equal(gpuest_net_packet_flits(32, 8, 120), 4);
    assert_int_equal(gpuest_net_packet_flits(0, 0, 32), 3); /* flit size defaults to 16 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_topology), cmocka_unit_test(test_crossbar_topology), cmocka_unit_test(test_registry),
        cmocka_unit_test(test_dor_paths),     cmocka_unit_test(test_mcast_split),       cmocka_unit_test(test_packet_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
