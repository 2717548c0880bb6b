/* calibrate.c: runs of the excitation set -> GSL fit -> leave-one-config-out cross-validation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "study/study.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses a run's ';'-separated assignments back into a variant. */
static void variant_of_run(const gpuest_study_run_t *r, gpuest_study_variant_t *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->label, sizeof v->label, "%s", r->label);
    const char *s = r->sets;
    while (*s && v->nsets < GPUEST_STUDY_MAX_SETS) {
        const char *e = strchr(s, ';');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof v->sets[0])
            len = sizeof v->sets[0] - 1;
        memcpy(v->sets[v->nsets], s, len);
        v->sets[v->nsets++][len] = '\0';
        s += len + (e ? 1 : 0);
    }
}

/* The phases every fit point and estimate of c reads (static: the fit keeps pointers to them). */
typedef struct {
    gpuest_model_phase_t ph[GPUEST_MODEL_MAX_PHASES];
    int n;
} phase_set_t;

static void free_models(gpuest_fit_point_t *pts, int n)
{
    for (int i = 0; i < n; i++)
        gpuest_gpu_model_destroy(pts[i].model);
}

/* Builds fit points for runs [0, n) except `skip` (-1: none). */
static gpuest_err build_points(const gpuest_config_t *cfg, const gpuest_calibration_t *c, const phase_set_t *ps,
                               int skip, gpuest_fit_point_t *pts, int *np, gpuest_error_t *err)
{
    *np = 0;
    for (int i = 0; i < c->nruns; i++) {
        if (i == skip)
            continue;
        gpuest_study_variant_t v;
        variant_of_run(&c->runs[i], &v);
        gpuest_config_t vc;
        gpuest_fit_point_t *p = &pts[*np];
        memset(p, 0, sizeof *p);
        gpuest_err rc = gpuest_study_apply(cfg, &v, &vc, err);
        if (rc == GPUEST_OK)
            rc = gpuest_gpu_model_create(&vc, &p->model, err);
        if (rc != GPUEST_OK) {
            free_models(pts, *np);
            return rc;
        }
        p->workload = c->runs[i].in;
        gpuest_model_transform_identity(&p->transform);
        p->ipc = c->runs[i].ipc;
        p->amat = c->runs[i].amat;
        p->ipc_cv = c->runs[i].ipc_cv;
        p->amat_cv = c->runs[i].amat_cv;
        /* every configuration's phases are the baseline's (what an estimate has) */
        p->phases = ps->n > 0 ? ps->ph : NULL;
        p->num_phases = ps->n;
        (*np)++;
    }
    return GPUEST_OK;
}

static gpuest_err fit_one_form(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err);
static gpuest_err loo_predict(const gpuest_config_t *cfg, const gpuest_calibration_t *c, const phase_set_t *ps,
                              int k, gpuest_gpu_model_t *m0, gpuest_gpu_estimate_t *e, gpuest_gpu_estimate_t *e0,
                              gpuest_error_t *err);

static double rms(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s / n);
}

/* What chooses between the two forms and between phases and one phase: the IPC error over the
 * calibrated range of the IPC form kept (range_error.c), the same error that chose that form. */
static double form_score(const gpuest_calibration_t *c)
{
    return c->anchor_ipc ? c->range_anch_ipc : c->range_raw_ipc;
}

/* With a warp profile both forms of the closed model are fitted, the scoreboard model (warps as
 * customers) and the token model (read tokens, alpha per warp), and the one with the smaller
 * IPC error over the calibrated range is kept (a tie keeps the scoreboard model; form_score): on some
 * workloads the scoreboard model's fixed structure (one memory wait per epoch, all loads of an
 * epoch returning together) misses what the token model's free alpha absorbs. A file whose
 * token model won carries no warp profile; --refit walks the workload again and chooses again. */
static gpuest_err fit_forms(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err);

/* With kernel phases the model is fitted twice more, as one phase (the run's totals) and per phase,
 * each in both forms, and the one with the smaller IPC error over the calibrated range is kept, the
 * same rule as between the forms (a tie keeps the phases). A calibration that keeps one phase drops
 * its phase records (calibrate --refit --phases measures them again). Why: a phase's inputs come
 * from its launches alone, which on workloads of alike launches adds parameters' worth of freedom
 * the four excitation runs do not pin (on the development workloads the fit of some moved to
 * another basin); the cross-validation decides, as it does between the forms. */
gpuest_err gpuest_study_fit_runs(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err)
{
    if (c->nphases <= 0)
        return fit_forms(cfg, c, err);
    gpuest_calibration_t *one = malloc(sizeof *one);
    if (!one)
        return gpuest_fail(err, GPUEST_ENOMEM, "calibration: out of memory");
    *one = *c;
    one->nphases = 0;
    gpuest_err rc = fit_forms(cfg, one, err);
    if (rc == GPUEST_OK)
        rc = fit_forms(cfg, c, err);
    if (rc == GPUEST_OK) {
        double phased = form_score(c), whole = form_score(one);
        int measured = c->nphases;
        if (whole < phased)
            *c = *one; /* one phase: no phase records */
        c->phase_choice = whole < phased ? -measured : measured;
        c->phase_cv_ipc = phased;
        c->whole_cv_ipc = whole;
    }
    free(one);
    return rc;
}

/* When the token form wins, the scoreboard fit it beat is kept beside it (sb_*): the part of a
 * technique that only the scoreboard form carries (WarpPool) is estimated with it (pool_form.c).
 * Cleared first: a refit chooses again. */
static void keep_scoreboard_form(gpuest_calibration_t *kept, const gpuest_calibration_t *sb)
{
    kept->sb_kept = 1;
    kept->sb_params = sb->fit.params;
    memcpy(kept->sb_covar, sb->fit.covar, sizeof kept->sb_covar);
    memcpy(kept->sb_profile, sb->warp_profile, sizeof kept->sb_profile);
}

static gpuest_err fit_forms(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err)
{
    c->sb_kept = 0;
    memset(&c->sb_params, 0, sizeof c->sb_params);
    memset(c->sb_covar, 0, sizeof c->sb_covar);
    memset(c->sb_profile, 0, sizeof c->sb_profile);
    if (!(c->warp_profile[1] > 0))
        return fit_one_form(cfg, c, err);
    GPUEST_TRY(fit_one_form(cfg, c, err));
    gpuest_calibration_t *tok = malloc(sizeof *tok);
    if (!tok)
        return gpuest_fail(err, GPUEST_ENOMEM, "calibration: out of memory");
    *tok = *c;
    static const double none[4] = {0, 0, 0, 0};
    gpuest_calibration_set_profile(tok, none);
    gpuest_err rc = fit_one_form(cfg, tok, err);
    if (rc == GPUEST_OK) {
        int take = form_score(tok) < form_score(c);
        gpuest_calibration_t *lost = take ? c : tok;
        double o[4] = {lost->fit.rms_rel_error, lost->cv_ipc, lost->cv_amat, form_score(lost)};
        if (take) {
            keep_scoreboard_form(tok, c);
            *c = *tok;
        }
        c->other_form = 1;
        c->other_rms = o[0];
        c->other_cv_ipc = o[1];
        c->other_cv_amat = o[2];
        c->other_range_ipc = o[3];
    }
    free(tok);
    return rc;
}

static gpuest_err fit_one_form(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err)
{
    gpuest_fit_point_t pts[GPUEST_STUDY_MAX_RUNS];
    int np;
    phase_set_t ps;
    ps.n = gpuest_calibration_model_phases(c, ps.ph);
    GPUEST_TRY(build_points(cfg, c, &ps, -1, pts, &np, err));
    /* The fit starts from the fixed starts only, never from the parameters a file had: a refit is then
     * a function of the stored runs alone, and `--refit` of a committed calibration reproduces it
     * (with the file's parameters as a fourth start, a second refit moved three mesh56 fits to other
     * minima, mesh56 validation 4.60 -> 5.18 %: docs/estimator.md, "Refits reproduce"). */
    gpuest_err rc = gpuest_gpu_fit(pts, np, &c->fit, err);
    c->util_lo = 1e9;
    c->util_hi = 0.0;
    for (int i = 0; rc == GPUEST_OK && i < np; i++) {
        gpuest_gpu_estimate_t e;
        rc = gpuest_gpu_model_solve_phases(pts[i].model, &pts[i].workload, pts[i].phases, pts[i].num_phases,
                                           &pts[i].transform, &c->fit.params, &e, err);
        if (rc == GPUEST_OK) {
            c->util_lo = e.bottleneck_util < c->util_lo ? e.bottleneck_util : c->util_lo;
            c->util_hi = e.bottleneck_util > c->util_hi ? e.bottleneck_util : c->util_hi;
        }
    }
    free_models(pts, np);
    if (rc != GPUEST_OK)
        return rc;
    /* Leave one configuration out: refit without it, predict it with the baseline's inputs (what an
     * estimate has), and take the RMS relative error. With a single run the fit's own residual is used.
     * Each left-out run is predicted twice: by the plain model and anchored at the measured baseline
     * (the refit model's ratio of the run to the baseline machine, times the baseline's measured
     * IPC or AMAT: what an anchored estimate gives). The refit's miss of the measured baseline is kept
     * too: each figure keeps the form with the smaller error over the calibrated range (range_error.c),
     * which weighs the baseline, where the anchored form is exact, against the left-out runs. The
     * left-out RMS of the kept form stays the interval's held-out term (cv_ipc, cv_amat). */
    double bi[GPUEST_STUDY_MAX_RUNS], ba[GPUEST_STUDY_MAX_RUNS]; /* plain refit's miss at the baseline */
    double pi[GPUEST_STUDY_MAX_RUNS], pa[GPUEST_STUDY_MAX_RUNS]; /* plain miss of the left-out run */
    double ai[GPUEST_STUDY_MAX_RUNS], aa[GPUEST_STUDY_MAX_RUNS]; /* anchored miss of the left-out run */
    int nv = 0;
    gpuest_gpu_model_t *m0 = NULL; /* the calibrated machine itself, for the anchored predictions */
    if (c->nruns > 2)
        GPUEST_TRY(gpuest_gpu_model_create(cfg, &m0, err));
    for (int k = 1; k < c->nruns && c->nruns > 2; k++) {
        gpuest_gpu_estimate_t e, e0;
        rc = loo_predict(cfg, c, &ps, k, m0, &e, &e0, err);
        if (rc != GPUEST_OK) {
            gpuest_gpu_model_destroy(m0);
            return rc;
        }
        const gpuest_study_run_t *r = &c->runs[k], *b = &c->runs[0];
        bi[nv] = (e0.ipc - b->ipc) / b->ipc;
        ba[nv] = (e0.amat - b->amat) / b->amat;
        pi[nv] = (e.ipc - r->ipc) / r->ipc;
        pa[nv] = (e.amat - r->amat) / r->amat;
        ai[nv] = (e.ipc / e0.ipc * b->ipc - r->ipc) / r->ipc;
        aa[nv] = (e.amat / e0.amat * b->amat - r->amat) / r->amat;
        nv++;
    }
    gpuest_gpu_model_destroy(m0);
    if (nv == 0) {
        c->raw_cv_ipc = c->raw_cv_amat = c->cv_ipc = c->cv_amat = c->fit.rms_rel_error;
        c->range_raw_ipc = c->range_raw_amat = c->range_anch_ipc = c->range_anch_amat = c->fit.rms_rel_error;
        c->anchor_ipc = c->anchor_amat = 0;
        return GPUEST_OK;
    }
    c->raw_cv_ipc = rms(pi, nv);
    c->raw_cv_amat = rms(pa, nv);
    double anchored_ipc = rms(ai, nv), anchored_amat = rms(aa, nv);
    c->range_raw_ipc = gpuest_study_range_error(bi, pi, nv);
    c->range_raw_amat = gpuest_study_range_error(ba, pa, nv);
    c->range_anch_ipc = gpuest_study_range_error(NULL, ai, nv);
    c->range_anch_amat = gpuest_study_range_error(NULL, aa, nv);
    c->anchor_ipc = c->range_anch_ipc <= c->range_raw_ipc; /* a tie anchors */
    c->anchor_amat = c->range_anch_amat <= c->range_raw_amat;
    c->cv_ipc = c->anchor_ipc ? anchored_ipc : c->raw_cv_ipc;
    c->cv_amat = c->anchor_amat ? anchored_amat : c->raw_cv_amat;
    return GPUEST_OK;
}

/* The leave-one-out prediction of run k (refit without it) with the baseline's inputs: *e on run k's
 * machine, *e0 on the calibrated machine m0 (the anchor) with the same refitted parameters. */
static gpuest_err loo_predict(const gpuest_config_t *cfg, const gpuest_calibration_t *c, const phase_set_t *ps,
                              int k, gpuest_gpu_model_t *m0, gpuest_gpu_estimate_t *e, gpuest_gpu_estimate_t *e0,
                              gpuest_error_t *err)
{
    gpuest_fit_point_t sub[GPUEST_STUDY_MAX_RUNS];
    int ns;
    GPUEST_TRY(build_points(cfg, c, ps, k, sub, &ns, err));
    gpuest_fit_result_t f;
    gpuest_err rc = gpuest_gpu_fit_from_scouted(sub, ns, &c->fit.params, &f, err);
    free_models(sub, ns);
    if (rc != GPUEST_OK)
        return rc;
    gpuest_study_variant_t v;
    variant_of_run(&c->runs[k], &v);
    gpuest_config_t vc;
    gpuest_gpu_model_t *m = NULL;
    GPUEST_TRY(gpuest_study_apply(cfg, &v, &vc, err));
    GPUEST_TRY(gpuest_gpu_model_create(&vc, &m, err));
    const gpuest_model_phase_t *ph = ps->n > 0 ? ps->ph : NULL;
    rc = gpuest_gpu_model_solve_phases(m, &c->runs[0].in, ph, ps->n, NULL, &f.params, e, err);
    gpuest_gpu_model_destroy(m);
    if (rc == GPUEST_OK)
        rc = gpuest_gpu_model_solve_phases(m0, &c->runs[0].in, ph, ps->n, NULL, &f.params, e0, err);
    return rc;
}

gpuest_err gpuest_study_calibration_begin(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                          uint64_t seed, gpuest_calibration_t *out, double *t0, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    *t0 = wall_now();
    snprintf(out->preset, sizeof out->preset, "%s", cfg->name);
    snprintf(out->workload, sizeof out->workload, "%s", workload);
    out->scale = scale;
    out->seed = seed;
    out->sim_generation = GPUEST_STUDY_SIM_GENERATION;
    return gpuest_study_machine_hash(cfg, &out->machine_hash, err);
}

void gpuest_study_run_label(gpuest_study_run_t *r, const gpuest_study_variant_t *v)
{
    memcpy(r->label, v->label, sizeof r->label);
    r->label[sizeof r->label - 1] = '\0';
    for (int k = 0; k < v->nsets; k++) {
        size_t len = strlen(r->sets);
        snprintf(r->sets + len, sizeof r->sets - len, "%s%s", k ? ";" : "", v->sets[k]);
    }
}

gpuest_err gpuest_study_calibration_end(const gpuest_config_t *cfg, gpuest_calibration_t *out, double t0,
                                        gpuest_error_t *err)
{
    GPUEST_TRY(gpuest_study_profile_calibration(cfg, out, err));
    GPUEST_TRY(gpuest_study_fit_runs(cfg, out, err));
    out->calib_seconds = wall_now() - t0;
    return GPUEST_OK;
}

gpuest_err gpuest_study_calibrate(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                  uint64_t seed, gpuest_progress_t *progress, gpuest_calibration_t *out,
                                  gpuest_error_t *err)
{
    double t0;
    GPUEST_TRY(gpuest_study_calibration_begin(cfg, workload, scale, seed, out, &t0, err));
    gpuest_study_variant_t vars[GPUEST_STUDY_MAX_RUNS];
    int nv = gpuest_study_excitation(cfg, vars, GPUEST_STUDY_MAX_RUNS);
    for (int i = 0; i < nv; i++) {
        gpuest_config_t vc;
        GPUEST_TRY(gpuest_study_apply(cfg, &vars[i], &vc, err));
        gpuest_study_run_t *r = &out->runs[out->nruns];
        if (i == 0) /* the baseline also gives the kernel phases */
            GPUEST_TRY(gpuest_study_measure_phases(&vc, out, r, err));
        else
            GPUEST_TRY(gpuest_study_run_detailed(&vc, workload, scale, seed, r, err));
        gpuest_study_run_label(r, &vars[i]);
        out->nruns++;
        if (progress)
            gpuest_progress_update(progress, (uint64_t)out->nruns);
    }
    return gpuest_study_calibration_end(cfg, out, t0, err);
}
