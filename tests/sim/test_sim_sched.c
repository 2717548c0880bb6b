/* test_sim_sched.c: the warp scheduler's pick over a bit set of ready slots with an ages array
 * (sim_sched_pick_bits, used by sampled simulation's fast-forward) against values worked by hand
 * and against the scanning pick (sim_sched_pick) on the same SM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sim_int.h"

#define NW 70 /* warp slots: two 64-bit words, so the pick must cross a word */

typedef struct {
    gpuest_config_t cfg;
    sim_gpu_t g;
    sim_sm_t sm;
    sim_warp_t warps[NW];
    sim_sched_t sched[2];
    uint8_t ready[NW];
    uint64_t ages[NW];
} fixture_t;

static fixture_t *make(gpuest_warp_sched_t policy)
{
    fixture_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->cfg.core.scheduler = policy;
    f->g.cfg = &f->cfg;
    f->sm.warps = f->warps;
    f->sm.sched = f->sched;
    f->sm.nsched = 2;
    for (int s = 0; s < 2; s++)
        f->sched[s] = (sim_sched_t){.last = -1, .nslots = NW / 2};
    for (int k = 0; k < NW; k++)
        f->warps[k].age = f->ages[k] = 1000 + (uint64_t)k; /* lower slots older unless set */
    return f;
}

static void set_ready(fixture_t *f, int slot, uint64_t age)
{
    f->ready[slot] = 1;
    f->warps[slot].age = f->ages[slot] = age;
}

/* Scheduler s's ready slots as the bit set the caller passes. */
static int pick_bits(fixture_t *f, int s)
{
    uint64_t bits[2] = {0, 0};
    for (int k = s; k < NW; k += 2)
        if (f->ready[k])
            bits[k / 64] |= 1ull << (k % 64);
    return sim_sched_pick_bits(&f->g, &f->sm, s, f->ready, bits, 2, f->ages);
}

/* GTO: ready 4 (age 50), 10 (30), 66 (20), 3 (7), 65 (9). Scheduler 0 owns the even slots, so
 * with no last warp it takes the oldest of 4, 10 and 66: 66, in the second word; scheduler 1
 * takes 3 (age 7 < 9). With last = 10 still ready, scheduler 0 stays on 10 (greedy); with
 * last = 4 no longer ready it falls back to the oldest, 66. */
static void gto_by_hand(void **state)
{
    (void)state;
    fixture_t *f = make(GPUEST_WSCHED_GTO);
    set_ready(f, 4, 50);
    set_ready(f, 10, 30);
    set_ready(f, 66, 20);
    set_ready(f, 3, 7);
    set_ready(f, 65, 9);
    assert_int_equal(pick_bits(f, 0), 66);
    assert_int_equal(sim_sched_pick(&f->g, &f->sm, 0, f->ready), 66);
    assert_int_equal(pick_bits(f, 1), 3);
    assert_int_equal(sim_sched_pick(&f->g, &f->sm, 1, f->ready), 3);
    f->sched[0].last = 10;
    assert_int_equal(pick_bits(f, 0), 10);
    f->ready[4] = 0;
    f->sched[0].last = 4;
    assert_int_equal(pick_bits(f, 0), 66);
    assert_int_equal(sim_sched_pick(&f->g, &f->sm, 0, f->ready), 66);
    free(f);
}

/* Nothing ready for a scheduler: -1 (scheduler 1 while only even slots are ready). */
static void gto_none_ready(void **state)
{
    (void)state;
    fixture_t *f = make(GPUEST_WSCHED_GTO);
    set_ready(f, 4, 50);
    set_ready(f, 68, 5);
    assert_int_equal(pick_bits(f, 1), -1);
    assert_int_equal(pick_bits(f, 0), 68);
    free(f);
}

/* LRR ignores ages and the bit set: after last = 4 scheduler 0 looks at 6, 8, 10, ... and takes
 * 10, the next ready slot in its round, though 66 is older. */
static void lrr_by_hand(void **state)
{
    (void)state;
    fixture_t *f = make(GPUEST_WSCHED_LRR);
    set_ready(f, 4, 50);
    set_ready(f, 10, 30);
    set_ready(f, 66, 20);
    f->sched[0].last = 4;
    assert_int_equal(pick_bits(f, 0), 10);
    assert_int_equal(sim_sched_pick(&f->g, &f->sm, 0, f->ready), 10);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gto_by_hand),
        cmocka_unit_test(gto_none_ready),
        cmocka_unit_test(lrr_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
