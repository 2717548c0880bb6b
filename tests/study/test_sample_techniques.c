/* test_sample_techniques.c: a sampled run applies the techniques a configuration names, as
 * 'gpuest simulate' does. The bug it catches: gpuest_study_sample running every unit without the
 * techniques' simulator hooks, so that a hooked technique (here the compressed L1) is silently
 * measured as the baseline; an oracle that only 'gpuest simulate' can run being accepted; and an
 * out-of-range tail stratum accepted silently; fast-forward filling the compressed L1 as raw lines
 * without asking the policy (no l1c_fill call from fast-forward, or one without the line's bytes);
 * fast-forward filling data filtering's sectored L1 with whole lines without asking its request
 * controller; fast-forward leaving remote-L1 probing's predictors and reply compression's
 * dictionaries as the last detailed unit left them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"

static gpuest_err sample_tail(const char *setting, int tail, gpuest_study_sampled_t *s, gpuest_error_t *err)
{
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", err), GPUEST_OK);
    if (setting)
        assert_int_equal(gpuest_config_set(&cfg, setting, "test", err), GPUEST_OK);
    gpuest_sample_opts_t o;
    gpuest_sample_opts_default(&o);
    o.units = 8;
    o.unit_insts = 200;
    o.warm_cycles = 200;
    o.tail_stratum = tail;
    return gpuest_study_sample(&cfg, "bfs", GPUEST_SCALE_TINY, 3, &o, 0.997, 0.0, s, err);
}

static gpuest_err sample_with(const char *setting, gpuest_study_sampled_t *s, gpuest_error_t *err)
{
    return sample_tail(setting, 0, s, err);
}

/* hotspot (tiny) sampled on fermi with the test's own simulator hooks (h->ctx its census); fast-forward
 * runs between the units. */
static void sample_hotspot_hooked(const gpuest_sim_hooks_t *h, gpuest_study_sampled_t *s)
{
    gpuest_error_t err;
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_sample_opts_t o;
    gpuest_sample_opts_default(&o);
    o.units = 8;
    o.unit_insts = 200;
    o.warm_cycles = 200;
    o.hooks = *h;
    if (gpuest_study_sample(&cfg, "hotspot", GPUEST_SCALE_TINY, 3, &o, 0.997, 0.0, s, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    assert_true(s->raw.ff_warp_insts > 0);
}

/* Static-BDI stores compressible lines compressed (decompression cycles on their hits, more lines
 * per set), so at least one unit's cycles differ from the plain L1D's; with the hooks missing every
 * unit would be equal, cycle for cycle. */
static void test_compressed_l1_changes_the_units(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_study_sampled_t plain, bdi;
    assert_int_equal(sample_with(NULL, &plain, &err), GPUEST_OK);
    assert_int_equal(sample_with("technique.l1_compression=static_bdi", &bdi, &err), GPUEST_OK);
    assert_int_equal(plain.raw.num_units, bdi.raw.num_units);
    size_t differ = 0;
    for (size_t i = 0; i < plain.raw.num_units; i++)
        differ += plain.raw.units[i].cycles != bdi.raw.units[i].cycles;
    assert_true(differ > 0);
    gpuest_study_sampled_free(&plain);
    gpuest_study_sampled_free(&bdi);
}

/* A policy that stores every line in 32 bytes (one sub-block), and tells fast-forward's fills from
 * detailed ones: a detailed fill records its miss latency before the l1c_fill hook runs, so its event's
 * miss_lat_n is one more than at the SM's previous fill; a fast-forward fill (the clock stands still,
 * no latency) leaves it as it was. */
#define MAX_SMS 64
typedef struct {
    uint64_t last_n[MAX_SMS];
    int ff_fills, ff_fills_with_bytes, detailed_fills, hits;
} fill_census_t;

static void census_fill(void *ctx, const gpuest_sim_l1c_event_t *ev, const uint8_t *data, gpuest_sim_l1c_line_t *out)
{
    fill_census_t *c = ctx;
    assert_true(ev->sm >= 0 && ev->sm < MAX_SMS);
    if (ev->miss_lat_n == c->last_n[ev->sm]) {
        c->ff_fills++;
        c->ff_fills_with_bytes += data != NULL;
    } else {
        assert_int_equal(ev->miss_lat_n, c->last_n[ev->sm] + 1);
        c->detailed_fills++;
    }
    c->last_n[ev->sm] = ev->miss_lat_n;
    *out = (gpuest_sim_l1c_line_t){GPUEST_L1C_BDI, 32, 2};
}

static unsigned census_access(void *ctx, const gpuest_sim_l1c_event_t *ev)
{
    ((fill_census_t *)ctx)->hits += ev->hit;
    return 0;
}

/* Fast-forward warms the compressed L1 through the policy: its misses are filled by the l1c_fill hook
 * on the line's real bytes (stored in one sub-block here), so fast-forward fills are seen, with data.
 * Before, fast-forward filled raw lines and the hook saw detailed fills only (ff_fills = 0). */
static void test_fast_forward_fills_through_the_policy(void **state)
{
    (void)state;
    gpuest_sim_hooks_t h;
    memset(&h, 0, sizeof h);
    fill_census_t c;
    memset(&c, 0, sizeof c);
    h.ctx = &c;
    h.l1c_fill = census_fill;
    h.l1c_access = census_access;
    gpuest_study_sampled_t s;
    sample_hotspot_hooked(&h, &s);
    assert_true(c.detailed_fills > 0);
    assert_true(c.ff_fills > 0);
    assert_int_equal(c.ff_fills_with_bytes, c.ff_fills);
    gpuest_study_sampled_free(&s);
}

/* Data filtering's request controller answering the critical sectors only (a PDR for every miss),
 * counting the requests fast-forward makes (functional set) and the detailed ones, and the
 * windows reported. */
typedef struct {
    int ff_requests, ff_partial, detailed_requests, windows;
} sector_census_t;

static unsigned census_sector_request(void *ctx, const gpuest_sim_sector_miss_t *m)
{
    sector_census_t *c = ctx;
    if (m->functional) {
        c->ff_requests++;
        c->ff_partial += (m->need & 0xFu) != 0xFu;
    } else {
        c->detailed_requests++;
    }
    return m->need;
}

static void census_sector_window(void *ctx, int sm, unsigned used, int inconsistent, int evicted)
{
    (void)sm, (void)used, (void)inconsistent, (void)evicted;
    ((sector_census_t *)ctx)->windows++;
}

/* Fast-forward warms the sectored L1 of data filtering through the request controller: its misses
 * ask the l1_sector_request hook (flagged functional) for their sectors, and hotspot's partial-line
 * loads are among them. Before, fast-forward filled whole lines and asked nothing (ff_requests = 0),
 * so after it the L1 held sectors the controller would not have fetched. */
static void test_fast_forward_asks_the_request_controller(void **state)
{
    (void)state;
    gpuest_sim_hooks_t h;
    memset(&h, 0, sizeof h);
    sector_census_t c;
    memset(&c, 0, sizeof c);
    h.ctx = &c;
    h.l1_sector_request = census_sector_request;
    h.l1_sector_window = census_sector_window;
    gpuest_study_sampled_t s;
    sample_hotspot_hooked(&h, &s);
    assert_true(c.detailed_requests > 0);
    assert_true(c.ff_requests > 0);
    assert_true(c.ff_partial > 0);
    assert_true(c.windows >= c.ff_requests); /* every fast-forward fill reports its window */
    gpuest_study_sampled_free(&s);
}

/* Remote-L1 probing that probes the next SM on every read miss, counting the plans, the outcomes
 * reported and the probes the simulator injected. */
typedef struct {
    int nsm, plans, done, remote, sent;
} probe_census_t;

static void census_plan(void *ctx, const gpuest_sim_probe_query_t *q, uint64_t cycle, gpuest_sim_probe_plan_t *pl)
{
    (void)cycle;
    probe_census_t *c = ctx;
    c->plans++;
    pl->action = GPUEST_SIM_PROBE_SEND;
    pl->nprobes = 1;
    pl->two_level = 0;
    pl->ntargets = 1;
    pl->targets[0] = (int16_t)((q->sm + 1) % c->nsm);
}

static void census_done(void *ctx, int sm, uint32_t pc, int supplier, uint64_t cycle)
{
    (void)sm, (void)pc, (void)cycle;
    probe_census_t *c = ctx;
    c->done++;
    c->remote += supplier >= 0;
}

static void census_event(void *ctx, int ev, int sm)
{
    (void)sm;
    ((probe_census_t *)ctx)->sent += ev == GPUEST_SIM_PEV_PROBE_SENT;
}

/* Fast-forward warms remote-L1 probing: its read misses are planned by the technique and their
 * outcomes reported (probe_done) with nothing sent. In detailed mode every plan of one probe injects
 * exactly one probe, so plans = probes sent when fast-forward asks nothing (before), and plans >
 * probes sent with it; every plan has its outcome reported, and some fast-forwarded misses find
 * their line in the next SM's warmed L1 (hotspot's CTAs share halo rows). */
static void test_fast_forward_plans_probes(void **state)
{
    (void)state;
    gpuest_sim_hooks_t h;
    memset(&h, 0, sizeof h);
    probe_census_t c;
    memset(&c, 0, sizeof c);
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    c.nsm = cfg.core.num_sms;
    h.ctx = &c;
    h.probe_plan = census_plan;
    h.probe_done = census_done;
    h.probe_event = census_event;
    gpuest_study_sampled_t s;
    sample_hotspot_hooked(&h, &s);
    assert_true(c.sent > 0);
    assert_true(c.plans > c.sent);
    assert_int_equal(c.done, c.plans);
    assert_true(c.remote > 0);
    gpuest_study_sampled_free(&s);
}

/* The replies fast-forward's L2 reads would bring, with and without the line's bytes. */
typedef struct {
    int warm, with_data;
} reply_census_t;

static void census_reply_warm(void *ctx, const gpuest_sim_req_info_t *req, const uint8_t *data)
{
    reply_census_t *c = ctx;
    assert_int_equal(req->op, GPUEST_MEM_LOAD);
    c->warm++;
    c->with_data += data != NULL;
}

/* Fast-forward hands every line it reads from the L2 to mc_reply_warm with the line's bytes, so
 * reply compression's dictionaries and code books move between units as in detailed mode. Before,
 * fast-forward called no reply hook (warm = 0). */
static void test_fast_forward_warms_the_replies(void **state)
{
    (void)state;
    gpuest_sim_hooks_t h;
    memset(&h, 0, sizeof h);
    reply_census_t c = {0, 0};
    h.ctx = &c;
    h.mc_reply_warm = census_reply_warm;
    gpuest_study_sampled_t s;
    sample_hotspot_hooked(&h, &s);
    assert_true(c.warm > 0);
    assert_true(c.with_data > 0);
    gpuest_study_sampled_free(&s);
}

/* kernel_opt forks copies of the whole simulation per launch: a sampled run cannot, and must say so
 * before it runs anything. */
static void test_kernel_opt_refused(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_study_sampled_t s;
    gpuest_err rc = sample_with("technique.l1_compression=kernel_opt", &s, &err);
    assert_int_not_equal(rc, GPUEST_OK);
    assert_non_null(strstr(err.msg, "kernel_opt"));
    assert_int_equal(s.raw.num_units, 0);
}

/* An out-of-range tail stratum is an error naming the field, not a silent one-unit census. */
static void test_tail_stratum_out_of_range(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_study_sampled_t s;
    assert_int_equal(sample_tail(NULL, 3, &s, &err), GPUEST_EINVAL);
    assert_non_null(strstr(err.msg, "tail_stratum 3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compressed_l1_changes_the_units),
        cmocka_unit_test(test_fast_forward_fills_through_the_policy),
        cmocka_unit_test(test_fast_forward_asks_the_request_controller),
        cmocka_unit_test(test_fast_forward_plans_probes),
        cmocka_unit_test(test_fast_forward_warms_the_replies),
        cmocka_unit_test(test_kernel_opt_refused),
        cmocka_unit_test(test_tail_stratum_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
