/* test_l1c_model.c: the compressed L1 that the estimator's transform of technique.l1_compression
 * walks, on access sequences worked by hand, the transform on a hand-built trace, and its refusals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "technique/technique.h"
#include "technique/technique_int.h"
#include "learn/learn.h"
#include "fann_test_model.h"
#include <unistd.h>

#define TMP GPUEST_BINARY_DIR "/l1c_model_tmp"

/* Misses of `rounds` passes over n lines of one set, every line stored in `bytes` bytes; *hc: hits
 * on lines stored compressed. One SM, one set of one raw way: 4 tags, 4 sub-blocks of 32 bytes. */
static int misses(int n, int rounds, int bytes, int *hc)
{
    tech_l1cm_cache_t *c = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_l1cm_create(1, 1, 1, &c, &e), GPUEST_OK);
    int miss = 0, h;
    *hc = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            if (tech_l1cm_access(c, 0, (uint64_t)i * 128u, bytes, &h))
                *hc += h;
            else
                miss++;
        }
    tech_l1cm_destroy(c);
    return miss;
}

/* A, B, A, B, A, B in a one-way set: raw (128 B) every access misses (6); at 64 B (2 sub-blocks)
 * both fit: 2 misses, 4 hits on compressed lines; at 65 B (3 sub-blocks) they do not: 6 again.
 * Four 32-byte lines twice: 4 misses (4 tags, 4 sub-blocks); five: the fifth line needs a tag and
 * LRU thrashes: 10. Fails when sizes are not rounded up to sub-blocks, the tag count is not 4x, or
 * a raw line is counted as compressed. */
static void test_fit_by_hand(void **state)
{
    (void)state;
    int hc;
    assert_int_equal(misses(2, 3, 128, &hc), 6);
    assert_int_equal(misses(2, 3, 64, &hc), 2);
    assert_int_equal(hc, 4);
    assert_int_equal(misses(2, 3, 65, &hc), 6);
    assert_int_equal(misses(4, 2, 32, &hc), 4);
    assert_int_equal(hc, 4);
    assert_int_equal(misses(5, 2, 32, &hc), 10);
}

/* A store drops the line: A (64 B), store A, A again misses. */
static void test_store_evicts(void **state)
{
    (void)state;
    tech_l1cm_cache_t *c = NULL;
    gpuest_error_t e = {0};
    int h;
    assert_int_equal(tech_l1cm_create(1, 1, 1, &c, &e), GPUEST_OK);
    assert_int_equal(tech_l1cm_access(c, 0, 0, 64, &h), 0);
    assert_int_equal(tech_l1cm_access(c, 0, 0, 64, &h), 1);
    tech_l1cm_invalidate(c, 0, 0);
    assert_int_equal(tech_l1cm_access(c, 0, 0, 64, &h), 0);
    tech_l1cm_destroy(c);
}

static void set(gpuest_config_t *c, const char *kv)
{
    gpuest_error_t e = {0};
    if (gpuest_config_set(c, kv, "test", &e) != GPUEST_OK)
        fail_msg("%s: %s", kv, e.msg);
}

/* One warp reads lines 0, S, 2S, 3S, 4S (S = sets x 128: all in set 0) twice, each with 32 lanes of
 * 4 bytes, and uses each loaded value at once (an add reads it: the walk's greedy burst ends there,
 * and the line's fill arrives at the warp's next turn); the trace has no image, so every line is
 * zeros. */
static gpuest_workload_t *trace_set(int sets, int set, int nlines, int rounds)
{
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,2\nkernel,0,k,1,1,1,32,1,1,0,16\n");
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nlines; i++) {
            fprintf(f, "inst,0,0,0,%d,load,4,ffffffff,", 8 * (r * nlines + i));
            unsigned base = (unsigned)((i * sets + set) * 128);
            for (int k = 0; k < 32; k++)
                fprintf(f, "%s0x%x", k ? " " : "", base + 4u * (unsigned)k);
            fprintf(f, ",8,\ninst,0,0,0,%d,alu,0,ffffffff,,1,8\n", 8 * (r * nlines + i) + 4);
        }
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/t.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return wl;
}

/* The transform on `rounds` passes over the assoc + 1 lines of set `line_set`. */
static const char *fann_model_dir; /* the fann policy's models (NULL: "models") */

static gpuest_err transform_on(const char *policy, int line_set, int rounds, gpuest_model_transform_t *t,
                               gpuest_error_t *e)
{
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "fermi", e), GPUEST_OK);
    char kv[64];
    snprintf(kv, sizeof kv, "technique.l1_compression=%s", policy);
    set(&c, kv);
    int sets = c.l1.size_bytes / (128 * c.l1.assoc);
    gpuest_workload_t *wl = trace_set(sets, line_set, c.l1.assoc + 1, rounds);
    gpuest_technique_env_t env = {&c, gpuest_workload_image(wl), NULL, fann_model_dir, 1, wl, 0.0, 0.0, 0};
    gpuest_err rc = gpuest_technique_model_transform(&env, t, e);
    gpuest_workload_destroy(wl);
    return rc;
}

static gpuest_err transform(const char *policy, gpuest_model_transform_t *t, gpuest_error_t *e)
{
    return transform_on(policy, 0, 2, t, e);
}

/* assoc + 1 zero lines of one set, twice: the plain L1 (LRU, assoc ways) misses all 2(assoc + 1)
 * reads; BDI codes a zero line in a few bytes (one sub-block), so all fit in the compressed set
 * and only the first pass misses: miss rate x 0.5, and every hit is on a BDI line: +2 cycles.
 * SC has no code book in the first EP (256 accesses), so its lines stay raw: x 1, +0. Fails when
 * the walk does not reach the compressed L1, the sizes do not come from the line's bytes, or the
 * decompression latency is not BDI's. */
static void test_transform_by_hand(void **state)
{
    (void)state;
    gpuest_model_transform_t t;
    gpuest_error_t e = {0};
    assert_int_equal(transform("static_bdi", &t, &e), GPUEST_OK);
    assert_true(t.l1_miss_scale == 0.5);
    assert_true(t.l1_hit_extra_latency == 2.0);
    /* the decompression queue: every hit compressed, one line per instruction (none ahead); the
     * replay's read lines k = 0..9 at t = k g, the hits at k = 5..9: at g = 1 the queue builds
     * (waits 2, 4, 4, 6, 8: done 7, 10, 11, 14, 17), mean 24 / 5; at g = 2 each hit finds it empty */
    assert_true(t.l1_dq_latency == 2.0 && t.l1_dq_share == 1.0 && t.l1_dq_ahead == 0.0);
    assert_true(fabs(t.l1_dq_wait_at[0] - 24.0 / 5.0) < 1e-12);
    assert_true(t.l1_dq_wait_at[1] == 2.0 && t.l1_dq_wait_at[GPUEST_MODEL_DQ_SPACINGS - 1] == 2.0);
    assert_int_equal(transform("static_sc", &t, &e), GPUEST_OK);
    assert_true(t.l1_miss_scale == 1.0);
    assert_true(t.l1_hit_extra_latency == 0.0);
}

/* The adaptive policies, on 52 passes over the 5 zero lines of set 1 (260 reads: fermi's L1 has 32
 * sets, so set 1 is one of BDI's dedicated sets, and the SM's learning EP of 256 reads ends):
 * three candidates, the plain L1 (x 1, +0; LRU over 4 ways, all 260 miss), BDI (every line one
 * sub-block: only the first pass misses, x 5/260, +2) and the high-capacity mode. SC for latte_cc:
 * raw before its book (LRU thrash, every read misses), which is built when read 256 (line 0) ends
 * the EP; with the simulator's reservation read 256's miss drops the LRU line 1 at once (16 + 4 >
 * 16), read 257 (line 1) misses and drops line 2, read 258 (line 2) misses into the room the two
 * one-sub-block lines left, lines 3 and 4 hit raw: x 258/260, +0 (a walk without the reservation
 * drops line 1 only at line 0's fill and keeps line 2: 257/260). BPC for latte_cc_bdi_bpc
 * (a zero line is a few bytes: x 5/260, +11). Adaptive-CMP's events for BDI: the 255 later reads
 * hit the compressed L1 and miss the plain one (avoided 255/260), none hits both (paid 0). fann
 * carries the network's rule. Fails when a candidate's walk is lost (the walk consumes the
 * launches: both modes must ride one walk), the modes are mixed up, a policy gets another's rule,
 * SC's first book comes at the wrong read, or the misses do not reserve their tags. */
static void test_adaptive_candidates(void **state)
{
    (void)state;
    gpuest_model_transform_t t;
    gpuest_error_t e = {0};
    if (transform_on("latte_cc", 1, 52, &t, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    assert_int_equal(t.l1c_rule, GPUEST_MODEL_L1C_AMAT_GPU);
    assert_int_equal(t.l1c_modes, 3);
    assert_true(t.l1c_miss_scale[0] == 1.0 && t.l1c_hit_extra[0] == 0.0);
    assert_true(t.l1c_miss_scale[1] == 5.0 / 260.0 && t.l1c_hit_extra[1] == 2.0);
    assert_true(t.l1c_miss_scale[2] == 258.0 / 260.0 && t.l1c_hit_extra[2] == 0.0);
    assert_true(t.l1c_avoided[1] == 255.0 / 260.0 && t.l1c_paid[1] == 0.0);
    assert_true(t.l1_miss_scale == 0.0); /* the static fields stay the identity */
    assert_int_equal(transform_on("latte_cc_bdi_bpc", 1, 52, &t, &e), GPUEST_OK);
    assert_int_equal(t.l1c_mode_id[2], GPUEST_L1C_BPC);
    assert_true(t.l1c_miss_scale[2] == 5.0 / 260.0 && t.l1c_hit_extra[2] == 11.0);
    assert_int_equal(transform_on("adaptive_hit_count", 1, 52, &t, &e), GPUEST_OK);
    assert_int_equal(t.l1c_rule, GPUEST_MODEL_L1C_FEWEST_MISSES);
    assert_int_equal(transform_on("adaptive_cmp", 1, 52, &t, &e), GPUEST_OK);
    assert_int_equal(t.l1c_rule, GPUEST_MODEL_L1C_CMP);
    assert_int_equal(transform_on("fann", 1, 52, &t, &e), GPUEST_OK);
    assert_int_equal(t.l1c_rule, GPUEST_MODEL_L1C_EXTERNAL);
    assert_non_null(t.l1c_choose);
}

/* The policies' followers start in none and leave it only on their learning windows' counts
 * (l1c_learnwin.c). Two passes over set 1 (10 reads): the SM never finishes its learning EP, so
 * the simulator never decides and every policy's estimate is the plain L1's: the plain L1 is the
 * only candidate (the walk before this rule gave the three candidates and BDI's x 0.5).
 * 52 passes over set 0 (none's dedicated set): the EP ends, but none's set never hits (the plain L1
 * thrashes) and BDI's and SC's sets are never read: every AMAT_GPU is the miss latency, the tie
 * goes to none: the plain L1 alone again. Fails when the walk's candidates decide without a finished
 * learning EP, or without a window hit. */
static void test_adaptive_initial_mode(void **state)
{
    (void)state;
    const char *policies[] = {"latte_cc", "latte_cc_bdi_bpc", "adaptive_hit_count", "adaptive_cmp", "fann"};
    for (int i = 0; i < 5; i++) {
        gpuest_model_transform_t t;
        gpuest_error_t e = {0};
        for (int k = 0; k < 2; k++) {
            if (transform_on(policies[i], k ? 0 : 1, k ? 52 : 2, &t, &e) != GPUEST_OK)
                fail_msg("%s: %s", policies[i], e.msg);
            if (t.l1c_modes != 1 || t.l1c_mode_id[0] != GPUEST_L1C_NONE || t.l1c_miss_scale[0] != 1.0 ||
                t.l1c_hit_extra[0] != 0.0 || t.l1_miss_scale != 0.0)
                fail_msg("%s, %s: %d candidates (the plain L1 alone expected)", policies[i],
                         k ? "52 passes over none's set" : "no learning EP", t.l1c_modes);
        }
    }
}

/* The FANN features the model supplies, at candidate 1 (BDI) and EP position 3, with the rule's
 * AMAT_GPU per candidate and its choice (SC) in inputs 18-23. */
static void test_fann_features(void **state)
{
    (void)state;
    gpuest_model_l1c_view_t v;
    memset(&v, 0, sizeof v);
    v.avail_warps = 2.0;
    v.cycles_per_schedule = 1.5;
    v.latency_tolerance = 3.0;
    v.miss_latency = 250.0;
    v.miss_rate = 0.4;
    v.modes = 3;
    v.current = 1;
    v.mode_id[1] = GPUEST_L1C_BDI;
    v.mode_id[2] = GPUEST_L1C_SC;
    v.hit_ratio[0] = 0.5;
    v.hit_ratio[1] = 0.6;
    v.hit_ratio[2] = 0.7;
    v.hit_extra[1] = 1.5;
    v.capacity[1] = 1.8;
    v.amat_gpu[0] = 125.0; /* LATTE-CC's view: eq. 2 per candidate, the rule on SC */
    v.amat_gpu[1] = 100.75;
    v.amat_gpu[2] = 86.0;
    v.rule = 2;
    double x[GPUEST_L1C_FANN_FEATURES];
    tech_l1c_fann_features(&v, 3, x);
    const double want[GPUEST_L1C_FANN_FEATURES] = {2.0, 1.5, 3.0, 0.5, 0.6, 0.7, 2.0, 14.0, 0.4,
                                                   0.0, 250.0, 0.0, 1.8, 3.0, 0.0, 1.0, 0.0, 1.5,
                                                   125.0, 100.75, 86.0, 0.0, 0.0, 1.0};
    for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
        if (x[i] != want[i])
            fail_msg("feature %d (%s): %g, expected %g", i, gpuest_l1c_fann_feature_names[i], x[i], want[i]);
}

/* A run without launches is refused. */
static void test_refusals(void **state)
{
    (void)state;
    gpuest_model_transform_t t;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "fermi", &e), GPUEST_OK);
    set(&c, "technique.l1_compression=static_bpc");
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    assert_int_equal(gpuest_technique_model_transform(&env, &t, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "launches"));
}

/* The fills arrive at the requesting warp's next turn (l1c_fillq.c). 1-way sets (the plain L1
 * holds one line; the compressed one four zero lines of one sub-block each, BDI). Two warps of a
 * CTA each load a line (A, B), use it, load it again and use it: the walk's greedy bursts give
 * A0 (miss) B1 (miss) | fill A, A0 | fill B, B1. Both second loads hit both L1s: 2 misses each,
 * miss rate x 1, two hits on BDI lines (+2). A walk that installs a line at its miss gives the
 * plain L1 a third miss (B's fill evicts A before A0's reuse): x 2/3; one that never installs the
 * deferred fills, no hit at all (+0). */
static void test_fill_at_next_turn(void **state)
{
    (void)state;
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/turn.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,2\nkernel,0,k,1,1,1,64,1,1,0,16\n");
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < 2; r++)
            fprintf(f, "inst,0,0,%d,%d,load,4,00000001,0x%x,%d,\ninst,0,0,%d,%d,alu,0,00000001,,1,%d\n", w, 8 * r,
                    0x10000 + 0x600 * w, 8 + r, w, 8 * r + 4, 8 + r);
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/turn.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "fermi", &e), GPUEST_OK);
    set(&c, "technique.l1_compression=static_bdi");
    set(&c, "l1.size_bytes=1536"); /* 12 sets (the fewest allowed): A and B 12 lines apart, one set */
    set(&c, "l1.assoc=1");
    gpuest_technique_env_t env = {&c, gpuest_workload_image(wl), NULL, NULL, 1, wl, 0.0, 0.0, 0};
    gpuest_model_transform_t t;
    gpuest_err rc = gpuest_technique_model_transform(&env, &t, &e);
    assert_int_equal(rc, GPUEST_OK);
    gpuest_workload_destroy(wl);
    assert_true(t.l1_miss_scale == 1.0);
    assert_true(t.l1_hit_extra_latency == 2.0);
}

/* A period model in the estimate (docs/latte-cc.md, "Sixth round"): its network (outputs about
 * 0.5, 0.8, 0.9 whatever the input) predicts that holding SC saves (0.9 - 0.5) x 2 x 5 % = 4 % of a
 * period: at a 3 % margin the estimate's rule takes SC although LATTE-CC's rule takes BDI; at 5 %
 * the rule's BDI stays. Read as a per-EP model (SC against the rule's output 0.8: 1 %) it would
 * keep BDI at 3 %, which is what this catches, with a margin ignored (SC at 5 %). */
static void write_period_model(const char *dir, double margin)
{
    const double y[GPUEST_L1C_FANN_OUTPUTS] = {0.5, 0.8, 0.9};
    fann_test_write_model(dir, y, margin, 1);
}

static void test_fann_period_model_in_estimate(void **state)
{
    (void)state;
    char dir[2][64];
    const double margin[2] = {0.03, 0.05};
    const int want[2] = {2, 1};
    for (int k = 0; k < 2; k++) {
        snprintf(dir[k], sizeof dir[k], "/tmp/gpuest-l1cm-period-XXXXXX");
        assert_non_null(mkdtemp(dir[k])); /* one folder per model: the estimate caches by folder */
        write_period_model(dir[k], margin[k]);
        fann_model_dir = dir[k];
        gpuest_model_transform_t t;
        gpuest_error_t e = {0};
        if (transform_on("fann", 1, 52, &t, &e) != GPUEST_OK)
            fail_msg("%s", e.msg);
        fann_model_dir = NULL;
        assert_non_null(t.l1c_choose);
        gpuest_model_l1c_view_t v;
        memset(&v, 0, sizeof v);
        v.modes = 3;
        v.rule = 1;
        assert_int_equal(t.l1c_choose(&v), want[k]);
        char p[256];
        snprintf(p, sizeof p, "%s/latte-fann.net", dir[k]);
        unlink(p);
        snprintf(p, sizeof p, "%s/latte-fann.scale.csv", dir[k]);
        unlink(p);
        rmdir(dir[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fit_by_hand), cmocka_unit_test(test_store_evicts),
                                       cmocka_unit_test(test_transform_by_hand), cmocka_unit_test(test_refusals),
                                       cmocka_unit_test(test_adaptive_candidates), cmocka_unit_test(test_fann_features),
                                       cmocka_unit_test(test_adaptive_initial_mode),
                                       cmocka_unit_test(test_fill_at_next_turn),
                                       cmocka_unit_test(test_fann_period_model_in_estimate)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
