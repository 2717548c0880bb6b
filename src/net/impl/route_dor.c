/* route_dor.c: dimension-order routing on a mesh, x first (XY) or y first (YX). Deadlock free with
 * one VC set: every route turns at most once, from the first dimension into the second, so the
 * channel dependency graph has no cycle (Dally and Seitz). */
#include "net/net_int.h"

int gpuest_net_dor_port(const gpuest_net_topo_t *t, int r, int dst, int y_first)
{
    int col = r % t->k, row = r / t->k, dcol = dst % t->k, drow = dst / t->k;
    int xport = dcol > col ? GPUEST_NET_PORT_E : (dcol < col ? GPUEST_NET_PORT_W : -1);
    int yport = drow > row ? GPUEST_NET_PORT_S : (drow < row ? GPUEST_NET_PORT_N : -1);
    int first = y_first ? yport : xport, second = y_first ? xport : yport;
    if (first >= 0)
        return first;
    return second >= 0 ? second : GPUEST_NET_PORT_LOCAL;
}

static gpuest_net_hop_t route_xy(const gpuest_net_topo_t *t, int r, int dst, int choice)
{
    (void)choice;
    int p = gpuest_net_dor_port(t, r, dst, 0);
    return (gpuest_net_hop_t){.port = p, .vc_set = p == GPUEST_NET_PORT_LOCAL ? -1 : 0};
}

static gpuest_net_hop_t route_yx(const gpuest_net_topo_t *t, int r, int dst, int choice)
{
    (void)choice;
    int p = gpuest_net_dor_port(t, r, dst, 1);
    return (gpuest_net_hop_t){.port = p, .vc_set = p == GPUEST_NET_PORT_LOCAL ? -1 : 0};
}

const gpuest_net_routing_t gpuest_net_route_xy = {
    .name = "xy", .desc = "dimension order, x then y (BookSim dor)", .choices = 1, .vc_sets = 1, .route = route_xy,
};
const gpuest_net_routing_t gpuest_net_route_yx = {
    .name = "yx", .desc = "dimension order, y then x", .choices = 1, .vc_sets = 1, .route = route_yx,
};
