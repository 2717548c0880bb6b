/* bridge.c: simulator statistics (plain data) -> model inputs; the open NoC model at a simulated load. */
#include <string.h>

#include "study/study.h"

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

gpuest_err gpuest_study_inputs_from_stats(const gpuest_sim_stats_t *s, gpuest_model_workload_t *w,
                                          gpuest_error_t *err)
{
    double req = (double)s->read_requests + (double)s->write_requests;
    if (req <= 0 || s->warp_instructions == 0)
        return gpuest_fail(err, GPUEST_EINVAL, "the run sent no memory request to an MC: nothing for the memory-"
                                               "system model to estimate");
    double dram = (double)s->dram_reads + (double)s->dram_writes;
    w->insts_per_request = (double)s->warp_instructions / req;
    w->hits_per_request = (double)s->l1_hits / req;
    w->l1_hit_rate = ratio((double)s->l1_hits, (double)s->l1_accesses);
    w->l2_hit_rate = ratio((double)s->l2_hits, (double)s->l2_accesses);
    w->dram_per_request = dram / req;
    w->row_hit_rate = ratio((double)s->dram_row_hits, dram);
    w->dram_turns_per_access = ratio((double)s->dram_turns, dram);
    w->write_fraction = (double)s->write_requests / req;
    w->write_bytes = ratio((double)s->write_bytes, (double)s->write_requests); /* 0 without writes: a line */
    w->threads_per_warp_inst = ratio((double)s->thread_instructions, (double)s->warp_instructions);
    w->avail_warps = s->avail_warps;
    w->cycles_per_schedule = s->cycles_per_schedule;
    w->ldst_block_per_read = ratio((double)s->l1_mshr_stalls + (double)s->l1_missq_stalls, (double)s->read_requests);
    w->block_miss_latency = s->miss_latency;
    return GPUEST_OK;
}

gpuest_err gpuest_study_noc_compare(const gpuest_config_t *cfg, const gpuest_sim_stats_t *s,
                                    gpuest_study_noc_compare_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (s->icnt_cycles == 0 || s->read_requests + s->write_requests == 0)
        return gpuest_fail(err, GPUEST_EINVAL, "the run carried no network traffic");
    /* The model's gpu rate counts request packets times the read-request size (write data is
     * carried by the write share), not every request flit. */
    int request_flits, reply_flits;
    gpuest_model_gpu_packet_flits(cfg, &request_flits, &reply_flits);
    out->rate = (double)s->packets[0] * request_flits / ((double)cfg->core.num_sms * (double)s->icnt_cycles);
    out->to_core = cfg->core.clock_mhz / cfg->noc.clock_mhz;
    gpuest_model_pattern_t p;
    GPUEST_TRY(gpuest_model_pattern_init(&p, "gpu", err));
    p.write_fraction = (double)s->write_requests / (double)(s->read_requests + s->write_requests);
    GPUEST_TRY(gpuest_model_noc_point(cfg, &p, out->rate, NULL, &out->model, err));
    gpuest_error_t ignore;
    if (gpuest_model_noc_saturation(cfg, &p, NULL, &out->sat_rate, &ignore) != GPUEST_OK)
        out->sat_rate = 0.0;
    return GPUEST_OK;
}
