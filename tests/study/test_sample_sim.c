/* test_sample_sim.c: sampled simulation on a tiny workload: every instruction is executed exactly
 * once (detailed + fast-forwarded = counted), units hold their instructions to within one cycle's
 * issue, and the run is deterministic. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "study/study.h"

static void run(const char *workload, gpuest_study_sampled_t *s)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_sample_opts_t o;
    gpuest_sample_opts_default(&o);
    o.units = 8;
    o.unit_insts = 200;
    o.warm_cycles = 200;
    gpuest_err rc = gpuest_study_sample(&cfg, workload, GPUEST_SCALE_TINY, 3, &o, 0.997, 0.0, s, &err);
    if (rc != GPUEST_OK)
        fail_msg("%s", err.msg);
}

static void conservation_and_determinism(void **state)
{
    (void)state;
    gpuest_study_sampled_t a, b;
    run("hotspot", &a);
    uint64_t total = 0;
    for (size_t k = 0; k < a.raw.num_kernels; k++)
        total += a.raw.kernel_warp_insts[k];
    printf("units %zu, detailed %llu + fast-forwarded %llu of %llu warp instructions\n", a.raw.num_units,
           (unsigned long long)a.raw.detailed_warp_insts, (unsigned long long)a.raw.ff_warp_insts,
           (unsigned long long)total);
    assert_true(a.raw.detailed_warp_insts + a.raw.ff_warp_insts == total);
    assert_true(a.raw.ff_warp_insts > 0); /* something was skipped */
    assert_true(a.raw.num_units >= 2);
    /* a unit runs from the cycle that issues its first instruction to the one that issues the
     * first after it: 200 instructions give or take less than one cycle's issue (15 SMs x 2) */
    for (size_t i = 0; i < a.raw.num_units; i++)
        assert_true(a.raw.units[i].warp_insts > 200 - 30 && a.raw.units[i].warp_insts < 200 + 30);
    run("hotspot", &b);
    assert_int_equal(a.raw.num_units, b.raw.num_units);
    assert_memory_equal(a.raw.units, b.raw.units, a.raw.num_units * sizeof *a.raw.units);
    assert_true(a.ipc.value == b.ipc.value);
    assert_true(a.ipc.lo <= a.ipc.value && a.ipc.value <= a.ipc.hi);
    gpuest_study_sampled_free(&a);
    gpuest_study_sampled_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(conservation_and_determinism)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
