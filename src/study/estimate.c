/* estimate.c: a calibrated estimate with its interval; no simulator call. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "study/study.h"

static gpuest_interval_t interval(double v, double sd, double z, int nonneg)
{
    gpuest_interval_t r = {v, v - z * sd, v + z * sd};
    if (nonneg && r.lo < 0)
        r.lo = 0;
    return r;
}

gpuest_err gpuest_study_estimate(const gpuest_calibration_t *c, const gpuest_config_t *cfg,
                                 const gpuest_model_transform_t *t, double conf, gpuest_study_estimate_t *out,
                                 gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (!(conf > 0 && conf < 1))
        return gpuest_fail(err, GPUEST_ERANGE, "confidence %g: expected a level in (0, 1)", conf);
    if (c->nruns < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "calibration has no runs");
    gpuest_gpu_model_t *m = NULL;
    GPUEST_TRY(gpuest_gpu_model_create(cfg, &m, err));
    const gpuest_model_workload_t *w = &c->runs[0].in;
    gpuest_err rc = gpuest_gpu_model_solve(m, w, t, &c->fit.params, &out->raw, err);
    double ipc_sd = 0, amat_sd = 0;
    if (rc == GPUEST_OK)
        rc = gpuest_gpu_predict_sd(m, w, t, &c->fit, &ipc_sd, &amat_sd, err);
    gpuest_gpu_model_destroy(m);
    if (rc != GPUEST_OK)
        return rc;
    const gpuest_gpu_estimate_t *e = &out->raw;
    double z = gsl_cdf_ugaussian_Pinv(0.5 + conf / 2.0);
    /* parameter uncertainty (delta method) and model discrepancy (cross-validated), in quadrature */
    double si = sqrt(ipc_sd * ipc_sd + pow(c->cv_ipc * e->ipc, 2));
    double sa = sqrt(amat_sd * amat_sd + pow(c->cv_amat * e->amat, 2));
    double rel_a = e->amat > 0 ? sa / e->amat : 0;
    out->ipc = interval(e->ipc, si, z, 1);
    out->amat = interval(e->amat, sa, z, 1);
    out->req = interval(e->req_latency, rel_a * e->req_latency, z, 1);
    out->mem = interval(e->mem_latency, rel_a * e->mem_latency, z, 1);
    out->reply = interval(e->reply_latency, rel_a * e->reply_latency, z, 1);
    out->mc_stall = interval(e->mc_stall_ratio, rel_a * e->mc_stall_ratio, z, 1);
    if (out->mc_stall.hi > 1)
        out->mc_stall.hi = 1;
    double rel_i = e->ipc > 0 ? si / e->ipc : 0;
    out->link_util = interval(e->link_util_max, rel_i * e->link_util_max, z, 1);
    /* extrapolation: the bottleneck runs outside the utilisation range the calibration saw */
    double lo = c->util_lo * 0.9, hi = c->util_hi * 1.1 > 1 ? 1 : c->util_hi * 1.1;
    if (e->bottleneck_util < lo || e->bottleneck_util > hi) {
        out->extrapolated = 1;
        snprintf(out->why, sizeof out->why, "bottleneck utilisation %.2f outside the calibrated %.2f..%.2f",
                 e->bottleneck_util, c->util_lo, c->util_hi);
    }
    if (strcmp(cfg->name, c->preset) != 0) {
        out->extrapolated = 1;
        snprintf(out->why, sizeof out->why, "machine family %s, calibrated on %s", cfg->name, c->preset);
    }
    return GPUEST_OK;
}
