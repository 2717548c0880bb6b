/* test_wp_setres.c: the L1's set reservations replayed in time (src/technique/wp_setres.c), on a
 * one-set, two-way L1 of one SM with a miss latency of 10 cycles, worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "technique/technique_int.h"

enum { A = 0x1000, B = 0x2000, C = 0x3000 };

static tech_wsr_counts_t run(int queues, int depth, int latency)
{
    tech_wsr_t *w = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_wsr_create(1, 1, 2, queues, depth, latency, 10, &w, &e), GPUEST_OK);
    const uint64_t line[5] = {A, B, C, C, A};
    for (int i = 0; i < 5; i++)
        tech_wsr_request(w, 0, line[i], 1);
    tech_wsr_launch_end(w);
    tech_wsr_counts_t c = tech_wsr_counts(w);
    if (queues == 0) {
        assert_float_equal(tech_wsr_stall_per_request(w), 8.0 / 5.0, 1e-15);
        assert_float_equal(tech_wsr_idle_per_request(w), (13.0 - 5.0) / 5.0, 1e-15);
    }
    tech_wsr_destroy(w);
    return c;
}

/* No pool, loads A B C C A, one a cycle: A reserves a way at cycle 1 (fill 11), B at 2 (fill 12);
 * C at 3 finds both ways reserved and waits for A's fill: 8 stall cycles, then takes A's way at 11
 * (fill 21); the second C at 12 merges into C's reservation; A at 13 takes B's way (filled at 12):
 * no stall. 5 accesses, 4 reservations, 1 merge, 1 blocked access, 8 stall cycles, 13 cycles.
 * Fails when a reserved way is taken (no stall), when the wait is not to the set's earliest fill
 * (9 to B's), when a pending line counts as a hit, or when the victim is not an unreserved way. */
static void in_order_unit(void **state)
{
    (void)state;
    tech_wsr_counts_t c = run(0, 8, 2);
    assert_int_equal((int)c.requests, 5);
    assert_int_equal((int)c.accesses, 5);
    assert_int_equal((int)c.allocs, 4);
    assert_int_equal((int)c.mshr_merges, 1);
    assert_int_equal((int)c.hits, 0);
    assert_int_equal((int)c.blocked, 1);
    assert_int_equal((int)c.stall_cycles, 8);
    assert_int_equal((int)c.cycles, 13);
}

/* Two queues of depth 8, pool latency 1: A enters at 1 and makes its access at 2 (fill 12), B
 * enters at 2, accesses at 3 (fill 13); C enters at 3, and its access at 4 waits for A's fill at 12
 * (8 stall cycles); the second C, entering at 4, rides C's queue (no access); A enters at 5 into
 * the second queue and, after C's access at 12, takes B's way at 13 (B filled at 13): the same 8
 * stall cycles for 4 accesses, 13 cycles. So a FIFO pool in front of an open request stream
 * relieves no reservation stall: the stalled head keeps every later access behind it. Fails when
 * a stalled head lets a younger queue access first, when a rider makes an access, or when the pool
 * latency is not charged. */
static void fifo_pool(void **state)
{
    (void)state;
    tech_wsr_counts_t c = run(2, 8, 1);
    assert_int_equal((int)c.requests, 5);
    assert_int_equal((int)c.accesses, 4);
    assert_int_equal((int)c.riders, 1);
    assert_int_equal((int)c.allocs, 4);
    assert_int_equal((int)c.blocked, 1);
    assert_int_equal((int)c.stall_cycles, 8);
    assert_int_equal((int)c.cycles, 13);
}

/* One queue of depth 1, latency 2: every request waits for the one before to make its access and
 * then 2 cycles in the pool. A enters 1, accesses 3 (fill 13); B enters 3, accesses 5 (fill 15); C
 * enters 5, may access at 7, waits to 13 (6 stall cycles), fill 23; C enters 13, accesses 15 (a
 * merge); A enters 15, accesses 17 (B's way, filled at 15). 17 cycles, 5 accesses: 12 idle cycles,
 * 6 of them stalls. Fails when the pool latency does not delay the access or the single queue
 * takes a second request before its access. */
static void one_queue(void **state)
{
    (void)state;
    tech_wsr_counts_t c = run(1, 1, 2);
    assert_int_equal((int)c.accesses, 5);
    assert_int_equal((int)c.riders, 0);
    assert_int_equal((int)c.mshr_merges, 1);
    assert_int_equal((int)c.stall_cycles, 6);
    assert_int_equal((int)c.cycles, 17);
}

/* A store invalidates a filled copy and never stalls; a load of a line whose fill came hits. */
static void store_and_hit(void **state)
{
    (void)state;
    tech_wsr_t *w = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_wsr_create(1, 1, 2, 0, 1, 0, 10, &w, &e), GPUEST_OK);
    tech_wsr_request(w, 0, A, 1); /* 1: reserve, fill 11 */
    tech_wsr_request(w, 0, B, 1); /* 2: reserve, fill 12 */
    tech_wsr_request(w, 0, C, 0); /* 3: a store to an absent line: no stall */
    tech_wsr_request(w, 0, A, 0); /* 4: A still pending: kept */
    tech_wsr_request(w, 0, C, 1); /* 5: waits to 11 */
    tech_wsr_request(w, 0, B, 1); /* 12: B filled at 12: a hit */
    tech_wsr_request(w, 0, B, 0); /* 13: invalidates B */
    tech_wsr_request(w, 0, B, 1); /* 14: B absent: takes its own invalidated way, no stall */
    tech_wsr_launch_end(w);
    tech_wsr_counts_t c = tech_wsr_counts(w);
    assert_int_equal((int)c.hits, 1);
    assert_int_equal((int)c.allocs, 4);
    assert_int_equal((int)c.stall_cycles, 6);
    assert_int_equal((int)c.blocked, 1);
    tech_wsr_destroy(w);
    assert_int_equal(tech_wsr_create(1, 1, 2, 0, 1, 0, 0, &w, &e), GPUEST_EINVAL);
    assert_null(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order_unit),
        cmocka_unit_test(fifo_pool),
        cmocka_unit_test(one_queue),
        cmocka_unit_test(store_and_hit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
