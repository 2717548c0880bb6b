/* test_sim_locality.c: the timed inter-core locality table against hand-counted access sequences. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim/sim_int.h"

static void test_window(void **st)
{
    (void)st;
    sim_loc_t l;
    gpuest_error_t e;
    assert_int_equal(sim_loc_init(&l, 100, &e), GPUEST_OK);
    /* line A: SM 0 at 0 and SM 1 at 50 share an entry (2 accesses with inter-core locality);
     * SM 0 at 100 opens a new entry (the first expired at 0 + 100), alone. Line B: SM 2 twice,
     * one SM only: no inter-core locality. */
    const struct { uint64_t line; int sm; sim_time_t t; } seq[] = {
        {0x1000, 0, 0}, {0x2000, 2, 10}, {0x2000, 2, 20}, {0x1000, 1, 50}, {0x1000, 0, 100}};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        sim_loc_expire(&l, seq[i].t);
        assert_int_equal(sim_loc_access(&l, seq[i].line, seq[i].sm, seq[i].t), 0);
    }
    assert_int_equal(l.shared, 2); /* the first A entry expired at t = 100 */
    assert_int_equal(l.len, 2);    /* B (until 110) and the second A */
    sim_loc_access(&l, 0x1000, 3, 150);
    sim_loc_flush(&l);
    assert_int_equal(l.shared, 4);
    assert_int_equal(l.len, 0);
    sim_loc_free(&l);
}

static void test_growth(void **st)
{
    (void)st;
    sim_loc_t l;
    gpuest_error_t e;
    assert_int_equal(sim_loc_init(&l, 1000000, &e), GPUEST_OK);
    /* 5000 lines, each read by SM 0 then SM 1: the table grows past its first size and keeps chains */
    for (int round = 0; round < 2; round++)
        for (uint64_t i = 0; i < 5000; i++)
            assert_int_equal(sim_loc_access(&l, i * 128, round, (sim_time_t)(round * 5000 + (int)i)), 0);
    assert_int_equal(l.len, 5000);
    sim_loc_flush(&l);
    assert_int_equal(l.shared, 10000);
    sim_loc_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_window), cmocka_unit_test(test_growth)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
