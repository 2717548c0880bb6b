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
    *use = NULL;
    if (!gpuest_study_any_technique(cfg))
        return GPUEST_OK;
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &wl, err));
    gpuest_technique_env_t env = {cfg, gpuest_workload_image(wl), workload, model_dir, seed, wl};
    gpuest_err rc = gpuest_technique_model_transform(&env, t, err);
    gpuest_workload_destroy(wl);
    GPUEST_TRY(rc);
    *use = t;
    return GPUEST_OK;
}
