/* net.h: the one network description shared by the NoC simulator, the GPU simulator and the analytical
 * model: topologies (mesh, crossbar), port names, routing functions registered by name, multicast route
 * splitting and packet sizing. A leaf module: it depends on core only, so config, noc, sim and model can
 * all use it and never disagree on a route, a port or a packet size (BookSim's networks/ + routefunc.cpp). */
#ifndef GPUEST_NET_H
#define GPUEST_NET_H

#include <stdint.h>

#include "core/core.h" /* gpuest_err, gpuest_error_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ topology */
typedef enum { GPUEST_TOPO_MESH = 0, GPUEST_TOPO_CROSSBAR = 1 } gpuest_topology_t;

/* Mesh router ports. Node id = row * k + col, row 0 at the top; x = column, y = row.
 * The same numbers are used by the simulator's routers, the model's port loads and the statistics. */
enum {
    GPUEST_NET_PORT_E = 0,    /* +x: col + 1 */
    GPUEST_NET_PORT_W = 1,    /* -x: col - 1 */
    GPUEST_NET_PORT_S = 2,    /* +y: row + 1 (towards the bottom row) */
    GPUEST_NET_PORT_N = 3,    /* -y: row - 1 */
    GPUEST_NET_PORT_LOCAL = 4 /* injection / ejection */
};
#define GPUEST_NET_MESH_PORTS 5
#define GPUEST_NET_MAX_XBAR 4096 /* crossbar endpoints the description accepts (the simulator: 64) */

typedef struct gpuest_net_topo_impl_s gpuest_net_topo_impl_t;

/* A built topology (value type, no allocation). Mesh: k*k routers of 5 ports, one node per router.
 * Crossbar: one router whose port p is node p; it routes by destination tag (one hop). */
typedef struct {
    const gpuest_net_topo_impl_t *impl;
    gpuest_topology_t kind;
    int k;       /* mesh side; 0 for a crossbar */
    int nodes;   /* endpoints */
    int routers; /* routers of one physical network */
    int ports;   /* ports per router */
} gpuest_net_topo_t;

/* Builds the description. Mesh: k in 1..32 (nodes ignored); crossbar: nodes in 2..4096 (k ignored).
 * GPUEST_ERANGE naming the bad value. */
gpuest_err gpuest_net_topo_init(gpuest_net_topo_t *t, gpuest_topology_t kind, int k, int nodes, gpuest_error_t *err);

int gpuest_net_router_of(const gpuest_net_topo_t *t, int node);  /* router a node's NI attaches to */
int gpuest_net_local_port(const gpuest_net_topo_t *t, int node); /* that router's port for the node */
/* Router reached through output port `port` of router r, and its input port (*in_port); -1 when the
 * port leads to an NI (ejection) or off the mesh edge. */
int gpuest_net_next(const gpuest_net_topo_t *t, int r, int port, int *in_port);
/* Node ejected through output `port` of router r, or -1 when it leads to another router. */
int gpuest_net_eject_node(const gpuest_net_topo_t *t, int r, int port);
/* Router-to-router links crossed by a minimal route (crossbar: 0). */
int gpuest_net_hops(const gpuest_net_topo_t *t, int src, int dst);
/* Unidirectional router-to-router links of one physical network. */
int gpuest_net_num_links(const gpuest_net_topo_t *t);
/* Port name for tables: E, W, S, N, L on a mesh; the node number on a crossbar. */
const char *gpuest_net_port_name(const gpuest_net_topo_t *t, int port, char *buf, int cap);

/* ================================================================ routing functions
 * A routing function gives, at router r, the output port towards dst and the VC set the packet may
 * use on the next link. Functions that pick among several deterministic orders (O1TURN) draw a
 * per-packet `choice` in 0..choices-1 at injection and keep it to the destination; each choice
 * then owns one of vc_sets disjoint slices of the class's VCs (deadlock freedom per choice).
 * A crossbar routes by destination tag and never consults the function. */
typedef int gpuest_routing_t;     /* index in the registry (gpuest_net_routing_names order) */
#define GPUEST_ROUTE_XY 0         /* pinned: presets and configs name them */
#define GPUEST_ROUTE_YX 1

typedef struct {
    int port;   /* output port */
    int vc_set; /* slice of the class VCs for the next link, 0..vc_sets-1; -1: the whole range (ejection) */
} gpuest_net_hop_t;

typedef struct {
    const char *name; /* config / command-line name */
    const char *desc;
    int choices;      /* per-packet choices (1: deterministic) */
    int vc_sets;      /* slices each class's VC range is split into (>= 1) */
    gpuest_net_hop_t (*route)(const gpuest_net_topo_t *t, int r, int dst, int choice);
} gpuest_net_routing_t;

/* NULL-terminated list of names, in registry order (usable in static tables such as the config schema). */
extern const char *const gpuest_net_routing_names[];
int gpuest_net_num_routings(void);
/* The function with index id, or NULL when id is out of range. */
const gpuest_net_routing_t *gpuest_net_routing(gpuest_routing_t id);
/* Index of the function called name; GPUEST_ENOKEY listing the known names. */
gpuest_err gpuest_net_routing_find(const char *name, gpuest_routing_t *id, gpuest_error_t *err);
const char *gpuest_net_routing_name(gpuest_routing_t id);

/* One hop of any topology: destination tag on a crossbar (vc_set -1), the function on a mesh. */
gpuest_net_hop_t gpuest_net_route(const gpuest_net_topo_t *t, const gpuest_net_routing_t *rf, int r, int dst,
                                  int choice);
/* Per-packet choice of a function with several orders, drawn from a hash of the packet id so that a
 * run is reproducible without a generator inside the network. 0 for deterministic functions. */
int gpuest_net_route_choice(const gpuest_net_routing_t *rf, uint64_t packet_id);
/* Number of VCs of a slice: the class range [lo, hi] split into rf->vc_sets equal parts; *first
 * receives the first VC of slice s (s = -1: the whole range). 0 if the range is too small. */
int gpuest_net_vc_slice(const gpuest_net_routing_t *rf, int lo, int hi, int s, int *first);

/* ================================================================ multicast
 * A destination set is a bit mask of nodes: the 8 bytes the head flit carries in its unused space
 * (coalescing paper section 3, "8B in 2D mesh"), so at most 64 nodes. The multicast route at a
 * router splits the set by the output port each destination's unicast route takes there: with a
 * dimension-order function this is the DOR multicast tree (one copy per link, the union of the
 * unicast paths). */
typedef uint64_t gpuest_net_dests_t;
#define GPUEST_NET_MCAST_MAX_NODES 64
#define GPUEST_NET_MCAST_HEADER_BYTES 8

typedef struct {
    int port, vc_set;
    gpuest_net_dests_t dests; /* destinations reached through this port */
} gpuest_net_branch_t;

/* Splits dests at router r into branches (at most GPUEST_NET_MCAST_MAX_NODES), in
 * increasing port order. Returns the branch count (0 for an empty set). */
int gpuest_net_mcast_split(const gpuest_net_topo_t *t, const gpuest_net_routing_t *rf, int r,
                           gpuest_net_dests_t dests, int choice, gpuest_net_branch_t *out);

/* Flits one port moves per interconnect cycle: a crossbar's xbar_port_flits (its switch runs that many
 * cycles per interconnect cycle), 1 for a mesh. */
int gpuest_net_port_flits(gpuest_topology_t kind, int xbar_port_flits);

/* ================================================================ synthetic traffic
 * The one description of synthetic traffic, read by the NoC simulator's driver (src/noc/traffic.c)
 * and turned into a traffic matrix by the analytical model (gpuest_model_traffic_from): the names
 * uniform, transpose, hotspot and gpu, the rates and the multicast set distribution mean the same
 * in both. */
typedef enum {
    GPUEST_NET_TRAFFIC_UNIFORM = 0,   /* destination uniform over all nodes, the source included (as BookSim) */
    GPUEST_NET_TRAFFIC_TRANSPOSE = 1, /* (row, col) -> (col, row) */
    GPUEST_NET_TRAFFIC_HOTSPOT = 2,   /* destination drawn from hot nodes with the given weights (BookSim hotspot) */
    GPUEST_NET_TRAFFIC_GPU = 3        /* SMs send requests to MCs, MCs answer with multi-flit replies */
} gpuest_net_pattern_t;
#define GPUEST_NET_MAX_HOT 64
#define GPUEST_NET_MAX_MC_NODES 64

typedef struct {
    gpuest_net_pattern_t pattern;
    double rate;                      /* offered flits per node per cycle (gpu: request flits per SM per cycle) */
    int packet_flits;                 /* packet size (gpu: reply size) */
    int request_flits;                /* gpu: request size (1) */
    int hot_nodes[GPUEST_NET_MAX_HOT];/* hotspot destinations */
    double hot_weights[GPUEST_NET_MAX_HOT]; /* relative weights (all equal if 0) */
    int num_hot;
    int mc_nodes[GPUEST_NET_MAX_MC_NODES]; /* gpu: MC node ids (gpuest_config_mc_nodes) */
    int num_mcs;
    double mcast_fraction;            /* uniform: share of packets sent to a destination set (0: none) */
    int mcast_min, mcast_max;         /* set size uniform in [min, max]; members uniform over all nodes */
    uint64_t seed;
} gpuest_net_traffic_t;

/* uniform, rate 0.1, 1-flit packets and requests, no multicast, seed 1. */
void gpuest_net_traffic_default(gpuest_net_traffic_t *t);
const char *gpuest_net_pattern_name(gpuest_net_pattern_t p);
gpuest_err gpuest_net_pattern_parse(const char *name, gpuest_net_pattern_t *out, gpuest_error_t *err);

/* ================================================================ packet sizing */
/* Flits of a packet carrying data_bytes of payload: the header is a flit of its own when
 * header_bytes <= 0, else it shares flits with the data. flit_bytes <= 0 means 16; the rule itself is gpuest_packet_flits (core.h). */
int gpuest_net_packet_flits(int flit_bytes, int header_bytes, int data_bytes);

#ifdef __cplusplus
}
#endif
#endif
