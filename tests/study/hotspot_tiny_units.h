/* hotspot_tiny_units.h: one small sampled run whose units were recorded once (commit 2ce34a9:
 * `gpuest sample --preset fermi --workload hotspot --scale tiny --seed 3 --units 8 --unit-insts 200
 * --warm 200 --csv F`), for the tests that check an opt-in sampler option leaves the default
 * untouched (test_sample_tail_off.c, test_sample_walk.c). Include after <cmocka.h>. */
#ifndef GPUEST_TEST_HOTSPOT_TINY_UNITS_H
#define GPUEST_TEST_HOTSPOT_TINY_UNITS_H

#include "study/study.h"

#define HOTSPOT_TINY_UNITS 12
static const int k_kernel[HOTSPOT_TINY_UNITS] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
static const int k_census[HOTSPOT_TINY_UNITS] = {1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1};
static const uint64_t k_cycles[HOTSPOT_TINY_UNITS] = {29, 11, 42, 13, 32, 321, 7, 8, 22, 17, 20, 287};
static const uint64_t k_warp[HOTSPOT_TINY_UNITS] = {198, 188, 194, 194, 202, 202, 178, 194, 191, 204, 196, 201};
static const uint64_t k_thread[HOTSPOT_TINY_UNITS] = {6332, 6012, 5944, 4794, 3865, 3824,
                                                      5696, 6140, 5888, 4922, 4506, 4856};

/* The recorded run's options; the caller sets the option under test before hotspot_tiny_run. */
static inline void hotspot_tiny_opts(gpuest_sample_opts_t *o)
{
    gpuest_sample_opts_default(o);
    o->units = 8;
    o->unit_insts = 200;
    o->warm_cycles = 200;
    o->seed = 3;
}

static inline void hotspot_tiny_run(const gpuest_sample_opts_t *o, gpuest_study_sampled_t *s)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    if (gpuest_study_sample(&cfg, "hotspot", GPUEST_SCALE_TINY, 3, o, 0.997, 0.0, s, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
}

/* Every unit as recorded: kernel, census flag, cycles, warp and thread instructions. */
static inline void hotspot_tiny_assert_recorded(const gpuest_study_sampled_t *s)
{
    assert_int_equal(s->raw.num_units, HOTSPOT_TINY_UNITS);
    for (size_t i = 0; i < HOTSPOT_TINY_UNITS; i++) {
        const gpuest_sample_unit_t *u = &s->raw.units[i];
        assert_int_equal(u->kernel, k_kernel[i]);
        assert_int_equal(u->census, k_census[i]);
        assert_int_equal(u->cycles, k_cycles[i]);
        assert_int_equal(u->warp_insts, k_warp[i]);
        assert_int_equal(u->thread_insts, k_thread[i]);
    }
}

#endif
