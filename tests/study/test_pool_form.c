/* test_pool_form.c: WarpPool on token-form calibrations (src/study/pool_form.c): the composition of
 * the token form's estimate with the scoreboard form's pool effect worked by hand, the transform
 * without its pool, the estimate through the study layer, the scoreboard_form record of the
 * calibration file, and calibrate keeping the scoreboard fit beside a token form that won. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "study/study.h"
#include "srad_calibration.h"

static const double sb_prof[4] = {43.3, 8.44, 2.28, 36.8};

static void assert_rel(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * fabs(want)))
        fail_msg("got %.17g, expected %.17g (relative tolerance %g)", got, want, tol);
}

/* The token estimate of the point without the pool times the scoreboard form's effect, by hand:
 * IPC 100 x 55 / 50 = 110, its gradient x 1.1; AMAT 200 x 230 / 200 = 230; the request latency
 * 40 x 12 / 10 = 48; the MC stall ratio 0.30 + (0.20 - 0.25) = 0.25 (a share: the difference, not
 * the ratio, which would give 0.24), and 0.02 + (0.10 - 0.20) kept at 0; the pool's own figures the
 * scoreboard form's; the bottleneck the token form's. Fails on an inverted ratio, a gradient left
 * unscaled, the stall scaled or unclamped, or the pool's figures left at the token form's zeros. */
static void compose_by_hand(void **state)
{
    (void)state;
    gpuest_gpu_estimate_t e;
    memset(&e, 0, sizeof e);
    e.ipc = 100.0;
    e.warp_ipc = 3.125;
    e.amat = 200.0;
    e.req_latency = 40.0;
    e.mc_stall_ratio = 0.30;
    e.bottleneck_util = 0.7;
    gpuest_study_pool_effect_t pe;
    memset(&pe, 0, sizeof pe);
    pe.sb_all.ipc = 55.0;
    pe.sb_rest.ipc = 50.0;
    pe.sb_all.amat = 230.0;
    pe.sb_rest.amat = 200.0;
    pe.sb_all.req_latency = 12.0;
    pe.sb_rest.req_latency = 10.0;
    pe.sb_all.mc_stall_ratio = 0.20;
    pe.sb_rest.mc_stall_ratio = 0.25;
    pe.sb_all.pool_occupancy = 59.0;
    pe.sb_all.pool_overlap = 1.5;
    pe.sb_all.bottleneck_util = 0.99;
    pe.ipc_ratio = 1.1;
    pe.amat_ratio = 1.15;
    double gi[3] = {10.0, -2.0, 0.5}, ga[3] = {4.0, 0.0, -8.0};
    gpuest_study_pool_compose(&e, gi, ga, &pe);
    assert_rel(e.ipc, 110.0, 1e-15);
    assert_rel(e.warp_ipc, 3.4375, 1e-15);
    assert_rel(e.amat, 230.0, 1e-15);
    assert_rel(e.req_latency, 48.0, 1e-15);
    assert_rel(e.mc_stall_ratio, 0.25, 1e-12);
    assert_rel(gi[0], 11.0, 1e-15);
    assert_rel(gi[1], -2.2, 1e-15);
    assert_rel(ga[2], -9.2, 1e-15);
    assert_true(e.pool_occupancy == 59.0 && e.pool_overlap == 1.5);
    assert_true(e.bottleneck_util == 0.7);
    assert_true(e.mem_latency == 0.0); /* 0 x anything: no ratio where the scoreboard has none */
    e.mc_stall_ratio = 0.02;
    pe.sb_all.mc_stall_ratio = 0.10;
    pe.sb_rest.mc_stall_ratio = 0.20;
    gpuest_study_pool_compose(&e, NULL, NULL, &pe);
    assert_true(e.mc_stall_ratio == 0.0);
}

/* The pool's relative standard deviation: the ratio's parameter term and the forms' disagreement in
 * quadrature: r 1.1, sd 0.033, the token form's r 0.99: sqrt(0.03^2 + 0.1^2) = 0.10440306508910550.
 * Fails when the disagreement is left out (0.03) or the terms are not relative to r (0.1165). */
static void rel_sd_by_hand(void **state)
{
    (void)state;
    gpuest_study_pool_effect_t pe;
    memset(&pe, 0, sizeof pe);
    pe.ipc_ratio = 1.1;
    pe.ipc_ratio_sd = 0.033;
    pe.tok_ipc_ratio = 0.99;
    pe.amat_ratio = 1.0;
    pe.amat_ratio_sd = 0.0;
    pe.tok_amat_ratio = 1.0;
    double ri, ra;
    gpuest_study_pool_rel_sd(&pe, &ri, &ra);
    assert_rel(ri, 0.10440306508910550, 1e-14);
    assert_true(ra == 0.0);
}

/* A WarpPool transform (the pool's windows, shares, miss scales, unblocking, latency) and PCU's
 * saved replies (pcu+warppool). */
static void pool_transform(gpuest_model_transform_t *t)
{
    gpuest_model_transform_identity(t);
    t->l1_merge_windows = 2;
    t->l1_merge_share[0] = 0.0;
    t->l1_merge_share[1] = 0.05;
    t->l1_pool_miss_scale[0] = 1.0;
    t->l1_pool_miss_scale[1] = 1.2;
    t->l1_hit_extra_latency = 2.0;
    t->ldst_pool_lines = 32;
}

/* Without its pool a transform keeps the rest (PCU's saved replies) and drops every pool field;
 * a transform without a pool (a compressed L1's extra hit latency) is copied unchanged. Fails when
 * a pool field survives (the scoreboard form's rest would still hold part of the pool) or another
 * technique's latency is dropped. */
static void without_pool(void **state)
{
    (void)state;
    gpuest_model_transform_t t, r, id;
    pool_transform(&t);
    t.reply_packets_saved = 0.3;
    gpuest_model_transform_without_pool(&t, &r);
    gpuest_model_transform_identity(&id);
    id.reply_packets_saved = 0.3;
    assert_memory_equal(&r, &id, sizeof r);
    gpuest_model_transform_identity(&t);
    t.l1_miss_scale = 0.8;
    t.l1_hit_extra_latency = 5.0;
    gpuest_model_transform_without_pool(&t, &r);
    assert_memory_equal(&r, &t, sizeof r);
}

/* A fermi calibration that kept the token form (no warp profile) with the scoreboard fit beside it
 * (other parameters than the token form's). */
static void token_calibration(gpuest_calibration_t *c)
{
    srad_calibration(c, 4, 1);
    static const double none[4] = {0, 0, 0, 0};
    gpuest_calibration_set_profile(c, none);
    c->sb_kept = 1;
    c->sb_params = (gpuest_gpu_params_t){1.0, 0.6, 1.0};
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        c->sb_covar[j][j] = 1e-3;
    memcpy(c->sb_profile, sb_prof, sizeof c->sb_profile);
    c->pool_scoreboard = 1;
}

static double solve_ipc(const gpuest_model_workload_t *w, const gpuest_model_transform_t *t,
                        const gpuest_gpu_params_t *p)
{
    gpuest_error_t err;
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_gpu_model_t *m = NULL;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_gpu_estimate_t e;
    if (gpuest_gpu_model_solve(m, w, t, p, &e, &err) != GPUEST_OK)
        fail_msg("solve: %s", err.msg);
    gpuest_gpu_model_destroy(m);
    return e.ipc;
}

static gpuest_study_estimate_t estimate(const gpuest_calibration_t *c, const gpuest_model_transform_t *t)
{
    gpuest_error_t err;
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_study_estimate_t e;
    if (gpuest_study_estimate(c, &cfg, t, 0.95, &e, &err) != GPUEST_OK)
        fail_msg("estimate: %s", err.msg);
    return e;
}

/* Through the estimate: on a token-form calibration with the scoreboard fit, the pool's effect
 * (pooled point over the baseline) is the scoreboard form's own ratio, solved here on a fresh model
 * with the profile and the scoreboard parameters: IPC_sb(pool) / IPC_sb(no pool). It differs from
 * the token form's ratio (so the check can tell them apart). With --pool-form token (the default) or
 * on a calibration without the scoreboard fit, the token form's own ratio, as before. A point of
 * another technique (compressed replies) is the same bit for bit either way. The interval holds the
 * forms' disagreement. Fails when the composition is not applied, applied with the token form's
 * parameters or without the profile, or when it touches another technique. */
static void pool_effect_is_the_scoreboard_ratio(void **state)
{
    (void)state;
    static gpuest_calibration_t c, off;
    token_calibration(&c);
    off = c;
    off.pool_scoreboard = 0;
    gpuest_model_transform_t t, id;
    pool_transform(&t);
    gpuest_model_transform_identity(&id);
    gpuest_model_workload_t wsb = c.runs[0].in, wtok = c.runs[0].in;
    wsb.resident_warps = sb_prof[0];
    wsb.insts_per_epoch = sb_prof[1];
    wsb.lines_per_epoch = sb_prof[2];
    wsb.dep_per_epoch = sb_prof[3];
    double sb_ratio = solve_ipc(&wsb, &t, &c.sb_params) / solve_ipc(&wsb, &id, &c.sb_params);
    double tok_ratio = solve_ipc(&wtok, &t, &c.fit.params) / solve_ipc(&wtok, NULL, &c.fit.params);
    assert_true(fabs(sb_ratio - tok_ratio) > 0.005);
    gpuest_study_estimate_t b = estimate(&c, NULL), p = estimate(&c, &t);
    assert_rel(p.ipc.v / b.ipc.v, sb_ratio, 1e-9);
    assert_true(p.raw.pool_occupancy > 0); /* the scoreboard form's pool, reported */
    /* the interval's half-width holds at least the forms' disagreement (t on 3 degrees: 3.1824) */
    double half = p.ipc.hi - p.ipc.v;
    assert_true(half >= 3.18 * fabs(sb_ratio - tok_ratio) / sb_ratio * p.ipc.v);
    gpuest_study_estimate_t bo = estimate(&off, NULL), po = estimate(&off, &t);
    assert_rel(po.ipc.v / bo.ipc.v, tok_ratio, 1e-9);
    static gpuest_calibration_t none;
    none = c;
    none.sb_kept = 0;
    gpuest_study_estimate_t pn = estimate(&none, &t);
    assert_true(pn.ipc.v == po.ipc.v && pn.ipc.hi == po.ipc.hi);
    /* another technique: compressed replies, identical with and without the scoreboard fit */
    gpuest_model_transform_t comp;
    gpuest_model_transform_identity(&comp);
    comp.reply_flit_hist[3] = 0.6;
    comp.reply_flit_hist[5] = 0.4;
    gpuest_study_estimate_t ec = estimate(&c, &comp), eo = estimate(&off, &comp);
    assert_true(ec.ipc.v != b.ipc.v); /* it does act */
    assert_memory_equal(&ec, &eo, sizeof ec);
}

/* The scoreboard_form record round-trips exactly; files without it (all written before it, and
 * every scoreboard-form file) load with no scoreboard fit; it goes with the token form only, once,
 * with 16 numbers and a positive profile. Fails on a field written in the wrong order or precision,
 * or a parser that takes a damaged record. */
static void file_record(void **state)
{
    (void)state;
    static gpuest_calibration_t a, b;
    token_calibration(&a);
    a.sb_covar[0][2] = a.sb_covar[2][0] = -1.0 / 3.0;
    a.sb_params.kappa = 0.47703589792893952;
    gpuest_error_t err;
    const char *path = GPUEST_BINARY_DIR "/test_pool_form.cal";
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    assert_int_equal(gpuest_calibration_read(path, &b, &err), GPUEST_OK);
    assert_int_equal(b.sb_kept, 1);
    assert_memory_equal(&b.sb_params, &a.sb_params, sizeof a.sb_params);
    assert_memory_equal(b.sb_covar, a.sb_covar, sizeof a.sb_covar);
    assert_memory_equal(b.sb_profile, a.sb_profile, sizeof a.sb_profile);
    assert_true(!(b.warp_profile[1] > 0));
    assert_int_equal(b.pool_scoreboard, 0); /* the caller's choice, not stored */
    /* the same file without the record: the old format, no scoreboard fit */
    unsigned char *data = NULL;
    size_t size = 0;
    assert_int_equal(gpuest_read_file(path, &data, &size, &err), GPUEST_OK);
    char *text = calloc(size + 200, 1);
    assert_non_null(text);
    char *sbl = strstr((char *)data, "\nscoreboard_form ");
    assert_non_null(sbl);
    char *eol = strchr(sbl + 1, '\n');
    memcpy(text, data, (size_t)(sbl - (char *)data));
    strcat(text, eol);
    assert_int_equal(gpuest_calibration_parse(text, "old.cal", &b, &err), GPUEST_OK);
    assert_int_equal(b.sb_kept, 0);
    assert_true(b.fit.params.alpha == a.fit.params.alpha && b.nruns == 4);
    /* with a warp_profile too: refused, naming the record's line */
    char *both = calloc(size + 400, 1);
    assert_non_null(both);
    memcpy(both, data, size);
    strcat(both, "warp_profile 43.3 8.44 2.28 36.8\n");
    assert_int_equal(gpuest_calibration_parse(both, "x.cal", &b, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, "scoreboard_form goes with the token form"));
    /* 15 numbers, and a zero instruction count */
    char *shortr = calloc(size + 200, 1);
    assert_non_null(shortr);
    memcpy(shortr, text, strlen(text));
    strcat(shortr, "scoreboard_form 1 0.5 1 0 0 0 0 0 0 0 0 0 40 8 2\n");
    assert_int_equal(gpuest_calibration_parse(shortr, "x.cal", &b, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, "takes 16 value(s)"));
    memcpy(shortr, text, strlen(text) + 1);
    strcat(shortr, "scoreboard_form 1 0.5 1 0 0 0 0 0 0 0 0 0 40 0 2 3\n");
    assert_int_equal(gpuest_calibration_parse(shortr, "x.cal", &b, &err), GPUEST_EPARSE);
    free(shortr);
    free(both);
    free(text);
    free(data);
    remove(path);
}

/* calibrate on runs the token form made (fermi, its four excitation machines, the token form at
 * alpha 1.2, eta 0.45, kappa 1.1) with a warp profile given: both forms are fitted, the token form
 * fits its own data and is kept, and the scoreboard fit is kept beside it with the profile and
 * parameters inside their bounds. Fails when the losing fit is dropped, when the kept token file
 * still carries the profile, or when the kept fields are those of the token fit. */
static void calibrate_keeps_the_scoreboard_fit(void **state)
{
    (void)state;
    static gpuest_calibration_t c, tok;
    srad_calibration(&c, 4, 0);
    tok = c;
    static const double none[4] = {0, 0, 0, 0};
    gpuest_calibration_set_profile(&tok, none);
    gpuest_gpu_params_t truth = {1.2, 0.45, 1.1};
    for (int i = 0; i < 4; i++)
        srad_model_run(&tok, i, &truth, &c.runs[i].ipc, &c.runs[i].amat);
    gpuest_error_t err;
    gpuest_config_t base;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    if (gpuest_study_fit_runs(&base, &c, &err) != GPUEST_OK)
        fail_msg("fit: %s", err.msg);
    assert_true(!(c.warp_profile[1] > 0)); /* the token form won */
    assert_int_equal(c.sb_kept, 1);
    assert_memory_equal(c.sb_profile, sb_prof, sizeof sb_prof);
    assert_true(c.sb_params.alpha != c.fit.params.alpha || c.sb_params.kappa != c.fit.params.kappa);
    assert_true(c.sb_params.eta >= gpuest_gpu_param_lo[1] && c.sb_params.eta <= gpuest_gpu_param_hi[1]);
    assert_true(c.sb_covar[0][0] >= 0 && c.sb_covar[1][1] >= 0 && c.sb_covar[2][2] >= 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compose_by_hand),
        cmocka_unit_test(rel_sd_by_hand),
        cmocka_unit_test(without_pool),
        cmocka_unit_test(pool_effect_is_the_scoreboard_ratio),
        cmocka_unit_test(file_record),
        cmocka_unit_test(calibrate_keeps_the_scoreboard_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
