/* test_sample_techniques.c: a sampled run applies the techniques a configuration names, as
 * 'gpuest simulate' does. The bug it catches: gpuest_study_sample running every unit without the
 * techniques' simulator hooks, so that a hooked technique (here the compressed L1) is silently
 * measured as the baseline; an oracle that only 'gpuest simulate' can run being accepted; and an
 * out-of-range tail stratum accepted silently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"

static gpuest_err sample_tail(const char *setting, int tail, gpuest_study_sampled_t *s, gpuest_error_t *err)
{
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", err), GPUEST_OK);
    if (setting)
        assert_int_equal(gpuest_config_set(&cfg, setting, "test", err), GPUEST_OK);
    gpuest_sample_opts_t o;
    gpuest_sample_opts_default(&o);
    o.units = 8;
    o.unit_insts = 200;
    o.warm_cycles = 200;
    o.tail_stratum = tail;
    return gpuest_study_sample(&cfg, "bfs", GPUEST_SCALE_TINY, 3, &o, 0.997, 0.0, s, err);
}

static gpuest_err sample_with(const char *setting, gpuest_study_sampled_t *s, gpuest_error_t *err)
{
    return sample_tail(setting, 0, s, err);
}

/* Static-BDI stores compressible lines compressed (decompression cycles on their hits, more lines
 * per set), so at least one unit's cycles differ from the plain L1D's; with the hooks missing every
 * unit would be equal, cycle for cycle. */
static void test_compressed_l1_changes_the_units(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_study_sampled_t plain, bdi;
    assert_int_equal(sample_with(NULL, &plain, &err), GPUEST_OK);
    assert_int_equal(sample_with("technique.l1_compression=static_bdi", &bdi, &err), GPUEST_OK);
    assert_int_equal(plain.raw.num_units, bdi.raw.num_units);
    size_t differ = 0;
    for (size_t i = 0; i < plain.raw.num_units; i++)
        differ += plain.raw.units[i].cycles != bdi.raw.units[i].cycles;
    assert_true(differ > 0);
    gpuest_study_sampled_free(&plain);
    gpuest_study_sampled_free(&bdi);
}

/* kernel_opt forks copies of the whole simulation per launch: a sampled run cannot, and must say so
 * before it runs anything. */
static void test_kernel_opt_refused(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_study_sampled_t s;
    gpuest_err rc = sample_with("technique.l1_compression=kernel_opt", &s, &err);
    assert_int_not_equal(rc, GPUEST_OK);
    assert_non_null(strstr(err.msg, "kernel_opt"));
    assert_int_equal(s.raw.num_units, 0);
}

/* An out-of-range tail stratum is an error naming the field, not a silent one-unit census. */
static void test_tail_stratum_out_of_range(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_study_sampled_t s;
    assert_int_equal(sample_tail(NULL, 3, &s, &err), GPUEST_EINVAL);
    assert_non_null(strstr(err.msg, "tail_stratum 3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compressed_l1_changes_the_units),
        cmocka_unit_test(test_kernel_opt_refused),
        cmocka_unit_test(test_tail_stratum_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
