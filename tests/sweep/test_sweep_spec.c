/* test_sweep_spec.c: the sweep spec parser, the designs, the point expansion and the worker
 * message format. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sweep/sweep.h"

static gpuest_err parse(const char *text, gpuest_sweep_spec_t *s, gpuest_error_t *err)
{
    gpuest_error_clear(err);
    return gpuest_sweep_spec_parse(text, "t.ini", s, err);
}

/* Stepped, geometric and counted ranges expand to exactly the values worked out by hand. */
static void ranges_expand(void **state)
{
    (void)state;
    gpuest_sweep_spec_t s;
    gpuest_error_t err;
    assert_int_equal(parse("[sweep]\npreset = mesh56\n[axes]\nl2.hit_latency = 60..180 step 40\n"
                           "noc.buffer_flits = 2..16 times 2\ncore.clock_mhz = 700..1400 count 3\n"
                           "noc.vcs = 2, 4 ,8\ntraffic.rate = 0.05..0.45 step 0.1\n",
                           &s, &err),
                     GPUEST_OK);
    assert_int_equal(s.naxes, 5);
    /* decimal steps give the decimals written, not their binary sums */
    const char *want4[] = {"0.05", "0.15", "0.25", "0.35", "0.45"};
    assert_int_equal(s.axes[4].nvalues, 5);
    for (int i = 0; i < 5; i++)
        assert_string_equal(s.axes[4].values[i], want4[i]);
    const char *want0[] = {"60", "100", "140", "180"};
    assert_int_equal(s.axes[0].nvalues, 4);
    for (int i = 0; i < 4; i++)
        assert_string_equal(s.axes[0].values[i], want0[i]);
    const char *want1[] = {"2", "4", "8", "16"};
    assert_int_equal(s.axes[1].nvalues, 4);
    for (int i = 0; i < 4; i++)
        assert_string_equal(s.axes[1].values[i], want1[i]);
    const char *want2[] = {"700", "1050", "1400"};
    assert_int_equal(s.axes[2].nvalues, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(s.axes[2].values[i], want2[i]);
    assert_int_equal(s.axes[3].nvalues, 3);
    assert_string_equal(s.axes[3].values[1], "4");
    assert_int_equal(s.axes[3].line, 7);
    /* defaults of the lists left out */
    assert_int_equal(s.workloads.n, 1);
    assert_string_equal(s.workloads.items[0], "hotspot");
    assert_string_equal(s.techniques.items[0], "none");
    gpuest_sweep_spec_free(&s);
}

/* Each kind of bad spec names the file and the line it is on. */
static void bad_specs_name_the_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"[sweep]\npreset = mesh56\ncolour = red\n", "t.ini:3: unknown key 'colour'"},
        {"[sweep]\npreset = mesh56\n[axes]\nnoc.vcs = 4..2 step 1\n", "t.ini:4: range '4..2 step 1': HI is below"},
        {"[sweep]\npreset = mesh56\n[axes]\n\nnoc.vcs = 2..8 by 2\n", "t.ini:5: range"},
        {"[sweep]\npreset = mesh56\ndesign = grid\n[axes]\nl2.hit_latency = 60..240\n",
         "t.ini:5: axis 'l2.hit_latency' is a continuous range"},
        {"[sweep]\npreset = mesh56\ndesign = lhs\n", "t.ini:3: a random, lhs or sobol design needs 'points = N'"},
        {"[sweep]\npreset = mesh56\nmode = fast\n", "t.ini:3: mode 'fast'"},
        {"[sweep]\npreset = mesh56\n[axes]\nnoc.vcs = 2\nnoc.vcs = 4\n", "t.ini:5: 'noc.vcs' given twice"},
        {"[sweep]\npreset = mesh56\nworkloads = bfs,,nw\n", "t.ini:3: empty item"},
        {"[weep]\npreset = mesh56\n", "t.ini:2: unknown section [weep]"},
        {"[sweep]\npreset = mesh56\nthis line is broken\n", "t.ini:3: malformed line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpuest_sweep_spec_t s;
        gpuest_error_t err;
        gpuest_err rc = parse(cases[i].text, &s, &err);
        if (rc == GPUEST_OK || !strstr(err.msg, cases[i].expect))
            fail_msg("case %zu: got '%s', expected '%s'", i, rc == GPUEST_OK ? "success" : err.msg, cases[i].expect);
    }
}

/* Expansion errors (a value the machine refuses) name the axis line too. */
static void bad_values_name_the_axis_line(void **state)
{
    (void)state;
    gpuest_sweep_spec_t s;
    gpuest_error_t err;
    assert_int_equal(parse("[sweep]\npreset = mesh56\n[axes]\nnoc.vcs = 2, 4\nnoc.flavour = 1, 2\n", &s, &err),
                     GPUEST_OK);
    gpuest_sweep_point_t *p;
    size_t n;
    assert_int_not_equal(gpuest_sweep_points(&s, GPUEST_SWEEP_ESTIMATE, &p, &n, &err), GPUEST_OK);
    assert_non_null(strstr(err.msg, "t.ini:5"));
    gpuest_sweep_spec_free(&s);
    assert_int_equal(parse("[sweep]\npreset = mesh56\n[axes]\nnoc.vcs = 2, x\n", &s, &err), GPUEST_OK);
    assert_int_not_equal(gpuest_sweep_points(&s, GPUEST_SWEEP_ESTIMATE, &p, &n, &err), GPUEST_OK);
    assert_non_null(strstr(err.msg, "t.ini:4"));
    gpuest_sweep_spec_free(&s);
}

/* Grid order: design rows (last axis fastest), then techniques, workloads, scales, seeds. */
static void grid_points_in_order(void **state)
{
    (void)state;
    gpuest_sweep_spec_t s;
    gpuest_error_t err;
    assert_int_equal(parse("[sweep]\npreset = mesh56\nworkloads = bfs, nw\ntechniques = none, compression=bdi\n"
                           "[axes]\nnoc.vcs = 2, 8\nl2.hit_latency = 60, 90, 120\n",
                           &s, &err),
                     GPUEST_OK);
    gpuest_sweep_point_t *p;
    size_t n;
    assert_int_equal(gpuest_sweep_points(&s, GPUEST_SWEEP_ESTIMATE, &p, &n, &err), GPUEST_OK);
    assert_int_equal(n, 2 * 3 * 2 * 2);
    /* point 0: vcs 2, latency 60, none, bfs; point 1: same with nw; point 2: bdi, bfs */
    assert_string_equal(p[0].axis_values[0], "2");
    assert_string_equal(p[0].axis_values[1], "60");
    assert_string_equal(p[0].workload, "bfs");
    assert_string_equal(p[1].workload, "nw");
    assert_string_equal(p[0].technique, "none");
    assert_string_equal(p[2].technique, "compression=bdi");
    assert_string_equal(p[4].axis_values[1], "90");
    assert_string_equal(p[12].axis_values[0], "8");
    assert_int_equal(p[12].cfg.noc.vcs, 8);
    assert_int_equal(p[4].cfg.l2.hit_latency, 90);
    assert_string_equal(p[2].cfg.technique.compression, "bdi");
    assert_non_null(strstr(p[4].config, "\nl2.hit_latency=90\n"));
    assert_non_null(strstr(p[12].config, "\nnoc.vcs=8\n"));
    /* every hash differs; the same spec gives the same hashes; the mode changes hash, not design_hash */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_string_not_equal(p[i].hash, p[j].hash);
    gpuest_sweep_point_t *q;
    size_t m;
    assert_int_equal(gpuest_sweep_points(&s, GPUEST_SWEEP_SIMULATE, &q, &m, &err), GPUEST_OK);
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(p[i].design_hash, q[i].design_hash);
        assert_string_not_equal(p[i].hash, q[i].hash);
    }
    gpuest_sweep_points_free(q, m);
    gpuest_sweep_points_free(p, n);
    gpuest_sweep_spec_free(&s);
}

/* A repeated value would make two identical points: refused. */
static void duplicate_points_refused(void **state)
{
    (void)state;
    gpuest_sweep_spec_t s;
    gpuest_error_t err;
    assert_int_equal(parse("[sweep]\npreset = mesh56\n[axes]\nnoc.vcs = 2, 4, 2\n", &s, &err), GPUEST_OK);
    gpuest_sweep_point_t *p;
    size_t n;
    assert_int_equal(gpuest_sweep_points(&s, GPUEST_SWEEP_ESTIMATE, &p, &n, &err), GPUEST_EINVAL);
    assert_non_null(strstr(err.msg, "points 0 and 2"));
    gpuest_sweep_spec_free(&s);
}

/* Latin hypercube: in every dimension each of the rows' strata holds exactly one row. */
static void lhs_one_row_per_stratum(void **state)
{
    (void)state;
    enum { ROWS = 37, DIMS = 5 };
    double u[ROWS * DIMS];
    gpuest_error_t err;
    assert_int_equal(gpuest_sweep_design_unit(GPUEST_SWEEP_LHS, ROWS, DIMS, 11, u, &err), GPUEST_OK);
    for (int d = 0; d < DIMS; d++) {
        int seen[ROWS] = {0};
        for (int r = 0; r < ROWS; r++) {
            double x = u[r * DIMS + d];
            assert_true(x >= 0 && x < 1);
            seen[(int)floor(x * ROWS)]++;
        }
        for (int k = 0; k < ROWS; k++)
            assert_int_equal(seen[k], 1);
    }
    /* same seed, same design, bit for bit; another seed, another one */
    double v[ROWS * DIMS];
    assert_int_equal(gpuest_sweep_design_unit(GPUEST_SWEEP_LHS, ROWS, DIMS, 11, v, &err), GPUEST_OK);
    assert_memory_equal(u, v, sizeof u);
    assert_int_equal(gpuest_sweep_design_unit(GPUEST_SWEEP_LHS, ROWS, DIMS, 12, v, &err), GPUEST_OK);
    assert_memory_not_equal(u, v, sizeof u);
}

/* The first points of the 2-D Sobol sequence (Bratley and Fox's direction numbers, as GSL has them). */
static void sobol_known_points(void **state)
{
    (void)state;
    static const double want[5][2] = {{0.5, 0.5}, {0.75, 0.25}, {0.25, 0.75}, {0.375, 0.375}, {0.875, 0.875}};
    double u[10];
    gpuest_error_t err;
    assert_int_equal(gpuest_sweep_design_unit(GPUEST_SWEEP_SOBOL, 5, 2, 1, u, &err), GPUEST_OK);
    for (int i = 0; i < 5; i++) {
        assert_true(u[2 * i] == want[i][0]);
        assert_true(u[2 * i + 1] == want[i][1]);
    }
}

/* Unit coordinate -> value: list strata, integer ranges inclusive of both ends. */
static void axis_value_map(void **state)
{
    (void)state;
    char *vals[] = {"a", "b", "c", "d"};
    gpuest_sweep_axis_t list = {.values = vals, .nvalues = 4};
    char buf[32];
    gpuest_sweep_axis_value(&list, 0.0, buf, sizeof buf);
    assert_string_equal(buf, "a");
    gpuest_sweep_axis_value(&list, 0.2499, buf, sizeof buf);
    assert_string_equal(buf, "a");
    gpuest_sweep_axis_value(&list, 0.25, buf, sizeof buf);
    assert_string_equal(buf, "b");
    gpuest_sweep_axis_value(&list, 0.9999, buf, sizeof buf);
    assert_string_equal(buf, "d");
    gpuest_sweep_axis_t ints = {.continuous = 1, .integer = 1, .lo = 60, .hi = 63};
    gpuest_sweep_axis_value(&ints, 0.0, buf, sizeof buf);
    assert_string_equal(buf, "60");
    gpuest_sweep_axis_value(&ints, 0.74, buf, sizeof buf);
    assert_string_equal(buf, "62");
    gpuest_sweep_axis_value(&ints, 0.99, buf, sizeof buf);
    assert_string_equal(buf, "63");
    gpuest_sweep_axis_t reals = {.continuous = 1, .lo = 0.5, .hi = 1.5};
    gpuest_sweep_axis_value(&reals, 0.25, buf, sizeof buf);
    assert_string_equal(buf, "0.75");
}

/* Worker messages round-trip exactly (doubles bit for bit, missing bounds stay missing). */
static void result_round_trip(void **state)
{
    (void)state;
    gpuest_sweep_result_t r, back;
    memset(&r, 0, sizeof r);
    r.point = 42;
    r.ok = 1;
    snprintf(r.start, sizeof r.start, "2026-11-26T06:00:00.123Z");
    snprintf(r.end, sizeof r.end, "2026-11-26T06:00:01.456Z");
    snprintf(r.host, sizeof r.host, "node7");
    snprintf(r.error, sizeof r.error, "two\nlines");
    r.nstats = 3;
    r.stats[0] = (gpuest_sweep_stat_t){"ipc", 0.1 + 0.2, 0.1, 1.0 / 3.0};
    r.stats[1] = (gpuest_sweep_stat_t){"cycles", 123456789.0, NAN, NAN};
    r.stats[2] = (gpuest_sweep_stat_t){"compression.rate", -0.0, NAN, 5e-300};
    size_t len;
    char *msg = gpuest_sweep_result_encode(&r, &len);
    assert_non_null(msg);
    gpuest_error_t err;
    assert_int_equal(gpuest_sweep_result_decode(msg, len, &back, &err), GPUEST_OK);
    assert_int_equal(back.point, 42);
    assert_int_equal(back.ok, 1);
    assert_string_equal(back.host, "node7");
    assert_string_equal(back.start, r.start);
    assert_string_equal(back.error, "two lines");
    assert_int_equal(back.nstats, 3);
    assert_memory_equal(&back.stats[0].value, &r.stats[0].value, sizeof(double));
    assert_memory_equal(&back.stats[0].hi, &r.stats[0].hi, sizeof(double));
    assert_true(isnan(back.stats[1].lo) && isnan(back.stats[1].hi));
    assert_true(back.stats[2].hi == 5e-300);
    assert_string_equal(back.stats[2].name, "compression.rate");
    /* a truncated message is refused, not half read */
    assert_int_equal(gpuest_sweep_result_decode(msg, len - 5, &back, &err), GPUEST_ECORRUPT);
    free(msg);
}

/* The sweep's bar shows points done out of the total (the count the progress bar was told). */
static void progress_shows_count(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    gpuest_progress_t *p = gpuest_progress_create_forced(f, "sweep", 36);
    gpuest_progress_set_unit(p, "points");
    gpuest_progress_show_count(p);
    gpuest_progress_update(p, 7);
    gpuest_progress_finish(p);
    rewind(f);
    char buf[512] = {0};
    assert_true(fread(buf, 1, sizeof buf - 1, f) > 0);
    assert_non_null(strstr(buf, "36/36"));
    assert_non_null(strstr(buf, "points/s"));
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranges_expand),          cmocka_unit_test(bad_specs_name_the_line),
        cmocka_unit_test(bad_values_name_the_axis_line), cmocka_unit_test(grid_points_in_order),
        cmocka_unit_test(duplicate_points_refused), cmocka_unit_test(lhs_one_row_per_stratum),
        cmocka_unit_test(sobol_known_points),     cmocka_unit_test(axis_value_map),
        cmocka_unit_test(result_round_trip),      cmocka_unit_test(progress_shows_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
