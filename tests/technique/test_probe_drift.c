/* test_probe_drift.c: the remote-L1 probing walk with SMs that drift apart, worked by hand: the
 * simulator's CTA placement, the per-SM rates of the walk's rounds, each SM's rate from its zero-load
 * L2-hit latency on mesh56, and the in-flight window from the calibrated baseline (Little's law). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "study/study.h"
#include "technique/technique.h"
#include "technique/technique_int.h"

#define TMP GPUEST_BINARY_DIR "/probe_drift_tmp"

/* The simulator's CTA issue (gpu.c, assign_ctas) moves its pointer past each SM that takes a CTA,
 * inside the loop over k = 0 .. num_sms - 1 (SM rr + k). 4 SMs, 2 CTAs each: cycle 1 tries SM 0
 * (pointer 1), 1 + 1 = 2 (pointer 3), 3 + 2 = 5 = 1 (pointer 2), 2 + 3 = 5 = 1 (SM 1's second);
 * cycle 2 from pointer 2: SM 2 (pointer 3), 3 + 1 = 0, 1 + 2 = 3 (pointer 0), 0 + 3 = 3: the order
 * 0 2 1 1 2 0 3 3. 56 SMs: 0, 2, 5, 9, 14, 20, 27, 35, 44, 54, then 55 + 10 = 65 = 9 (the order the
 * simulator's trace of a mesh56 launch shows). Fails with CTA c on SM c mod num_sms, with the
 * pointer taken before the loop (0 1 2 3 ...), or when an SM takes more than per_sm. */
static void test_cta_place_by_hand(void **state)
{
    (void)state;
    int sm[64], count[56];
    static const int four[] = {0, 2, 1, 1, 2, 0, 3, 3};
    assert_int_equal(gpuest_cta_place_first(4, 2, 100, sm, count, 64), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(sm[i], four[i]);
    for (int s = 0; s < 4; s++)
        assert_int_equal(count[s], 2);
    assert_int_equal(gpuest_cta_place_first(4, 2, 6, sm, count, 64), 6); /* fewer CTAs than slots */
    assert_int_equal(count[3], 0);
    static const int mesh[] = {0, 2, 5, 9, 14, 20, 27, 35, 44, 54, 9};
    assert_int_equal(gpuest_cta_place_first(56, 8, 11, sm, count, 64), 11);
    for (int i = 0; i < 11; i++)
        assert_int_equal(sm[i], mesh[i]);
    assert_int_equal(count[9], 2);
}

/* One kernel of two one-warp CTAs (CTA i on SM i): each reads line A, then a line of its own, then
 * another of its own, one load each. */
static gpuest_workload_t *two_ctas(void)
{
    static const unsigned lines[2][3] = {{0x10000, 0x20000, 0x30000}, {0x10000, 0x40000, 0x50000}};
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,1\nkernel,0,k,2,1,1,32,1,1,0,8\n");
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 3; i++) {
            fprintf(f, "inst,0,%d,0,%d,load,4,ffffffff,", c, 8 * (i + 1));
            for (int k = 0; k < 32; k++)
                fprintf(f, "%s0x%x", k ? " " : "", lines[c][i] + 4 * k);
            fprintf(f, "\n");
        }
    fclose(f);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t e = {0};
    if (gpuest_workload_open_csv(TMP "/t.csv", NULL, &wl, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return wl;
}

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)err;
    uint64_t *shared = ctx;
    for (int k = 1; k <= GPUEST_CHARACT_MAX_HOLDERS; k++)
        *shared += s->miss_holders[k];
    return GPUEST_OK;
}

static uint64_t shared_misses(const double *rate, uint64_t delay)
{
    gpuest_workload_t *wl = two_ctas();
    gpuest_charact_opts_t o;
    gpuest_charact_opts_default(&o);
    o.num_sms = 2;
    o.holder_delay = delay;
    o.sm_rate = rate;
    uint64_t shared = 0;
    gpuest_error_t e = {0};
    if (gpuest_workload_characterize(wl, &o, on_launch, NULL, &shared, NULL, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    gpuest_workload_destroy(wl);
    return shared;
}

/* An SM of rate r issues in a round once its credit (r a round, from 0) reaches 1. Window 2 misses
 * (a line counts once 2 misses followed its own). Lockstep: round 1 is SM 0's miss on A (0), then
 * SM 1's at miss 1: 0 + 2 > 1, no holder. SM 1 at rate 1/2 (rounds 2, 4, 6): SM 0 misses A and
 * then its own line (misses 0, 1), SM 1 reaches A at miss 2: 0 + 2 <= 2, one holder. SM 0 at 1/2
 * instead: SM 1 misses A first (0), SM 0 at miss 1, no holder. Window 3 and SM 1 at 1/2: A at miss
 * 2 < 0 + 3, none; at 1/3 (round 3, after SM 0's three misses): one. Fails when the walk ignores the
 * rates, steps a slow SM in round 1, or spends its credit wrongly. */
static void test_rates_by_hand(void **state)
{
    (void)state;
    static const double half1[] = {1.0, 0.5}, half0[] = {0.5, 1.0}, third1[] = {1.0, 1.0 / 3.0};
    assert_int_equal(shared_misses(NULL, 2), 0);
    assert_int_equal(shared_misses(half1, 2), 1);
    assert_int_equal(shared_misses(half0, 2), 0);
    assert_int_equal(shared_misses(half1, 3), 0);
    assert_int_equal(shared_misses(third1, 3), 1);
}

/* mesh56: SM s on node s (rows 0-6), MCs on row 7. The open model's zero-load latency over h hops
 * is 4 h + 6 for a one-flit request and 4 h + 14 for a 9-flit line reply (8 more flits), so a
 * round trip over a mean of H hops is 8 H + 20; with the L1 (20) and L2 (120) hit latencies the
 * SM's L2-hit latency is 160 + 8 H. Mean column distance to the 8 MCs: 3.5 from column 0, 2 from
 * columns 3 and 4. SM 51 (row 6, column 3): H = 1 + 2 = 3, 184, the fastest; SM 0: H = 7 + 3.5,
 * 244; SM 27 (row 3, column 3): 4 + 2, 208; SM 55: 1 + 3.5, 196. fermi (a crossbar): every rate 1.
 * Fails when hops stand for latency, the reply's flits or the hit latencies are left out, or the
 * rate is inverted. */
static void test_sm_rates_by_hand(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    double rate[64];
    assert_int_equal(gpuest_config_preset(&c, "mesh56", &e), GPUEST_OK);
    assert_int_equal(tech_probe_sm_rates(&c, rate), 1);
    assert_float_equal(rate[51], 1.0, 1e-12);
    assert_float_equal(rate[52], 1.0, 1e-12);
    assert_float_equal(rate[0], 184.0 / 244.0, 1e-12);
    assert_float_equal(rate[27], 184.0 / 208.0, 1e-12);
    assert_float_equal(rate[55], 184.0 / 196.0, 1e-12);
    assert_int_equal(gpuest_config_preset(&c, "fermi", &e), GPUEST_OK);
    assert_int_equal(tech_probe_sm_rates(&c, rate), 0);
    for (int s = 0; s < c.core.num_sms; s++)
        assert_float_equal(rate[s], 1.0, 0.0);
}

/* Little's law on the calibration's baseline: IPC 320 thread instructions of 32 lanes = 10 warp
 * instructions a cycle, 2 per request: 5 requests, 3.75 of them reads (write share 0.25), 400
 * cycles each: 1500 misses in flight. The window takes it rounded (1500.4 -> 1500) up to mesh56's
 * bound of 56 SMs x 32 MSHRs = 1792; not known (0) or above the bound: 1792. Fails when writes are
 * counted, lanes or AMAT are left out, or the bound is not applied. */
static void test_in_flight_window_by_hand(void **state)
{
    (void)state;
    static gpuest_calibration_t cal;
    memset(&cal, 0, sizeof cal);
    assert_float_equal(gpuest_study_misses_in_flight(&cal), 0.0, 0.0);
    cal.nruns = 1;
    cal.runs[0].ipc = 320.0;
    cal.runs[0].amat = 400.0;
    cal.runs[0].in.threads_per_warp_inst = 32.0;
    cal.runs[0].in.insts_per_request = 2.0;
    cal.runs[0].in.write_fraction = 0.25;
    assert_float_equal(gpuest_study_misses_in_flight(&cal), 1500.0, 1e-9);
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "mesh56", &e), GPUEST_OK);
    assert_int_equal(tech_probe_holder_delay(&c, 1500.4), 1500);
    assert_int_equal(tech_probe_holder_delay(&c, 0.0), 1792);
    assert_int_equal(tech_probe_holder_delay(&c, 5000.0), 1792);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cta_place_by_hand), cmocka_unit_test(test_rates_by_hand),
                                       cmocka_unit_test(test_sm_rates_by_hand),
                                       cmocka_unit_test(test_in_flight_window_by_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
