/* test_sim_locality.c: the timed inter-core locality table against hand-counted access sequences. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim/sim_int.h"

static void run_seq(sim_loc_t *l, const uint64_t *line, const int *sm, const sim_time_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_loc_expire(l, t[i]);
        assert_int_equal(sim_loc_access(l, line[i], sm[i], t[i]), 0);
    }
}

static void test_window(void **st)
{
    (void)st;
    sim_loc_t l;
    gpuest_error_t e;
    assert_int_equal(sim_loc_init(&l, 100, &e), GPUEST_OK);
    /* line A: SM 0 at 0 opens the entry (first access: not counted); SM 1 at 50
     * reads a line SM 0 requested inside the window: counted. SM 0 at 100: the
     * entry expired at 0 + 100, a new one opens, not counted. Line B: SM 2 twice,
     * the same SM only: not counted. */
    const uint64_t line[] = {0x1000, 0x2000, 0x2000, 0x1000, 0x1000};
    const int sm[] = {0, 2, 2, 1, 0};
    const sim_time_t t[] = {0, 10, 20, 50, 100};
    run_seq(&l, line, sm, t, 5);
    assert_int_equal(l.shared, 1);
    assert_int_equal(l.len, 2); /* B (until 110) and the second A */
    sim_loc_access(&l, 0x1000, 3, 150); /* SM 0 read A at 100, inside this window */
    assert_int_equal(l.shared, 2);
    sim_loc_flush(&l);
    assert_int_equal(l.shared, 2); /* expiry adds nothing */
    assert_int_equal(l.len, 0);
    sim_loc_free(&l);
}

/* A requester reading again after another SM counts; repeats by the opener alone do not. */
static void test_other_sm_only(void **st)
{
    (void)st;
    sim_loc_t l;
    gpuest_error_t e;
    assert_int_equal(sim_loc_init(&l, 1000, &e), GPUEST_OK);
    const uint64_t line[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
    const int sm[] = {4, 4, 4, 7, 4, 7};
    const sim_time_t t[] = {0, 1, 2, 3, 4, 5};
    run_seq(&l, line, sm, t, 6);
    /* 0..2: SM 4 alone (0); 3: SM 7 after SM 4 (1); 4: SM 4 after SM 7 (2); 5: SM 7 after SM 4 (3) */
    assert_int_equal(l.shared, 3);
    sim_loc_free(&l);
}

static void test_growth(void **st)
{
    (void)st;
    sim_loc_t l;
    gpuest_error_t e;
    assert_int_equal(sim_loc_init(&l, 1000000, &e), GPUEST_OK);
    /* 5000 lines, each read by SM 0 then SM 1: the table grows past its first size and keeps chains;
     * only SM 1's reads count */
    for (int round = 0; round < 2; round++)
        for (uint64_t i = 0; i < 5000; i++)
            assert_int_equal(sim_loc_access(&l, i * 128, round, (sim_time_t)(round * 5000 + (int)i)), 0);
    assert_int_equal(l.len, 5000);
    assert_int_equal(l.shared, 5000);
    sim_loc_flush(&l);
    assert_int_equal(l.shared, 5000);
    sim_loc_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_window), cmocka_unit_test(test_other_sm_only),
                                       cmocka_unit_test(test_growth)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
