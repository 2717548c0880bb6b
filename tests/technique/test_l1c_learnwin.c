/* test_l1c_learnwin.c: the adaptive compressed-L1 policies' learning windows as the estimate's walk
 * counts them (l1c_learnwin.c), on scripted read streams worked by hand, and the simulator's
 * allocate-on-miss reservation in the walk's L1s (tech_l1cm_reserve). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "technique/technique_int.h"

#define SETS 32 /* fermi's L1: stride 8, candidate k's dedicated sets k, 8 + k, 16 + k, 24 + k */

static uint64_t line_in_set(int set, int i) { return ((uint64_t)i * SETS + (uint64_t)set) * 128u; }

static tech_l1c_learn_t *make(int sms)
{
    tech_l1c_learn_t *t = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_l1c_learn_create(sms, SETS, 3, &t, &e), GPUEST_OK);
    return t;
}

/* The dedicated sets of the simulator's rule (tech_l1compression.c's dedicated_mode): 0, 8, 16, 24
 * none; 1, 9, 17, 25 BDI; 2, 10, 18, 26 the high-capacity mode; the rest follow. Fails when the
 * stride or the candidate count is wrong. */
static void test_groups(void **state)
{
    (void)state;
    tech_l1c_learn_t *t = make(1);
    const int want[SETS] = {0, 1, 2, -1, -1, -1, -1, -1, 0, 1, 2, -1, -1, -1, -1, -1,
                            0, 1, 2, -1, -1, -1, -1, -1, 0, 1, 2, -1, -1, -1, -1, -1};
    for (int s = 0; s < SETS; s++)
        assert_int_equal(tech_l1c_learn_group(t, s), want[s]);
    tech_l1c_learn_destroy(t);
}

/* No SM finishes its learning EP: 255 reads on SM 0 and 200 on SM 1, every one a hit in BDI's
 * dedicated set 1: no decision is ever made, no hit is seen, no evidence (the followers stay in
 * none). One more read on SM 0 ends its EP 0: the 256 hits are seen. Fails when hits count before
 * their EP ends, when the EP counter is global rather than per SM (455 reads would end an EP), or
 * when the read that ends the EP is left out of it (255). */
static void test_no_learning_ep_no_evidence(void **state)
{
    (void)state;
    tech_l1c_learn_t *t = make(2);
    for (int i = 0; i < 255; i++)
        tech_l1c_learn_read(t, 0, line_in_set(1, i % 3), 0, 1, 1);
    for (int i = 0; i < 200; i++)
        tech_l1c_learn_read(t, 1, line_in_set(1, i % 3), 0, 1, 1);
    assert_int_equal(tech_l1c_learn_eps(t), 0);
    assert_int_equal(tech_l1c_learn_hits(t, 1), 0);
    assert_false(tech_l1c_learn_has_evidence(t));
    tech_l1c_learn_read(t, 0, line_in_set(1, 0), 0, 1, 1);
    assert_int_equal(tech_l1c_learn_eps(t), 1);
    assert_int_equal(tech_l1c_learn_hits(t, 1), 256);
    assert_true(tech_l1c_learn_has_evidence(t));
    tech_l1c_learn_destroy(t);
}

/* What counts, over one SM's first period and the next period's EP 0 (11 x 256 reads): each EP's
 * reads go a quarter each to set 0 (none's; plain hits), set 1 (BDI's; compressed hits of the BDI
 * walk, cand 1), set 2 (the other candidate's: the BDI walk's hits there are not its to count) and
 * set 3 (a follower). Hits count in EPs 0 and 1 of a period only: 2 EPs x 64 = 128 per set, plus
 * EP 0 of the second period: 192 for none and for BDI, 0 for candidate 2; 2 learning EPs. A plain
 * hit in BDI's set and a compressed hit in none's do not count. Fails when the window runs past EP
 * 1, the period does not restart the window, followers or another candidate's sets are counted, or
 * none's sets are read on the compressed L1. */
static void test_window_by_hand(void **state)
{
    (void)state;
    tech_l1c_learn_t *t = make(1);
    for (int ep = 0; ep < 11; ep++)
        for (int i = 0; i < 256; i++) {
            int set = i % 4;
            int plain_hit = set == 0 || set == 3, comp_hit = set != 0;
            tech_l1c_learn_read(t, 0, line_in_set(set, i), plain_hit, comp_hit, 1);
        }
    assert_int_equal(tech_l1c_learn_eps(t), 2);
    assert_int_equal(tech_l1c_learn_hits(t, 0), 192);
    assert_int_equal(tech_l1c_learn_hits(t, 1), 192);
    assert_int_equal(tech_l1c_learn_hits(t, 2), 0);
    assert_true(tech_l1c_learn_has_evidence(t));
    tech_l1c_learn_destroy(t);
}

/* A learning EP that ends with no hit in any candidate's window: no evidence (every AMAT_GPU is the
 * miss latency, the tie goes to none). Fails when an ended EP alone counts as evidence. */
static void test_ep_without_hits(void **state)
{
    (void)state;
    tech_l1c_learn_t *t = make(1);
    for (int i = 0; i < 600; i++)
        tech_l1c_learn_read(t, 0, line_in_set(i % 3, i), 0, 0, 2);
    assert_int_equal(tech_l1c_learn_eps(t), 1);
    assert_false(tech_l1c_learn_has_evidence(t));
    tech_l1c_learn_destroy(t);
}

/* The reservation, one set of one raw way (4 tags, 4 sub-blocks of 32 B): A, B, C filled at 32 B
 * (3 sub-blocks). D misses and reserves: a raw line's room (4) does not fit beside 3, so one line,
 * the LRU A, goes at once, and only one (B and C stay though 2 + 4 > 4). D's fill at 32 B fits:
 * B, C, D held, A not. Without the reservation D's fill would fit beside all three (A kept);
 * dropping until a raw line fits would lose B and C too. A reserved line is not a hit. */
static void test_reservation_by_hand(void **state)
{
    (void)state;
    tech_l1cm_cache_t *c = NULL;
    gpuest_error_t e = {0};
    int h;
    assert_int_equal(tech_l1cm_create(1, 1, 1, &c, &e), GPUEST_OK);
    for (uint64_t a = 0; a < 3; a++)
        assert_int_equal(tech_l1cm_access(c, 0, a * 128u, 32, &h), 0);
    tech_l1cm_reserve(c, 0, 3 * 128u);
    assert_false(tech_l1cm_holds(c, 0, 0));
    assert_true(tech_l1cm_holds(c, 0, 128u) && tech_l1cm_holds(c, 0, 256u));
    assert_false(tech_l1cm_holds(c, 0, 3 * 128u)); /* in flight: not a hit */
    assert_int_equal(tech_l1cm_access(c, 0, 3 * 128u, 32, &h), 0); /* its fill */
    assert_true(tech_l1cm_holds(c, 0, 128u) && tech_l1cm_holds(c, 0, 256u) && tech_l1cm_holds(c, 0, 3 * 128u));
    assert_false(tech_l1cm_holds(c, 0, 0));
    tech_l1cm_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_groups), cmocka_unit_test(test_no_learning_ep_no_evidence),
                                       cmocka_unit_test(test_window_by_hand), cmocka_unit_test(test_ep_without_hits),
                                       cmocka_unit_test(test_reservation_by_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
