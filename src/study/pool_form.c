/* pool_form.c: WarpPool on calibrations that kept the token form.
 *
 * WarpPool's model (warppool_rule.c, ldst_pool.c) acts through the scoreboard form alone: the
 * pool's occupancy is the line requests queued at the LD/ST station, the merged share and the
 * pool's lost L1 hits are read at that occupancy, merged requests leave the LD/ST station, and the
 * unblocking overlaps the warp's dependence delay with its wait there. The token form has no LD/ST
 * station and no dependence delay: it solves any pool as one queue, merges nothing, unblocks
 * nothing, and keeps only the pool's latency and one queue's lost hits (fermi 2dconv: -0.43 %
 * estimated against +3.69 % simulated). Half the calibrations keep the token form (calibrate fits
 * both forms and keeps the smaller IPC error over the calibrated range), so their pools were not
 * modelled at all.
 *
 * The choice: calibrate keeps the scoreboard form's fit it did not choose (parameters, covariance,
 * warp profile: the `scoreboard_form` record of the file), and an estimate splits a transform with
 * a pool into the pool's part and the rest (gpuest_model_transform_without_pool; the rest is PCU's
 * saved replies for pcu+warppool, nothing for warppool alone). The kept token form estimates the
 * point under the rest; the scoreboard form, at its own fitted parameters, on the same machine and
 * the same inputs, gives the pool's relative effect there, all / rest; the estimate is the product.
 * So the token form's level (its smaller error over the range, its anchoring) stays, and the pool's
 * effect is the one form that has the pool's mechanism. Nothing is fitted or chosen here: both fits
 * are calibrate's, on the excitation runs. Not taken: the scoreboard form at the token form's
 * parameters (alpha is read tokens per warp in one form and epochs per customer cycle in the other,
 * so the token fit's values mean nothing in the scoreboard form); a third fit for the pool (the
 * excitation runs have no pool to fit it on).
 *
 * The interval: the token form's parameter term (its gradient times the ratio) and held-out term
 * stay; the pool adds, in quadrature, the scoreboard ratio's parameter uncertainty (delta method
 * over that fit's covariance) and the two forms' disagreement on the pool (r_sb - r_tok, as one
 * standard deviation): which form is right about the pool is not measured by either fit. */
#include <math.h>
#include <string.h>

#include "study/study.h"

int gpuest_study_pool_on_scoreboard(const gpuest_calibration_t *c, const gpuest_model_transform_t *t)
{
    return c && t && c->pool_scoreboard && c->sb_kept && !(c->warp_profile[1] > 0) && c->sb_profile[1] > 0 && t->l1_merge_windows > 0;
}

static void put_profile(gpuest_model_workload_t *w, const double prof[4])
{
    w->resident_warps = prof[0];
    w->insts_per_epoch = prof[1];
    w->lines_per_epoch = prof[2];
    w->dep_per_epoch = prof[3];
}

static double ratio(double a, double b)
{
    return b > 0 && isfinite(a) ? a / b : 1.0;
}

/* d (a / b) from da and db at a, b */
static void ratio_grad(const double *ga, const double *gb, double a, double b, double *out)
{
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        out[j] = b > 0 ? (ga[j] - a / b * gb[j]) / b : 0.0;
}

gpuest_err gpuest_study_pool_effect(const gpuest_calibration_t *c, gpuest_gpu_model_t *m,
                                    const gpuest_model_workload_t *w, const gpuest_model_phase_t *ph, int nph,
                                    const gpuest_model_transform_t *t, const gpuest_model_transform_t *rest,
                                    const gpuest_gpu_estimate_t *tok_rest, gpuest_study_pool_effect_t *out,
                                    gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    /* the scoreboard form's inputs: the estimate's own (L2 adjusted), the profile put back; each
     * phase keeps its own walk profile in the file (c->phases), the run as one phase takes c's */
    gpuest_model_workload_t ws = *w;
    put_profile(&ws, c->sb_profile);
    gpuest_model_phase_t ps[GPUEST_MODEL_MAX_PHASES];
    for (int i = 0; i < nph && i < GPUEST_MODEL_MAX_PHASES; i++) {
        const gpuest_model_workload_t *walk = &c->phases[i].w;
        double prof[4] = {walk->resident_warps, walk->insts_per_epoch, walk->lines_per_epoch, walk->dep_per_epoch};
        ps[i] = ph[i];
        put_profile(&ps[i].w, prof);
    }
    gpuest_fit_result_t sb;
    memset(&sb, 0, sizeof sb);
    sb.params = c->sb_params;
    memcpy(sb.covar, c->sb_covar, sizeof sb.covar);
    double ga_all[GPUEST_GPU_PARAMS], gi_all[GPUEST_GPU_PARAMS], ga_rest[GPUEST_GPU_PARAMS], gi_rest[GPUEST_GPU_PARAMS];
    GPUEST_TRY(gpuest_gpu_model_solve_phases(m, &ws, ps, nph, t, &sb.params, &out->sb_all, err));
    GPUEST_TRY(gpuest_gpu_predict_grad_phases_at(m, &ws, ps, nph, t, &sb, &out->sb_all, gi_all, ga_all, err));
    GPUEST_TRY(gpuest_gpu_model_solve_phases(m, &ws, ps, nph, rest, &sb.params, &out->sb_rest, err));
    GPUEST_TRY(gpuest_gpu_predict_grad_phases_at(m, &ws, ps, nph, rest, &sb, &out->sb_rest, gi_rest, ga_rest, err));
    out->ipc_ratio = ratio(out->sb_all.ipc, out->sb_rest.ipc);
    out->amat_ratio = ratio(out->sb_all.amat, out->sb_rest.amat);
    ratio_grad(gi_all, gi_rest, out->sb_all.ipc, out->sb_rest.ipc, out->ipc_ratio_grad);
    ratio_grad(ga_all, ga_rest, out->sb_all.amat, out->sb_rest.amat, out->amat_ratio_grad);
    out->ipc_ratio_sd = gpuest_gpu_delta_sd(&sb, out->ipc_ratio_grad);
    out->amat_ratio_sd = gpuest_gpu_delta_sd(&sb, out->amat_ratio_grad);
    gpuest_gpu_estimate_t tok_all;
    GPUEST_TRY(gpuest_gpu_model_solve_phases(m, w, ph, nph, t, &c->fit.params, &tok_all, err));
    out->tok_ipc_ratio = ratio(tok_all.ipc, tok_rest->ipc);
    out->tok_amat_ratio = ratio(tok_all.amat, tok_rest->amat);
    return GPUEST_OK;
}

static void scale_by(double *x, double all, double rest)
{
    *x *= ratio(all, rest);
}

void gpuest_study_pool_compose(gpuest_gpu_estimate_t *e, double *gi, double *ga, const gpuest_study_pool_effect_t *pe)
{
    const gpuest_gpu_estimate_t *a = &pe->sb_all, *r = &pe->sb_rest;
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++) {
        if (gi)
            gi[j] *= pe->ipc_ratio;
        if (ga)
            ga[j] *= pe->amat_ratio;
    }
    e->ipc *= pe->ipc_ratio;
    e->warp_ipc *= pe->ipc_ratio;
    e->amat *= pe->amat_ratio;
    scale_by(&e->miss_latency, a->miss_latency, r->miss_latency);
    scale_by(&e->req_latency, a->req_latency, r->req_latency);
    scale_by(&e->mem_latency, a->mem_latency, r->mem_latency);
    scale_by(&e->reply_latency, a->reply_latency, r->reply_latency);
    scale_by(&e->link_util_max, a->link_util_max, r->link_util_max);
    scale_by(&e->link_util_mean, a->link_util_mean, r->link_util_mean);
    scale_by(&e->inject_util, a->inject_util, r->inject_util);
    double stall = e->mc_stall_ratio + (a->mc_stall_ratio - r->mc_stall_ratio);
    e->mc_stall_ratio = stall < 0 ? 0 : (stall > 1 ? 1 : stall);
    e->ldst_queue_lines = a->ldst_queue_lines;
    e->ldst_line_rate = a->ldst_line_rate;
    e->pool_occupancy = a->pool_occupancy;
    e->pool_merge_share = a->pool_merge_share;
    e->pool_overlap = a->pool_overlap;
}

void gpuest_study_pool_rel_sd(const gpuest_study_pool_effect_t *pe, double *ipc_rel, double *amat_rel)
{
    double ri = pe->ipc_ratio > 0 ? pe->ipc_ratio : 1.0, ra = pe->amat_ratio > 0 ? pe->amat_ratio : 1.0;
    double pi = pe->ipc_ratio_sd / ri, fi = (pe->ipc_ratio - pe->tok_ipc_ratio) / ri;
    double pa = pe->amat_ratio_sd / ra, fa = (pe->amat_ratio - pe->tok_amat_ratio) / ra;
    *ipc_rel = sqrt(pi * pi + fi * fi);
    *amat_rel = sqrt(pa * pa + fa * fa);
}
