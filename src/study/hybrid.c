/* hybrid.c: the hybrid estimator end to end ('gpuest run'): calibration on sampled runs, a
 * design space estimated in batch form, a few of its points validated in detail.
 *
 * Calibration on sampled runs: each excitation configuration is simulated by the sampled
 * simulator (src/study/sample.c), whose IPC and AMAT, with the relative standard errors their
 * intervals imply, are the fit's observations (weighted by them). The sampled simulator reports
 * no model inputs (hit rates, instructions per request, ...), so those come from a detailed run of
 * the first HYBRID_PREFIX share of the baseline's warp instructions (ratios settle long before a
 * run ends); the warp profile is the walk of the workload (warp_profile.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "study/study.h"

#define HYBRID_PREFIX 0.3 /* share of the baseline's instructions run in detail for the model inputs */

/* Model inputs from a detailed run of the first `share` of the workload's instructions. */
static gpuest_err prefix_inputs(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale, uint64_t seed,
                                double share, gpuest_model_workload_t *w, double *seconds, gpuest_error_t *err)
{
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &wl, err));
    uint64_t total = 0;
    gpuest_err rc = gpuest_workload_count_insts(wl, &total, err);
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t so;
    gpuest_sim_opts_default(&so);
    so.sample_interval = 0;
    so.max_instructions = (uint64_t)((double)total * share) + 1;
    gpuest_sim_result_t r;
    memset(&r, 0, sizeof r);
    if (rc == GPUEST_OK)
        rc = gpuest_sim_run(cfg, &src, &so, &r, err);
    if (rc == GPUEST_OK)
        rc = gpuest_study_inputs_from_stats(&r.total, w, err);
    *seconds = r.wall_seconds;
    gpuest_sim_result_free(&r);
    gpuest_workload_destroy(wl);
    return rc;
}

/* Relative standard error implied by an interval [lo, hi] around v at level conf (an open upper
 * end, which the sampled IPC has when the CPI interval reaches zero, counts as 100 %). */
static double rel_se(double v, double lo, double hi, double conf)
{
    double z = conf >= 0.997 ? 2.9677 : (conf >= 0.99 ? 2.5758 : 1.96);
    if (!(v > 0) || !isfinite(hi) || !isfinite(lo))
        return 1.0;
    double se = (hi - lo) / (2.0 * z) / v;
    return se > 1.0 ? 1.0 : se;
}

gpuest_err gpuest_study_calibrate_sampled(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                          uint64_t seed, gpuest_progress_t *progress, gpuest_calibration_t *out,
                                          gpuest_error_t *err)
{
    double t0;
    GPUEST_TRY(gpuest_study_calibration_begin(cfg, workload, scale, seed, out, &t0, err));
    gpuest_model_workload_t in;
    memset(&in, 0, sizeof in);
    double prefix_s = 0.0;
    GPUEST_TRY(prefix_inputs(cfg, workload, scale, seed, HYBRID_PREFIX, &in, &prefix_s, err));
    gpuest_study_variant_t vars[GPUEST_STUDY_MAX_RUNS];
    int nv = gpuest_study_excitation(cfg, vars, GPUEST_STUDY_MAX_RUNS);
    for (int i = 0; i < nv; i++) {
        gpuest_config_t vc;
        GPUEST_TRY(gpuest_study_apply(cfg, &vars[i], &vc, err));
        gpuest_sample_opts_t so;
        gpuest_sample_opts_default(&so);
        so.seed = seed;
        gpuest_study_sampled_t smp;
        memset(&smp, 0, sizeof smp);
        gpuest_err rc = gpuest_study_sample(&vc, workload, scale, seed, &so, 0.997, 0.0, &smp, err);
        if (rc != GPUEST_OK) {
            gpuest_study_sampled_free(&smp);
            return rc;
        }
        gpuest_study_run_t *r = &out->runs[out->nruns];
        memset(r, 0, sizeof *r);
        gpuest_study_run_label(r, &vars[i]);
        r->in = in;
        r->ipc = smp.ipc.value;
        r->amat = smp.amat.value;
        r->mc_stall = smp.mc_stall.value;
        r->ipc_cv = rel_se(smp.ipc.value, smp.ipc.lo, smp.ipc.hi, 0.997);
        r->amat_cv = rel_se(smp.amat.value, smp.amat.lo, smp.amat.hi, 0.997);
        r->sim_seconds = smp.raw.wall_seconds + (i == 0 ? prefix_s : 0.0);
        gpuest_study_sampled_free(&smp);
        if (!(r->ipc > 0) || !(r->amat > 0))
            return gpuest_fail(err, GPUEST_EINVAL, "sampled run %s of %s gave no IPC or AMAT", vars[i].label, workload);
        out->nruns++;
        if (progress)
            gpuest_progress_update(progress, (uint64_t)out->nruns);
    }
    return gpuest_study_calibration_end(cfg, out, t0, err);
}
