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

#include "hotspot_tiny_units.h"

static void run(int tail, gpuest_study_sampled_t *s)
{
    gpuest_sample_opts_t o;
    hotspot_tiny_opts(&o);
    o.tail_stratum = tail;
    hotspot_tiny_run(&o, s);
}

static void default_units_unchanged(void **state)
{
    (void)state;
    gpuest_study_sampled_t s;
    run(0, &s);
    assert_null(s.raw.kernel_tail_warp_insts); /* the counting pass keeps no tail without the option */
    hotspot_tiny_assert_recorded(&s);
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
