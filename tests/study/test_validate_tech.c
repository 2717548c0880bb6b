/* test_validate_tech.c: validation of a technique point estimates it under the technique's
 * transform and simulates it with the technique's hooks (tiny hotspot on fermi). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"

/* |a - b| <= tol (this cmocka has assert_float_equal only for floats). */
#define assert_close(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

#define CAL GPUEST_SOURCE_DIR "/models/calibrations/fermi-hotspot-tiny.cal"

static gpuest_calibration_t cal;

static void load(gpuest_config_t *cfg)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    assert_int_equal(gpuest_calibration_read(CAL, &cal, &err), GPUEST_OK);
    assert_int_equal(gpuest_config_preset(cfg, "fermi", &err), GPUEST_OK);
}

/* Fails when validate estimates the point without the transform (the estimate then equals the
 * baseline's and is flagged "no transform given") or simulates it without the hooks (the
 * detailed run then equals the baseline's, bit for bit: the simulator is deterministic). */
static void technique_point_uses_transform_and_hooks(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    load(&cfg);
    gpuest_error_t err;
    gpuest_error_clear(&err);
    const char *const values[] = {"bdi"};
    gpuest_study_validation_point_t p;
    int n = 0;
    assert_int_equal(gpuest_study_validate_techniques(&cal, &cfg, values, 1, NULL, 0.95, NULL, 0, NULL, &p, &n, &err),
                     GPUEST_OK);
    assert_int_equal(n, 1);
    assert_true(p.technique);
    assert_string_equal(p.variant.label, "compression_bdi");
    assert_int_equal(p.est.extrapolated, 0);
    assert_null(strstr(p.est.why, "no transform"));

    /* The baseline, estimated and run here on its own. */
    gpuest_study_estimate_t base_est;
    assert_int_equal(gpuest_study_estimate(&cal, &cfg, NULL, 0.95, &base_est, &err), GPUEST_OK);
    gpuest_study_run_t base_sim;
    assert_int_equal(gpuest_study_run_detailed(&cfg, cal.workload, cal.scale, cal.seed, &base_sim, &err), GPUEST_OK);
    assert_true(p.est.ipc.v != base_est.ipc.v);    /* the transform changed the estimate */
    assert_true(p.truth.ipc != base_sim.ipc);      /* the hooks changed the simulation */
    assert_close(p.effect_est, (p.est.ipc.v - base_est.ipc.v) / base_est.ipc.v, 1e-12);
    assert_close(p.effect_sim, (p.truth.ipc - base_sim.ipc) / base_sim.ipc, 1e-12);
    int se = (p.effect_est > 0) - (p.effect_est < 0), ss = (p.effect_sim > 0) - (p.effect_sim < 0);
    assert_int_equal(p.sign_agree, se == ss);

    /* The same transform 'estimate' builds gives the same estimate. */
    gpuest_config_t vc = cfg;
    assert_int_equal(gpuest_config_set(&vc, "technique.compression=bdi", "test", &err), GPUEST_OK);
    gpuest_model_transform_t tr;
    const gpuest_model_transform_t *use = NULL;
    assert_int_equal(
        gpuest_study_technique_transform(&vc, cal.workload, cal.scale, cal.seed, NULL, &tr, &use, &err), GPUEST_OK);
    assert_non_null(use);
    gpuest_study_estimate_t direct;
    assert_int_equal(gpuest_study_estimate(&cal, &vc, use, 0.95, &direct, &err), GPUEST_OK);
    assert_true(p.est.ipc.v == direct.ipc.v);
    assert_true(p.est.amat.v == direct.amat.v);
}

/* A machine with a technique already on has no baseline to compare against. */
static void technique_on_baseline_rejected(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    load(&cfg);
    gpuest_error_t err;
    gpuest_error_clear(&err);
    assert_int_equal(gpuest_config_set(&cfg, "technique.compression=dsm", "test", &err), GPUEST_OK);
    const char *const values[] = {"bdi"};
    gpuest_study_validation_point_t p;
    int n = 0;
    assert_int_equal(gpuest_study_validate_techniques(&cal, &cfg, values, 1, NULL, 0.95, NULL, 0, NULL, &p, &n, &err),
                     GPUEST_EINVAL);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(technique_point_uses_transform_and_hooks),
                                       cmocka_unit_test(technique_on_baseline_rejected)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
