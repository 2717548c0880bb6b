/* point.c: one-call evaluation (config + pattern + rate -> result) and the saturation-rate search. */
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "model/model.h"

gpuest_err gpuest_model_noc_point(const gpuest_config_t *cfg, const gpuest_model_pattern_t *p, double rate,
                                  const gpuest_model_params_t *params, gpuest_model_result_t *out,
                                  gpuest_error_t *err)
{
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    GPUEST_TRY(gpuest_model_traffic_build(&t, p, cfg, rate, err));
    gpuest_err rc = gpuest_model_noc_create(cfg, &t, &m, err);
    gpuest_model_traffic_free(&t);
    if (rc != GPUEST_OK)
        return rc;
    rc = gpuest_model_noc_eval(m, 1.0, params, out, NULL);
    gpuest_model_noc_destroy(m);
    if (rc == GPUEST_ESATURATED)
        rc = GPUEST_OK; /* reported in out->saturated */
    else if (rc != GPUEST_OK)
        return gpuest_fail(err, rc, "NoC model: evaluation failed");
    return rc;
}

typedef struct {
    gpuest_model_noc_t *m;
    const gpuest_model_params_t *params;
} sat_ctx_t;

/* +1 where the model saturates, -1 where it is stable: a step whose root GSL's bisection finds. */
static double sat_sign(double scale, void *vctx)
{
    sat_ctx_t *ctx = vctx;
    gpuest_model_result_t r;
    gpuest_model_noc_eval(ctx->m, scale, ctx->params, &r, NULL);
    return r.saturated ? 1.0 : -1.0;
}

gpuest_err gpuest_model_noc_saturation_scale(gpuest_model_noc_t *m, const gpuest_model_params_t *params,
                                             double *scale, gpuest_error_t *err)
{
    sat_ctx_t ctx = {m, params};
    double lo = 0.0, hi = 1.0;
    *scale = 0.0;
    /* Bracket: grow hi until the model saturates (the network carries finite load). */
    while (sat_sign(hi, &ctx) < 0.0) {
        lo = hi;
        hi *= 2.0;
        if (hi > 1e12)
            return gpuest_fail(err, GPUEST_EINVAL, "NoC model: no saturation found (is the traffic empty?)");
    }
    gsl_function f = {sat_sign, &ctx};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory for the root solver");
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int status = gsl_root_fsolver_set(s, &f, lo, hi);
    for (int it = 0; status == GSL_SUCCESS && it < 100; it++) {
        status = gsl_root_fsolver_iterate(s);
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        if (gsl_root_test_interval(lo, hi, 0.0, 1e-4) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    gsl_set_error_handler(old);
    if (status != GSL_SUCCESS && status != GSL_CONTINUE)
        return gpuest_fail(err, GPUEST_EINVAL, "NoC model: saturation search failed (%s)", gsl_strerror(status));
    *scale = 0.5 * (lo + hi);
    return GPUEST_OK;
}

gpuest_err gpuest_model_noc_saturation(const gpuest_config_t *cfg, const gpuest_model_pattern_t *p,
                                       const gpuest_model_params_t *params, double *rate, gpuest_error_t *err)
{
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    *rate = 0.0;
    GPUEST_TRY(gpuest_model_traffic_build(&t, p, cfg, 1.0, err)); /* unit rate, then scale */
    gpuest_err rc = gpuest_model_noc_create(cfg, &t, &m, err);
    gpuest_model_traffic_free(&t);
    if (rc != GPUEST_OK)
        return rc;
    rc = gpuest_model_noc_saturation_scale(m, params, rate, err);
    gpuest_model_noc_destroy(m);
    return rc;
}
