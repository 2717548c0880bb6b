/* route_o1turn.c: O1TURN (Seo et al., ISCA 2005; BookSim's xy_yx_mesh): each packet takes XY or YX with
 * equal probability, chosen once at injection. XY packets use the lower half of the class's VCs on
 * router-to-router links and YX packets the upper half, so each half carries one dimension order and
 * is deadlock free on its own; the ejection hop may use every VC of the class, as in BookSim. */
#include "net/net_int.h"

static gpuest_net_hop_t route_o1turn(const gpuest_net_topo_t *t, int r, int dst, int choice)
{
    int p = gpuest_net_dor_port(t, r, dst, choice == 1);
    return (gpuest_net_hop_t){.port = p, .vc_set = p == GPUEST_NET_PORT_LOCAL ? -1 : choice};
}

const gpuest_net_routing_t gpuest_net_route_o1turn = {
    .name = "o1turn",
    .desc = "XY or YX per packet, one VC half each (BookSim xy_yx_mesh)",
    .choices = 2,
    .vc_sets = 2,
    .route = route_o1turn,
};
