/* test_estimate_reuse.c: a model that already answered another point (a batch's kept model, or the
 * anchor's model a single estimate reuses) answers bit for bit as a fresh one, also where the point's
 * technique transform needs another open NoC model (reply length, write share). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "study/study.h"
#include "srad_calibration.h"

/* A fermi calibration with srad-like measured inputs (values of a v2 run: write share 0.37) and a
 * warp profile; anchored: the four runs of the standard excitation set and both figures anchored. */
static void calibration(gpuest_calibration_t *c, int anchored) { srad_calibration(c, anchored ? 4 : 1, anchored); }

/* Transforms whose open NoC model differs from the plain machine's: compressed replies (3 flits
 * instead of 5: another reply length), and a compressed L1 that removes read misses (l1_miss_scale:
 * another write share; 0.6 moves it from 0.37 to 0.49, 0.997 by 7e-4, under the 1e-3 inside which
 * one estimate keeps its open model). */
static void transforms(gpuest_model_transform_t t[3])
{
    for (int i = 0; i < 3; i++)
        gpuest_model_transform_identity(&t[i]);
    t[0].reply_flit_hist[3] = 1.0;
    t[1].l1_miss_scale = 0.6;
    t[2].l1_miss_scale = 0.997;
}

static void assert_same(const gpuest_study_estimate_t *a, const gpuest_study_estimate_t *b)
{
    assert_memory_equal(&a->ipc, &b->ipc, sizeof a->ipc); /* bit for bit, interval included */
    assert_memory_equal(&a->amat, &b->amat, sizeof a->amat);
    assert_memory_equal(&a->req, &b->req, sizeof a->req);
    assert_memory_equal(&a->link_util, &b->link_util, sizeof a->link_util);
}

/* Technique points in a batch after plain points of the same network (and plain points after them)
 * equal their single estimates. Fails when a kept model keeps an open NoC model built for another
 * reply length or write share, or starts the saturation search of its new one from the last
 * point's scale (the roots then differ in the last digits). */
static void technique_points_in_a_batch(void **state)
{
    (void)state;
    static gpuest_calibration_t c;
    calibration(&c, 0);
    gpuest_error_t err;
    gpuest_config_t base;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    gpuest_model_transform_t t[3];
    transforms(t);
    gpuest_config_t pts[6] = {base, base, base, base, base, base};
    const gpuest_model_transform_t *use[6] = {NULL, &t[0], NULL, &t[2], &t[1], &t[0]};
    pts[2].l2.hit_latency = 240;
    pts[5].l2.hit_latency = 60;
    gpuest_study_batch_t *b = NULL;
    assert_int_equal(gpuest_study_batch_create(&b, &err), GPUEST_OK);
    double ipc[6];
    for (int i = 0; i < 6; i++) {
        gpuest_study_estimate_t eb, es;
        assert_int_equal(gpuest_study_estimate_in(b, &c, &pts[i], use[i], 0.95, &eb, &err), GPUEST_OK);
        assert_int_equal(gpuest_study_estimate(&c, &pts[i], use[i], 0.95, &es, &err), GPUEST_OK);
        assert_same(&eb, &es);
        ipc[i] = es.ipc.v;
    }
    gpuest_study_batch_destroy(b);
    /* the transforms act (a batch that ignored them would still pass the equalities above only if
     * the single estimate ignored them too) */
    assert_true(ipc[1] != ipc[0] && ipc[3] != ipc[0] && ipc[4] != ipc[0]);
}

/* An anchored estimate, whose point reuses the model the anchor was solved on, equals the anchored
 * ratio computed on two fresh models (point and calibrated machine); in a batch too. Fails when the
 * point's solve on the anchor's model differs from a fresh model's (a kept open NoC model, curve or
 * saturation scale of the wrong inputs). */
static void anchored_point_on_the_anchors_model(void **state)
{
    (void)state;
    static gpuest_calibration_t c;
    calibration(&c, 1);
    gpuest_error_t err;
    gpuest_config_t base;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    gpuest_model_transform_t t[3];
    transforms(t);
    gpuest_config_t pt = base;
    pt.l2.hit_latency = 180;
    gpuest_model_phase_t ph[GPUEST_MODEL_MAX_PHASES];
    int nph = gpuest_calibration_model_phases(&c, ph);
    /* the anchored ratio from fresh models */
    gpuest_gpu_estimate_t at, raw[2];
    gpuest_gpu_model_t *m = NULL;
    assert_int_equal(gpuest_gpu_model_create(&base, &m, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve_phases(m, &c.runs[0].in, ph, nph, NULL, &c.fit.params, &at, &err),
                     GPUEST_OK);
    gpuest_gpu_model_destroy(m);
    const gpuest_model_transform_t *use[2] = {&t[0], NULL};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(gpuest_gpu_model_create(&pt, &m, &err), GPUEST_OK);
        assert_int_equal(gpuest_gpu_model_solve_phases(m, &c.runs[0].in, ph, nph, use[i], &c.fit.params, &raw[i], &err),
                         GPUEST_OK);
        gpuest_gpu_model_destroy(m);
    }
    gpuest_study_batch_t *b = NULL;
    assert_int_equal(gpuest_study_batch_create(&b, &err), GPUEST_OK);
    for (int i = 0; i < 2; i++) {
        double want_ipc = raw[i].ipc * (c.runs[0].ipc / at.ipc), want_amat = raw[i].amat * (c.runs[0].amat / at.amat);
        gpuest_study_estimate_t es, eb;
        assert_int_equal(gpuest_study_estimate(&c, &pt, use[i], 0.95, &es, &err), GPUEST_OK);
        assert_int_equal(gpuest_study_estimate_in(b, &c, &pt, use[i], 0.95, &eb, &err), GPUEST_OK);
        assert_memory_equal(&es.ipc.v, &want_ipc, sizeof want_ipc);
        assert_memory_equal(&es.amat.v, &want_amat, sizeof want_amat);
        assert_same(&eb, &es);
    }
    gpuest_study_batch_destroy(b);
    assert_true(raw[0].ipc != raw[1].ipc);
}

/* One batch used with two calibrations of other kappas (a kept model holds the first one's
 * saturation scales and curves) equals the single estimates. Fails when the batch keeps the first
 * calibration's models: the second kappa's saturation search then starts from the first one's
 * scale. */
static void a_batch_across_calibrations(void **state)
{
    (void)state;
    static gpuest_calibration_t c[2];
    calibration(&c[0], 0);
    calibration(&c[1], 0);
    c[1].fit.params.kappa = 2.5;
    gpuest_error_t err;
    gpuest_config_t base;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    gpuest_study_batch_t *b = NULL;
    assert_int_equal(gpuest_study_batch_create(&b, &err), GPUEST_OK);
    double ipc[3];
    for (int i = 0; i < 3; i++) {
        gpuest_study_estimate_t eb, es;
        assert_int_equal(gpuest_study_estimate_in(b, &c[i % 2], &base, NULL, 0.95, &eb, &err), GPUEST_OK);
        assert_int_equal(gpuest_study_estimate(&c[i % 2], &base, NULL, 0.95, &es, &err), GPUEST_OK);
        assert_same(&eb, &es);
        ipc[i] = es.ipc.v;
    }
    gpuest_study_batch_destroy(b);
    assert_true(ipc[1] != ipc[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(technique_points_in_a_batch),
                                       cmocka_unit_test(anchored_point_on_the_anchors_model),
                                       cmocka_unit_test(a_batch_across_calibrations)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
