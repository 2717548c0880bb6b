/* test_fit.c: the calibration fit recovers known parameters from data the model generated. */
#include <math.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "model/model.h"

/* A workload whose issue stage matters at low load (short runs of instructions per request)
 * and whose network saturates at high load, so alpha, eta and kappa are all excited. */
static void workload(gpuest_model_workload_t *w)
{
    memset(w, 0, sizeof *w); /* no warp profile: the token model */
    w->insts_per_request = 24.0;
    w->hits_per_request = 1.0;
    w->l1_hit_rate = 0.5;
    w->l2_hit_rate = 0.6;
    w->dram_per_request = 0.45;
    w->row_hit_rate = 0.5;
    w->write_fraction = 0.2;
    w->threads_per_warp_inst = 30.0;
    w->avail_warps = 2.0;
    w->cycles_per_schedule = 3.0;
}

#define NPTS 5

/* The same workload with a warp profile and measured LD/ST blocking: the scoreboard model. */
static void workload_scoreboard(gpuest_model_workload_t *w)
{
    workload(w);
    w->resident_warps = 40.0;
    w->insts_per_epoch = 30.0;
    w->lines_per_epoch = 2.5;
    w->dep_per_epoch = 20.0;
    w->ldst_block_per_read = 5.0;
    w->block_miss_latency = 300.0;
}

static void build_with(gpuest_fit_point_t *pts, const gpuest_gpu_params_t *truth, int scoreboard)
{
    static const char *const sets[NPTS] = {NULL, "noc.flit_bytes=16", "noc.flit_bytes=8", "l2.hit_latency=240",
                                           "core.warps_per_sm=16"};
    for (int i = 0; i < NPTS; i++) {
        gpuest_config_t cfg;
        gpuest_error_t err;
        memset(&pts[i], 0, sizeof pts[i]); /* no kernel phases: the point's workload is the run */
        assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
        if (sets[i])
            assert_int_equal(gpuest_config_set(&cfg, sets[i], "test", &err), GPUEST_OK);
        assert_int_equal(gpuest_gpu_model_create(&cfg, &pts[i].model, &err), GPUEST_OK);
        if (scoreboard)
            workload_scoreboard(&pts[i].workload);
        else
            workload(&pts[i].workload);
        gpuest_model_transform_identity(&pts[i].transform);
        gpuest_gpu_estimate_t e;
        assert_int_equal(gpuest_gpu_model_solve(pts[i].model, &pts[i].workload, NULL, truth, &e, &err), GPUEST_OK);
        pts[i].ipc = e.ipc;
        pts[i].amat = e.amat;
        pts[i].ipc_cv = pts[i].amat_cv = 0.0;
    }
}

static void build(gpuest_fit_point_t *pts, const gpuest_gpu_params_t *truth) { build_with(pts, truth, 0); }

/* Fits the NPTS points from start; each parameter within 2 % of truth and the points within 1 % rms. */
static void fit_within_2_percent(gpuest_fit_point_t *pts, const gpuest_gpu_params_t *start,
                                 const gpuest_gpu_params_t *truth, gpuest_fit_result_t *f)
{
    gpuest_error_t err;
    assert_int_equal(gpuest_gpu_fit_from(pts, NPTS, start, f, &err), GPUEST_OK);
    printf("fit: alpha %.5f eta %.5f kappa %.5f rms %.2e\n", f->params.alpha, f->params.eta, f->params.kappa,
           f->rms_rel_error);
    assert_true(fabs(f->params.alpha / truth->alpha - 1) < 0.02);
    assert_true(fabs(f->params.eta / truth->eta - 1) < 0.02);
    assert_true(fabs(f->params.kappa / truth->kappa - 1) < 0.02);
    assert_true(f->rms_rel_error < 0.01);
}

/* The scoreboard model (warps as customers, LD/ST station, MSHR cap): the fit recovers alpha
 * (epochs per memory wait), eta and kappa from data it generated; a model that is not smooth in
 * its parameters (a feedback that settles differently for nearby parameters) fails it. */
static void recovers_parameters_scoreboard(void **state)
{
    (void)state;
    gpuest_gpu_params_t truth = {.alpha = 1.5, .eta = 0.6, .kappa = 1.4};
    gpuest_fit_point_t pts[NPTS];
    build_with(pts, &truth, 1);
    gpuest_fit_result_t f;
    gpuest_gpu_params_t start = {.alpha = 1.0, .eta = 0.5, .kappa = 1.0};
    fit_within_2_percent(pts, &start, &truth, &f);
    for (int i = 0; i < NPTS; i++)
        gpuest_gpu_model_destroy(pts[i].model);
}

static void recovers_parameters(void **state)
{
    (void)state;
    gpuest_gpu_params_t truth = {.alpha = 0.3, .eta = 0.7, .kappa = 1.4};
    gpuest_fit_point_t pts[NPTS];
    build(pts, &truth);
    gpuest_fit_result_t f;
    gpuest_gpu_params_t start;
    gpuest_gpu_params_default(&start); /* (0.5, 0.5, 1.0): every parameter starts well away */
    /* the weak prior pulls towards the defaults (0.5, 0.5, 1.0) by much less than 2 % */
    fit_within_2_percent(pts, &start, &truth, &f);
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        assert_true(f.covar[j][j] > 0);
    for (int i = 0; i < NPTS; i++)
        gpuest_gpu_model_destroy(pts[i].model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(recovers_parameters), cmocka_unit_test(recovers_parameters_scoreboard)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
