/* test_tech_model.c: the model transforms of coalescing (and its refusals) on hand-built traces
 * whose answers are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "technique/technique.h"
#include "technique/technique_int.h"

#define TMP GPUEST_BINARY_DIR "/tech_model_tmp"

static void preset(gpuest_config_t *c, const char *name)
{
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(c, name, &e), GPUEST_OK);
}

static void set(gpuest_config_t *c, const char *kv)
{
    gpuest_error_t e = {0};
    if (gpuest_config_set(c, kv, "test", &e) != GPUEST_OK)
        fail_msg("%s: %s", kv, e.msg);
}

/* A trace of one kernel with n CTAs of one 32-thread warp; CTA i (SM i) reads the first
 * lanes[i] x 4 bytes of the 128-byte line at lines[i] (lanes NULL: all 32). */
static gpuest_workload_t *trace_lanes(const unsigned *lines, const int *lanes, int n)
{
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,1\nkernel,0,k,%d,1,1,32,1,1,0,8\n", n);
    for (int i = 0; i < n; i++) {
        int nl = lanes ? lanes[i] : 32;
        fprintf(f, "inst,0,%d,0,1,load,4,%08x,", i, nl == 32 ? 0xffffffffu : (1u << nl) - 1u);
        for (int k = 0; k < nl; k++)
            fprintf(f, "%s0x%x", k ? " " : "", lines[i] + 4 * k);
        fprintf(f, "\n");
    }
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/t.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return wl;
}

static gpuest_workload_t *trace(const unsigned *lines, int n) { return trace_lanes(lines, NULL, n); }

static double saved(const char *value, const unsigned *lines, int n, gpuest_err *rc, gpuest_error_t *e)
{
    gpuest_config_t c;
    preset(&c, "mesh56");
    set(&c, "noc.buffer_flits=9");
    char kv[64];
    snprintf(kv, sizeof kv, "technique.coalescing=%s", value);
    set(&c, kv);
    gpuest_workload_t *wl = trace(lines, n);
    gpuest_technique_env_t env = {&c, gpuest_workload_image(wl), NULL, NULL, 1, wl, 0.0, 0.0, 0};
    gpuest_model_transform_t t;
    *rc = gpuest_technique_model_transform(&env, &t, e);
    gpuest_workload_destroy(wl);
    return t.reply_packets_saved;
}

/* SMs 0 and 1 read the same line one after the other (well inside the 8 x 128 window): the
 * second read is shared, so the locality ratio is 1/2 and half the read replies are saved. A
 * third SM reading another line: 1 shared read of 3. Two different lines: nothing shared.
 * Fails when the walk counts an SM's first read as shared, or spreads the CTAs over one SM. */
static void test_pcu_locality_by_hand(void **state)
{
    (void)state;
    gpuest_error_t e = {0};
    gpuest_err rc;
    const unsigned same[] = {0x10000, 0x10000}, third[] = {0x10000, 0x10000, 0x20000}, apart[] = {0x10000, 0x20000};
    double s = saved("pcu", same, 2, &rc, &e);
    if (rc != GPUEST_OK)
        fail_msg("%s", e.msg);
    assert_float_equal(s, 0.5, 0.0);
    s = saved("pcu", third, 3, &rc, &e);
    assert_int_equal(rc, GPUEST_OK);
    assert_float_equal(s, 1.0 / 3.0, 1e-15);
    s = saved("pcu", apart, 2, &rc, &e);
    assert_int_equal(rc, GPUEST_OK);
    assert_float_equal(s, 0.0, 0.0);
}

/* The WarpPool walked by hand, one SM, 2 queues of depth 2: load A binds q0; load A merges (q0
 * full, closed); load A binds q1; load B finds no free queue: the oldest (q0) makes its access and
 * B binds it; load A merges into q1 (full); store B closes B's open queue and binds a queue of its
 * own (q1, the oldest, goes); load B cannot join a closed queue: binds. 2 merged of 7. Fails when
 * a full queue takes more, stores merge or do not close their line's queue, or the youngest queue
 * is drained instead of the oldest (load A at step 5 would then find no open A queue). */
static void test_warppool_pool_by_hand(void **state)
{
    (void)state;
    tech_wpm_pool_t *p = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_wpm_create(1, 2, 2, &p, &e), GPUEST_OK);
    const uint64_t A = 0x1000, B = 0x2000;
    const uint64_t line[] = {A, A, A, B, A, B, B};
    const int load[] = {1, 1, 1, 1, 1, 0, 1}, merged[] = {0, 1, 0, 0, 1, 0, 0};
    for (int i = 0; i < 7; i++)
        if (tech_wpm_request(p, 0, line[i], load[i]) != merged[i])
            fail_msg("request %d (%s %s): merged %d expected", i, load[i] ? "load" : "store", line[i] == A ? "A" : "B",
                     merged[i]);
    assert_float_equal(tech_wpm_merged_share(p), 2.0 / 7.0, 1e-15);
    tech_wpm_destroy(p);
}

static gpuest_err wp_transform(const char *value, const unsigned *lines, int n, gpuest_model_transform_t *t,
                               gpuest_error_t *e)
{
    gpuest_config_t c;
    preset(&c, "mesh56");
    set(&c, "noc.buffer_flits=9");
    char kv[64];
    snprintf(kv, sizeof kv, "technique.coalescing=%s", value);
    set(&c, kv);
    gpuest_workload_t *wl = trace(lines, n);
    gpuest_technique_env_t env = {&c, gpuest_workload_image(wl), NULL, NULL, 1, wl, 0.0, 0.0, 0};
    gpuest_err rc = gpuest_technique_model_transform(&env, t, e);
    gpuest_workload_destroy(wl);
    return rc;
}

/* The WarpPool transform: two SMs read the same line, one warp each: pools are per SM, so nothing
 * merges at any of the sizes 1, 2, 4, ..., 32 (6 sizes), every access spends the pool's 2 cycles;
 * with pcu+warppool the same walk gives the PCUs' 1/2. Fails when the pools are shared between
 * SMs, the sizes are miscounted, the latency is dropped or the PCU locality is lost. */
static void test_warppool_transform(void **state)
{
    (void)state;
    gpuest_error_t e = {0};
    gpuest_model_transform_t t;
    const unsigned same[] = {0x10000, 0x10000};
    if (wp_transform("warppool", same, 2, &t, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    assert_int_equal(t.l1_merge_windows, 6);
    for (int i = 0; i < 6; i++)
        assert_true(t.l1_merge_share[i] == 0.0);
    assert_true(t.l1_hit_extra_latency == 2.0);
    assert_true(t.reply_packets_saved == 0.0);
    assert_int_equal(wp_transform("pcu+warppool", same, 2, &t, &e), GPUEST_OK);
    assert_true(t.reply_packets_saved == 0.5);
    assert_int_equal(t.l1_merge_windows, 6);
}

/* One CTA (SM 0) of one warp that loads the n lines at lines[] in turn, 32 lanes each. */
static gpuest_workload_t *trace_one_warp(const unsigned *lines, int n)
{
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t1.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,1\nkernel,0,k,1,1,1,32,1,1,0,8\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "inst,0,0,0,%d,load,4,ffffffff,", 8 * i);
        for (int k = 0; k < 32; k++)
            fprintf(f, "%s0x%x", k ? " " : "", lines[i] + 4 * k);
        fprintf(f, "\n");
    }
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/t1.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return wl;
}

/* The set-reservation replay runs only when the estimate applies its relief (env.pool_setres):
 * one warp misses on eight lines of one L1 set (4 ways), so the in-order unit stalls on the fifth
 * and the replay measures a relief; without the flag the transform leaves ldst_block_scale at the
 * identity's 0 (the replay is skipped, not computed and dropped). Fails when the flag is ignored
 * either way: the relief lost with --pool-setres on, or the replay run with it off. */
static void test_warppool_setres_replay_on_request(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "mesh56");
    set(&c, "technique.coalescing=warppool");
    unsigned stride = (unsigned)(c.l1.size_bytes / c.l1.assoc); /* one way: the same set again */
    unsigned lines[8];
    for (int i = 0; i < 8; i++)
        lines[i] = 0x100000u + (unsigned)i * stride;
    for (int on = 0; on <= 1; on++) {
        gpuest_workload_t *wl = trace_one_warp(lines, 8);
        gpuest_technique_env_t env = {&c, gpuest_workload_image(wl), NULL, NULL, 1, wl, 0.0, 0.0, on};
        gpuest_model_transform_t t;
        gpuest_error_t e = {0};
        gpuest_err rc = gpuest_technique_model_transform(&env, &t, &e);
        gpuest_workload_destroy(wl);
        if (rc != GPUEST_OK)
            fail_msg("%s", e.msg);
        if (on)
            assert_true(t.ldst_block_scale > 0.0);
        else
            assert_true(t.ldst_block_scale == 0.0);
    }
}

/* Without the workload's launches there is nothing to measure the locality on: refused. */
static void test_pcu_needs_launches(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "mesh56");
    set(&c, "noc.buffer_flits=9");
    set(&c, "technique.coalescing=pcu");
    gpuest_error_t e = {0};
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_model_transform_t t;
    gpuest_err rc = gpuest_technique_model_transform(&env, &t, &e);
    assert_int_equal(rc, GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "launches"));
}

/* Data filtering on mesh56 (16-byte flits): SM0 reads 8 lanes x 4 B of line A (one sector: a
 * partial read whose reply carries 256 data bits + the 4-bit sector map), SM1 all of line B (a
 * full read: the 1024-bit line). Half the replies at each size. With the request controller's FDR
 * threshold at 40 % the launch's 50 % full reads switch it to whole lines: every reply full.
 * Fails when the sector count, the map bits or the controller's rule are wrong. */
static void test_filtering_reply_sizes_by_hand(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "mesh56");
    set(&c, "technique.filtering=df_truc");
    const unsigned lines[] = {0x10000, 0x20000};
    const int lanes[] = {8, 32};
    int fp = gpuest_packet_flits(260, c.noc.flit_bytes, c.noc.header_bytes);
    int ff = gpuest_packet_flits(1024, c.noc.flit_bytes, c.noc.header_bytes);
    assert_true(fp < ff);
    gpuest_error_t e = {0};
    gpuest_model_transform_t t;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            set(&c, "technique.filter_fdr_threshold=40");
        gpuest_workload_t *wl = trace_lanes(lines, lanes, 2);
        gpuest_technique_env_t env = {&c, gpuest_workload_image(wl), NULL, NULL, 1, wl, 0.0, 0.0, 0};
        gpuest_err rc = gpuest_technique_model_transform(&env, &t, &e);
        gpuest_workload_destroy(wl);
        if (rc != GPUEST_OK)
            fail_msg("%s", e.msg);
        for (int f = 1; f <= GPUEST_MODEL_MAX_FLITS; f++) {
            double want = pass == 0 ? (f == fp || f == ff ? 0.5 : 0.0) : (f == ff ? 1.0 : 0.0);
            if (t.reply_flit_hist[f] != want)
                fail_msg("pass %d: hist[%d] = %g, expected %g", pass, f, t.reply_flit_hist[f], want);
        }
    }
    assert_float_equal(t.compress_latency, 2.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pcu_locality_by_hand), cmocka_unit_test(test_warppool_pool_by_hand),
                                       cmocka_unit_test(test_warppool_transform),
                                       cmocka_unit_test(test_warppool_setres_replay_on_request),
                                       cmocka_unit_test(test_pcu_needs_launches),
                                       cmocka_unit_test(test_filtering_reply_sizes_by_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
