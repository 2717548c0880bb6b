/* test_phases_group.c: launches grouped into kernel phases, worked by hand (study/phases.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"

/* A launch: warp instructions, read requests, L1 accesses and hits, and its walk (active warps). */
static void launch(gpuest_sim_stats_t *k, gpuest_study_launch_profile_t *p, const char *name, uint64_t insts,
                   uint64_t reads, double active)
{
    memset(k, 0, sizeof *k);
    memset(p, 0, sizeof *p);
    snprintf(k->kernel, sizeof k->kernel, "%s", name);
    snprintf(p->name, sizeof p->name, "%s", name);
    k->cycles = 1000;
    k->warp_instructions = insts;
    k->thread_instructions = insts * 32;
    k->read_requests = reads;
    k->l1_accesses = 2 * reads;
    k->l1_hits = reads;
    p->insts = (double)insts;
    p->epochs = (double)insts / 10.0;
    p->lines = (double)insts / 5.0;
    p->resident = 48;
    p->active = active;
}

/* A launch that sends no request joins the launch before it: its instructions add to that phase
 * (1000 + 500 warp instructions over 100 requests: 15 a request) and the phase's warps with work are
 * the time-weighted mean (1500 / (1000 / 2 + 500 / 10) = 2.727); the other kernel stays its own
 * phase. Fails when a request-less launch is kept (the model cannot solve it), when counters are not
 * summed, or when active warps are averaged by instructions (2 x 2/3 + 10 / 3 = 4.67). */
static void requestless_launch_joins(void **state)
{
    (void)state;
    gpuest_sim_stats_t k[3];
    gpuest_study_launch_profile_t p[3];
    launch(&k[0], &p[0], "k1", 1000, 100, 2.0);
    launch(&k[1], &p[1], "k1", 500, 0, 10.0);
    launch(&k[2], &p[2], "k2", 800, 400, 48.0);
    static gpuest_calibration_t c;
    memset(&c, 0, sizeof c);
    gpuest_error_t err;
    assert_int_equal(gpuest_study_group_phases(k, p, 3, &c, &err), GPUEST_OK);
    assert_int_equal(c.nphases, 2);
    assert_string_equal(c.phase_names[0], "k1");
    assert_true(c.phases[0].warp_insts == 1500 && c.phases[0].reads == 100 && c.phases[0].line_reqs == 200);
    assert_true(fabs(c.phases[0].w.insts_per_request - 15.0) < 1e-12);
    assert_true(fabs(c.phases[0].w.active_warps - 1500.0 / 550.0) < 1e-12);
    assert_true(fabs(c.phases[0].w.insts_per_epoch - 10.0) < 1e-12 && c.phases[0].w.resident_warps == 48);
    assert_true(c.phases[1].warp_insts == 800 && fabs(c.phases[1].w.insts_per_request - 2.0) < 1e-12);
    /* a name mismatch between the run and the walk is refused */
    snprintf(p[2].name, sizeof p[2].name, "other");
    assert_int_equal(gpuest_study_group_phases(k, p, 3, &c, &err), GPUEST_EINVAL);
}

/* Six launches of one kernel, alike but for their warps with work (1, 1.1, 8, 8.5, 40, 41): down to
 * GPUEST_STUDY_PHASES = 4 the closest pairs merge first, 40 with 41 (|ln 41/40| = 0.025), then 8 with
 * 8.5 (0.061), and 1 and 1.1 (0.095) stay apart. Fails on a merge of the wrong pair or a wrong count. */
static void closest_launches_merge(void **state)
{
    (void)state;
    static const double act[6] = {1.0, 1.1, 8.0, 8.5, 40.0, 41.0};
    gpuest_sim_stats_t k[6];
    gpuest_study_launch_profile_t p[6];
    for (int i = 0; i < 6; i++)
        launch(&k[i], &p[i], "k", 1000 + 100 * (uint64_t)i, 100 + 10 * (uint64_t)i, act[i]);
    static gpuest_calibration_t c;
    memset(&c, 0, sizeof c);
    gpuest_error_t err;
    assert_int_equal(GPUEST_STUDY_PHASES, 4);
    assert_int_equal(gpuest_study_group_phases(k, p, 6, &c, &err), GPUEST_OK);
    assert_int_equal(c.nphases, 4);
    assert_true(c.phases[0].warp_insts == 1000 && c.phases[1].warp_insts == 1100);
    assert_true(c.phases[2].warp_insts == 1200 + 1300 && c.phases[3].warp_insts == 1400 + 1500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(requestless_launch_joins),
                                       cmocka_unit_test(closest_launches_merge)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
