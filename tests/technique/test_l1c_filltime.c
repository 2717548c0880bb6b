/* test_l1c_filltime.c: the compressed-L1 walk's fills timed by a miss latency in the SM's reads
 * (l1c_filltime.c), alone and holding a reservation of the walk's L1 (tech_l1cm_reserve). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"
#include "technique/technique_int.h"

static tech_filltime_t *make(int sms, uint64_t delay)
{
    tech_filltime_t *t = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_filltime_create(sms, delay, &t, &e), GPUEST_OK);
    assert_int_equal(tech_filltime_delay(t), delay);
    return t;
}

static void note(tech_filltime_t *t, int sm, uint64_t line, uint64_t seq)
{
    gpuest_error_t e = {0};
    tech_fill_t f = {.line = line, .sm = sm, .which = 3, .seq = seq};
    assert_int_equal(tech_filltime_note(t, 0, (uint32_t)seq, f, &e), GPUEST_OK);
}

/* Delay 3: a miss at SM 0's read 1 is held through its reads 2, 3 and 4 and lands before read 5;
 * a second miss at read 2 lands before read 6, after the first (miss order). SM 1's reads do not
 * move SM 0's clock. Fails on an off-by-one either way (landing before read 4 or 6), on a clock
 * shared by the SMs (SM 1's 10 reads would land both at once), or on dues out of order. */
static void test_due_after_delay_reads(void **state)
{
    (void)state;
    tech_filltime_t *t = make(2, 3);
    tech_ftime_t d;
    tech_filltime_read(t, 0); /* read 1: misses */
    note(t, 0, 128u, 1);
    tech_filltime_read(t, 0); /* read 2: misses too */
    note(t, 0, 256u, 2);
    for (int i = 0; i < 10; i++)
        tech_filltime_read(t, 1);
    assert_false(tech_filltime_pop(t, 0, &d));
    for (int r = 3; r <= 4; r++) {
        tech_filltime_read(t, 0);
        assert_false(tech_filltime_pop(t, 0, &d));
    }
    tech_filltime_read(t, 0); /* read 5 */
    assert_true(tech_filltime_pop(t, 0, &d));
    assert_int_equal(d.fill.line, 128u);
    assert_int_equal(d.fill.seq, 1);
    assert_int_equal(d.due, 4);
    assert_false(tech_filltime_pop(t, 0, &d));
    tech_filltime_read(t, 0); /* read 6 */
    assert_true(tech_filltime_pop(t, 0, &d));
    assert_int_equal(d.fill.line, 256u);
    assert_false(tech_filltime_pop(t, 0, &d));
    assert_false(tech_filltime_pop(t, 1, &d));
    tech_filltime_destroy(t);
}

/* Delay 0 (miss latency not known, or the timing off): nothing is ever due, so the fills wait for
 * their warp's turn as before. Fails when 0 is read as "at once" (due at the next read). */
static void test_zero_delay_never_due(void **state)
{
    (void)state;
    tech_filltime_t *t = make(1, 0);
    tech_ftime_t d;
    tech_filltime_read(t, 0);
    note(t, 0, 128u, 1);
    for (int i = 0; i < 1000; i++) {
        tech_filltime_read(t, 0);
        assert_false(tech_filltime_pop(t, 0, &d));
    }
    tech_filltime_destroy(t);
}

/* More misses in flight than the ring's first size (64): all land in order, each after exactly
 * `delay` = 100 later reads of its SM (miss i at read i lands before read i + 101); a launch's
 * clear drops those still in flight. Fails when the ring loses or
 * reorders entries on growing, or when a clear leaves fills of the last launch behind. */
static void test_many_in_flight_and_clear(void **state)
{
    (void)state;
    tech_filltime_t *t = make(1, 100);
    tech_ftime_t d;
    for (uint64_t i = 1; i <= 100; i++) {
        tech_filltime_read(t, 0);
        note(t, 0, i * 128u, i);
    }
    tech_filltime_read(t, 0); /* read 101: miss 1 (read 1) is held through reads 2 .. 101 */
    assert_false(tech_filltime_pop(t, 0, &d));
    for (uint64_t i = 1; i <= 100; i++) {
        tech_filltime_read(t, 0); /* read 101 + i: miss i lands */
        assert_true(tech_filltime_pop(t, 0, &d));
        assert_int_equal(d.fill.seq, i);
        assert_false(tech_filltime_pop(t, 0, &d));
    }
    tech_filltime_read(t, 0);
    note(t, 0, 128u, 101);
    tech_filltime_clear(t);
    for (int i = 0; i < 200; i++) {
        tech_filltime_read(t, 0);
        assert_false(tech_filltime_pop(t, 0, &d));
    }
    tech_filltime_destroy(t);
}

/* The reservation held for the miss latency, in one set of one raw way (4 tags, 4 sub-blocks):
 * A, B, C at 32 B (one sub-block each), D misses at read 1 with delay 2 and reserves a raw line's
 * room, so the LRU A goes. Reads 2 and 3 (hits on B and C) find D still in flight: not held, and
 * A not back (the room stays reserved). Read 4 lands D at 32 B beside B and C. Fails when the fill lands a read early (D held at read 3) or the
 * reservation is let go before its fill (A kept). */
static void test_reservation_held_for_delay(void **state)
{
    (void)state;
    tech_l1cm_cache_t *c = NULL;
    gpuest_error_t e = {0};
    tech_filltime_t *t = make(1, 2);
    tech_ftime_t d;
    int h;
    assert_int_equal(tech_l1cm_create(1, 1, 1, &c, &e), GPUEST_OK);
    for (uint64_t a = 0; a < 3; a++)
        assert_int_equal(tech_l1cm_access(c, 0, a * 128u, 32, &h), 0);
    tech_filltime_read(t, 0); /* read 1: D misses */
    tech_l1cm_reserve(c, 0, 3 * 128u);
    note(t, 0, 3 * 128u, 1);
    for (uint64_t a = 1; a <= 2; a++) { /* reads 2 and 3: hits on B and C */
        tech_filltime_read(t, 0);
        assert_false(tech_filltime_pop(t, 0, &d));
        assert_int_equal(tech_l1cm_access(c, 0, a * 128u, 32, &h), 1);
        assert_false(tech_l1cm_holds(c, 0, 3 * 128u));
        assert_false(tech_l1cm_holds(c, 0, 0));
    }
    tech_filltime_read(t, 0); /* read 4: D's fill lands first */
    assert_true(tech_filltime_pop(t, 0, &d));
    assert_int_equal(d.fill.line, 3 * 128u);
    tech_l1cm_access(c, 0, d.fill.line, 32, &h);
    assert_true(tech_l1cm_holds(c, 0, 3 * 128u));
    assert_true(tech_l1cm_holds(c, 0, 128u) && tech_l1cm_holds(c, 0, 256u));
    assert_false(tech_l1cm_holds(c, 0, 0));
    tech_l1cm_destroy(c);
    tech_filltime_destroy(t);
}

/* The walk's delay from a calibration by hand: IPC 320 thread instructions, 32 lanes, 2 warp
 * instructions a request, a quarter of them writes: 320 / 32 / 2 x 0.75 = 3.75 read misses a
 * cycle; at an L1 hit rate of 0.5 that is 7.5 L1 reads a cycle, over 15 SMs 0.5 a cycle per SM;
 * the read miss latency 300 cycles: 150 reads. Fails when the hit rate is left out (75), the SMs
 * are not divided out (2250), or the AMAT (400: 200) stands in for the miss latency. Not known
 * (no run, no miss latency, a hit rate of 1): 0. */
static void test_reads_per_miss_latency_by_hand(void **state)
{
    (void)state;
    static gpuest_calibration_t cal;
    memset(&cal, 0, sizeof cal);
    assert_float_equal(gpuest_study_l1_reads_per_miss_latency(&cal, 15), 0.0, 0.0);
    cal.nruns = 1;
    cal.runs[0].ipc = 320.0;
    cal.runs[0].amat = 400.0;
    cal.runs[0].in.threads_per_warp_inst = 32.0;
    cal.runs[0].in.insts_per_request = 2.0;
    cal.runs[0].in.write_fraction = 0.25;
    cal.runs[0].in.l1_hit_rate = 0.5;
    assert_float_equal(gpuest_study_l1_reads_per_miss_latency(&cal, 15), 0.0, 0.0);
    cal.runs[0].in.block_miss_latency = 300.0;
    assert_float_equal(gpuest_study_l1_reads_per_miss_latency(&cal, 15), 150.0, 1e-9);
    cal.runs[0].in.l1_hit_rate = 1.0;
    assert_float_equal(gpuest_study_l1_reads_per_miss_latency(&cal, 15), 0.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_due_after_delay_reads),
        cmocka_unit_test(test_zero_delay_never_due),
        cmocka_unit_test(test_many_in_flight_and_clear),
        cmocka_unit_test(test_reservation_held_for_delay),
        cmocka_unit_test(test_reads_per_miss_latency_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
