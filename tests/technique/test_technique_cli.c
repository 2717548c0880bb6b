/* test_technique_cli.c: techniques as a user meets them: `gpuest simulate --set technique.compression=X`
 * changes what the run prints for every algorithm; a technique the command cannot run exits 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compress/compress.h"
#include "run_program.h"

static char out[1 << 16];

/* The "total" line of the simulate table. */
static void total_line(char *dst, size_t cap)
{
    const char *t = strstr(out, "\ntotal");
    assert_non_null(t);
    const char *e = strchr(t + 1, '\n');
    size_t n = e ? (size_t)(e - t - 1) : strlen(t + 1);
    snprintf(dst, cap, "%.*s", (int)n, t + 1);
}

static void test_every_algorithm_changes_the_run(void **state)
{
    (void)state;
    char base[512], line[512], args[512];
    assert_int_equal(run_gpuest("simulate --preset fermi --workload bfs --scale tiny", out, sizeof out), 0);
    total_line(base, sizeof base);
    for (size_t i = 0; gpuest_compress_algos[i]; i++) {
        const char *name = gpuest_compress_algos[i]->name;
        if (strcmp(name, "none") == 0)
            continue;
        snprintf(args, sizeof args, "simulate --preset fermi --workload bfs --scale tiny --set technique.compression=%s",
                 name);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        assert_non_null(strstr(out, "technique compression.rate = "));
        total_line(line, sizeof line);
        if (strcmp(line, base) == 0)
            fail_msg("compression=%s printed the baseline's total row: %s", name, line);
    }
}

static void test_unsupported_command_exits_2(void **state)
{
    (void)state;
    int rc = run_gpuest("run --preset fermi --workload bfs --scale tiny --set technique.compression=bdi", out,
                        sizeof out);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "technique.compression"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm_changes_the_run),
        cmocka_unit_test(test_unsupported_command_exits_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
