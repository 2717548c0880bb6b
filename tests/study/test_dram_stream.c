/* test_dram_stream.c: the L2 walk's DRAM stream (dram_stream.c) on hand-built access sequences
 * whose row hits, writes and channel concentration are worked out by hand, and the walk's
 * write-backs on a hand trace (l2_walk.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "study/dram_stream.h"
#include "study/study.h"

#define TMP GPUEST_BINARY_DIR "/dram_stream_tmp"

/* fermi with `mcs` channels of a 256-byte interleave, 4 banks of 2048-byte rows. */
static void machine(gpuest_config_t *c, int mcs)
{
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(c, "fermi", &e), GPUEST_OK);
    c->mc.num_mcs = mcs;
    c->mc.interleave_bytes = 256;
    c->dram.banks = 4;
    c->dram.row_bytes = 2048;
}

/* Two channels. Channel = (a / 256) mod 2, local = (a / 512) x 256 + a mod 256, bank = (local /
 * 2048) mod 4, row = local / 8192:
 *   0x0000 ch0 local 0     bank 0 row 0  miss (closed)
 *   0x0800 ch0 local 1024  bank 0 row 0  HIT  (bank 1 by the global address)
 *   0x0100 ch1 local 0     bank 0 row 0  miss (channel 1's own bank), write
 *   0x4000 ch0 local 8192  bank 0 row 1  miss (opens row 1)
 *   0x0180 ch1 local 128   bank 0 row 0  HIT  (a miss when banks are shared by the channels)
 *   0x0000 ch0 local 0     bank 0 row 0  miss (row 1 is open), write
 *   0x1000 ch0 local 2048  bank 1 row 0  miss
 * 2 hits of 7 accesses, 2 writes. Turnarounds per channel: channel 0 reads, reads, reads, writes,
 * reads (2), channel 1 writes, reads (1): 3 (4 when counted over the whole stream). Fails when the
 * bank or row comes from the global address instead of the channel-local one, when the channels
 * share banks, when a row closes after each access, or when turns are not counted per channel. */
static void test_open_row_replay_by_hand(void **state)
{
    (void)state;
    gpuest_config_t c;
    machine(&c, 2);
    gpuest_study_dram_stream_t s;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_study_dram_stream_init(&s, &c, 64, &e), GPUEST_OK);
    const uint64_t a[] = {0x0000, 0x0800, 0x0100, 0x4000, 0x0180, 0x0000, 0x1000};
    const int wr[] = {0, 0, 1, 0, 0, 1, 0};
    for (int i = 0; i < 7; i++)
        gpuest_study_dram_stream_push(&s, a[i], wr[i]);
    assert_int_equal(s.accesses, 7);
    assert_int_equal(s.writes, 2);
    assert_int_equal(s.row_hits, 2);
    assert_int_equal(s.turns, 3);
    assert_true(gpuest_study_dram_stream_turn_rate(&s) == 3.0 / 7.0);
    assert_true(gpuest_study_dram_stream_row_hit_rate(&s) == 2.0 / 7.0);
    assert_int_equal(s.windows, 0); /* no complete window of 64: no concentration */
    assert_true(gpuest_study_dram_stream_concentration(&s) == 0.0);
    gpuest_study_dram_stream_free(&s);
}

/* 17 lines 1024 bytes apart (4 interleave units), windows of 8. With 4 channels every line is on
 * channel 0: the busiest channel holds all 8 of a window, 4 times the even share of 2. With 3
 * channels the units 0, 4, 8, ... fall on channels 0, 1, 2, 0, 1, 2, 0, 1: the busiest holds 3,
 * 3 x 3 / 8 = 1.125 (the second window, units 32..60, the same). The 17th line opens a third window
 * that is not complete and not counted. Fails when the channel is not the modulo of the
 * interleave unit, when the share is taken against the window rather than the even share, or when
 * an incomplete window is counted. */
static void test_concentration_of_a_power_of_two_stride(void **state)
{
    (void)state;
    const double want[] = {4.0, 1.125};
    const int mcs[] = {4, 3};
    for (int k = 0; k < 2; k++) {
        gpuest_config_t c;
        machine(&c, mcs[k]);
        gpuest_study_dram_stream_t s;
        gpuest_error_t e = {0};
        assert_int_equal(gpuest_study_dram_stream_init(&s, &c, 8, &e), GPUEST_OK);
        for (uint64_t i = 0; i < 17; i++)
            gpuest_study_dram_stream_push(&s, i * 1024, 0);
        assert_int_equal(s.windows, 2);
        assert_true(gpuest_study_dram_stream_concentration(&s) == want[k]);
        gpuest_study_dram_stream_free(&s);
    }
}

/* The reference placement is splitmix64 of the interleave unit: its published first outputs from
 * state 0 (0xE220A8397B1DCDAF for unit 0, 0x6E789E6AA1B965F4 for unit 0x9E3779B97F4A7C15, the
 * generator's second state) modulo the channels. Fails on another mixer, a missing increment,
 * or a hash of the line address instead of the unit. */
static void test_reference_channel_is_splitmix64(void **state)
{
    (void)state;
    const uint64_t out0 = 0xE220A8397B1DCDAFull, out1 = 0x6E789E6AA1B965F4ull;
    for (int m = 1; m <= 16; m++) {
        assert_int_equal(gpuest_study_dram_stream_hash_channel(0, m), (int)(out0 % (uint64_t)m));
        assert_int_equal(gpuest_study_dram_stream_hash_channel(0x9E3779B97F4A7C15ull, m), (int)(out1 % (uint64_t)m));
    }
}

/* The excess over the hashed placement on the stride of test_concentration_of_a_power_of_two_stride
 * (units 0, 4, ..., 64; windows of 8). splitmix64 of the units mod 4: 3 2 2 3 3 0 0 0 | 1 3 2 3 3 2 3
 * 3, busiest 3 and 5 of 8: reference (1.5 + 2.5) / 2 = 2.0, excess 4.0 / 2.0 = 2.0. Mod 3: 1 1 1 0 2 0 0
 * 1 | 1 2 1 0 2 2 2 0, busiest 4 and 4: reference 1.5, excess 1.125 / 1.5 = 0.75 (the modulo map
 * spreads this stride more evenly than chance). Fails when the reference shares the machine's
 * map (excess 1), is counted over another window or the partial one, or the excess is inverted. */
static void test_excess_over_the_hashed_placement(void **state)
{
    (void)state;
    const double want_ref[] = {2.0, 1.5}, want_excess[] = {2.0, 0.75};
    const int mcs[] = {4, 3};
    for (int k = 0; k < 2; k++) {
        gpuest_config_t c;
        machine(&c, mcs[k]);
        gpuest_study_dram_stream_t s;
        gpuest_error_t e = {0};
        assert_int_equal(gpuest_study_dram_stream_init(&s, &c, 8, &e), GPUEST_OK);
        assert_true(gpuest_study_dram_stream_excess(&s) == 1.0); /* no window yet: no change */
        for (uint64_t i = 0; i < 17; i++)
            gpuest_study_dram_stream_push(&s, i * 1024, 0);
        assert_true(gpuest_study_dram_stream_reference(&s) == want_ref[k]);
        assert_true(gpuest_study_dram_stream_excess(&s) == want_excess[k]);
        gpuest_study_dram_stream_free(&s);
    }
}

/* The estimate's anchoring of the DRAM figures: ratios on the measured values; the row-hit rate
 * stays a share, the turnarounds a rate. */
static void test_apply_ratios(void **state)
{
    (void)state;
    gpuest_model_workload_t w;
    memset(&w, 0, sizeof w);
    w.row_hit_rate = 0.8;
    w.dram_per_request = 0.5;
    w.dram_turns_per_access = 0.4;
    gpuest_study_dram_apply(&w, 0.5, 1.2, 1.25);
    assert_true(w.row_hit_rate == 0.4);
    assert_true(w.dram_per_request == 0.6);
    assert_true(w.dram_turns_per_access == 0.5);
    gpuest_study_dram_apply(&w, 3.0, 1.0, 3.0);
    assert_true(w.row_hit_rate == 1.0);
    assert_true(w.dram_turns_per_access == 1.5);
}

/* One CTA of one warp per launch running ops[] ('l' load, 's' store) on lines[] in order. */
static gpuest_workload_t *trace(const char *ops, const unsigned *lines, int n)
{
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,1\nkernel,0,k,1,1,1,32,1,1,0,8\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "inst,0,0,0,%d,%s,4,00000001,0x%x\n", 8 * i, ops[i] == 's' ? "store" : "load", lines[i]);
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/t.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return wl;
}

/* One channel, an L2 of one 2-way set (256 bytes), write-back with fetch-on-write (l2.c). Lines
 * A..E = 0x000, 0x080, 0x100, 0x180, 0x200 (distinct, so the L1 never hits):
 *   s A  miss: DRAM read A (the fetch) then write A (the data); A clean
 *   s A  hit: A dirty
 *   l B  miss: read B                         {A dirty, B}
 *   l C  miss: victim A (LRU) is dirty: write-back A, read C   {B, C}
 *   s D  miss: victim B clean: read D, write D; D clean        {C, D}
 *   l E  miss: victim C clean: read E          {D, E}
 *   l A  miss: victim D, clean (a write miss allocates clean): read A
 * 9 DRAM accesses, 3 of them writes; one bank, one row: 8 row hits; directions R W R W R R W R R:
 * 6 turnarounds. Fails when a write hit does not dirty its line (8 and 2), when a write miss
 * allocates dirty (10 and 4), when dirty victims are not written back (8 and 2), or when a write
 * miss sends its data before its fetch (W R R W R W R R R: 5 turns; l2.c queues the fetch first). */
static void test_walk_write_backs_by_hand(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "fermi", &e), GPUEST_OK);
    c.mc.num_mcs = 1;
    c.mc.sub_partitions = 1;
    c.l2.size_per_mc_bytes = 256;
    c.l2.assoc = 2;
    c.l2.line_bytes = 128;
    const unsigned lines[] = {0x000, 0x000, 0x080, 0x100, 0x180, 0x200, 0x000};
    gpuest_workload_t *wl = trace("ssllsll", lines, 7);
    gpuest_study_l2_walk_t w;
    if (gpuest_study_l2_walk_of(&c, wl, &w, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    gpuest_workload_destroy(wl);
    assert_int_equal(w.accesses, 7);
    assert_int_equal(w.hits, 1);
    assert_int_equal(w.dram_accesses, 9);
    assert_int_equal(w.dram_writes, 3);
    assert_true(w.dram_row_hit_rate == 8.0 / 9.0);
    assert_true(w.dram_turn_rate == 6.0 / 9.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_row_replay_by_hand),
        cmocka_unit_test(test_concentration_of_a_power_of_two_stride),
        cmocka_unit_test(test_reference_channel_is_splitmix64),
        cmocka_unit_test(test_excess_over_the_hashed_placement),
        cmocka_unit_test(test_apply_ratios),
        cmocka_unit_test(test_walk_write_backs_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
