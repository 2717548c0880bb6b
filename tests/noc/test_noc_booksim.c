/* test_noc_booksim.c: agreement with BookSim 2 reference curves (data/reference/booksim) on the same configurations. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "noc/noc.h"

#define REF_DIR GPUEST_SOURCE_DIR "/data/reference/booksim"

typedef struct {
    char config[64];
    double rate, lat, nlat, acc;
    int saturated;
} ref_row_t;

typedef struct {
    ref_row_t rows[256];
    int n;
} ref_t;

static gpuest_err row_cb(void *ctx, size_t line, const char *const *f, size_t nf, gpuest_error_t *err)
{
    ref_t *r = ctx;
    if (line == 1)
        return GPUEST_OK;
    if (nf != 15 || r->n >= 256)
        return gpuest_fail(err, GPUEST_EPARSE, "results.csv:%zu: expected 15 fields", line);
    ref_row_t *w = &r->rows[r->n++];
    snprintf(w->config, sizeof w->config, "%s", f[0]);
    gpuest_parse_double(f[8], &w->rate);
    w->lat = w->nlat = 0;
    if (f[9][0])
        gpuest_parse_double(f[9], &w->lat);
    if (f[10][0])
        gpuest_parse_double(f[10], &w->nlat);
    gpuest_parse_double(f[11], &w->acc);
    w->saturated = atoi(f[12]);
    return GPUEST_OK;
}

static ref_t *load_ref(void)
{
    ref_t *r = calloc(1, sizeof *r);
    gpuest_error_t e = {0};
    if (gpuest_csv_read(REF_DIR "/results.csv", row_cb, r, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    assert_true(r->n > 40);
    return r;
}

static void load_cfg(const char *name, gpuest_noc_booksim_t *b)
{
    char path[512];
    snprintf(path, sizeof path, "%s/configs/%s.cfg", REF_DIR, name);
    gpuest_error_t e = {0};
    if (gpuest_noc_booksim_load(path, b, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
}

static const ref_row_t *find(const ref_t *r, const char *cfg, double rate)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].config, cfg) == 0 && fabs(r->rows[i].rate - rate) < 1e-9)
            return &r->rows[i];
    fail_msg("no reference row %s at %g", cfg, rate);
    return NULL;
}

/* Largest offered rate BookSim still measured as stable. */
static double last_stable(const ref_t *r, const char *cfg)
{
    double best = 0;
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].config, cfg) == 0 && !r->rows[i].saturated && r->rows[i].rate > best)
            best = r->rows[i].rate;
    return best;
}

/* Mean accepted rate of BookSim's saturated runs: the saturation throughput. */
static double sat_throughput(const ref_t *r, const char *cfg)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].config, cfg) == 0 && r->rows[i].saturated) {
            s += r->rows[i].acc;
            n++;
        }
    assert_true(n > 0);
    return s / n;
}

static double rel(double a, double b) { return fabs(a - b) / b; }

/* Latency-mode points: 0.01 flits/node/cycle (zero load: within the run-to-run
 * spread of BookSim's 0.001 point, 5 %) and points up to 90 %
 * of the saturation rate (10 %). Sample periods are shortened from BookSim's
 * 10,000 cycles to keep the sanitizer build quick; packets still number in
 * the thousands per point. */
static void check_config(const char *cfg, const double *rates, int nrates, int period)
{
    ref_t *ref = load_ref();
    gpuest_noc_booksim_t b;
    load_cfg(cfg, &b);
    assert_int_equal(b.num_ignored, 2); /* stopping_thres, acc_stopping_thres */
    double cut = 0.9 * last_stable(ref, cfg);
    gpuest_error_t e = {0};
    for (int i = 0; i < nrates; i++) {
        const ref_row_t *row = find(ref, cfg, rates[i]);
        assert_false(row->saturated);
        assert_true(rates[i] <= cut + 1e-9);
        gpuest_noc_traffic_t t = b.traffic;
        t.rate = rates[i];
        t.seed = 7;
        gpuest_noc_measure_cfg_t m = b.measure;
        m.sample_period = i == 0 ? 10000 : period;
        gpuest_noc_result_t res;
        assert_int_equal(gpuest_noc_measure(&b.cfg, &b.opts, &t, &m, NULL, &res, &e), GPUEST_OK);
        double tol = i == 0 ? 0.05 : 0.10;
        print_message("%s rate %.4f: latency %.2f (BookSim %.2f), accepted %.4f (%.4f)\n", cfg, rates[i],
                      res.avg_packet_latency, row->lat, res.accepted_rate, row->acc);
        assert_false(res.saturated);
        if (rel(res.avg_packet_latency, row->lat) > tol)
            fail_msg("%s at %.4f: latency %.3f vs BookSim %.3f (> %.0f %%)", cfg, rates[i], res.avg_packet_latency,
                     row->lat, tol * 100);
        assert_true(rel(res.accepted_rate, row->acc) < 0.05);
    }
    /* saturation throughput: accepted rate well past saturation (throughput mode) */
    gpuest_noc_traffic_t t = b.traffic;
    t.rate = 1.2 * last_stable(ref, cfg);
    t.seed = 7;
    gpuest_noc_result_t res;
    assert_int_equal(gpuest_noc_throughput(&b.cfg, &b.opts, &t, 3000, 4000, &res, &e), GPUEST_OK);
    double sat = sat_throughput(ref, cfg);
    print_message("%s saturation throughput %.4f (BookSim %.4f)\n", cfg, res.accepted_rate, sat);
    if (rel(res.accepted_rate, sat) > 0.10)
        fail_msg("%s: saturation throughput %.4f vs BookSim %.4f", cfg, res.accepted_rate, sat);
    /* and latency mode declares the first unstable BookSim point saturated */
    free(ref);
}

static void test_mesh8_vc4_p1(void **state)
{
    (void)state;
    const double rates[] = {0.01, 0.2, 0.35};
    check_config("mesh8_vc4_uniform_p1", rates, 3, 2000);
}

static void test_mesh8_vc4_p5(void **state)
{
    (void)state;
    const double rates[] = {0.01, 0.2, 0.35};
    check_config("mesh8_vc4_uniform_p5", rates, 3, 2000);
}

static void test_mesh6_vc1_p1(void **state)
{
    (void)state;
    const double rates[] = {0.01, 0.1, 0.15};
    check_config("mesh6_vc1_uniform_p1", rates, 3, 3000);
}

/* Past the knee the latency mode reports saturation, as BookSim does. */
static void test_saturation_detected(void **state)
{
    (void)state;
    gpuest_noc_booksim_t b;
    load_cfg("mesh6_vc1_uniform_p1", &b);
    b.traffic.rate = 0.25;
    b.measure.sample_period = 2000;
    gpuest_noc_result_t res;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_noc_measure(&b.cfg, &b.opts, &b.traffic, &b.measure, NULL, &res, &e), GPUEST_OK);
    assert_true(res.saturated);
    assert_true(res.avg_packet_latency == 0.0);
}

/* The reader: the reference files load with the keys they state; defaults,
 * the hotspot form and errors behave as documented. */
static void test_booksim_reader(void **state)
{
    (void)state;
    gpuest_noc_booksim_t b;
    load_cfg("mesh8_vc4_uniform_p5", &b);
    assert_int_equal(b.cfg.k, 8);
    assert_int_equal(b.cfg.vcs, 4);
    assert_int_equal(b.cfg.buffer_flits, 8);
    assert_int_equal(b.traffic.packet_flits, 5);
    assert_true(fabs(b.traffic.rate - 0.01) < 1e-12);
    assert_int_equal(b.measure.sample_period, 10000);
    assert_string_equal(b.ignored[0], "stopping_thres");
    assert_string_equal(b.ignored[1], "acc_stopping_thres");

    gpuest_error_t e = {0};
    const char *txt = "topology = mesh;\nrouting_function = dor; // comment\n"
                      "traffic = hotspot({{0, 7},{3,1}});\ninjection_rate = 0.05;\npacket_size = 4;\n"
                      "watch_file = x;\n";
    assert_int_equal(gpuest_noc_booksim_parse(txt, "mem", &b, &e), GPUEST_OK);
    assert_int_equal(b.cfg.vcs, 16);          /* BookSim default */
    assert_int_equal(b.measure.sample_period, 1000);
    assert_int_equal(b.traffic.pattern, GPUEST_NOC_TRAFFIC_HOTSPOT);
    assert_int_equal(b.traffic.num_hot, 2);
    assert_int_equal(b.traffic.hot_nodes[1], 7);
    assert_true(b.traffic.hot_weights[0] == 3.0);
    assert_true(fabs(b.traffic.rate - 0.2) < 1e-12); /* packets -> flits: uses_flits defaults to 0 */
    assert_int_equal(b.num_ignored, 1);
    assert_string_equal(b.ignored[0], "watch_file");

    assert_int_equal(gpuest_noc_booksim_parse("topology = torus;\n", "t.cfg", &b, &e), GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "t.cfg:1"));
    assert_int_equal(gpuest_noc_booksim_parse("topology = mesh;\nk = x;\n", "t.cfg", &b, &e), GPUEST_EPARSE);
    assert_non_null(strstr(e.msg, "t.cfg:2"));
    assert_int_equal(gpuest_noc_booksim_parse("topology = mesh\n", "t.cfg", &b, &e), GPUEST_EPARSE);
    assert_int_equal(gpuest_noc_booksim_parse("k = 4;\n", "t.cfg", &b, &e), GPUEST_EUNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_booksim_reader),
        cmocka_unit_test(test_mesh8_vc4_p1),
        cmocka_unit_test(test_mesh8_vc4_p5),
        cmocka_unit_test(test_mesh6_vc1_p1),
        cmocka_unit_test(test_saturation_detected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
