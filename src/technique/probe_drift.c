/* probe_drift.c: how fast each SM runs relative to the fastest, from its place on the network, for
 * the remote-L1 probing walk (charact.c's per-SM rates).
 *
 * Measured (docs/estimator.md, "Remote-L1 probing: SM drift in the walk"): in the simulator two
 * SMs' misses to one line are hundreds of misses apart (mesh56 pathfinder: 16 to 1024 misses, the
 * lines in flight about 370 cycles), in the lockstep walk 1 to 3; on mesh56 an SM in row 0 ends a
 * launch about 7 % after one in row 6, next to the MCs. An SM whose warps wait on memory advances
 * once per memory round trip, and the trip's network part grows with the SM's distance to the MCs,
 * so SM s's rate is T_min / T_s with T_s its zero-load L2-hit latency: the L1 and L2 hit latencies
 * plus the mean over the MCs (requests spread evenly) of the open model's zero-load latency of a
 * one-flit request there and a line's reply back (gpuest_model_zero_load, in core cycles). Queueing
 * is left out (it is not known before the solve); it is shared by all SMs on the MC-bound links,
 * so it would dilute the spread, not order it differently. A crossbar's SMs are all one pass from
 * every MC: every rate is 1 (the walk stays lockstep). */
#include <stdlib.h>

#include "model/model.h"
#include "sim/sim.h"
#include "technique_int.h"

double tech_probe_sm_latency(const gpuest_config_t *cfg, const int *mc_node, int sm_node)
{
    const gpuest_noc_cfg_t *n = &cfg->noc;
    int mcs = cfg->mc.num_mcs, reply = gpuest_sim_packet_flits(n, GPUEST_LINE_BYTES);
    double trip = 0.0;
    for (int m = 0; m < mcs; m++) {
        int hops = abs(sm_node / n->k - mc_node[m] / n->k) + abs(sm_node % n->k - mc_node[m] % n->k);
        trip += gpuest_model_zero_load(n, hops, 1) + gpuest_model_zero_load(n, hops, reply);
    }
    trip = gpuest_cycles_convert(trip / mcs, n->clock_mhz, cfg->core.clock_mhz);
    return (double)cfg->l1.hit_latency + (double)cfg->l2.hit_latency + trip;
}

int tech_probe_sm_rates(const gpuest_config_t *cfg, double *rate)
{
    const gpuest_noc_cfg_t *n = &cfg->noc;
    int sms = cfg->core.num_sms, mcs = cfg->mc.num_mcs;
    for (int s = 0; s < sms; s++)
        rate[s] = 1.0;
    if (n->topology != GPUEST_TOPO_MESH || n->k <= 0 || sms < 1 || mcs < 1 || mcs > GPUEST_MAX_MCS)
        return 0;
    int *sm_node = malloc((size_t)sms * sizeof *sm_node), mc_node[GPUEST_MAX_MCS];
    gpuest_error_t e;
    if (!sm_node || gpuest_config_sm_nodes(cfg, sm_node, &e) != GPUEST_OK ||
        gpuest_config_mc_nodes(cfg, mc_node, &e) != GPUEST_OK) {
        free(sm_node);
        return 0;
    }
    double fastest = 0.0;
    for (int s = 0; s < sms; s++) {
        rate[s] = tech_probe_sm_latency(cfg, mc_node, sm_node[s]);
        if (s == 0 || rate[s] < fastest)
            fastest = rate[s];
    }
    for (int s = 0; s < sms; s++)
        rate[s] = fastest / rate[s];
    free(sm_node);
    return 1;
}
