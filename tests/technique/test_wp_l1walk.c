/* test_wp_l1walk.c: the plain L1 walked in the WarpPool's order (src/technique/wp_l1walk.c), on a
 * one-set, two-way L1 of one SM, with answers worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "technique/technique_int.h"

enum { A = 0x1000, B = 0x2000, C = 0x3000 };

/* Three warps, one load each a turn, two rounds: w0 A, w1 B, w2 C, then again. Fills come at the
 * warp's next turn; the L1 holds two lines (LRU).
 * No pool: round 1 three misses; round 2 w0's fill A comes and A hits, B the same, C's fill evicts
 * A (the least recent) and C hits: 3 misses in 6 accesses.
 * Two full queues, depth 1: A's access happens when C enters (miss); at w0's second turn A is
 * filled and its load waits behind B and C, whose accesses miss (B's when A enters, C's when B
 * enters); at w2's second turn C's fill evicts A (filled before B), and only then the queued load
 * of A reaches the L1 when C enters: a miss; the B and C loads drain at the end and hit: 4 misses.
 * Four queues (never full): each warp's turn first sends its own queued load, so every access
 * comes just before its fill: round 1 misses as before; at the end A is gone again (evicted by
 * C's fill) and misses: 4 misses. Fails when the pool drains in another order than FIFO, when the
 * fills are installed at the access, when a warp's turn does not send its queued loads first, or
 * when the misses are counted at the request instead of the access. */
static int misses_of(int queues)
{
    tech_wpl1_t *w = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_wpl1_create(1, 1, 2, queues, 1, &w, &e), GPUEST_OK);
    const uint64_t line[3] = {A, B, C};
    for (int round = 0; round < 2; round++)
        for (uint32_t warp = 0; warp < 3; warp++) {
            assert_int_equal(tech_wpl1_turn(w, 0, warp, &e), GPUEST_OK);
            assert_int_equal(tech_wpl1_request(w, 0, warp, line[warp], 1, &e), GPUEST_OK);
        }
    assert_int_equal(tech_wpl1_launch_end(w, &e), GPUEST_OK);
    assert_int_equal((int)tech_wpl1_accesses(w), 6);
    int m = (int)tech_wpl1_misses(w);
    assert_float_equal(tech_wpl1_miss_rate(w), m / 6.0, 1e-15);
    tech_wpl1_destroy(w);
    return m;
}

static void test_pool_order_loses_hits(void **state)
{
    (void)state;
    assert_int_equal(misses_of(0), 3);
    assert_int_equal(misses_of(2), 4);
    assert_int_equal(misses_of(4), 4);
}

/* Two queues of depth 3: w1's load of A merges into w0's queued A (no access of its own); w2's
 * store to A closes that queue and binds the second; w0's next load of A cannot merge (the store
 * closed A's load queue, and a store's queue takes nothing), so with both bound the A queue makes
 * its access (a miss) and the load binds it; at the end the store invalidates and the last load
 * accesses (a miss: A's fill waits for w0's next turn). 2 read accesses, 2 misses. Fails when a
 * load merges after a store to its line, when a store counts as a read, or when merged loads make
 * accesses. */
static void test_merge_and_store(void **state)
{
    (void)state;
    tech_wpl1_t *w = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_wpl1_create(1, 1, 2, 2, 3, &w, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_request(w, 0, 0, A, 1, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_request(w, 0, 1, A, 1, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_request(w, 0, 2, A, 0, &e), GPUEST_OK);
    assert_int_equal((int)tech_wpl1_accesses(w), 0);
    assert_int_equal(tech_wpl1_request(w, 0, 0, A, 1, &e), GPUEST_OK);
    assert_int_equal((int)tech_wpl1_accesses(w), 1);
    assert_int_equal(tech_wpl1_launch_end(w, &e), GPUEST_OK);
    assert_int_equal((int)tech_wpl1_accesses(w), 2);
    assert_int_equal((int)tech_wpl1_misses(w), 2);
    tech_wpl1_destroy(w);
}

/* One queue, depth 1: w0's load of A is sent when w1's load of A enters (a miss, A's fill under
 * w0); w0's turn brings A; w0's load of B sends w1's A: the L1 holds A now, but did not when w1's
 * load was issued, so it is a miss (an MSHR merge in the simulator, whose fills take far longer
 * than the pool's lag); B misses at the end. 3 accesses, 3 misses. Fails when a lagged request
 * hits on a fill that came after its issue (2 misses). */
static void test_fill_after_issue_is_no_hit(void **state)
{
    (void)state;
    tech_wpl1_t *w = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_wpl1_create(1, 1, 2, 1, 1, &w, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_turn(w, 0, 0, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_request(w, 0, 0, A, 1, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_turn(w, 0, 1, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_request(w, 0, 1, A, 1, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_turn(w, 0, 0, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_request(w, 0, 0, B, 1, &e), GPUEST_OK);
    assert_int_equal(tech_wpl1_launch_end(w, &e), GPUEST_OK);
    assert_int_equal((int)tech_wpl1_accesses(w), 3);
    assert_int_equal((int)tech_wpl1_misses(w), 3);
    tech_wpl1_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_order_loses_hits),
        cmocka_unit_test(test_merge_and_store),
        cmocka_unit_test(test_fill_after_issue_is_no_hit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
