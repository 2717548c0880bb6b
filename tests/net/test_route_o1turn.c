/* test_route_o1turn.c: the O1TURN routing function: its two orders and VC halves, its per-packet choice, the
 * simulator's VC use, and agreement with BookSim 2's xy_yx_mesh on the same configurations. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/net.h"
#include "noc/noc.h"

#define REF_DIR GPUEST_SOURCE_DIR "/data/reference/booksim-o1turn"

static const gpuest_net_routing_t *o1turn(gpuest_routing_t *id)
{
    gpuest_routing_t x;
    assert_int_equal(gpuest_net_routing_find("o1turn", &x, NULL), GPUEST_OK);
    if (id)
        *id = x;
    return gpuest_net_routing(x);
}

/* Choice 0 is XY on VC half 0, choice 1 is YX on VC half 1, at every router for every destination
 * of a 5x5 mesh; the ejection hop may use the whole class range. */
static void test_orders_and_halves(void **state)
{
    (void)state;
    const gpuest_net_routing_t *rf = o1turn(NULL);
    assert_int_equal(rf->choices, 2);
    assert_int_equal(rf->vc_sets, 2);
    gpuest_net_topo_t t;
    assert_int_equal(gpuest_net_topo_init(&t, GPUEST_TOPO_MESH, 5, 0, NULL), GPUEST_OK);
    for (int r = 0; r < 25; r++)
        for (int d = 0; d < 25; d++)
            for (int ch = 0; ch < 2; ch++) {
                gpuest_net_hop_t h = gpuest_net_route(&t, rf, r, d, ch);
                gpuest_net_hop_t dor = gpuest_net_route(&t, gpuest_net_routing(ch ? GPUEST_ROUTE_YX : GPUEST_ROUTE_XY),
                                                        r, d, 0);
                assert_int_equal(h.port, dor.port);
                assert_int_equal(h.vc_set, r == d ? -1 : ch);
            }
    int first = -1;
    /* class range VCs 2..5 (4 VCs): XY gets 2..3, YX 4..5, ejection all four */
    assert_int_equal(gpuest_net_vc_slice(rf, 2, 5, 0, &first), 2);
    assert_int_equal(first, 2);
    assert_int_equal(gpuest_net_vc_slice(rf, 2, 5, 1, &first), 2);
    assert_int_equal(first, 4);
    assert_int_equal(gpuest_net_vc_slice(rf, 2, 5, -1, &first), 4);
    assert_int_equal(first, 2);
}

/* The per-packet choice is a fixed function of the packet id (reproducible) and balanced. */
static void test_choice_balanced(void **state)
{
    (void)state;
    const gpuest_net_routing_t *rf = o1turn(NULL);
    int yx = 0;
    for (uint64_t id = 0; id < 20000; id++) {
        int c = gpuest_net_route_choice(rf, id);
        assert_true(c == 0 || c == 1);
        assert_int_equal(c, gpuest_net_route_choice(rf, id));
        yx += c;
    }
    assert_true(abs(yx - 10000) < 300); /* 3 standard deviations of a fair coin are 212 */
    assert_int_equal(gpuest_net_route_choice(gpuest_net_routing(GPUEST_ROUTE_XY), 12345), 0);
}

/* The simulator refuses O1TURN with one VC per class: a half would be empty. */
static void test_needs_two_vcs(void **state)
{
    (void)state;
    gpuest_noc_booksim_t b;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_noc_booksim_load(REF_DIR "/mesh8_vc4_uniform_p1_xy_yx.cfg", &b, &e), GPUEST_OK);
    gpuest_routing_t id;
    o1turn(&id);
    assert_int_equal(b.cfg.routing_request, id); /* BookSim's xy_yx is O1TURN */
    b.cfg.vcs = 2;
    b.opts.num_classes = 2;
    gpuest_noc_t *noc = NULL;
    assert_int_equal(gpuest_noc_create(&b.cfg, &b.opts, &noc, &e), GPUEST_ERANGE);
    assert_non_null(strstr(e.msg, "o1turn needs 2 VCs"));
    assert_null(noc);
}

/* ------------------------------------------------------------ BookSim 2 comparison */
typedef struct {
    char routing[16], traffic[16];
    double rate, lat, acc;
    int saturated;
} ref_row_t;

typedef struct {
    ref_row_t rows[128];
    int n;
} ref_t;

static gpuest_err row_cb(void *ctx, size_t line, const char *const *f, size_t nf, gpuest_error_t *err)
{
    ref_t *r = ctx;
    if (line == 1)
        return GPUEST_OK;
    if (nf != 7 || r->n >= 128)
        return gpuest_fail(err, GPUEST_EPARSE, "results.csv:%zu: expected 7 fields", line);
    ref_row_t *w = &r->rows[r->n++];
    snprintf(w->routing, sizeof w->routing, "%s", f[0]);
    snprintf(w->traffic, sizeof w->traffic, "%s", f[1]);
    gpuest_parse_double(f[2], &w->rate);
    w->lat = 0;
    if (f[3][0])
        gpuest_parse_double(f[3], &w->lat);
    gpuest_parse_double(f[5], &w->acc);
    w->saturated = atoi(f[6]);
    return GPUEST_OK;
}

static const ref_row_t *find(const ref_t *r, const char *routing, const char *traffic, double rate)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->rows[i].routing, routing) && !strcmp(r->rows[i].traffic, traffic) &&
            fabs(r->rows[i].rate - rate) < 1e-9)
            return &r->rows[i];
    fail_msg("no BookSim row %s %s %g", routing, traffic, rate);
    return NULL;
}

/* Latency within 10 % of BookSim's (the tolerance of test_noc_booksim) at loads below the knee, with
 * shortened sample periods. At a rate past BookSim's knee (unstable > 0) latency mode with the file's
 * own 10,000-cycle periods, as BookSim ran it, must declare saturation (with short periods the source
 * queues of the few overloaded transpose flows need longer than the run to pass 500 cycles). */
static void compare(const char *cfgname, const char *routing, const char *traffic, const double *rates, int n,
                    double unstable)
{
    ref_t *ref = calloc(1, sizeof *ref);
    gpuest_error_t e = {0};
    if (gpuest_csv_read(REF_DIR "/results.csv", row_cb, ref, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.cfg", REF_DIR, cfgname);
    gpuest_noc_booksim_t b;
    if (gpuest_noc_booksim_load(path, &b, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    for (int i = 0; i < n; i++) {
        double rate = rates[i];
        const ref_row_t *row = find(ref, routing, traffic, rate);
        gpuest_noc_traffic_t t = b.traffic;
        t.rate = rate;
        t.seed = 7;
        gpuest_noc_measure_cfg_t m = b.measure;
        m.sample_period = 2000;
        gpuest_noc_result_t res;
        assert_int_equal(gpuest_noc_measure(&b.cfg, &b.opts, &t, &m, NULL, &res, &e), GPUEST_OK);
        print_message("%s %s rate %.3f: latency %.2f (BookSim %.2f), accepted %.4f (%.4f), saturated %d (%d)\n",
                      routing, traffic, rate, res.avg_packet_latency, row->lat, res.accepted_rate, row->acc,
                      res.saturated, row->saturated);
        assert_false(row->saturated);
        assert_false(res.saturated);
        if (fabs(res.avg_packet_latency - row->lat) / row->lat > 0.10)
            fail_msg("%s %s at %.3f: latency %.2f vs BookSim %.2f (> 10 %%)", routing, traffic, rate,
                     res.avg_packet_latency, row->lat);
    }
    if (unstable > 0) {
        assert_true(find(ref, routing, traffic, unstable)->saturated);
        gpuest_noc_traffic_t t = b.traffic;
        t.rate = unstable;
        t.seed = 7;
        gpuest_noc_result_t res;
        assert_int_equal(b.measure.sample_period, 10000);
        assert_int_equal(gpuest_noc_measure(&b.cfg, &b.opts, &t, &b.measure, NULL, &res, &e), GPUEST_OK);
        print_message("%s %s rate %.3f: saturated %d, accepted %.4f (BookSim: unstable)\n", routing, traffic,
                      unstable, res.saturated, res.accepted_rate);
        if (!res.saturated)
            fail_msg("%s %s at %.3f: stable, BookSim found it unstable", routing, traffic, unstable);
    }
    free(ref);
}

static void test_booksim_uniform(void **state)
{
    (void)state;
    const double rates[] = {0.05, 0.3, 0.35};
    compare("mesh8_vc4_uniform_p1_xy_yx", "xy_yx", "uniform", rates, 3, -1);
}

/* Transpose is where the orders differ: under XY the east link of row 7 next to column 7 carries the
 * packets of 7 sources (saturation at most 1/7 = 0.143), O1TURN sends half of them through a YX route
 * (at most 3.5 sources per link: 0.286). BookSim: DOR unstable at 0.15 and 0.2, O1TURN stable at
 * 0.175 (37.6 cycles) and unstable at 0.2 and 0.25. */
static void test_booksim_transpose(void **state)
{
    (void)state;
    const double rates[] = {0.05, 0.15, 0.175};
    compare("mesh8_vc4_transpose_p1_xy_yx", "xy_yx", "transpose", rates, 3, 0.25);
    const double dor[] = {0.05, 0.1};
    compare("mesh8_vc4_transpose_p1_dor", "dor", "transpose", dor, 2, 0.2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_and_halves), cmocka_unit_test(test_choice_balanced),
        cmocka_unit_test(test_needs_two_vcs),     cmocka_unit_test(test_booksim_uniform),
        cmocka_unit_test(test_booksim_transpose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
