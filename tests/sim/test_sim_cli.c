/* test_sim_cli.c: 'gpuest simulate' run as a user would: CSV columns and rows, the total row, bad input. */
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

static char out[1 << 16];

static const char *const leading[] = {"workload", "preset", "kernel", "cycles", "warp_instructions", "ipc",
                                      "l1_miss_rate", "amat", "req_latency", "mem_latency", "reply_latency",
                                      "mc_stall_ratio", "request_flits", "reply_flits", "intercore_locality_960"};

typedef struct {
    size_t rows, ncols;
    unsigned long long kernel_cycles, total_cycles;
    int total_last;
} csv_check_t;

static gpuest_err on_row(void *ctx, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    (void)err;
    csv_check_t *c = ctx;
    if (line == 1) {
        c->ncols = n;
        for (size_t i = 0; i < sizeof leading / sizeof leading[0]; i++)
            assert_string_equal(f[i], leading[i]);
        return GPUEST_OK;
    }
    assert_int_equal(n, c->ncols);
    assert_string_equal(f[0], "bfs");
    assert_string_equal(f[1], "fermi");
    uint64_t cyc;
    assert_int_equal(gpuest_parse_u64(f[3], &cyc), GPUEST_OK);
    c->total_last = strcmp(f[2], "total") == 0;
    if (c->total_last)
        c->total_cycles = cyc;
    else
        c->kernel_cycles += cyc;
    c->rows++;
    return GPUEST_OK;
}

static void test_csv(void **state)
{
    (void)state;
    char path[256], args[512];
    snprintf(path, sizeof path, "%s/sim_cli_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "simulate --preset fermi --workload bfs --scale tiny --csv %s", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "gpgpu_simulation_rate"));
    assert_non_null(strstr(out, "(cycle/sec)"));
    csv_check_t c = {0};
    gpuest_error_t e;
    assert_int_equal(gpuest_csv_read(path, on_row, &c, &e), GPUEST_OK);
    assert_true(c.rows >= 2);
    assert_true(c.total_last);
    assert_int_equal(c.kernel_cycles, c.total_cycles);
    unlink(path);
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest("simulate --help", out, sizeof out), 0);
    assert_non_null(strstr(out, "usage: gpuest simulate"));
    assert_int_equal(run_gpuest("simulate --workload nosuch --scale tiny", out, sizeof out), 2);
    assert_non_null(strstr(out, "nosuch"));
    assert_int_equal(run_gpuest("simulate --workload bfs --max-cycles x", out, sizeof out), 2);
    assert_int_equal(run_gpuest("simulate --preset nosuch --workload bfs", out, sizeof out), 2);
    assert_int_equal(run_gpuest("simulate", out, sizeof out), 2);
}

static void test_limit(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest("simulate --preset fermi --workload gemm --scale tiny --max-cycles 500", out,
                                sizeof out),
                     0);
    assert_non_null(strstr(out, "total*"));
    assert_non_null(strstr(out, "  500 ")); /* stopped exactly at the limit */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
