/* stats.c: turns raw counters and NoC statistics into the exported gpuest_sim_stats_t (every division guarded). */
#include "sim_int.h"

const int gpuest_sim_locality_window[GPUEST_SIM_LOCALITY_WINDOWS] = {120, 240, 480, 960, 1920};

static double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

void sim_stats_from_counters(const sim_gpu_t *g, const sim_counters_t *c, gpuest_sim_stats_t *s)
{
    const uint64_t *v = c->v;
    double pc = (double)g->period[GPUEST_CLK_CORE];
    s->warp_instructions = v[SC_warp_insts];
    s->thread_instructions = v[SC_thread_insts];
    s->ipc = ratio((double)v[SC_thread_insts], (double)s->cycles);
    s->warp_ipc = ratio((double)v[SC_warp_insts], (double)s->cycles);
    s->l1_accesses = v[SC_l1_accesses];
    s->l1_hits = v[SC_l1_hits];
    s->l1_misses = v[SC_l1_misses];
    s->l1_mshr_merges = v[SC_l1_merges];
    s->l1_mshr_stalls = v[SC_l1_mshr_stalls];
    s->l1_missq_stalls = v[SC_l1_missq_stalls];
    s->l1_reservation_fails = v[SC_l1_mshr_stalls] + v[SC_l1_missq_stalls];
    s->l1_miss_rate = ratio((double)v[SC_l1_misses], (double)v[SC_l1_accesses]);
    s->store_requests = v[SC_store_reqs];
    s->atomic_requests = v[SC_atomic_reqs];
    s->l1i_accesses = v[SC_l1i_accesses];
    s->l1i_misses = v[SC_l1i_misses];
    s->l1c_accesses = v[SC_l1c_accesses];
    s->l1c_misses = v[SC_l1c_misses];
    s->front_requests = v[SC_front_reqs];
    s->read_requests = v[SC_read_reqs];
    s->write_requests = v[SC_write_reqs];
    s->write_bytes = v[SC_write_bytes];
    s->replies = v[SC_replies];
    double n = (double)v[SC_read_done] * pc;
    s->miss_latency = ratio((double)v[SC_miss_fs], n);
    s->req_latency = ratio((double)v[SC_req_fs], n);
    s->mem_latency = ratio((double)v[SC_mem_fs], n);
    s->reply_latency = ratio((double)v[SC_reply_fs], n);
    s->amat = ratio((double)v[SC_amat_fs], (double)v[SC_amat_n] * pc);
    s->l2_accesses = v[SC_l2_accesses];
    s->l2_hits = v[SC_l2_hits];
    s->l2_misses = v[SC_l2_misses];
    s->l2_mshr_merges = v[SC_l2_merges];
    s->dram_reads = v[SC_dram_reads];
    s->dram_writes = v[SC_dram_writes];
    s->dram_row_hits = v[SC_dram_row_hits];
    s->dram_turns = v[SC_dram_turns];
    s->dram_activates = v[SC_dram_acts];
    s->dram_bus_util = ratio((double)v[SC_dram_bus], (double)v[SC_dram_cycles]);
    s->mc_cycles = v[SC_mc_cycles];
    s->mc_stall_cycles = v[SC_mc_stalls];
    s->mc_stall_ratio = ratio((double)v[SC_mc_stalls], (double)v[SC_mc_cycles]);
    s->ctrl_packets = v[SC_ctrl_packets];
    s->ctrl_flits = v[SC_ctrl_flits];
    s->locality_reads = v[SC_loc_reads];
    for (int w = 0; w < GPUEST_SIM_LOCALITY_WINDOWS; w++) {
        s->locality_shared[w] = v[SC_loc_sh0 + w];
        s->intercore_locality[w] = ratio((double)s->locality_shared[w], (double)v[SC_loc_reads]);
    }
    s->avail_warps = ratio((double)v[SC_avail_sum], (double)v[SC_sm_cycles]);
    s->cycles_per_schedule = ratio((double)v[SC_sched_issue], (double)v[SC_sched_runs]);
    s->latency_tolerance = s->avail_warps * s->cycles_per_schedule;
    s->warppool_requests = v[SC_wp_requests];
    s->warppool_merged = v[SC_wp_merged];
    s->warppool_accesses = v[SC_wp_accesses];
}

void sim_stats_network(const sim_gpu_t *g, const gpuest_noc_stats_t *ns, const uint64_t *link_flits, int nlinks,
                       gpuest_sim_stats_t *s)
{
    double to_core = (double)g->period[GPUEST_CLK_ICNT] / (double)g->period[GPUEST_CLK_CORE];
    for (int c = 0; c < GPUEST_SIM_CLASSES && c < GPUEST_NOC_MAX_CLASSES; c++) {
        s->packets[c] = ns->cls[c].packets_injected;
        s->flits[c] = ns->cls[c].flits_injected;
        s->net_latency[c] = ratio(ns->cls[c].packet_latency_sum, (double)ns->cls[c].packets_ejected) * to_core;
    }
    s->icnt_cycles = ns->cycles > 0 ? (uint64_t)ns->cycles : 0;
    double sum = 0, mx = 0;
    s->link_flits = 0;
    for (int l = 0; l < nlinks; l++) {
        s->link_flits += link_flits[l];
        double u = ratio((double)link_flits[l], (double)s->icnt_cycles);
        sum += u;
        if (u > mx)
            mx = u;
    }
    s->link_util_mean = ratio(sum, nlinks);
    s->link_util_max = mx;
}

void sim_noc_stats_add(gpuest_noc_stats_t *acc, const gpuest_noc_stats_t *x)
{
    acc->cycles += x->cycles;
    for (int c = 0; c < GPUEST_NOC_MAX_CLASSES; c++) {
        gpuest_noc_class_stats_t *a = &acc->cls[c];
        const gpuest_noc_class_stats_t *b = &x->cls[c];
        a->packets_injected += b->packets_injected;
        a->flits_injected += b->flits_injected;
        a->packets_ejected += b->packets_ejected;
        a->flits_ejected += b->flits_ejected;
        a->packet_latency_sum += b->packet_latency_sum;
        a->network_latency_sum += b->network_latency_sum;
        a->hops_sum += b->hops_sum;
        if (b->max_packet_latency > a->max_packet_latency)
            a->max_packet_latency = b->max_packet_latency;
    }
}

int gpuest_sim_packet_flits(const gpuest_noc_cfg_t *noc, int data_bytes)
{
    return gpuest_net_packet_flits(noc->flit_bytes, noc->header_bytes, data_bytes); /* the shared sizing */
}

void gpuest_sim_result_free(gpuest_sim_result_t *r)
{
    if (!r)
        return;
    free(r->kernels);
    free(r->links);
    free(r->samples);
    memset(r, 0, sizeof *r);
}
