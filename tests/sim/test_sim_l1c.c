/* test_sim_l1c.c: the compressed L1D organization (src/sim/l1_compressed.c) with a scripted
 * policy in its hooks: eq. 3 on a hand-built decompression queue, the same wait on back-to-back
 * hits in the simulator, 32-byte sub-block allocation with 4x tags, and the invalidation of the
 * lines of one mode when the policy asks for it (a code book change). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_source.h"
#include "sim/sim_int.h"

#define A GPUEST_MEMIMG_BASE
#define NS 1000 /* femtoseconds of a hand-built queue's cycle */

/* ---------------------------------------------------------------- eq. 3 on a hand-built queue */
static void test_dq_eq3_hand_built_queue(void **state)
{
    (void)state;
    sim_dq_t q = {0};
    int pos;
    /* SC (14 cycles): three hits at cycles 0, 0, 5 queue behind each other */
    assert_int_equal(sim_dq_enter(&q, 0, NS, 14, &pos), 14);
    assert_int_equal(pos, 0);
    assert_int_equal(sim_dq_enter(&q, 0, NS, 14, &pos), 28);
    assert_int_equal(pos, 1);
    assert_int_equal(sim_dq_enter(&q, 5 * NS, NS, 14, &pos), 42);
    assert_int_equal(pos, 2);
    /* at cycle 14 the first (done at 14) has left; the ones done at 28 and 47 remain */
    assert_int_equal(sim_dq_enter(&q, 14 * NS, NS, 14, &pos), 42);
    assert_int_equal(pos, 2);
    /* at cycle 100 everything has drained: a lone hit waits the bare latency */
    assert_int_equal(sim_dq_enter(&q, 100 * NS, NS, 14, &pos), 14);
    assert_int_equal(pos, 0);
    /* BDI's 2 cycles on a fresh queue: 2, 4, 6 */
    sim_dq_t b = {0};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(sim_dq_enter(&b, 0, NS, 2, &pos), 2 * (k + 1));
        assert_int_equal(pos, k);
    }
}

/* ---------------------------------------------------------------- scripted policy */
typedef struct {
    script_loads_t loads; /* first: script_on_load takes the context as a script_loads_t */
    int bytes, mode, decomp;
    int accesses, invalidate_at; /* return the SC mask at this access (0: never) */
    int nhit_extra, hit_extra[64];
} policy_t;

static void fixed_fill(void *ctx, const gpuest_sim_l1c_event_t *ev, const uint8_t *data, gpuest_sim_l1c_line_t *out)
{
    (void)ev;
    (void)data;
    policy_t *p = ctx;
    out->mode = p->mode;
    out->bytes = p->bytes;
    out->decomp_cycles = p->decomp;
}

static unsigned record_access(void *ctx, const gpuest_sim_l1c_event_t *ev)
{
    policy_t *p = ctx;
    if (ev->hit && p->nhit_extra < 64)
        p->hit_extra[p->nhit_extra++] = ev->extra_cycles;
    return ++p->accesses == p->invalidate_at ? 1u << GPUEST_L1C_SC : 0u;
}

/* One warp runs n dependent loads (each waits for the previous one through a register), load k of
 * a line per lane from base[k], `stride` bytes apart, on a one-SM latte15; the compressed L1D
 * with p's policy when `compressed`. Returns the run's cycles. */
static uint64_t run_loads(policy_t *p, int compressed, int n, const uint64_t *base, uint32_t stride)
{
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "latte15", &e), GPUEST_OK);
    c.core.num_sms = 1;
    c.core.perfect_inst_const_cache = 1;
    script_t s = {0};
    script_inst_t insts[4];
    for (int k = 0; k < n; k++)
        insts[k] = (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, base[k], stride, 4, 1, -1,
                                   (uint8_t)(k + 2), (uint8_t)(k ? k + 1 : 0), 0};
    script_kernel(&s, 0, NULL, 1, n, insts);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.hooks.ctx = p;
    o.hooks.load_done = script_on_load;
    if (compressed) {
        o.hooks.l1c_fill = fixed_fill;
        o.hooks.l1c_access = record_access;
    }
    gpuest_sim_source_t src;
    script_source(&src, &s);
    gpuest_sim_result_t r;
    gpuest_err rc = gpuest_sim_run(&c, &src, &o, &r, &e);
    if (rc != GPUEST_OK)
        printf("# %s\n", e.msg);
    assert_int_equal(rc, GPUEST_OK);
    assert_int_equal(p->loads.n, n);
    uint64_t cycles = r.total.cycles;
    gpuest_sim_result_free(&r);
    return cycles;
}

/* One warp loads 32 lines (a line per lane, `stride` bytes apart; 1 KB: 8 lines in each of 4 sets
 * of the 32-set L1D), `passes` times (at most 4), each load waiting for the previous one (register
 * dependency). Returns the run's cycles. */
static uint64_t run_stride(policy_t *p, int passes, int compressed, uint32_t stride)
{
    static const uint64_t base[4] = {A, A, A, A};
    return run_loads(p, compressed, passes, base, stride);
}

/* Three dependent loads X, Y, X of a line per lane, 512 bytes apart: X puts 4 lines in each of 8
 * sets, Y (16 KB further) 4 other lines in the same sets. The plain 4-way L1D loses X to Y: the
 * third load hits nothing, and neither does the compressed L1D with raw lines. Compressed to
 * 32 bytes: Y's four reservations count a raw line's room each (4 X sub-blocks + 4 x 4 > 16), so
 * the fourth drops one X line (the LRU); Y's fills then fit (3 + 12 + 1 = 16 at the first):
 * then the third load's first line misses (its reservation fits: 7 + 4 <= 16) and the other
 * three hit: 24. Compressed to 64 bytes: Y's third and fourth reservations drop one X line each,
 * the first Y fill one more (2 + 12 + 2 > 16), and the one X line left (the LRU) goes to the
 * second reservation of the third load (10 + 4 + 4 > 16) before it is asked for: 0 hits, the
 * price of reserving a raw line's room for a line whose size is not known yet. */
static uint64_t run_xyx(policy_t *p, int compressed)
{
    static const uint64_t base[3] = {A, A + 16384, A};
    return run_loads(p, compressed, 3, base, 512);
}

static void test_subblocks_hold_more_lines(void **state)
{
    (void)state;
    policy_t base = {0};
    run_xyx(&base, 0);
    assert_int_equal(base.loads.hits[2], 0);
    static const struct {
        int bytes, hits;
    } cases[] = {{32, 24}, {64, 0}, {128, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        policy_t p = {.bytes = cases[i].bytes, .mode = GPUEST_L1C_BDI, .decomp = 2};
        run_xyx(&p, 1);
        assert_int_equal(p.loads.hits[1], 0);
        assert_int_equal(p.loads.hits[2], cases[i].hits);
        assert_int_equal(p.loads.misses[2], 32 - cases[i].hits);
    }
}

/* With every line stored raw the compressed organization is the plain L1D, cycle for cycle:
 * same victims, same reservation stalls, same hits (three access patterns, three passes each). */
static void test_raw_lines_match_plain_l1(void **state)
{
    (void)state;
    static const uint32_t strides[] = {1024, 4096, 128};
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        policy_t plain = {0}, raw = {.bytes = 128, .mode = GPUEST_L1C_NONE, .decomp = 0};
        uint64_t c0 = run_stride(&plain, 3, 0, strides[i]);
        uint64_t c1 = run_stride(&raw, 3, 1, strides[i]);
        assert_int_equal(c1, c0);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(raw.loads.hits[k], plain.loads.hits[k]);
            assert_int_equal(raw.loads.done[k], plain.loads.done[k]);
        }
    }
}

/* The LD/ST unit sends one line request a cycle, so the second pass's hits enter the SC
 * decompressor's queue one cycle apart: positions 0, 1, 2, ... and waits 14 x (position + 1)
 * while no earlier one has finished (the 14th request meets the first one's end). */
static void test_back_to_back_hits_follow_eq3(void **state)
{
    (void)state;
    policy_t p = {.bytes = 32, .mode = GPUEST_L1C_SC, .decomp = 14};
    run_stride(&p, 2, 1, 128);
    assert_int_equal(p.loads.hits[1], 32);
    assert_int_equal(p.nhit_extra, 32);
    for (int k = 0; k < 13; k++)
        assert_int_equal(p.hit_extra[k], 14 * (k + 1));
    /* the load completes when its last line is decompressed: later than the plain hit time */
    assert_true(p.loads.done[1] - p.loads.issue[1] >= (uint64_t)(14 * 13));
}

/* The policy asks, at the first access of the second pass, to drop the SC lines: that access has
 * hit already, the other 31 lines are gone and miss; lines of another mode stay. */
static void test_invalidate_mask_drops_only_that_mode(void **state)
{
    (void)state;
    policy_t sc = {.bytes = 32, .mode = GPUEST_L1C_SC, .decomp = 14, .invalidate_at = 33};
    run_stride(&sc, 2, 1, 128);
    assert_int_equal(sc.loads.hits[1], 1);
    assert_int_equal(sc.loads.misses[1], 31);
    policy_t bdi = {.bytes = 32, .mode = GPUEST_L1C_BDI, .decomp = 2, .invalidate_at = 33};
    run_stride(&bdi, 2, 1, 128);
    assert_int_equal(bdi.loads.hits[1], 32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dq_eq3_hand_built_queue),
        cmocka_unit_test(test_subblocks_hold_more_lines),
        cmocka_unit_test(test_raw_lines_match_plain_l1),
        cmocka_unit_test(test_back_to_back_hits_follow_eq3),
        cmocka_unit_test(test_invalidate_mask_drops_only_that_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
