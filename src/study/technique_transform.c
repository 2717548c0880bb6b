/* technique_transform.c: the techniques' transform of the model inputs for one design point,
 * shared by 'estimate' and 'validate' so both estimate a technique point the same way. */
#include "study/study.h"
#include "technique/technique.h"

int gpuest_study_any_technique(const gpuest_config_t *cfg)
{
    for (size_t i = 0; gpuest_techniques[i]; i++)
        if (gpuest_techniques[i]->active(cfg))
            return 1;
    return 0;
}

/* The workload is generated afresh (not simulated) for each point: the transform walks its
 * launches, which runs the kernels' writes into its image. */
gpuest_err gpuest_study_technique_transform(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                            uint64_t seed, const char *model_dir, gpuest_model_transform_t *t,
                                            const gpuest_model_transform_t **use, gpuest_error_t *err)
{
    return gpuest_study_technique_transform_in_flight(cfg, workload, scale, seed, model_dir, 0.0, t, use, err);
}

double gpuest_study_misses_in_flight(const gpuest_calibration_t *c)
{
    if (!c || c->nruns < 1)
        return 0.0;
    const gpuest_study_run_t *b = &c->runs[0];
    double lanes = b->in.threads_per_warp_inst, ipr = b->in.insts_per_request;
    if (!(lanes > 0.0) || !(ipr > 0.0) || !(b->ipc > 0.0) || !(b->amat > 0.0))
        return 0.0;
    double reads = b->ipc / lanes / ipr * (1.0 - b->in.write_fraction); /* read misses a core cycle */
    return reads * b->amat;
}

/* One SM's L1 reads in one read miss latency of the measured baseline: its read misses a cycle
 * (as above) over its L1 read miss ratio, per SM, times its read miss latency (the one its LD/ST
 * blocking was measured with). 0 where the run lacks any of them. */
double gpuest_study_l1_reads_per_miss_latency(const gpuest_calibration_t *c, int sms)
{
    if (!c || c->nruns < 1 || sms < 1)
        return 0.0;
    const gpuest_study_run_t *b = &c->runs[0];
    double lanes = b->in.threads_per_warp_inst, ipr = b->in.insts_per_request, h1 = b->in.l1_hit_rate;
    double lat = b->in.block_miss_latency;
    if (!(lanes > 0.0) || !(ipr > 0.0) || !(b->ipc > 0.0) || !(lat > 0.0) || !(h1 >= 0.0 && h1 < 1.0))
        return 0.0;
    double misses = b->ipc / lanes / ipr * (1.0 - b->in.write_fraction); /* read misses a core cycle */
    return misses / (1.0 - h1) / sms * lat;
}

gpuest_err gpuest_study_technique_transform_cal(const gpuest_config_t *cfg, const gpuest_calibration_t *c,
                                                const char *workload, gpuest_scale_t scale, uint64_t seed,
                                                const char *model_dir, gpuest_model_transform_t *t,
                                                const gpuest_model_transform_t **use, gpuest_error_t *err)
{
    *use = NULL;
    if (!gpuest_study_any_technique(cfg))
        return GPUEST_OK;
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &wl, err));
    gpuest_technique_env_t env = {cfg, gpuest_workload_image(wl), workload, model_dir, seed, wl,
                                  gpuest_study_misses_in_flight(c),
                                  c && c->l1_fill_timing ? gpuest_study_l1_reads_per_miss_latency(c, cfg->core.num_sms) : 0.0,
                                  c ? c->pool_setres : 0};
    gpuest_err rc = gpuest_technique_model_transform(&env, t, err);
    gpuest_workload_destroy(wl);
    GPUEST_TRY(rc);
    *use = t;
    return GPUEST_OK;
}

gpuest_err gpuest_study_technique_transform_in_flight(const gpuest_config_t *cfg, const char *workload,
                                                      gpuest_scale_t scale, uint64_t seed, const char *model_dir,
                                                      double in_flight, gpuest_model_transform_t *t,
                                                      const gpuest_model_transform_t **use, gpuest_error_t *err)
{
    *use = NULL;
    if (!gpuest_study_any_technique(cfg))
        return GPUEST_OK;
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &wl, err));
    gpuest_technique_env_t env = {cfg, gpuest_workload_image(wl), workload, model_dir, seed, wl, in_flight, 0.0, 0};
    gpuest_err rc = gpuest_technique_model_transform(&env, t, err);
    gpuest_workload_destroy(wl);
    GPUEST_TRY(rc);
    *use = t;
    return GPUEST_OK;
}
