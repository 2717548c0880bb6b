/* validate.c: estimates against full detailed runs on held-out configurations. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "study/study.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int sign_of(double x)
{
    return (x > 0) - (x < 0);
}

static void score(gpuest_study_validation_point_t *p)
{
    p->ipc_err = (p->est.ipc.v - p->truth.ipc) / p->truth.ipc;
    p->amat_err = (p->est.amat.v - p->truth.amat) / p->truth.amat;
    p->ipc_covered = p->truth.ipc >= p->est.ipc.lo && p->truth.ipc <= p->est.ipc.hi;
    p->amat_covered = p->truth.amat >= p->est.amat.lo && p->truth.amat <= p->est.amat.hi;
}

static const gpuest_study_run_t *find_truth(const gpuest_study_run_t *t, int n, const char *label)
{
    for (int i = 0; t && i < n; i++)
        if (strcmp(t[i].label, label) == 0)
            return &t[i];
    return NULL;
}

gpuest_err gpuest_study_validate(const gpuest_calibration_t *c, const gpuest_config_t *cfg, int n, double conf,
                                 const gpuest_study_run_t *truths, int ntruths, int simulate_missing,
                                 gpuest_progress_t *progress,
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
        if (truths && !known && !simulate_missing)
            return gpuest_fail(err, GPUEST_ENOKEY, "no stored detailed run for held-out point %s", vars[i].label);
        if (known)
            p->truth = *known;
        else
            GPUEST_TRY(gpuest_study_run_detailed(&vc, c->workload, scale, c->seed, &p->truth, err));
        score(p);
        (*count)++;
        if (progress)
            gpuest_progress_update(progress, (uint64_t)*count);
    }
    return GPUEST_OK;
}

/* The stored detailed run of label when truths holds one, else a new detailed run of vc (the
 * baseline is not a row of an earlier validation table, so it is simulated again). */
static gpuest_err truth_of(const gpuest_calibration_t *c, const gpuest_config_t *vc, const char *label,
                           const gpuest_study_run_t *truths, int ntruths, gpuest_study_run_t *out, gpuest_error_t *err)
{
    const gpuest_study_run_t *known = find_truth(truths, ntruths, label);
    /* With stored truths and no "baseline" row, the calibration's own baseline run is the detailed
     * run of this machine when vc is the calibrated machine itself (same preset, hash, seed and
     * scale: the simulator is deterministic), so it is not simulated a second time. */
    uint64_t h = 0;
    if (!known && truths && strcmp(label, "baseline") == 0 && c->nruns > 0 && c->runs[0].sets[0] == '\0' &&
        c->machine_hash && gpuest_study_machine_hash(vc, &h, err) == GPUEST_OK && h == c->machine_hash &&
        strcmp(vc->name, c->preset) == 0 && c->sim_generation == GPUEST_STUDY_SIM_GENERATION)
        known = &c->runs[0];
    if (!known)
        return gpuest_study_run_detailed(vc, c->workload, c->scale, c->seed, out, err);
    *out = *known;
    return GPUEST_OK;
}

void gpuest_study_technique_setting(const char *item, char *set, size_t size)
{
    if (strchr(item, '='))
        snprintf(set, size, "technique.%s", item);
    else
        snprintf(set, size, "technique.compression=%s", item);
}

/* "compression_bdi" for an algorithm, "coalescing_pcu" for a key=value item. */
static void technique_label(const char *item, char *label, size_t size)
{
    if (strchr(item, '='))
        snprintf(label, size, "%s", item);
    else
        snprintf(label, size, "compression_%s", item);
    for (char *c = label; *c; c++)
        if (*c == '=')
            *c = '_';
}

/* The estimate of vc under its techniques' transform (built as 'gpuest estimate' builds it). */
static gpuest_err estimate_point(const gpuest_calibration_t *c, const gpuest_config_t *vc, const char *model_dir,
                                 double conf, gpuest_study_validation_point_t *p, gpuest_error_t *err)
{
    gpuest_model_transform_t tr;
    const gpuest_model_transform_t *use = NULL;
    double t0 = wall_now();
    GPUEST_TRY(gpuest_study_technique_transform_cal(vc, c, c->workload, c->scale, c->seed, model_dir, &tr, &use, err));
    GPUEST_TRY(gpuest_study_estimate(c, vc, use, conf, &p->est, err));
    p->est_seconds = wall_now() - t0;
    return GPUEST_OK;
}

gpuest_err gpuest_study_validate_techniques(const gpuest_calibration_t *c, const gpuest_config_t *cfg,
                                            const char *const *values, int n, const char *model_dir, double conf,
                                            const gpuest_study_run_t *truths, int ntruths,
                                            gpuest_progress_t *progress, gpuest_study_validation_point_t *out,
                                            int *count, gpuest_error_t *err)
{
    *count = 0;
    if (n <= 0)
        return GPUEST_OK;
    if (gpuest_study_any_technique(cfg))
        return gpuest_fail(err, GPUEST_EINVAL, "technique points need a baseline machine with every technique off");
    gpuest_study_validation_point_t base;
    memset(&base, 0, sizeof base);
    GPUEST_TRY(estimate_point(c, cfg, model_dir, conf, &base, err));
    GPUEST_TRY(truth_of(c, cfg, "baseline", truths, ntruths, &base.truth, err));
    for (int i = 0; i < n; i++) {
        gpuest_study_validation_point_t *p = &out[i];
        memset(p, 0, sizeof *p);
        technique_label(values[i], p->variant.label, sizeof p->variant.label);
        gpuest_study_technique_setting(values[i], p->variant.sets[p->variant.nsets++], sizeof p->variant.sets[0]);
        gpuest_config_t vc;
        GPUEST_TRY(gpuest_study_apply(cfg, &p->variant, &vc, err));
        GPUEST_TRY(estimate_point(c, &vc, model_dir, conf, p, err));
        GPUEST_TRY(truth_of(c, &vc, p->variant.label, truths, ntruths, &p->truth, err));
        score(p);
        p->technique = 1;
        p->effect_est = (p->est.ipc.v - base.est.ipc.v) / base.est.ipc.v;
        p->effect_sim = (p->truth.ipc - base.truth.ipc) / base.truth.ipc;
        p->sign_agree = sign_of(p->effect_est) == sign_of(p->effect_sim);
        (*count)++;
        if (progress)
            gpuest_progress_update(progress, (uint64_t)*count);
    }
    return GPUEST_OK;
}
