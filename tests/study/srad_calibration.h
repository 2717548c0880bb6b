/* srad_calibration.h: the synthetic calibration the estimate tests share: fermi, srad-like measured
 * inputs (values of a v2 run), a warp profile, fixed fitted parameters. */
#ifndef SRAD_CALIBRATION_H
#define SRAD_CALIBRATION_H

#include <stdio.h>
#include <string.h>

#include "study/study.h"

/* The standard excitation set of the fermi calibration (baseline first). */
static const char *const excitation_sets[4] = {"", "noc.flit_bytes=16", "noc.flit_bytes=64", "l2.hit_latency=240"};
static const char *const excitation_labels[4] = {"baseline", "flit_x0.5", "flit_x2", "l2lat_x2"};

/* nruns (1..4) runs of the excitation set, IPC falling and AMAT rising 10 and 40 a run; anchored:
 * both figures estimated relative to the measured baseline. */
static inline void srad_calibration(gpuest_calibration_t *c, int nruns, int anchored)
{
    memset(c, 0, sizeof *c);
    snprintf(c->preset, sizeof c->preset, "fermi");
    snprintf(c->workload, sizeof c->workload, "srad");
    c->nruns = nruns;
    for (int i = 0; i < nruns; i++) {
        gpuest_study_run_t *r = &c->runs[i];
        snprintf(r->label, sizeof r->label, "%s", excitation_labels[i]);
        snprintf(r->sets, sizeof r->sets, "%s", excitation_sets[i]);
        r->ipc = 69.8 - 10 * i;
        r->amat = 320.0 + 40 * i;
        r->in = (gpuest_model_workload_t){2.68, 0.039, 0.054, 0.51, 0.81, 0.48, 0.37, 32.0, 0.89, 1.77,
                                          0.0, 0.0, 0.0, 0.0, 26.2, 329.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    }
    static const double prof[4] = {43.3, 8.44, 2.28, 36.8};
    gpuest_calibration_set_profile(c, prof);
    c->fit.params = (gpuest_gpu_params_t){1.5, 0.4, 1.2};
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        c->fit.covar[j][j] = 1e-3;
    c->cv_ipc = c->raw_cv_ipc = 0.05;
    c->cv_amat = c->raw_cv_amat = 0.08;
    c->util_lo = 0.1;
    c->util_hi = 1.0;
    c->anchor_ipc = c->anchor_amat = anchored;
}

/* Run i's IPC and AMAT as the model itself gives them at the parameters truth (fermi with run i's
 * excitation set applied, run i's measured inputs): the observations of a calibration generated
 * by the model. Needs cmocka included before this header. */
static inline void srad_model_run(const gpuest_calibration_t *c, int i, const gpuest_gpu_params_t *truth,
                                  double *ipc, double *amat)
{
    gpuest_error_t err;
    gpuest_config_t base, vc;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    gpuest_study_variant_t v;
    memset(&v, 0, sizeof v);
    if (i > 0) {
        v.nsets = 1;
        snprintf(v.sets[0], sizeof v.sets[0], "%s", excitation_sets[i]);
    }
    assert_int_equal(gpuest_study_apply(&base, &v, &vc, &err), GPUEST_OK);
    gpuest_gpu_model_t *m = NULL;
    assert_int_equal(gpuest_gpu_model_create(&vc, &m, &err), GPUEST_OK);
    gpuest_gpu_estimate_t e;
    assert_int_equal(gpuest_gpu_model_solve(m, &c->runs[i].in, NULL, truth, &e, &err), GPUEST_OK);
    gpuest_gpu_model_destroy(m);
    *ipc = e.ipc;
    *amat = e.amat;
}

#endif
