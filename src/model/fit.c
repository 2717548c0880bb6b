/* fit.c: calibration of the closed GPU model's parameters by GSL nonlinear least squares.
 *
 * Residuals are relative errors of IPC and AMAT over the calibration points, plus one weak prior
 * pseudo-residual per parameter (PRIOR_WEIGHT x log(theta / theta0)) that keeps poorly excited
 * parameters finite. Bounds are kept by a logistic
 * reparametrisation theta = lo + (hi - lo) / (1 + e^-u). Trust region (Levenberg-Marquardt),
 * finite-difference Jacobian (the model is cheap), three starts, best chi^2 kept, then a coordinate
 * scouting for wells the starts missed (scout_lines). The parameter
 * covariance is (J^T J)^-1 in u, mapped to theta by the delta method and scaled by the residual
 * variance chi^2 / dof (docs/estimator.md). */
#include <math.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "model/model.h"

#define NP GPUEST_GPU_PARAMS
/* Prior pseudo-residual weight: being a factor e away from the default costs as much as a 0.3 %
 * miss on one observation, enough to keep unexcited parameters finite and too little to pull
 * excited ones (the data residuals are relative errors of a few per cent). */
#define PRIOR_WEIGHT 0.003

typedef struct {
    gpuest_fit_point_t *pts;
    int n;
    double theta0[NP];
} fit_ctx_t;

static double to_theta(int j, double u) { return gpuest_gpu_param_lo[j] + (gpuest_gpu_param_hi[j] - gpuest_gpu_param_lo[j]) / (1.0 + exp(-u)); }

static double to_u(int j, double th)
{
    double lo = gpuest_gpu_param_lo[j], hi = gpuest_gpu_param_hi[j];
    double f = (th - lo) / (hi - lo);
    if (f < 1e-6)
        f = 1e-6;
    if (f > 1 - 1e-6)
        f = 1 - 1e-6;
    return log(f / (1 - f));
}

static int residuals(const gsl_vector *u, void *vctx, gsl_vector *f)
{
    fit_ctx_t *ctx = vctx;
    double th[NP];
    for (int j = 0; j < NP; j++)
        th[j] = to_theta(j, gsl_vector_get(u, j));
    gpuest_gpu_params_t p;
    gpuest_gpu_params_from_vec(&p, th);
    for (int i = 0; i < ctx->n; i++) {
        gpuest_fit_point_t *pt = &ctx->pts[i];
        gpuest_gpu_estimate_t e;
        gpuest_error_t err;
        double ri = 10.0, ra = 10.0; /* a failed solve is a large miss, never NaN */
        if (gpuest_gpu_model_solve_phases(pt->model, &pt->workload, pt->phases, pt->num_phases, &pt->transform, &p, &e,
                                          &err) == GPUEST_OK) {
            ri = (e.ipc - pt->ipc) / pt->ipc;
            ra = (e.amat - pt->amat) / pt->amat;
        }
        double wi = pt->ipc_cv > 0.01 ? 0.01 / pt->ipc_cv : 1.0, wa = pt->amat_cv > 0.01 ? 0.01 / pt->amat_cv : 1.0;
        gsl_vector_set(f, 2 * (size_t)i, wi * ri);
        gsl_vector_set(f, 2 * (size_t)i + 1, wa * ra);
    }
    for (int j = 0; j < NP; j++)
        gsl_vector_set(f, 2 * (size_t)ctx->n + (size_t)j, PRIOR_WEIGHT * log(th[j] / ctx->theta0[j]));
    return GSL_SUCCESS;
}

/* One trust-region run from theta_start; returns chi^2 and the final u and covariance in u. */
static int run_once(fit_ctx_t *ctx, const double *theta_start, double *u_out, gsl_matrix *cov_u, double *chi2,
                    int *iters)
{
    size_t nres = 2 * (size_t)ctx->n + NP;
    gsl_multifit_nlinear_fdf fdf = {.f = residuals, .df = NULL, .fvv = NULL, .n = nres, .p = NP, .params = ctx};
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    fp.h_df = 1e-2; /* the model is an iterative solution with a bisected saturation point: no sqrt(eps) steps */
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, nres, NP);
    if (!w)
        return -1;
    gsl_vector *u0 = gsl_vector_alloc(NP);
    for (int j = 0; j < NP; j++)
        gsl_vector_set(u0, j, to_u(j, theta_start[j]));
    int info = 0, rc = gsl_multifit_nlinear_init(u0, &fdf, w);
    if (rc == GSL_SUCCESS)
        rc = gsl_multifit_nlinear_driver(200, 1e-8, 1e-8, 1e-8, NULL, NULL, &info, w);
    /* GSL_EMAXITER / ETOLx still leave a usable iterate */
    gsl_vector *f = gsl_multifit_nlinear_residual(w);
    double c2;
    gsl_blas_ddot(f, f, &c2);
    *chi2 = c2;
    *iters = (int)gsl_multifit_nlinear_niter(w);
    for (int j = 0; j < NP; j++)
        u_out[j] = gsl_vector_get(w->x, j);
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    gsl_multifit_nlinear_covar(J, 0.0, cov_u);
    gsl_vector_free(u0);
    gsl_multifit_nlinear_free(w);
    return 0;
}

/* Coordinate scouting (gpuest_gpu_fit): from the best trust-region solution, chi^2 along each
 * parameter's whole range, the others held, at SCOUT_POINTS evenly spaced logistic coordinates
 * u in [-SCOUT_U, SCOUT_U]; when a scouted point beats the solution, a trust-region run from it, and
 * again (at most SCOUT_ROUNDS rounds) until no line holds a better point. Why: the model's chi^2 has
 * separate wells along single parameters (mesh56 backprop: at alpha 8, kappa 10, minima at eta
 * 0.051 and 0.064, chi^2 0.680 and 0.630, a barrier 0.682 between), which a local method started on
 * the wrong side never crosses, and the logistic coordinates flatten the slope near a bound so that a
 * run that reached one stays there. The scan's u step (0.1) resolves a well as narrow as that one
 * (its part below the other well's chi^2, eta 0.059 .. 0.068, is 0.23 u wide: two or more scouted
 * points fall in it). Deterministic: the points are fixed, the lines start from the fixed starts'
 * best, so a refit stays a function of the stored runs. The leave-one-out
 * refits scout too (gpuest_gpu_fit_from_scouted from the full fit's parameters): the cross-validation
 * that chooses the model's form and phases then measures the procedure that made the fit. */
#define SCOUT_POINTS 121
#define SCOUT_U 6.0
#define SCOUT_ROUNDS 3

static double chi2_of(fit_ctx_t *ctx, const double *u, gsl_vector *f)
{
    gsl_vector_view uv = gsl_vector_view_array((double *)u, NP);
    residuals(&uv.vector, ctx, f);
    double c2;
    gsl_blas_ddot(f, f, &c2);
    return c2;
}

/* The best point of the coordinate lines through u (returns its chi^2, the point in u_best). */
static double scout_lines(fit_ctx_t *ctx, const double *u, double *u_best, gsl_vector *f)
{
    double best = INFINITY;
    for (int j = 0; j < NP; j++)
        for (int k = 0; k < SCOUT_POINTS; k++) {
            double v[NP];
            memcpy(v, u, sizeof v);
            v[j] = -SCOUT_U + 2.0 * SCOUT_U * k / (SCOUT_POINTS - 1);
            double c2 = chi2_of(ctx, v, f);
            if (c2 < best) {
                best = c2;
                memcpy(u_best, v, sizeof v);
            }
        }
    return best;
}

static gpuest_err fit_starts(gpuest_fit_point_t *pts, int n, const double (*starts)[NP], int nstarts, int scout,
                             gpuest_fit_result_t *out, gpuest_error_t *err);

gpuest_err gpuest_gpu_fit(gpuest_fit_point_t *pts, int n, gpuest_fit_result_t *out, gpuest_error_t *err)
{
    static const double starts[3][NP] = {{0.5, 0.5, 1.0}, {0.1, 0.9, 1.0}, {2.0, 0.2, 2.0}};
    return fit_starts(pts, n, starts, 3, 1, out, err);
}

gpuest_err gpuest_gpu_fit_from(gpuest_fit_point_t *pts, int n, const gpuest_gpu_params_t *start,
                               gpuest_fit_result_t *out, gpuest_error_t *err)
{
    double s[1][NP];
    gpuest_gpu_params_to_vec(start, s[0]);
    return fit_starts(pts, n, (const double(*)[NP])s, 1, 0, out, err);
}

gpuest_err gpuest_gpu_fit_from_scouted(gpuest_fit_point_t *pts, int n, const gpuest_gpu_params_t *start,
                                       gpuest_fit_result_t *out, gpuest_error_t *err)
{
    double s[1][NP];
    gpuest_gpu_params_to_vec(start, s[0]);
    return fit_starts(pts, n, (const double(*)[NP])s, 1, 1, out, err);
}

static gpuest_err fit_starts(gpuest_fit_point_t *pts, int n, const double (*starts)[NP], int nstarts, int scout,
                             gpuest_fit_result_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (n < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "fit: no calibration points");
    for (int i = 0; i < n; i++)
        if (!(pts[i].ipc > 0) || !(pts[i].amat > 0) || !pts[i].model)
            return gpuest_fail(err, GPUEST_EINVAL, "fit: point %d has no model or a non-positive IPC/AMAT", i);
    fit_ctx_t ctx = {pts, n, {0}};
    gpuest_gpu_params_t def;
    gpuest_gpu_params_default(&def);
    gpuest_gpu_params_to_vec(&def, ctx.theta0);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_matrix *cov = gsl_matrix_alloc(NP, NP), *best_cov = gsl_matrix_alloc(NP, NP);
    double best_u[NP] = {0}, best_chi2 = INFINITY;
    int best_it = 0;
    for (int s = 0; s < nstarts; s++) {
        double u[NP], c2;
        int it;
        if (run_once(&ctx, starts[s], u, cov, &c2, &it) != 0)
            continue;
        if (c2 < best_chi2) {
            best_chi2 = c2;
            memcpy(best_u, u, sizeof u);
            gsl_matrix_memcpy(best_cov, cov);
            best_it = it;
        }
    }
    gsl_vector *fs = scout && isfinite(best_chi2) ? gsl_vector_alloc(2 * (size_t)n + NP) : NULL;
    for (int round = 0; fs && round < SCOUT_ROUNDS; round++) {
        double us[NP], th0[NP], u[NP], c2;
        int it;
        double cs = scout_lines(&ctx, best_u, us, fs);
        if (!(cs < best_chi2))
            break;
        for (int j = 0; j < NP; j++)
            th0[j] = to_theta(j, us[j]);
        if (run_once(&ctx, th0, u, cov, &c2, &it) != 0 || !(c2 < best_chi2))
            break;
        best_chi2 = c2;
        memcpy(best_u, u, sizeof u);
        gsl_matrix_memcpy(best_cov, cov);
        best_it = it;
    }
    if (fs)
        gsl_vector_free(fs);
    gsl_set_error_handler(old);
    if (!isfinite(best_chi2)) {
        gsl_matrix_free(cov);
        gsl_matrix_free(best_cov);
        return gpuest_fail(err, GPUEST_ENOMEM, "fit: out of memory for the GSL workspace");
    }
    double th[NP], dth[NP];
    for (int j = 0; j < NP; j++) {
        th[j] = to_theta(j, best_u[j]);
        double lo = gpuest_gpu_param_lo[j], hi = gpuest_gpu_param_hi[j];
        dth[j] = (th[j] - lo) * (hi - th[j]) / (hi - lo); /* d theta / d u */
    }
    gpuest_gpu_params_from_vec(&out->params, th);
    out->chi2 = best_chi2;
    out->dof = 2 * n; /* 2n data rows + NP prior rows - NP parameters */
    /* The residuals are relative errors with unit weight, not errors in units of a known noise,
     * so the residual variance chi^2 / dof estimates the noise (s^2 (J^T J)^-1, the unweighted
     * least-squares covariance); GSL's max(1, chi^2/dof) assumes weights of 1/sigma. */
    double scale = out->dof > 0 ? best_chi2 / out->dof : 1.0;
    for (int a = 0; a < NP; a++)
        for (int b = 0; b < NP; b++)
            out->covar[a][b] = scale * dth[a] * dth[b] * gsl_matrix_get(best_cov, (size_t)a, (size_t)b);
    out->iterations = best_it;
    /* RMS relative error of the data residuals only */
    gsl_vector *f = gsl_vector_alloc(2 * (size_t)n + NP), *u = gsl_vector_alloc(NP);
    for (int j = 0; j < NP; j++)
        gsl_vector_set(u, j, best_u[j]);
    residuals(u, &ctx, f);
    double ss = 0.0;
    for (int i = 0; i < 2 * n; i++)
        ss += gsl_vector_get(f, (size_t)i) * gsl_vector_get(f, (size_t)i);
    out->rms_rel_error = sqrt(ss / (2.0 * n));
    gsl_vector_free(f);
    gsl_vector_free(u);
    gsl_matrix_free(cov);
    gsl_matrix_free(best_cov);
    return GPUEST_OK;
}

gpuest_err gpuest_gpu_predict_sd(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                 const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                 double *ipc_sd, double *amat_sd, gpuest_error_t *err)
{
    return gpuest_gpu_predict_sd_phases(m, w, NULL, 0, t, fit, ipc_sd, amat_sd, err);
}

gpuest_err gpuest_gpu_predict_sd_at(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                    const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                    const gpuest_gpu_estimate_t *at, double *ipc_sd, double *amat_sd,
                                    gpuest_error_t *err)
{
    return gpuest_gpu_predict_sd_phases_at(m, w, NULL, 0, t, fit, at, ipc_sd, amat_sd, err);
}

gpuest_err gpuest_gpu_predict_sd_phases(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                        const gpuest_model_phase_t *ph, int n, const gpuest_model_transform_t *t,
                                        const gpuest_fit_result_t *fit, double *ipc_sd, double *amat_sd,
                                        gpuest_error_t *err)
{
    gpuest_gpu_estimate_t e0;
    GPUEST_TRY(gpuest_gpu_model_solve_phases(m, w, ph, n, t, &fit->params, &e0, err));
    return gpuest_gpu_predict_sd_phases_at(m, w, ph, n, t, fit, &e0, ipc_sd, amat_sd, err);
}

/* Forward differences from the estimate `at` (the solve at the fitted parameters, which the
 * caller already has): NP more solves. */
gpuest_err gpuest_gpu_predict_sd_phases_at(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                           const gpuest_model_phase_t *ph, int n,
                                           const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                           const gpuest_gpu_estimate_t *at, double *ipc_sd, double *amat_sd,
                                           gpuest_error_t *err)
{
    double gi[NP], ga[NP];
    GPUEST_TRY(gpuest_gpu_predict_grad_phases_at(m, w, ph, n, t, fit, at, gi, ga, err));
    *ipc_sd = gpuest_gpu_delta_sd(fit, gi);
    *amat_sd = gpuest_gpu_delta_sd(fit, ga);
    return GPUEST_OK;
}

double gpuest_gpu_delta_sd(const gpuest_fit_result_t *fit, const double *grad)
{
    double v = 0;
    for (int a = 0; a < NP; a++)
        for (int b = 0; b < NP; b++)
            v += grad[a] * fit->covar[a][b] * grad[b];
    return sqrt(v > 0 ? v : 0);
}

gpuest_err gpuest_gpu_predict_grad_phases_at(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                             const gpuest_model_phase_t *ph, int n,
                                             const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                             const gpuest_gpu_estimate_t *at, double *gi, double *ga,
                                             gpuest_error_t *err)
{
    double th[NP];
    const gpuest_gpu_estimate_t e0 = *at;
    gpuest_gpu_params_to_vec(&fit->params, th);
    for (int j = 0; j < NP; j++) {
        double h = 1e-2 * th[j], tp[NP]; /* well above the solver and bisection precision */
        memcpy(tp, th, sizeof th);
        tp[j] += h;
        gpuest_gpu_params_t pp;
        gpuest_gpu_params_from_vec(&pp, tp);
        gpuest_gpu_estimate_t ep;
        GPUEST_TRY(gpuest_gpu_model_solve_phases(m, w, ph, n, t, &pp, &ep, err));
        gi[j] = (ep.ipc - e0.ipc) / h;
        ga[j] = (ep.amat - e0.amat) / h;
    }
    return GPUEST_OK;
}
