/* test_probe_model.c: the model transform of remote-L1 probing on hand-built traces whose remote
 * hit rates are worked out by hand, its effect on the closed model's demands, and its refusals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "probe_test_util.h"
#include "technique/technique.h"
#include "technique/technique_int.h"

#define TMP GPUEST_BINARY_DIR "/probe_model_tmp"

static void set(gpuest_config_t *c, const char *kv)
{
    gpuest_error_t e = {0};
    if (gpuest_config_set(c, kv, "test", &e) != GPUEST_OK)
        fail_msg("%s: %s", kv, e.msg);
}

/* One kernel of n one-warp CTAs; CTA i (SM i) reads all 128 bytes of the line at lines[i]. */
static gpuest_workload_t *trace(const unsigned *lines, int n)
{
    mkdir(TMP, 0755);
    FILE *f = fopen(TMP "/t.csv", "w");
    assert_non_null(f);
    fprintf(f, "gpuest_trace,1\nkernel,0,k,%d,1,1,32,1,1,0,8\n", n);
    for (int i = 0; i < n; i++) {
        fprintf(f, "inst,0,%d,0,1,load,4,ffffffff,", i);
        for (int k = 0; k < 32; k++)
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

/* mesh56 with the probing keys kv[] set; the transform of the trace lines[0..n). */
static gpuest_err transform(const char *const *kv, const unsigned *lines, int n, gpuest_model_transform_t *t,
                            gpuest_error_t *e)
{
    gpuest_config_t c;
    assert_int_equal(gpuest_config_preset(&c, "mesh56", e), GPUEST_OK);
    set(&c, "noc.buffer_flits=9");
    for (int i = 0; kv[i]; i++)
        set(&c, kv[i]);
    gpuest_workload_t *wl = trace(lines, n);
    gpuest_technique_env_t env = {&c, gpuest_workload_image(wl), NULL, NULL, 1, wl, 0.0, 0.0, 0};
    gpuest_err rc = gpuest_technique_model_transform(&env, t, e);
    gpuest_workload_destroy(wl);
    return rc;
}

/* mesh56 with the probing keys kv[] set; the mapping of misses by other holders k (holders[k]). */
static void map_holders(const char *const *kv, const uint64_t *h, int nh, gpuest_model_transform_t *t)
{
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "mesh56", &e), GPUEST_OK);
    set(&c, "noc.buffer_flits=9");
    for (int i = 0; kv[i]; i++)
        set(&c, kv[i]);
    uint64_t holders[GPUEST_CHARACT_MAX_HOLDERS + 1] = {0}, misses = 0;
    for (int k = 0; k < nh; k++) {
        holders[k] = h[k];
        misses += h[k];
    }
    gpuest_model_transform_identity(t);
    tech_probe_map(&c, misses, holders, t);
}

/* Four L1 misses with 0, 1, 2 and 0 other SMs holding the line (SMs 0, 1, 2 reading line A in
 * turn long apart, SM 3 line B): holders {2, 1, 1}. PP: 2 of 4 served remotely, over no network. IP(55,1,1) on 56 SMs probes
 * every other core: the same 1/2, each found miss one probe walking the 55 cores in random order
 * to the first of k holders: 56 / (k + 1) cores visited (28 for one holder, 56/3 for two), one
 * packet each, and that many traversals less the L2's one. IP(15,1,1): a sharer among 15 of 55 cores with probability 15/55 (one sharer)
 * and 1 - (40 x 39) / (55 x 54) = 1410/2970 (two). Fails when the walk counts the miss's own
 * SM or the line it is filling as a holder, or the subset probability is wrong. */
static void test_remote_hit_rate_by_hand(void **state)
{
    (void)state;
    const uint64_t h[] = {2, 1, 1};
    gpuest_model_transform_t t;
    const char *pp[] = {"technique.probing=pp", NULL};
    map_holders(pp, h, 3, &t);
    assert_float_equal(t.remote_read_share, 0.5, 0.0);
    assert_float_equal(t.remote_net_share, 0.0, 0.0);
    assert_float_equal(t.probe_msgs_per_read, 0.0, 0.0);
    const char *all[] = {"technique.probing=ip", "technique.probe_cores=55", "technique.probe_count=1",
                         "technique.probe_rate=1", NULL};
    map_holders(all, h, 3, &t);
    assert_float_equal(t.remote_read_share, 0.5, 1e-15);
    assert_float_equal(t.remote_net_share, 1.0, 0.0);
    assert_float_equal(t.probe_msgs_per_read, (28.0 + 56.0 / 3) / 4, 1e-12);
    assert_float_equal(t.probe_extra_trips, (27.0 + 53.0 / 3) / 4, 1e-12);
    const char *ip15[] = {"technique.probing=ip", "technique.probe_cores=15", "technique.probe_count=1",
                          "technique.probe_rate=1", NULL};
    map_holders(ip15, h, 3, &t);
    assert_float_equal(t.remote_read_share, (810.0 / 2970 + 1410.0 / 2970) / 4, 1e-12);
    /* P = 0.5 with S = 1: half the taken misses go straight to the L2 */
    const char *half[] = {"technique.probing=ip", "technique.probe_cores=55", "technique.probe_count=1",
                          "technique.probe_rate=0.5", NULL};
    map_holders(half, h, 3, &t);
    assert_float_equal(t.remote_read_share, 0.25, 1e-15);
}

/* The same four misses walked from a trace: the four SMs miss in one round of the walk, so each
 * line is still in flight (fewer than num_sms x l1.mshrs = 1792 misses since it was missed) and no
 * SM holds another's: PP serves none remotely. Fails when the walk counts a line as held from the
 * moment it is missed (the lockstep walk's upper bound, 1/2 here). */
static void test_in_flight_lines_not_held(void **state)
{
    (void)state;
    const unsigned lines[] = {0x10000, 0x10000, 0x10000, 0x20000};
    gpuest_error_t e = {0};
    gpuest_model_transform_t t;
    const char *pp[] = {"technique.probing=pp", NULL};
    if (transform(pp, lines, 4, &t, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    assert_float_equal(t.remote_read_share, 0.0, 0.0);
}

/* The subset probability against its closed forms. */
static void test_find_prob(void **state)
{
    (void)state;
    assert_float_equal(tech_probe_find_prob(55, 55, 1), 1.0, 0.0);
    assert_float_equal(tech_probe_find_prob(55, 15, 1), 15.0 / 55, 1e-15);
    assert_float_equal(tech_probe_find_prob(27, 1, 3), 3.0 / 27, 1e-15);
    assert_float_equal(tech_probe_find_prob(27, 5, 0), 0.0, 0.0);
}

/* The PC predictor's fixed point by hand. g = 1: every window passes, state 0 probes every miss;
 * g = 0: every window fails, state 3 probes 4 of 256. g = 0.1: windows of 32, 16, 8, 4 probed
 * misses pass (at least 4, 2, 1, 1 remote hits) with probability 0.399694, 0.485272, 0.569533,
 * 0.3439; the birth-death chain gives pi = 1, 1.237060, 1.118031, 1.399473 and a probed share of
 * (32 + 16 pi1 + 8 pi2 + 4 pi3) / (32 + 64 pi1 + 128 pi2 + 256 pi3) = 0.1082956. Fails on a wrong
 * window, threshold, chain direction or share weighting (by windows instead of misses). */
static void test_predictor_rate_by_hand(void **state)
{
    (void)state;
    assert_float_equal(tech_probe_pred_rate(1.0), 1.0, 1e-15);
    assert_float_equal(tech_probe_pred_rate(0.0), 4.0 / 256.0, 1e-15);
    assert_float_equal(tech_probe_pred_rate(0.1), 0.1082956145, 1e-9);
}

/* CCN on the trace above (four misses in one round of the walk: every line still in flight, so k
 * = 0 for all four on 56 SMs). Every SM's predictor starts in strong shared and probes every miss
 * of its first window of 32, so all four are probed, shared or not: each chain visits the 55 other
 * cores and comes home with a NACK: 56 packets and 56 traversals per miss, 55 L1 lookups, no
 * remote hit. (The predictor's stationary law would have probed 4 in 256.) LA-LLC: SM 1's and SM
 * 2's misses find the line's last reader (SM 0, SM 1), whose read is still in flight: both go back
 * to the L2, none is answered. Fails when RP probes only shared misses (the oracle), CCN searches
 * fewer cores, the predictor is taken at its fixed point, or LA-LLC counts the first reader or a
 * line in flight as held. */
static void test_rp_ccn_llc_by_hand(void **state)
{
    (void)state;
    const unsigned lines[] = {0x10000, 0x10000, 0x10000, 0x20000};
    gpuest_error_t e = {0};
    gpuest_model_transform_t t;
    const char *ccn[] = {"technique.probing=ccn", NULL};
    if (transform(ccn, lines, 4, &t, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    assert_float_equal(t.remote_read_share, 0.0, 0.0);
    assert_float_equal(t.probe_msgs_per_read, 56.0, 1e-12);
    assert_float_equal(t.probe_extra_trips, 56.0, 1e-12);
    assert_float_equal(t.probe_visits_per_read, 55.0, 1e-12);
    const char *llc[] = {"technique.probing=la_llc", NULL};
    assert_int_equal(transform(llc, lines, 4, &t, &e), GPUEST_OK);
    assert_true(t.llc_fwd_hold == 0.0 && t.llc_fwd_gone == 0.5);
    assert_true(t.remote_read_share == 0.0 && t.probe_msgs_per_read == 0.0);
}

/* LA-LLC's walk by hand, 2 SMs with one-line L1s: SM 0 A (no last reader), SM 1 A (SM 0 holds A:
 * forwarded), SM 0 B (A leaves SM 0), SM 1 B (SM 0 holds B: forwarded), SM 0 A (last reader SM 1
 * holds B now: the read comes back). 5 misses: 2/5 to a holder, 1/5 to a reader that lost it.
 * Fails when the table is not updated by every read or the holder is looked up in the wrong L1. */
static void test_llc_walk_by_hand(void **state)
{
    (void)state;
    tech_llc_walk_t *w = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(tech_llc_walk_create(2, 1, 1, 1021, &w, &e), GPUEST_OK); /* A, B: entries 12, 24 */
    const int sm[] = {0, 1, 0, 1, 0};
    const uint64_t line[] = {0x1000, 0x1000, 0x2000, 0x2000, 0x1000};
    for (int i = 0; i < 5; i++)
        tech_llc_walk_access(w, sm[i], line[i], 1);
    double hold, gone;
    tech_llc_walk_shares(w, &hold, &gone);
    assert_float_equal(hold, 0.4, 1e-15);
    assert_float_equal(gone, 0.2, 1e-15);
    tech_llc_walk_destroy(w);
    /* the same with a two-miss in-flight window: the reads at misses 1 and 3 find their last
     * reader's read one miss old (still in flight): back to the L2; miss 4's last reader (SM 1,
     * three misses ago) holds B, not A: 0 to a holder, 3/5 back. With a one-miss window the
     * result is the first one's (a line is there from the next miss on). */
    static const uint64_t delays[] = {2, 1};
    static const double want_hold[] = {0.0, 0.4}, want_gone[] = {0.6, 0.2};
    for (int d = 0; d < 2; d++) {
        assert_int_equal(tech_llc_walk_create(2, 1, 1, 1021, &w, &e), GPUEST_OK);
        tech_llc_walk_set_delay(w, delays[d]);
        for (int i = 0; i < 5; i++)
            tech_llc_walk_access(w, sm[i], line[i], 1);
        tech_llc_walk_shares(w, &hold, &gone);
        assert_float_equal(hold, want_hold[d], 1e-15);
        assert_float_equal(gone, want_gone[d], 1e-15);
        tech_llc_walk_destroy(w);
    }
}

/* No launches: refused. */
static void test_refusals(void **state)
{
    (void)state;
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "mesh56", &e), GPUEST_OK);
    set(&c, "noc.buffer_flits=9");
    set(&c, "technique.probing=pp");
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_model_transform_t t;
    assert_int_equal(gpuest_technique_model_transform(&env, &t, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "launches"));
}

/* The closed model: half the reads served remotely halve the MC reply port's flits per read
 * (no writes: its utilisation per unit of IPC halves exactly) and raise IPC; probe packets and
 * failed-probe traversals with no remote hit only cost: IPC falls, request latency rises. Fails
 * when the remote share misses the MC port, or the probe load is dropped. */
static void test_model_demands(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&cfg, "noc.flit_bytes=16", "test", &err), GPUEST_OK);
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_model_workload_t w;
    probe_test_workload(&w);
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_gpu_estimate_t base, rem, cost;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.remote_read_share = 0.5;
    t.remote_net_share = 1.0;
    t.probe_msgs_per_read = 0.5;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &rem, &err), GPUEST_OK);
    double per_base = base.inject_util / base.ipc, per_rem = rem.inject_util / rem.ipc;
    if (fabs(per_rem - 0.5 * per_base) > 1e-9 * per_base)
        fail_msg("MC injection per IPC %g with half the reads remote, %g without", per_rem, per_base);
    assert_true(rem.ipc > base.ipc);
    assert_true(rem.mem_latency < base.mem_latency);
    gpuest_model_transform_identity(&t);
    t.probe_msgs_per_read = 4.0;
    t.probe_extra_trips = 2.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &cost, &err), GPUEST_OK);
    assert_true(cost.ipc < base.ipc);
    assert_true(cost.req_latency > base.req_latency);
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_remote_hit_rate_by_hand), cmocka_unit_test(test_find_prob),
                                       cmocka_unit_test(test_in_flight_lines_not_held),
                                       cmocka_unit_test(test_refusals), cmocka_unit_test(test_predictor_rate_by_hand),
        cmocka_unit_test(test_rp_ccn_llc_by_hand), cmocka_unit_test(test_llc_walk_by_hand), cmocka_unit_test(test_model_demands)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
