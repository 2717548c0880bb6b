/* test_sample_tail_off.c: without the drain stratum (gpuest_sample_opts_t.tail_stratum = 0, the
 * default) a sampled run is the one before the option existed: every unit of a tiny hotspot run
 * (fermi, input seed 3, 8 units of 200 warp instructions, 200 cycles' warming, sample seed 3:
 * `--seed` sets both when no `--sample-seed` is given) has
 * the kernel, census flag, cycles and instructions that `gpuest sample` printed at commit 2ce34a9
 * (`gpuest sample --preset fermi --workload hotspot --scale tiny --seed 3 --units 8 --unit-insts
 * 200 --warm 200 --csv F`). With the option the tail census grows and the middles move. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "study/study.h"

static const int k_kernel[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
static const int k_census[] = {1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1};
static const uint64_t k_cycles[] = {29, 11, 42, 13, 32, 321, 7, 8, 22, 17, 20, 287};
static const uint64_t k_warp[] = {198, 188, 194, 194, 202, 202, 178, 194, 191, 204, 196, 201};
static const uint64_t k_thread[] = {6332, 6012, 5944, 4794, 3865, 3824, 5696, 6140, 5888, 4922, 4506, 4856};

static void run(int tail, gpuest_study_sampled_t *s)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_sample_opts_t o;
    gpuest_sample_opts_default(&o);
    o.units = 8;
    o.unit_insts = 200;
    o.warm_cycles = 200;
    o.seed = 3;
    o.tail_stratum = tail;
    gpuest_err rc = gpuest_study_sample(&cfg, "hotspot", GPUEST_SCALE_TINY, 3, &o, 0.997, 0.0, s, &err);
    if (rc != GPUEST_OK)
        fail_msg("%s", err.msg);
}

static void default_units_unchanged(void **state)
{
    (void)state;
    gpuest_study_sampled_t s;
    run(0, &s);
    assert_int_equal(s.raw.num_units, 12);
    assert_null(s.raw.kernel_tail_warp_insts); /* the counting pass keeps no tail without the option */
    for (size_t i = 0; i < 12; i++) {
        const gpuest_sample_unit_t *u = &s.raw.units[i];
        assert_int_equal(u->kernel, k_kernel[i]);
        assert_int_equal(u->census, k_census[i]);
        assert_int_equal(u->cycles, k_cycles[i]);
        assert_int_equal(u->warp_insts, k_warp[i]);
        assert_int_equal(u->thread_insts, k_thread[i]);
    }
    gpuest_study_sampled_free(&s);
}

/* With the option each kernel's last unit is its tail census, longer than one unit (hotspot's
 * last wave here is most of a tenth of the kernel), and instructions are still all accounted for. */
static void tail_census_longer(void **state)
{
    (void)state;
    gpuest_study_sampled_t s;
    run(1, &s);
    assert_non_null(s.raw.kernel_tail_warp_insts);
    uint64_t total = 0;
    for (size_t k = 0; k < s.raw.num_kernels; k++) {
        total += s.raw.kernel_warp_insts[k];
        const gpuest_sample_unit_t *last = NULL;
        for (size_t i = 0; i < s.raw.num_units; i++)
            if ((size_t)s.raw.units[i].kernel == k)
                last = &s.raw.units[i];
        assert_non_null(last);
        assert_true(last->census);
        assert_true(last->warp_insts > 200 + 30); /* more than one unit (give or take a cycle's issue) */
    }
    assert_true(s.raw.detailed_warp_insts + s.raw.ff_warp_insts == total);
    gpuest_study_sampled_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(default_units_unchanged), cmocka_unit_test(tail_census_longer)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
