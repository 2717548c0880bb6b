/* run.c: one detailed simulation reduced to what calibration and validation need. */
#include <stdio.h>
#include <string.h>

#include "study/study.h"
#include "technique/technique.h"

gpuest_err gpuest_study_run_detailed(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                     uint64_t seed, gpuest_study_run_t *out, gpuest_error_t *err)
{
    return gpuest_study_run_detailed_kernels(cfg, workload, scale, seed, out, NULL, NULL, err);
}

gpuest_err gpuest_study_run_detailed_kernels(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                             uint64_t seed, gpuest_study_run_t *out, gpuest_sim_stats_t **kernels,
                                             size_t *num_kernels, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &wl, err));
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t so;
    gpuest_sim_opts_default(&so);
    so.sample_interval = 0;
    /* Technique points (validate) run with the techniques' hooks, as 'gpuest simulate' does. */
    const gpuest_generator_t *gen = gpuest_workload_generator(wl);
    gpuest_technique_env_t env = {cfg, gpuest_workload_image(wl), gen ? gen->name : workload, NULL, seed, NULL, 0.0, 0.0, 0};
    gpuest_technique_set_t *techs = NULL;
    gpuest_err rc = gpuest_technique_set_create(&env, &so.hooks, &techs, err);
    if (rc != GPUEST_OK) {
        gpuest_technique_set_destroy(techs);
        gpuest_workload_destroy(wl);
        return rc;
    }
    gpuest_sim_result_t r;
    rc = gpuest_sim_run(cfg, &src, &so, &r, err);
    if (rc == GPUEST_OK)
        rc = gpuest_study_inputs_from_stats(&r.total, &out->in, err);
    if (rc == GPUEST_OK) {
        out->ipc = r.total.ipc;
        out->amat = r.total.amat;
        out->mc_stall = r.total.mc_stall_ratio;
        out->link_util_max = r.total.link_util_max;
        out->cycles = r.total.cycles;
        out->sim_seconds = r.wall_seconds;
    }
    if (rc == GPUEST_OK && kernels) { /* hand the per-launch rows over to the caller */
        *kernels = r.kernels;
        *num_kernels = r.num_kernels;
        r.kernels = NULL;
        r.num_kernels = 0;
    }
    gpuest_sim_result_free(&r);
    gpuest_technique_set_destroy(techs);
    gpuest_workload_destroy(wl);
    return rc;
}
