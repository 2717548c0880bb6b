/* validate.c: estimates against full detailed runs on held-out configurations. */
#include <string.h>
#include <time.h>

#include "study/study.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const gpuest_study_run_t *find_truth(const gpuest_study_run_t *t, int n, const char *label)
{
    for (int i = 0; t && i < n; i++)
        if (strcmp(t[i].label, label) == 0)
            return &t[i];
    return NULL;
}

gpuest_err gpuest_study_validate(const gpuest_calibration_t *c, const gpuest_config_t *cfg, int n, double conf,
                                 const gpuest_study_run_t *truths, int ntruths, gpuest_progress_t *progress,
                                 gpuest_study_validation_point_t *out, int *count, gpuest_error_t *err)
{
    gpuest_study_variant_t vars[16];
    int nv = gpuest_study_heldout(cfg, vars, 16);
    if (n > nv)
        n = nv;
    *count = 0;
    gpuest_scale_t scale = c->scale;
    for (int i = 0; i < n; i++) {
        gpuest_study_validation_point_t *p = &out[i];
        memset(p, 0, sizeof *p);
        p->variant = vars[i];
        gpuest_config_t vc;
        GPUEST_TRY(gpuest_study_apply(cfg, &vars[i], &vc, err));
        double t0 = wall_now();
        GPUEST_TRY(gpuest_study_estimate(c, &vc, NULL, conf, &p->est, err));
        p->est_seconds = wall_now() - t0;
        const gpuest_study_run_t *known = find_truth(truths, ntruths, vars[i].label);
        if (truths && !known)
            return gpuest_fail(err, GPUEST_ENOKEY, "no stored detailed run for held-out point %s", vars[i].label);
        if (known)
            p->truth = *known;
        else
            GPUEST_TRY(gpuest_study_run_detailed(&vc, c->workload, scale, c->seed, &p->truth, err));
        p->ipc_err = (p->est.ipc.v - p->truth.ipc) / p->truth.ipc;
        p->amat_err = (p->est.amat.v - p->truth.amat) / p->truth.amat;
        p->ipc_covered = p->truth.ipc >= p->est.ipc.lo && p->truth.ipc <= p->est.ipc.hi;
        p->amat_covered = p->truth.amat >= p->est.amat.lo && p->truth.amat <= p->est.amat.hi;
        (*count)++;
        if (progress)
            gpuest_progress_update(progress, (uint64_t)*count);
    }
    return GPUEST_OK;
}
