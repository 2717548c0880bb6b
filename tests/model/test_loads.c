/* test_loads.c: exact link loads (3x3 hand calculation), conservation, zero-load latency, saturation status. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/core.h"
#include "model_test_util.h"

static gpuest_model_noc_t *build(const gpuest_config_t *cfg, const char *pattern, int flits, double rate)
{
    gpuest_model_pattern_t p;
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    assert_int_equal(gpuest_model_pattern_init(&p, pattern, NULL), GPUEST_OK);
    p.packet_flits = flits;
    assert_int_equal(gpuest_model_traffic_build(&t, &p, cfg, rate, NULL), GPUEST_OK);
    assert_int_equal(gpuest_model_noc_create(cfg, &t, &m, NULL), GPUEST_OK);
    gpuest_model_traffic_free(&t);
    return m;
}

/* 3x3 mesh, uniform traffic (self included), lambda flits per node per cycle, XY routing.
 * Every (src, dst) pair carries lambda/9.
 *  East link col 0 -> col 1 of row y: only source (0,y) crosses it, towards the 6 nodes of
 *    columns 1 and 2 (X first, so the source's row): 1 * 6 * lambda/9 = 2 lambda/3.
 *  East link col 1 -> col 2 of row y: sources (0,y), (1,y), towards the 3 nodes of column 2:
 *    2 * 3 * lambda/9 = 2 lambda/3. West links: the mirror image, 2 lambda/3.
 *  North link row 0 -> row 1 of column x: Y moves happen in the destination column, so
 *    sources = any node of row 0 (3), destinations = (x,1), (x,2): 3 * 2 * lambda/9 = 2 lambda/3.
 *  North link row 1 -> row 2: sources in rows 0-1 (6), destination (x,2): 6 * lambda/9 = 2 lambda/3.
 *  So every one of the 24 links carries 2 lambda/3; edge routers have no link beyond the edge;
 *  every ejection port carries lambda (9 sources * lambda/9).
 *  Conservation: 24 * 2 lambda/3 = 16 lambda = 9 nodes * lambda * mean hops 16/9. */
static void test_mesh3_uniform_xy(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    const double lam = 0.3;
    booksim_mesh(&cfg, 3, 4, 8);
    gpuest_model_noc_t *m = build(&cfg, "uniform", 1, lam);
    double total = 0.0;
    for (int r = 0; r < 9; r++) {
        int x = r % 3, y = r / 3;
        double want[5] = {x < 2 ? 2 * lam / 3 : 0.0, x > 0 ? 2 * lam / 3 : 0.0, y < 2 ? 2 * lam / 3 : 0.0,
                          y > 0 ? 2 * lam / 3 : 0.0, lam};
        for (int p = 0; p < 5; p++) {
            double got = gpuest_model_noc_port_load(m, r, p, -1);
            assert_double_equal(got, want[p], 1e-12);
            if (p < 4)
                total += got;
        }
    }
    assert_double_equal(total, 16.0 * lam, 1e-12);
    gpuest_model_noc_destroy(m);
}

/* Transpose on 3x3, XY: (x,y) -> (y,x), rate lambda per node.
 * East link (0,1)->(1,1): from (0,1) to (1,0): X first along row 1: lambda. (0,2)->(2,0) crosses
 * (0,2)->(1,2) and (1,2)->(2,2) then goes north twice in column 2 (towards row 0). Checked links below. */
static void test_mesh3_transpose_xy(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    const double lam = 0.2;
    booksim_mesh(&cfg, 3, 4, 8);
    gpuest_model_noc_t *m = build(&cfg, "transpose", 1, lam);
    /* router (0,1) = node 3: east carries (0,1)->(1,0) */
    assert_double_equal(gpuest_model_noc_port_load(m, 3, GPUEST_NET_PORT_E, -1), lam, 1e-12);
    /* router (1,2) = node 7: east carries (0,2)->(2,0) and (1,2)->(2,1) */
    assert_double_equal(gpuest_model_noc_port_load(m, 7, GPUEST_NET_PORT_E, -1), 2 * lam, 1e-12);
    /* router (2,2) = node 8: north (towards row 0) carries (0,2)->(2,0) and (1,2)->(2,1); (2,2) is its own transpose */
    assert_double_equal(gpuest_model_noc_port_load(m, 8, GPUEST_NET_PORT_N, -1), 2 * lam, 1e-12);
    /* router (2,1) = node 5: north carries (0,2)->(2,0) only */
    assert_double_equal(gpuest_model_noc_port_load(m, 5, GPUEST_NET_PORT_N, -1), lam, 1e-12);
    /* diagonal nodes eject their own packets; node 4 = (1,1) */
    assert_double_equal(gpuest_model_noc_port_load(m, 4, GPUEST_NET_PORT_LOCAL, -1), lam, 1e-12);
    gpuest_model_noc_destroy(m);
}

/* Sum over links of the load equals sum over flows of rate x flits x hops, for random traffic
 * matrices (seeded) under XY and YX, with two classes of different lengths. */
static void test_conservation_random(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_rng_t *rng = NULL;
    booksim_mesh(&cfg, 5, 4, 8);
    assert_int_equal(gpuest_rng_create(1234, &rng), GPUEST_OK);
    for (int trial = 0; trial < 4; trial++) {
        gpuest_model_traffic_t t;
        gpuest_model_noc_t *m = NULL;
        assert_int_equal(gpuest_model_traffic_init(&t, 25, 2, NULL), GPUEST_OK);
        t.packet_flits[0] = 1;
        t.packet_flits[1] = 1 + trial;
        t.routing[0] = GPUEST_ROUTE_XY;
        t.routing[1] = trial % 2 ? GPUEST_ROUTE_YX : GPUEST_ROUTE_XY;
        double want = 0.0, inj = 0.0;
        for (int c = 0; c < 2; c++)
            for (int s = 0; s < 25; s++)
                for (int d = 0; d < 25; d++) {
                    double r = gpuest_rng_uniform(rng) < 0.3 ? 1e-3 * gpuest_rng_uniform(rng) : 0.0;
                    *gpuest_model_traffic_at(&t, c, s, d) = r;
                    int hops = abs(s % 5 - d % 5) + abs(s / 5 - d / 5);
                    want += r * t.packet_flits[c] * hops;
                    inj += r * t.packet_flits[c];
                }
        assert_int_equal(gpuest_model_noc_create(&cfg, &t, &m, NULL), GPUEST_OK);
        double links = 0.0, ej = 0.0;
        for (int r = 0; r < 25; r++) {
            for (int p = 0; p < 4; p++)
                links += gpuest_model_noc_port_load(m, r, p, -1);
            ej += gpuest_model_noc_port_load(m, r, GPUEST_NET_PORT_LOCAL, -1);
        }
        assert_double_equal(links, want, 1e-12);
        assert_double_equal(ej, inj, 1e-12);
        gpuest_model_noc_destroy(m);
        gpuest_model_traffic_free(&t);
    }
    gpuest_rng_destroy(rng);
}

/* Zero-load latency is BookSim's 7 + 5 D + (L - 1), per packet and on average. */
static void test_zero_load(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    booksim_mesh(&cfg, 8, 4, 8);
    assert_double_equal(gpuest_model_zero_load(&cfg.noc, 0, 1), 7.0, 0.0);
    assert_double_equal(gpuest_model_zero_load(&cfg.noc, 3, 5), 7.0 + 15.0 + 4.0, 0.0);
    assert_double_equal(gpuest_model_zero_load(&cfg.noc, 14, 1), 77.0, 0.0);
    const struct {
        int k, flits;
        double t0;
    } cases[] = {{8, 1, 7 + 5 * 5.25}, {8, 5, 7 + 5 * 5.25 + 4}, {6, 1, 7 + 5 * (2.0 * 35 / 18)}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuest_model_result_t res;
        booksim_mesh(&cfg, cases[i].k, 4, 8);
        gpuest_model_noc_t *m = build(&cfg, "uniform", cases[i].flits, 1e-9);
        assert_int_equal(gpuest_model_noc_eval(m, 1.0, NULL, &res, NULL), GPUEST_OK);
        assert_false(res.saturated);
        assert_double_equal(res.avg_packet_latency, cases[i].t0, 1e-6);
        assert_double_equal(res.cls[0].zero_load + res.cls[0].serialization, cases[i].t0, 1e-9);
        gpuest_model_noc_destroy(m);
    }
}

/* Past saturation the model says so, with finite numbers everywhere. */
static void test_saturation_status(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_model_result_t res;
    gpuest_error_t err;
    booksim_mesh(&cfg, 8, 4, 8);
    gpuest_model_noc_t *m = build(&cfg, "uniform", 1, 0.6);
    assert_int_equal(gpuest_model_noc_eval(m, 1.0, NULL, &res, &err), GPUEST_ESATURATED);
    assert_true(res.saturated);
    assert_true(isfinite(res.avg_packet_latency) && isfinite(res.accepted_rate) && isfinite(res.max_util));
    assert_true(res.accepted_rate > 0.0 && res.accepted_rate < res.offered_rate);
    assert_true(res.max_util >= 1.0);
    /* the hottest links under uniform XY are the central X links (load k/4 * lambda) */
    assert_int_equal(res.bottleneck_kind == 0 || res.bottleneck_kind == 1, 1);
    gpuest_model_noc_destroy(m);
    /* invalid scale is an error, not a NaN */
    m = build(&cfg, "uniform", 1, 0.1);
    assert_int_equal(gpuest_model_noc_eval(m, -1.0, NULL, &res, &err), GPUEST_ERANGE);
    gpuest_model_noc_destroy(m);
}

/* Same inputs, same outputs bit for bit; latency grows with load. */
static void test_monotone_deterministic(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_model_result_t a, b;
    booksim_mesh(&cfg, 8, 4, 8);
    gpuest_model_noc_t *m = build(&cfg, "uniform", 5, 1.0);
    double prev = 0.0;
    for (double s = 0.02; s < 0.38; s += 0.04) {
        assert_int_equal(gpuest_model_noc_eval(m, s, NULL, &a, NULL), GPUEST_OK);
        assert_int_equal(gpuest_model_noc_eval(m, s, NULL, &b, NULL), GPUEST_OK);
        assert_memory_equal(&a, &b, sizeof a);
        assert_true(a.avg_packet_latency > prev);
        prev = a.avg_packet_latency;
    }
    gpuest_model_noc_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh3_uniform_xy),    cmocka_unit_test(test_mesh3_transpose_xy),
        cmocka_unit_test(test_conservation_random), cmocka_unit_test(test_zero_load),
        cmocka_unit_test(test_saturation_status),   cmocka_unit_test(test_monotone_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
