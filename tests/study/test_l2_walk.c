/* test_l2_walk.c: the functional L2 walk on hand-built traces whose hits are worked out by hand,
 * and the scaling of a calibration's measured L2 hit rate by the walk (l2_walk.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "study/dram_stream.h"
#include "study/study.h"

#define TMP GPUEST_BINARY_DIR "/l2_walk_tmp"

/* One CTA of one warp (so one SM) per launch; each launch runs ops[] (one lane each, 'l' load,
 * 's' store) on lines[] in order. */
static gpuest_workload_t *trace(int launches, const char *ops, const unsigned *lines, int n)
{
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,1\n");
    for (int k = 0; k < launches; k++) {
        fprintf(f, "kernel,%d,k,1,1,1,32,1,1,0,8\n", k);
        for (int i = 0; i < n; i++)
            fprintf(f, "inst,%d,0,0,%d,%s,4,00000001,0x%x\n", k, 8 * i, ops[i] == 's' ? "store" : "load", lines[i]);
    }
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/t.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return wl;
}

/* fermi's cores and L1, with an L2 of mcs channels x size bytes, 2 ways, 128-byte lines, 256-byte
 * interleave, no sub-partitions. */
static void machine(gpuest_config_t *c, int mcs, int size)
{
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(c, "fermi", &e), GPUEST_OK);
    c->mc.num_mcs = mcs;
    c->mc.sub_partitions = 1;
    c->mc.interleave_bytes = 256;
    c->l2.size_per_mc_bytes = size;
    c->l2.assoc = 2;
    c->l2.line_bytes = 128;
}

static gpuest_study_l2_walk_t walk(int mcs, int size, int launches, const char *ops, const unsigned *lines, int n)
{
    gpuest_config_t c;
    machine(&c, mcs, size);
    gpuest_workload_t *wl = trace(launches, ops, lines, n);
    gpuest_study_l2_walk_t w;
    gpuest_error_t e = {0};
    if (gpuest_study_l2_walk_of(&c, wl, &w, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    gpuest_workload_destroy(wl);
    return w;
}

/* Two launches read lines 0x000, 0x080 (channel 0) and 0x100, 0x180 (channel 1). The L1 is cold
 * at each launch, so all 8 reads reach the L2. With two channels of one 2-way set each, every slice
 * holds its two lines: the second launch hits 4 times. With one channel (the L2 halved), the four
 * lines share one 2-way LRU set and evict each other: no hit. Fails when the walk ignores the
 * channel count or size (4 hits both times), keeps the L1 across launches (fewer accesses), or
 * replaces other than LRU. */
static void test_halving_the_l2_by_hand(void **state)
{
    (void)state;
    const unsigned lines[] = {0x000, 0x080, 0x100, 0x180};
    gpuest_study_l2_walk_t two = walk(2, 256, 2, "llll", lines, 4), one = walk(1, 256, 2, "llll", lines, 4);
    assert_int_equal(two.accesses, 8);
    assert_int_equal(two.hits, 4);
    assert_int_equal(one.accesses, 8);
    assert_int_equal(one.hits, 0);
}

/* The address-to-slice mapping and the channel-local set index. Lines 0x000, 0x080, 0x200, 0x280
 * all interleave to channel 0 of two: its one 2-way set holds two of the four, so no hit, although
 * the two slices together hold four lines (a walk that pools the slices finds 4 hits). With 1 KB
 * slices (4 sets), lines 0x000, 0x200, 0x400 of channel 0 are channel-local lines 0, 2 and 4:
 * sets 0, 2 and 0, so all fit and the second launch hits 3 times; indexing by the global line
 * (0, 4, 8: all set 0) gives 3 lines in 2 ways and no hit. */
static void test_slice_mapping_by_hand(void **state)
{
    (void)state;
    const unsigned same_channel[] = {0x000, 0x080, 0x200, 0x280};
    gpuest_study_l2_walk_t a = walk(2, 256, 2, "llll", same_channel, 4);
    assert_int_equal(a.accesses, 8);
    assert_int_equal(a.hits, 0);
    const unsigned local[] = {0x000, 0x200, 0x400};
    gpuest_study_l2_walk_t b = walk(2, 1024, 2, "lll", local, 3);
    assert_int_equal(b.accesses, 6);
    assert_int_equal(b.hits, 3);
}

/* Stores: a load, a store and a load of one line in one launch. The store evicts the line from the
 * L1 (write-evict) and reaches the L2 (a hit: the load allocated it), so the second load misses the
 * L1 and hits the L2: 3 accesses, 2 hits. A store alone then a load in the next launch: the store's
 * miss allocates (fetch-on-write), so the load hits. Fails when stores skip the L2 or leave the L1
 * line, or a write miss does not allocate. */
static void test_stores_by_hand(void **state)
{
    (void)state;
    const unsigned one[] = {0x1000, 0x1000, 0x1000};
    gpuest_study_l2_walk_t a = walk(2, 256, 1, "lsl", one, 3);
    assert_int_equal(a.accesses, 3);
    assert_int_equal(a.hits, 2);
    const unsigned st[] = {0x2000};
    gpuest_study_l2_walk_t b = walk(2, 256, 1, "s", st, 1);
    assert_int_equal(b.accesses, 1);
    assert_int_equal(b.hits, 0);
    /* two launches of "s": the second store hits the line the first allocated */
    gpuest_study_l2_walk_t c = walk(2, 256, 2, "s", st, 1);
    assert_int_equal(c.accesses, 2);
    assert_int_equal(c.hits, 1);
}

static void near(double got, double want, double tol)
{
    if (!(got >= want - tol && got <= want + tol))
        fail_msg("got %.17g, expected %.17g", got, want);
}

/* The scaling worked by hand: h2 0.5 x 0.5 = 0.25; DRAM per request x (1 - 0.25) / (1 - 0.5) = 1.5.
 * A ratio that would pass 1 clips the hit rate to 1 and the DRAM traffic to 0; with a measured rate
 * of 1 the DRAM traffic follows the walk's miss ratio. */
static void test_apply_by_hand(void **state)
{
    (void)state;
    gpuest_model_workload_t w = {0};
    w.l2_hit_rate = 0.5;
    w.dram_per_request = 0.8;
    gpuest_study_l2_apply(&w, 0.5, 9.0);
    near(w.l2_hit_rate, 0.25, 1e-15);
    near(w.dram_per_request, 1.2, 1e-15);
    gpuest_study_l2_apply(&w, 5.0, 9.0);
    near(w.l2_hit_rate, 1.0, 0);
    near(w.dram_per_request, 0.0, 0);
    w.dram_per_request = 0.1;
    gpuest_study_l2_apply(&w, 0.9, 3.0);
    near(w.l2_hit_rate, 0.9, 1e-15);
    near(w.dram_per_request, 0.3, 1e-15);
}

/* A fermi calibration of nw (small scale) with measured inputs of a v2 run. */
static void calibration(gpuest_calibration_t *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->preset, sizeof c->preset, "fermi");
    snprintf(c->workload, sizeof c->workload, "nw");
    c->scale = GPUEST_SCALE_SMALL;
    c->seed = 1;
    c->nruns = 1;
    c->runs[0].ipc = 3.7;
    c->runs[0].amat = 250.0;
    c->runs[0].in = (gpuest_model_workload_t){2.68, 0.039, 0.054, 0.21, 1.12, 0.48, 0.37, 32.0, 0.89, 1.77,
                                              0.0, 0.0, 0.0, 0.0, 26.2, 329.0, 0.0, 0.0, 0.3, 0.0, 0.0};
    c->fit.params = (gpuest_gpu_params_t){1.5, 0.4, 1.2};
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        c->fit.covar[j][j] = 1e-3;
    c->cv_ipc = 0.05;
    c->cv_amat = 0.08;
    c->util_lo = 0.1;
    c->util_hi = 1.0;
}

/* The calibrated geometry (and any change outside the L2: the L2 latency, the MC placement's
 * network) keeps the measured inputs bit for bit, so its estimate is the one before the walk
 * existed; a point with a channel fewer gets exactly the walks' ratio (direct walks of the two
 * geometries under the same cores and L1), through the cache as without it. Fails when the
 * adjustment runs on an unchanged L2, takes the ratio the wrong way round, or walks the calibrated
 * L2 under another machine. */
static void test_adjust_only_when_the_l2_changes(void **state)
{
    (void)state;
    static gpuest_calibration_t c;
    calibration(&c);
    gpuest_error_t err = {0};
    gpuest_config_t base;
    assert_int_equal(gpuest_config_preset(&base, "fermi", &err), GPUEST_OK);
    gpuest_config_t lat = base;
    lat.l2.hit_latency = 240;
    gpuest_config_t *same[] = {&base, &lat};
    for (int i = 0; i < 2; i++) {
        gpuest_model_workload_t w = c.runs[0].in;
        int applied = -1;
        assert_int_equal(gpuest_study_l2_adjust(NULL, &c, same[i], &w, NULL, 0, &applied, &err), GPUEST_OK);
        assert_int_equal(applied, 0);
        assert_memory_equal(&w, &c.runs[0].in, sizeof w);
    }
    gpuest_config_t four = base;
    four.mc.num_mcs = 4;
    gpuest_study_l2_walk_t wn, wc;
    assert_int_equal(gpuest_study_l2_walk(&four, "nw", GPUEST_SCALE_SMALL, 1, &wn, &err), GPUEST_OK);
    assert_int_equal(gpuest_study_l2_walk(&base, "nw", GPUEST_SCALE_SMALL, 1, &wc, &err), GPUEST_OK);
    assert_true(wc.hits > 0 && wn.accesses == wc.accesses); /* the L2 sees the same stream */
    assert_true(wn.hits < wc.hits);                           /* a third less L2: fewer hits */
    double ratio = ((double)wn.hits / (double)wn.accesses) / ((double)wc.hits / (double)wc.accesses);
    gpuest_model_workload_t want = c.runs[0].in;
    gpuest_study_l2_apply(&want, ratio, 1.0);
    /* and the DRAM stream's figures, as ratios of the two walks */
    double mn = (double)(wn.accesses - wn.hits), mc = (double)(wc.accesses - wc.hits);
    assert_true(wn.dram_accesses > 0 && wc.dram_accesses > 0 && wc.dram_turn_rate > 0);
    gpuest_study_dram_apply(&want, wn.dram_row_hit_rate / wc.dram_row_hit_rate,
                            ((double)wn.dram_accesses / mn) / ((double)wc.dram_accesses / mc),
                            wn.dram_turn_rate / wc.dram_turn_rate);
    /* and the channel concentrations, the excess over a hashed placement, target over calibrated,
     * of the DRAM stream and of the L2 access stream */
    assert_true(wn.dram_excess > 0 && wc.dram_excess > 0 && wn.dram_excess != wc.dram_excess);
    assert_true(wn.l2_excess > 0 && wc.l2_excess > 0 && wn.l2_excess != wc.l2_excess);
    assert_true(wn.l2_excess != wn.dram_excess);
    want.channel_concentration = wn.dram_excess / wc.dram_excess;
    want.slice_concentration = wn.l2_excess / wc.l2_excess;
    gpuest_study_l2_cache_t *cache = NULL;
    assert_int_equal(gpuest_study_l2_cache_create(&cache, &err), GPUEST_OK);
    gpuest_model_phase_t ph[2];
    memset(ph, 0, sizeof ph);
    ph[0].w = ph[1].w = c.runs[0].in;
    for (int pass = 0; pass < 3; pass++) { /* no cache, the cache filled, the cache reused */
        gpuest_model_workload_t w = c.runs[0].in;
        int applied = 0;
        assert_int_equal(gpuest_study_l2_adjust(pass ? cache : NULL, &c, &four, &w, pass == 2 ? ph : NULL,
                                                pass == 2 ? 2 : 0, &applied, &err),
                         GPUEST_OK);
        assert_int_equal(applied, 1);
        assert_memory_equal(&w, &want, sizeof w);
    }
    assert_memory_equal(&ph[0].w, &want, sizeof want);
    assert_memory_equal(&ph[1].w, &want, sizeof want);
    gpuest_study_l2_cache_destroy(cache);
}

/* A smaller L2 slice on the calibrated channels: the L2 and DRAM figures move, the channel
 * concentration does not (the channel map is the calibrated one, so the estimate of a point that
 * changes no channel keeps the uniform channels; docs/estimator.md, "Power-of-two channel counts").
 * Fails when the concentration ratio is applied on any L2 change. */
static void test_concentration_only_when_the_channels_change(void **state)
{
    (void)state;
    static gpuest_calibration_t c;
    calibration(&c);
    gpuest_error_t err = {0};
    gpuest_config_t half;
    assert_int_equal(gpuest_config_preset(&half, "fermi", &err), GPUEST_OK);
    half.l2.size_per_mc_bytes /= 2;
    gpuest_model_workload_t w = c.runs[0].in;
    int applied = 0;
    assert_int_equal(gpuest_study_l2_adjust(NULL, &c, &half, &w, NULL, 0, &applied, &err), GPUEST_OK);
    assert_int_equal(applied, 1);
    assert_true(w.l2_hit_rate != c.runs[0].in.l2_hit_rate);
    assert_true(w.channel_concentration == 0.0 && w.slice_concentration == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halving_the_l2_by_hand),
        cmocka_unit_test(test_slice_mapping_by_hand),
        cmocka_unit_test(test_stores_by_hand),
        cmocka_unit_test(test_apply_by_hand),
        cmocka_unit_test(test_adjust_only_when_the_l2_changes),
        cmocka_unit_test(test_concentration_only_when_the_channels_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
