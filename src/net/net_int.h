/* net_int.h: the topology interface each implementation (impl/topo_*.c) fills in. */
#ifndef GPUEST_NET_INT_H
#define GPUEST_NET_INT_H

#include "net/net.h"

struct gpuest_net_topo_impl_s {
    const char *name;
    int dest_tag; /* 1: routes by destination tag (the output port is the destination's port) */
    int (*router_of)(const gpuest_net_topo_t *t, int node);
    int (*local_port)(const gpuest_net_topo_t *t, int node);
    int (*next)(const gpuest_net_topo_t *t, int r, int port, int *in_port);
    int (*eject_node)(const gpuest_net_topo_t *t, int r, int port);
    int (*hops)(const gpuest_net_topo_t *t, int src, int dst);
    int (*num_links)(const gpuest_net_topo_t *t);
};

extern const gpuest_net_topo_impl_t gpuest_net_topo_mesh;
extern const gpuest_net_topo_impl_t gpuest_net_topo_crossbar;

/* One dimension-order step at router r towards dst (y_first: YX); shared by DOR and O1TURN. */
int gpuest_net_dor_port(const gpuest_net_topo_t *t, int r, int dst, int y_first);

#endif
