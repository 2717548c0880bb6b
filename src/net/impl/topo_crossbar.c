/* topo_crossbar.c: one switch whose port p serves node p; destination-tag routing in one hop. */
#include "net/net_int.h"

static int xbar_router_of(const gpuest_net_topo_t *t, int node)
{
    (void)t;
    (void)node;
    return 0;
}

static int xbar_local_port(const gpuest_net_topo_t *t, int node)
{
    (void)t;
    return node;
}

static int xbar_next(const gpuest_net_topo_t *t, int r, int port, int *in_port)
{
    (void)t;
    (void)r;
    (void)port;
    (void)in_port;
    return -1; /* every output leads to an NI */
}

static int xbar_eject_node(const gpuest_net_topo_t *t, int r, int port)
{
    (void)r;
    return port >= 0 && port < t->nodes ? port : -1;
}

static int xbar_hops(const gpuest_net_topo_t *t, int src, int dst)
{
    (void)t;
    (void)src;
    (void)dst;
    return 0;
}

static int xbar_num_links(const gpuest_net_topo_t *t)
{
    (void)t;
    return 0;
}

const gpuest_net_topo_impl_t gpuest_net_topo_crossbar = {
    .name = "crossbar",
    .dest_tag = 1,
    .router_of = xbar_router_of,
    .local_port = xbar_local_port,
    .next = xbar_next,
    .eject_node = xbar_eject_node,
    .hops = xbar_hops,
    .num_links = xbar_num_links,
};
