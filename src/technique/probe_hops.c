/* probe_hops.c: how long a remote-L1 probe traversal takes against a request's, from the machine's
 * node placement (the simulator's: SMs on the mesh nodes the MCs leave, dimension-order routes, so
 * a trip is the Manhattan distance between the two nodes; probe.c, hops()).
 *
 * The closed model prices the probes' added request-network traversals at the request network's
 * SM-to-MC delay. A probe traversal goes from one SM to another: with the index selector (CCN, and
 * IP / RP with probe_selector = index) the chain visits the next SMs in index order, neighbours on
 * the mesh (one hop, two at a row's end); with the supplier selector the cores are taken by their
 * recent replies, here as any other SM. The scale is the mean zero-load latency of such a
 * traversal (the open NoC model's gpuest_model_zero_load: a fixed part for the NIs and the first
 * router, then a router and a link per hop) over that of an SM-to-MC request (requests spread
 * evenly over the MCs). A crossbar's every traversal is one pass through the switch: scale 1. */
#include <stdlib.h>

#include "model/model.h"
#include "technique_int.h"

/* zero-load latency of a one-flit packet between nodes a and b (the open model's: each router
 * on the path, each link, the NIs) */
static double trip(const gpuest_noc_cfg_t *n, int a, int b)
{
    return gpuest_model_zero_load(n, abs(a / n->k - b / n->k) + abs(a % n->k - b % n->k), 1);
}

double tech_probe_trip_scale(const gpuest_config_t *cfg, int index_selector)
{
    const gpuest_noc_cfg_t *n = &cfg->noc;
    int sms = cfg->core.num_sms, mcs = cfg->mc.num_mcs;
    if (n->topology != GPUEST_TOPO_MESH || n->k <= 0 || sms < 2 || mcs < 1 || sms > 1024 || mcs > GPUEST_MAX_MCS)
        return 1.0;
    int sm_node[1024], mc_node[GPUEST_MAX_MCS];
    gpuest_error_t e;
    if (gpuest_config_sm_nodes(cfg, sm_node, &e) != GPUEST_OK || gpuest_config_mc_nodes(cfg, mc_node, &e) != GPUEST_OK)
        return 1.0;
    double to_mc = 0.0, probe = 0.0;
    for (int s = 0; s < sms; s++)
        for (int m = 0; m < mcs; m++)
            to_mc += trip(n, sm_node[s], mc_node[m]);
    to_mc /= (double)sms * mcs;
    if (index_selector) {
        for (int s = 0; s < sms; s++)
            probe += trip(n, sm_node[s], sm_node[(s + 1) % sms]);
        probe /= sms;
    } else {
        for (int s = 0; s < sms; s++)
            for (int o = 0; o < sms; o++)
                probe += o == s ? 0.0 : trip(n, sm_node[s], sm_node[o]);
        probe /= (double)sms * (sms - 1);
    }
    return to_mc > 0 ? probe / to_mc : 1.0;
}
