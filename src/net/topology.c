/* topology.c: builds a topology description and dispatches to its implementation (impl/topo_*.c). */
#include <stdio.h>
#include <string.h>

#include "net/net_int.h"

gpuest_err gpuest_net_topo_init(gpuest_net_topo_t *t, gpuest_topology_t kind, int k, int nodes, gpuest_error_t *err)
{
    if (kind == GPUEST_TOPO_MESH) {
        if (k < 1 || k > 32)
            return gpuest_fail(err, GPUEST_ERANGE, "noc.k = %d: expected 1..32 for a mesh", k);
        *t = (gpuest_net_topo_t){.impl = &gpuest_net_topo_mesh, .kind = kind, .k = k, .nodes = k * k,
                                 .routers = k * k, .ports = GPUEST_NET_MESH_PORTS};
        return GPUEST_OK;
    }
    if (kind == GPUEST_TOPO_CROSSBAR) {
        if (nodes < 2 || nodes > GPUEST_NET_MAX_XBAR)
            return gpuest_fail(err, GPUEST_ERANGE, "crossbar node count %d: expected 2..%d", nodes,
                               GPUEST_NET_MAX_XBAR);
        *t = (gpuest_net_topo_t){.impl = &gpuest_net_topo_crossbar, .kind = kind, .k = 0, .nodes = nodes,
                                 .routers = 1, .ports = nodes};
        return GPUEST_OK;
    }
    return gpuest_fail(err, GPUEST_EINVAL, "noc.topology: expected mesh or crossbar");
}

int gpuest_net_router_of(const gpuest_net_topo_t *t, int node) { return t->impl->router_of(t, node); }
int gpuest_net_local_port(const gpuest_net_topo_t *t, int node) { return t->impl->local_port(t, node); }
int gpuest_net_next(const gpuest_net_topo_t *t, int r, int port, int *in_port)
{
    return t->impl->next(t, r, port, in_port);
}
int gpuest_net_eject_node(const gpuest_net_topo_t *t, int r, int port) { return t->impl->eject_node(t, r, port); }
int gpuest_net_hops(const gpuest_net_topo_t *t, int src, int dst) { return t->impl->hops(t, src, dst); }
int gpuest_net_num_links(const gpuest_net_topo_t *t) { return t->impl->num_links(t); }

const char *gpuest_net_port_name(const gpuest_net_topo_t *t, int port, char *buf, int cap)
{
    static const char *const mesh[GPUEST_NET_MESH_PORTS] = {"E", "W", "S", "N", "L"};
    if (t->kind == GPUEST_TOPO_MESH && port >= 0 && port < GPUEST_NET_MESH_PORTS)
        snprintf(buf, (size_t)cap, "%s", mesh[port]);
    else
        snprintf(buf, (size_t)cap, "%d", port);
    return buf;
}

/* ---------------------------------------------------------------- routing on a topology */
gpuest_net_hop_t gpuest_net_route(const gpuest_net_topo_t *t, const gpuest_net_routing_t *rf, int r, int dst,
                                  int choice)
{
    if (t->impl->dest_tag)
        return (gpuest_net_hop_t){.port = t->impl->local_port(t, dst), .vc_set = -1};
    return rf->route(t, r, dst, choice);
}

int gpuest_net_route_choice(const gpuest_net_routing_t *rf, uint64_t packet_id)
{
    if (rf->choices <= 1)
        return 0;
    return (int)((gpuest_mix64(packet_id) >> 32) % (uint64_t)rf->choices);
}

int gpuest_net_vc_slice(const gpuest_net_routing_t *rf, int lo, int hi, int s, int *first)
{
    int n = hi - lo + 1, sets = rf->vc_sets > 1 ? rf->vc_sets : 1;
    if (s < 0 || sets == 1) {
        *first = lo;
        return n;
    }
    int per = n / sets;
    *first = lo + s * per;
    return per;
}

/* ---------------------------------------------------------------- multicast */
int gpuest_net_mcast_split(const gpuest_net_topo_t *t, const gpuest_net_routing_t *rf, int r,
                           gpuest_net_dests_t dests, int choice, gpuest_net_branch_t *out)
{
    int n = 0;
    for (gpuest_net_dests_t m = dests; m; m &= m - 1) {
        int d = __builtin_ctzll(m), b = 0;
        gpuest_net_hop_t h = gpuest_net_route(t, rf, r, d, choice);
        while (b < n && out[b].port != h.port)
            b++;
        if (b == n)
            out[n++] = (gpuest_net_branch_t){.port = h.port, .vc_set = h.vc_set, .dests = 0};
        out[b].dests |= UINT64_C(1) << d;
    }
    /* increasing port order, so the result does not depend on the bit order of the set */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j - 1].port > out[j].port; j--) {
            gpuest_net_branch_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return n;
}

int gpuest_net_port_flits(gpuest_topology_t kind, int xbar_port_flits)
{
    return kind == GPUEST_TOPO_CROSSBAR && xbar_port_flits > 1 ? xbar_port_flits : 1;
}

/* ---------------------------------------------------------------- synthetic traffic */
static const char *const pattern_names[] = {"uniform", "transpose", "hotspot", "gpu"};

const char *gpuest_net_pattern_name(gpuest_net_pattern_t p) { return (unsigned)p < 4 ? pattern_names[p] : "?"; }

gpuest_err gpuest_net_pattern_parse(const char *name, gpuest_net_pattern_t *out, gpuest_error_t *err)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, pattern_names[i]) == 0) {
            *out = (gpuest_net_pattern_t)i;
            return GPUEST_OK;
        }
    return gpuest_fail(err, GPUEST_ENOKEY, "unknown traffic '%s': expected uniform, transpose, hotspot or gpu", name);
}

void gpuest_net_traffic_default(gpuest_net_traffic_t *t)
{
    memset(t, 0, sizeof *t);
    t->pattern = GPUEST_NET_TRAFFIC_UNIFORM;
    t->rate = 0.1;
    t->packet_flits = 1;
    t->request_flits = 1;
    t->seed = 1;
}

/* ---------------------------------------------------------------- packet sizing */
int gpuest_net_packet_flits(int flit_bytes, int header_bytes, int data_bytes)
{
    /* the project's one rule lives in core (gpuest_packet_flits) so that the
     * compression tools, which do not depend on the network, size packets alike */
    return gpuest_packet_flits(8u * (uint64_t)(data_bytes > 0 ? data_bytes : 0), flit_bytes > 0 ? flit_bytes : 16,
                               header_bytes);
}
