/* test_cli_noc_model.c: 'gpuest noc --model analytic' and '--compare' as a user runs them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/core.h"
#include "run_program.h"

typedef struct {
    char rows[8][16][32];
    size_t nrows, ncols;
} table_t;

static gpuest_err keep_row(void *ctx, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    (void)line;
    (void)err;
    table_t *t = ctx;
    if (t->nrows < 8) {
        for (size_t i = 0; i < n && i < 16; i++)
            snprintf(t->rows[t->nrows][i], 32, "%s", f[i]);
        t->ncols = n;
        t->nrows++;
    }
    return GPUEST_OK;
}

static char out[1 << 16];

/* Near zero load the model reproduces BookSim's exact formula 7 + 5 D + (L - 1)
 * with D = 2 (k^2 - 1) / (3 k) = 5.25 on 8x8: 33.25 cycles for 1-flit packets. */
static void test_analytic_row_on_booksim_config(void **state)
{
    (void)state;
    char csv[256], args[1024];
    snprintf(csv, sizeof csv, "%s/noc_model_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args,
             "noc --booksim data/reference/booksim/configs/mesh8_vc4_uniform_p1.cfg --model analytic --rate 0.001 "
             "--csv %s",
             csv);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    table_t t = {0};
    assert_int_equal(gpuest_csv_read(csv, keep_row, &t, NULL), GPUEST_OK);
    assert_int_equal(t.nrows, 2);
    assert_int_equal(t.ncols, 12); /* the reference columns, no more */
    assert_string_equal(t.rows[0][8], "avg_packet_latency");
    double lat = strtod(t.rows[1][8], NULL);
    assert_true(lat > 33.2 && lat < 33.4);
    assert_string_equal(t.rows[1][11], "0");
    unlink(csv);
}

static void test_compare_prints_both(void **state)
{
    (void)state;
    char csv[256], args[1024];
    snprintf(csv, sizeof csv, "%s/noc_cmp_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "noc --k 4 --vcs 2 --rate 0.05 --sample-period 1000 --compare --csv %s", csv);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "model_latency"));
    table_t t = {0};
    assert_int_equal(gpuest_csv_read(csv, keep_row, &t, NULL), GPUEST_OK);
    assert_int_equal(t.nrows, 3);
    assert_string_equal(t.rows[0][12], "model");
    assert_string_equal(t.rows[1][12], "sim");
    assert_string_equal(t.rows[2][12], "analytic");
    double sim = strtod(t.rows[1][8], NULL), model = strtod(t.rows[2][8], NULL);
    assert_true(sim > 0 && model > 0);
    assert_true(model / sim > 0.9 && model / sim < 1.1); /* low load: both near zero-load */
    unlink(csv);
    assert_int_equal(run_gpuest("noc --model queue", out, sizeof out), 2);
    assert_non_null(strstr(out, "expected sim or analytic"));
}

/* A saturated point is reported as such, never as a number. */
static void test_analytic_saturation(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest("noc --model analytic --traffic gpu --rate 0.5", out, sizeof out), 0);
    assert_non_null(strstr(out, "analytic"));
    assert_null(strstr(out, "nan"));
    assert_null(strstr(out, "inf"));
    char *row = strstr(out, "analytic");
    assert_non_null(strstr(row, " 1 ")); /* saturated column */
}

/* Multicast traffic as a user sets it: half of the packets go to 3 nodes, so every injected flit is
 * accepted (0.5 + 0.5 x 3) = 2 times: simulator and model both report 2 x 0.05 accepted, with the
 * routing function named in the CSV; unsupported combinations exit 2 with a message. */
static void test_multicast_traffic(void **state)
{
    (void)state;
    char csv[256], args[1024];
    snprintf(csv, sizeof csv, "%s/noc_mc_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args,
             "noc --k 4 --vcs 4 --routing o1turn --rate 0.05 --multicast 0.5 --mcast-size 3 --sample-period 2000 "
             "--compare --csv %s",
             csv);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    table_t t = {0};
    assert_int_equal(gpuest_csv_read(csv, keep_row, &t, NULL), GPUEST_OK);
    assert_int_equal(t.nrows, 3);
    assert_string_equal(t.rows[1][4], "o1turn");
    double sim_acc = strtod(t.rows[1][10], NULL), model_acc = strtod(t.rows[2][10], NULL);
    assert_true(fabs(model_acc - 0.1) < 1e-9);
    assert_true(fabs(sim_acc - 0.1) < 0.006); /* a 2000-cycle window of Bernoulli sources */
    unlink(csv);
    assert_int_equal(run_gpuest("noc --traffic transpose --multicast 0.2", out, sizeof out), 2);
    assert_non_null(strstr(out, "uniform"));
    assert_int_equal(run_gpuest("noc --multicast 0.2 --mcast-size 5-3", out, sizeof out), 2);
    assert_int_equal(run_gpuest("noc --routing west", out, sizeof out), 2);
    assert_non_null(strstr(out, "xy, yx, o1turn"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analytic_row_on_booksim_config),
        cmocka_unit_test(test_compare_prints_both),
        cmocka_unit_test(test_analytic_saturation),
        cmocka_unit_test(test_multicast_traffic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
