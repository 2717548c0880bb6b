/* estimate.c: a calibrated estimate with its interval; no simulator call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Configuration fields an estimate may change, read as numbers. The excitation set varies
 * noc.flit_bytes and l2.hit_latency; any other field that differs from the calibrated machine is a
 * change the calibration never saw (the estimate says so). */
typedef struct {
    const char *name;
    double (*get)(const gpuest_config_t *c);
} field_t;
#define FIELD(n, expr) static double get_##n(const gpuest_config_t *c) { return (double)(expr); }
FIELD(flit, c->noc.flit_bytes)
FIELD(l2lat, c->l2.hit_latency)
FIELD(vcs, c->noc.vcs)
FIELD(buf, c->noc.buffer_flits)
FIELD(rreq, c->noc.routing_request)
FIELD(rrep, c->noc.routing_reply)
FIELD(place, c->noc.mc_placement)
FIELD(mcs, c->mc.num_mcs)
FIELD(xbar, c->noc.xbar_port_flits)
FIELD(topo, c->noc.topology)
FIELD(sms, c->core.num_sms)
FIELD(warps, c->core.warps_per_sm)
FIELD(mshr, c->l1.mshrs)
FIELD(l1size, c->l1.size_bytes)
FIELD(l2size, c->l2.size_per_mc_bytes)
FIELD(tcl, c->dram.tCL)
FIELD(trcd, c->dram.tRCD)
FIELD(trp, c->dram.tRP)
FIELD(dclk, c->dram.clock_mhz)
FIELD(nclk, c->noc.clock_mhz)
FIELD(replyq, c->mc.reply_queue)
FIELD(injq, c->noc.inject_queue)
static const field_t fields[] = {
    {"noc.flit_bytes", get_flit},   {"l2.hit_latency", get_l2lat},     {"noc.vcs", get_vcs},
    {"noc.buffer_flits", get_buf},  {"noc.routing_request", get_rreq}, {"noc.routing_reply", get_rrep},
    {"noc.mc_placement", get_place}, {"mc.num_mcs", get_mcs},          {"noc.xbar_port_flits", get_xbar},
    {"noc.topology", get_topo},     {"core.num_sms", get_sms},         {"core.warps_per_sm", get_warps},
    {"l1.mshrs", get_mshr},         {"l1.size_bytes", get_l1size},     {"l2.size_per_mc_bytes", get_l2size},
    {"dram.tCL", get_tcl},          {"dram.tRCD", get_trcd},           {"dram.tRP", get_trp},
    {"dram.clock_mhz", get_dclk},   {"noc.clock_mhz", get_nclk},       {"mc.reply_queue", get_replyq},
    {"noc.inject_queue", get_injq},
};

#define NFIELDS (sizeof fields / sizeof fields[0])

/* Names the first field outside what the calibration runs covered, or returns NULL. Each run's
 * machine is built once for all fields. */
static const char *outside_range(const gpuest_calibration_t *c, const gpuest_config_t *cfg, double *lo, double *hi)
{
    gpuest_config_t base;
    gpuest_error_t err;
    if (gpuest_config_preset(&base, c->preset, &err) != GPUEST_OK)
        return "preset";
    double flo[NFIELDS], fhi[NFIELDS];
    for (size_t f = 0; f < NFIELDS; f++)
        flo[f] = fhi[f] = fields[f].get(&base);
    for (int i = 1; i < c->nruns; i++) { /* values the excitation runs set */
        gpuest_config_t vc = base;
        const char *s = c->runs[i].sets;
        char one[96];
        while (*s) {
            size_t len = strcspn(s, ";");
            snprintf(one, sizeof one, "%.*s", (int)len, s);
            gpuest_config_set(&vc, one, "calibration", &err);
            s += len + (s[len] ? 1 : 0);
        }
        for (size_t f = 0; f < NFIELDS; f++) {
            double x = fields[f].get(&vc);
            flo[f] = x < flo[f] ? x : flo[f];
            fhi[f] = x > fhi[f] ? x : fhi[f];
        }
    }
    for (size_t f = 0; f < NFIELDS; f++) {
        double v = fields[f].get(cfg);
        *lo = flo[f];
        *hi = fhi[f];
        if (v < *lo || v > *hi)
            return fields[f].name;
    }
    return NULL;
}

/* The model at the calibrated machine (the anchor of an anchored estimate): its estimate at the
 * fitted parameters and the gradients of IPC and AMAT, solved once per calibration. usable = 0 when
 * the calibrated machine cannot be rebuilt (its hash differs from the preset's): no anchoring. */
typedef struct {
    int usable;
    gpuest_gpu_estimate_t at;
    double ipc_grad[GPUEST_GPU_PARAMS], amat_grad[GPUEST_GPU_PARAMS];
} anchor_t;

/* keep (may be NULL): gets the model the anchor was solved on (the caller destroys it; NULL when
 * none was built), so that a point of the calibrated machine's network reuses its open NoC model,
 * saturation scales and curves instead of building them again (gpuest_gpu_model_retarget: a
 * retargeted model answers bit for bit as a fresh one). */
static gpuest_err anchor_solve(const gpuest_calibration_t *c, anchor_t *a, gpuest_gpu_model_t **keep,
                               gpuest_error_t *err)
{
    memset(a, 0, sizeof *a);
    if (keep)
        *keep = NULL;
    if (!c->anchor_ipc && !c->anchor_amat)
        return GPUEST_OK;
    gpuest_config_t base;
    GPUEST_TRY(gpuest_config_preset(&base, c->preset, err));
    uint64_t h = 0;
    GPUEST_TRY(gpuest_study_machine_hash(&base, &h, err));
    if (c->machine_hash && h != c->machine_hash)
        return GPUEST_OK;
    gpuest_model_phase_t ph[GPUEST_MODEL_MAX_PHASES];
    int nph = gpuest_calibration_model_phases(c, ph);
    gpuest_gpu_model_t *m = NULL;
    GPUEST_TRY(gpuest_gpu_model_create(&base, &m, err));
    gpuest_err rc = gpuest_gpu_model_solve_phases(m, &c->runs[0].in, ph, nph, NULL, &c->fit.params, &a->at, err);
    if (rc == GPUEST_OK)
        rc = gpuest_gpu_predict_grad_phases_at(m, &c->runs[0].in, ph, nph, NULL, &c->fit, &a->at, a->ipc_grad,
                                               a->amat_grad, err);
    if (keep && rc == GPUEST_OK)
        *keep = m;
    else
        gpuest_gpu_model_destroy(m);
    a->usable = rc == GPUEST_OK && a->at.ipc > 0 && a->at.amat > 0;
    return rc;
}

/* value at the point (*v, gradient g) anchored: v / v0 x measured, its gradient by the quotient
 * rule (the anchor's own parameter uncertainty cancels where the point is the baseline). */
static void anchor_apply(double *v, double *g, double v0, const double *g0, double measured)
{
    double k = measured / v0;
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        g[j] = k * (g[j] - *v * g0[j] / v0);
    *v *= k;
}

/* One estimate on model m (built for cfg, or retargeted to it); anc: the calibration's anchor. */
static gpuest_err estimate_on(const gpuest_calibration_t *c, gpuest_gpu_model_t *m, const gpuest_config_t *cfg,
                              const gpuest_model_transform_t *t, double conf, gpuest_study_l2_cache_t *l2,
                              const anchor_t *anc, gpuest_study_estimate_t *out, gpuest_error_t *err);

gpuest_err gpuest_study_estimate(const gpuest_calibration_t *c, const gpuest_config_t *cfg,
                                 const gpuest_model_transform_t *t, double conf, gpuest_study_estimate_t *out,
                                 gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    anchor_t anc;
    gpuest_gpu_model_t *m = NULL;
    GPUEST_TRY(anchor_solve(c, &anc, &m, err));
    if (m && !gpuest_gpu_model_retarget(m, cfg)) { /* another network than the calibrated machine's */
        gpuest_gpu_model_destroy(m);
        m = NULL;
    }
    if (!m)
        GPUEST_TRY(gpuest_gpu_model_create(cfg, &m, err));
    gpuest_err rc = estimate_on(c, m, cfg, t, conf, NULL, &anc, out, err);
    gpuest_gpu_model_destroy(m);
    return rc;
}

struct gpuest_study_batch_s {
    gpuest_gpu_model_t *m[GPUEST_STUDY_BATCH_MODELS];
    int used, next;
    gpuest_study_l2_cache_t *l2; /* L2 walks of the batch's calibration (created on first use) */
    const gpuest_calibration_t *l2_of;
    anchor_t anchor; /* the anchor of anchor_of (solved on first use) */
    const gpuest_calibration_t *anchor_of;
};

gpuest_err gpuest_study_batch_create(gpuest_study_batch_t **out, gpuest_error_t *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "estimate batch: out of memory");
}

void gpuest_study_batch_destroy(gpuest_study_batch_t *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->used; i++)
        gpuest_gpu_model_destroy(b->m[i]);
    gpuest_study_l2_cache_destroy(b->l2);
    free(b);
}

gpuest_err gpuest_study_estimate_in(gpuest_study_batch_t *b, const gpuest_calibration_t *c,
                                    const gpuest_config_t *cfg, const gpuest_model_transform_t *t, double conf,
                                    gpuest_study_estimate_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (b->anchor_of != c) {
        /* the kept models hold another calibration's kappas: start again, then keep the anchor's
         * model (the calibrated machine's network, set up by the anchor's own solve) */
        for (int i = 0; i < b->used; i++)
            gpuest_gpu_model_destroy(b->m[i]);
        b->used = b->next = 0;
        b->anchor_of = NULL;
        gpuest_gpu_model_t *am = NULL;
        GPUEST_TRY(anchor_solve(c, &b->anchor, &am, err));
        b->anchor_of = c;
        if (am)
            b->m[b->used++] = am;
    }
    gpuest_gpu_model_t *m = NULL;
    for (int i = 0; i < b->used && !m; i++)
        if (gpuest_gpu_model_retarget(b->m[i], cfg))
            m = b->m[i];
    if (!m) { /* a network the batch has not seen: build it, replacing the oldest when full */
        GPUEST_TRY(gpuest_gpu_model_create(cfg, &m, err));
        if (b->used < GPUEST_STUDY_BATCH_MODELS) {
            b->m[b->used++] = m;
        } else {
            gpuest_gpu_model_destroy(b->m[b->next]);
            b->m[b->next] = m;
            b->next = (b->next + 1) % GPUEST_STUDY_BATCH_MODELS;
        }
    }
    if (b->l2 && b->l2_of != c) { /* walks are of one calibration's workload */
        gpuest_study_l2_cache_destroy(b->l2);
        b->l2 = NULL;
    }
    if (!b->l2)
        GPUEST_TRY(gpuest_study_l2_cache_create(&b->l2, err));
    b->l2_of = c;
    return estimate_on(c, m, cfg, t, conf, b->l2, &b->anchor, out, err);
}

static gpuest_err estimate_on(const gpuest_calibration_t *c, gpuest_gpu_model_t *m, const gpuest_config_t *cfg,
                              const gpuest_model_transform_t *t, double conf, gpuest_study_l2_cache_t *l2,
                              const anchor_t *anc, gpuest_study_estimate_t *out, gpuest_error_t *err)
{
    /* the pool's set-reservation relief only when asked for (c->pool_setres) */
    gpuest_model_transform_t t_nosr;
    if (t && t->ldst_block_scale > 0 && !c->pool_setres) {
        t_nosr = *t;
        t_nosr.ldst_block_scale = 0.0;
        t = &t_nosr;
    }
    if (!(conf > 0 && conf < 1))
        return gpuest_fail(err, GPUEST_ERANGE, "confidence %g: expected a level in (0, 1)", conf);
    if (c->nruns < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "calibration has no runs");
    gpuest_model_workload_t win = c->runs[0].in;
    const gpuest_model_workload_t *w = &win;
    gpuest_model_phase_t ph[GPUEST_MODEL_MAX_PHASES];
    int nph = gpuest_calibration_model_phases(c, ph); /* 0: the run as one phase */
    int l2_walked = 0; /* the L2 hit rate follows cfg's L2 geometry (l2_walk.c) */
    GPUEST_TRY(gpuest_study_l2_adjust(l2, c, cfg, &win, ph, nph, &l2_walked, err));
    /* A pool on a calibration that kept the token form: the token form estimates the point without
     * the pool, the scoreboard form gives the pool's effect (pool_form.c) */
    int pooled = gpuest_study_pool_on_scoreboard(c, t);
    gpuest_model_transform_t rest;
    const gpuest_model_transform_t *tk = t;
    if (pooled) {
        gpuest_model_transform_without_pool(t, &rest);
        tk = &rest;
    }
    gpuest_err rc = gpuest_gpu_model_solve_phases(m, w, ph, nph, tk, &c->fit.params, &out->raw, err);
    double gi[GPUEST_GPU_PARAMS], ga[GPUEST_GPU_PARAMS];
    if (rc == GPUEST_OK)
        rc = gpuest_gpu_predict_grad_phases_at(m, w, ph, nph, tk, &c->fit, &out->raw, gi, ga, err);
    gpuest_study_pool_effect_t pe;
    double pool_ipc_rel = 0.0, pool_amat_rel = 0.0;
    if (rc == GPUEST_OK && pooled) {
        rc = gpuest_study_pool_effect(c, m, w, ph, nph, t, &rest, &out->raw, &pe, err);
        if (rc == GPUEST_OK) {
            gpuest_study_pool_compose(&out->raw, gi, ga, &pe);
            gpuest_study_pool_rel_sd(&pe, &pool_ipc_rel, &pool_amat_rel);
        }
    }
    if (rc != GPUEST_OK)
        return rc;
    const gpuest_gpu_estimate_t *e = &out->raw;
    /* Baseline anchoring: the model's ratio to its own solve of the calibrated machine times the
     * measured baseline. The model's level error at the baseline (its fit residual there) is carried
     * as a ratio to every point instead of added to it; calibrate chose this form per figure by
     * leave-one-out error. IPC and AMAT only: the stall ratio and link utilisation are bounded
     * shares, which a ratio correction would push past their bounds. */
    double ipc = e->ipc, amat = e->amat, amat_scale = 1.0;
    if (anc && anc->usable && c->anchor_ipc)
        anchor_apply(&ipc, gi, anc->at.ipc, anc->ipc_grad, c->runs[0].ipc);
    if (anc && anc->usable && c->anchor_amat) {
        anchor_apply(&amat, ga, anc->at.amat, anc->amat_grad, c->runs[0].amat);
        amat_scale = amat / e->amat;
    }
    /* The model-discrepancy term is an RMS of the leave-one-out errors of the calibration's runs
     * other than the baseline (3 with the standard excitation set), so the interval takes Student's
     * t quantile on that many degrees of freedom, not the normal one: with 3 the 95 % half-width is
     * 1.62 times wider (3.18 against 1.96), which is what a deviation estimated from three values
     * supports. */
    int loo_runs = c->nruns > 2 ? c->nruns - 1 : 0;
    double z = loo_runs > 0 ? gsl_cdf_tdist_Pinv(0.5 + conf / 2.0, (double)loo_runs)
                            : gsl_cdf_ugaussian_Pinv(0.5 + conf / 2.0);
    /* parameter uncertainty (delta method) and model discrepancy (cross-validated), in quadrature */
    double ipc_sd = gpuest_gpu_delta_sd(&c->fit, gi), amat_sd = gpuest_gpu_delta_sd(&c->fit, ga);
    double si = sqrt(ipc_sd * ipc_sd + pow(c->cv_ipc * ipc, 2) + pow(pool_ipc_rel * ipc, 2));
    double sa = sqrt(amat_sd * amat_sd + pow(c->cv_amat * amat, 2) + pow(pool_amat_rel * amat, 2));
    double rel_a = amat > 0 ? sa / amat : 0;
    out->ipc = interval(ipc, si, z, 1);
    out->amat = interval(amat, sa, z, 1);
    out->req = interval(e->req_latency * amat_scale, rel_a * e->req_latency * amat_scale, z, 1);
    out->mem = interval(e->mem_latency * amat_scale, rel_a * e->mem_latency * amat_scale, z, 1);
    out->reply = interval(e->reply_latency * amat_scale, rel_a * e->reply_latency * amat_scale, z, 1);
    out->mc_stall = interval(e->mc_stall_ratio, rel_a * e->mc_stall_ratio, z, 1);
    if (out->mc_stall.hi > 1)
        out->mc_stall.hi = 1;
    double rel_i = ipc > 0 ? si / ipc : 0;
    out->link_util = interval(e->link_util_max, rel_i * e->link_util_max, z, 1);
    /* extrapolation: the bottleneck runs outside the utilisation range the calibration saw */
    double lo = c->util_lo * 0.9, hi = c->util_hi * 1.1 > 1 ? 1 : c->util_hi * 1.1;
    if (e->bottleneck_util < lo || e->bottleneck_util > hi) {
        out->extrapolated = 1;
        snprintf(out->why, sizeof out->why, "bottleneck utilisation %.2f outside the calibrated %.2f..%.2f",
                 e->bottleneck_util, c->util_lo, c->util_hi);
    }
    double flo = 0, fhi = 0;
    const char *key = outside_range(c, cfg, &flo, &fhi);
    if (key) {
        out->extrapolated = 1;
        snprintf(out->why, sizeof out->why, "%s outside the calibrated %g..%g", key, flo, fhi);
    }
    if (!t && cfg->technique.compression[0] && strcmp(cfg->technique.compression, "none") != 0) {
        out->extrapolated = 1; /* a caller that gives no transform (validate today) */
        snprintf(out->why, sizeof out->why, "technique.compression = %s is not in this estimate (no transform given)",
                 cfg->technique.compression);
    }
    if ((c->anchor_ipc || c->anchor_amat) && !(anc && anc->usable)) {
        out->extrapolated = 1;
        snprintf(out->why, sizeof out->why, "the calibrated machine is not preset %s as defined now: not anchored",
                 c->preset);
    }
    if (strcmp(cfg->name, c->preset) != 0) {
        out->extrapolated = 1;
        snprintf(out->why, sizeof out->why, "machine family %s, calibrated on %s", cfg->name, c->preset);
    }
    return GPUEST_OK;
}
