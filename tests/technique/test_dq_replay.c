/* test_dq_replay.c: the decompression queue of eq. 3 replayed on the walk's order
 * (src/technique/dq_replay.c), on sequences worked by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "technique/technique_int.h"

static void close_abs(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-12))
        fail_msg("%s: %.12g, expected %.12g", what, got, want);
}

/* One SM, lat 2. Instruction A: compressed hit, compressed hit, a read that is not one; instruction
 * B: a compressed hit. A's lines come one a cycle from A's start (0): t = 0 waits 2 (done 2), t = 1
 * finds it (done 2 > 1): 2 x 2 = 4 (done 5). B starts after A's 3 read lines: at spacing 1 at t = 3,
 * where the first has left and the second not (5 > 3): 4; at spacing 2 at t = 6, both have left: 2.
 * Mean per compressed hit: (2 + 4 + 4) / 3 at spacing 1, (2 + 4 + 2) / 3 at 2 and beyond. Fails on
 * eq. 3 off by one, finished lines not leaving, an instruction's lines not one a cycle, a read that
 * is no compressed hit not advancing the SM's clock, or spacings not 2^j. */
static void test_replay_by_hand(void **state)
{
    (void)state;
    tech_dq_replay_t *r = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_dq_replay_create(1, 2, &r, &e), GPUEST_OK);
    tech_dq_replay_inst(r, 0);
    tech_dq_replay_read(r, 0, 1);
    tech_dq_replay_read(r, 0, 1);
    tech_dq_replay_read(r, 0, 0);
    tech_dq_replay_inst(r, 0);
    tech_dq_replay_read(r, 0, 1);
    double w[GPUEST_MODEL_DQ_SPACINGS];
    tech_dq_replay_waits(r, w);
    close_abs(w[0], 10.0 / 3.0, "spacing 1");
    for (int j = 1; j < GPUEST_MODEL_DQ_SPACINGS; j++)
        close_abs(w[j], 8.0 / 3.0, "spacing 2 and beyond");
    tech_dq_replay_destroy(r);
}

/* Two SMs keep their own queues and clocks; a launch boundary empties the queues. SM 0 and SM 1
 * each make one instruction of two compressed hits (lat 14): 14 and 28 on each. Then, after a
 * flush, SM 0's next instruction at once: its first hit finds an empty queue (14) although SM 0's
 * second line was still decompressing. Mean (14 + 28) x 2 + 14 over 5 = 98 / 5 at every spacing
 * (the flush makes the spacing irrelevant). Fails when SMs share a queue (SM 1 would wait 42 and
 * 56) or the flush keeps the lines. */
static void test_replay_per_sm_and_flush(void **state)
{
    (void)state;
    tech_dq_replay_t *r = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_dq_replay_create(2, 14, &r, &e), GPUEST_OK);
    for (int sm = 0; sm < 2; sm++) {
        tech_dq_replay_inst(r, sm);
        tech_dq_replay_read(r, sm, 1);
        tech_dq_replay_read(r, sm, 1);
    }
    tech_dq_replay_flush(r);
    tech_dq_replay_inst(r, 0);
    tech_dq_replay_read(r, 0, 1);
    double w[GPUEST_MODEL_DQ_SPACINGS];
    tech_dq_replay_waits(r, w);
    for (int j = 0; j < GPUEST_MODEL_DQ_SPACINGS; j++)
        close_abs(w[j], 98.0 / 5.0, "two SMs and a flush");
    tech_dq_replay_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replay_by_hand),
                                       cmocka_unit_test(test_replay_per_sm_and_flush)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
