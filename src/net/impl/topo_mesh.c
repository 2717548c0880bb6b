/* topo_mesh.c: k x k 2D mesh, one node per router, ports E W S N and local (net.h). */
#include <stdlib.h>

#include "net/net_int.h"

static int mesh_router_of(const gpuest_net_topo_t *t, int node)
{
    (void)t;
    return node;
}

static int mesh_local_port(const gpuest_net_topo_t *t, int node)
{
    (void)t;
    (void)node;
    return GPUEST_NET_PORT_LOCAL;
}

static int mesh_next(const gpuest_net_topo_t *t, int r, int port, int *in_port)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    static const int opposite[4] = {GPUEST_NET_PORT_W, GPUEST_NET_PORT_E, GPUEST_NET_PORT_N, GPUEST_NET_PORT_S};
    if (port < 0 || port > 3)
        return -1;
    int col = r % t->k + dx[port], row = r / t->k + dy[port];
    if (col < 0 || col >= t->k || row < 0 || row >= t->k)
        return -1;
    if (in_port)
        *in_port = opposite[port];
    return row * t->k + col;
}

static int mesh_eject_node(const gpuest_net_topo_t *t, int r, int port)
{
    (void)t;
    return port == GPUEST_NET_PORT_LOCAL ? r : -1;
}

static int mesh_hops(const gpuest_net_topo_t *t, int src, int dst)
{
    return abs(src % t->k - dst % t->k) + abs(src / t->k - dst / t->k);
}

static int mesh_num_links(const gpuest_net_topo_t *t) { return 4 * t->k * (t->k - 1); }

const gpuest_net_topo_impl_t gpuest_net_topo_mesh = {
    .name = "mesh",
    .dest_tag = 0,
    .router_of = mesh_router_of,
    .local_port = mesh_local_port,
    .next = mesh_next,
    .eject_node = mesh_eject_node,
    .hops = mesh_hops,
    .num_links = mesh_num_links,
};
