/* test_sim_baseline.c: re-simulates the committed baseline rows and compares them field by field, so an
 * unintended change to the simulator's baseline fails CI.
 *
 * data/baseline-tiny.csv holds the total rows of a few workloads at --scale tiny
 * (seconds under the sanitizers); every one is re-run with the same command and
 * must match exactly (same seed, same output, bit for bit: the CSV prints fixed
 * decimals). With GPUEST_BASELINE_FULL=1 the first rows of data/baseline-small.csv
 * (bfs on mesh56 XY-XY and XY-YX and on fermi, minutes) are checked as well.
 * An intended change regenerates both files with the commands in docs/sim.md. */
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

#define MAXROWS 64
#define MAXCOLS 96
#define FIELD 48

typedef struct {
    size_t n, ncols;
    char header[MAXCOLS][FIELD];
    char rows[MAXROWS][MAXCOLS][FIELD];
    int max_rows;
} table_t;

static gpuest_err on_row(void *ctx, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    (void)err;
    table_t *t = ctx;
    assert_true(n <= MAXCOLS);
    if (line == 1) {
        t->ncols = n;
        for (size_t i = 0; i < n; i++)
            snprintf(t->header[i], FIELD, "%s", f[i]);
        return GPUEST_OK;
    }
    assert_int_equal(n, t->ncols);
    if ((int)t->n >= t->max_rows || strcmp(f[2], "total") != 0)
        return GPUEST_OK;
    for (size_t i = 0; i < n; i++)
        snprintf(t->rows[t->n][i], FIELD, "%s", f[i]);
    t->n++;
    return GPUEST_OK;
}

static void read_table(const char *path, table_t *t, int max_rows)
{
    memset(t, 0, sizeof *t);
    t->max_rows = max_rows;
    gpuest_error_t e = {0};
    if (gpuest_csv_read(path, on_row, t, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
}

/* The routing of a row: the committed files carry it in a "routing" column. */
static const char *field(const table_t *t, size_t row, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->header[i], name) == 0)
            return t->rows[row][i];
    fail_msg("column %s missing", name);
    return NULL;
}

static void check_file(const char *path, const char *scale, int max_rows)
{
    static table_t want, got;
    static char out[1 << 16];
    read_table(path, &want, max_rows);
    assert_true(want.n > 0);
    for (size_t r = 0; r < want.n; r++) {
        const char *wl = field(&want, r, "workload"), *preset = field(&want, r, "preset");
        const char *routing = field(&want, r, "routing");
        char csv[256], args[768];
        snprintf(csv, sizeof csv, "%s/baseline_%d_%zu.csv", GPUEST_BINARY_DIR, (int)getpid(), r);
        snprintf(args, sizeof args, "simulate --preset %s --workload %s --scale %s --seed 1 --csv %s%s%s", preset, wl,
                 scale, csv, strcmp(routing, "-") != 0 ? " --set noc.routing_reply=" : "",
                 strcmp(routing, "-") != 0 ? routing : "");
        if (run_gpuest(args, out, sizeof out) != 0)
            fail_msg("gpuest %s failed:\n%s", args, out);
        read_table(csv, &got, 1);
        remove(csv);
        assert_int_equal(got.n, 1);
        for (size_t i = 0; i < got.ncols; i++) {
            const char *w = field(&want, r, got.header[i]);
            if (strcmp(w, got.rows[0][i]) != 0)
                fail_msg("%s on %s (%s), column %s: committed %s, now %s", wl, preset, routing, got.header[i], w,
                         got.rows[0][i]);
        }
    }
}

static void test_tiny(void **st)
{
    (void)st;
    check_file(GPUEST_SOURCE_DIR "/data/baseline-tiny.csv", "tiny", MAXROWS);
}

static void test_small_env(void **st)
{
    (void)st;
    const char *full = getenv("GPUEST_BASELINE_FULL");
    if (!full || strcmp(full, "1") != 0)
        skip();
    check_file(GPUEST_SOURCE_DIR "/data/baseline-small.csv", "small", 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_tiny), cmocka_unit_test(test_small_env)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
