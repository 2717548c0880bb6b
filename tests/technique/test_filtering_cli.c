/* test_filtering_cli.c: data filtering as a user meets it: `gpuest simulate --set technique.filtering=X`
 * sends partial data requests, cuts the reply flits and prints its statistics; the compositions and
 * commands it does not support exit 2 naming the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_program.h"

static char out[1 << 16];

#define RUN "simulate --preset mesh56 --workload bfs --scale tiny"

/* reply flits of the "total" row (columns: kernel cycles winst ipc l1_miss amat req mem reply stall req_fl rep_fl) */
static double reply_flits(void)
{
    const char *p = strstr(out, "\ntotal");
    assert_non_null(p);
    char f[12][32];
    assert_int_equal(sscanf(p + 1, "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s", f[0], f[1], f[2],
                            f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11]),
                     12);
    return atof(f[11]);
}

static double stat(const char *name)
{
    const char *p = strstr(out, name);
    if (!p)
        fail_msg("%s missing from the output", name);
    return atof(p + strlen(name));
}

/* bfs reads sparse words of its node and edge arrays: partial requests must go out (PDRs > 0, FM
 * misses counted) and the reply flits must fall by more than 10 % (measured: 25 % DF-TRUC, 15 %
 * DF-MAN at this scale); fails when the hooks are not installed or the replies keep their size. */
static void test_filtering_cuts_reply_flits(void **state)
{
    (void)state;
    const char *modes[] = {"df_truc", "df_man"};
    assert_int_equal(run_gpuest(RUN, out, sizeof out), 0);
    double base = reply_flits();
    for (int m = 0; m < 2; m++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, RUN " --set technique.filtering=%s", modes[m]);
        assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
        double f = reply_flits();
        if (!(f < 0.9 * base))
            fail_msg("%s: reply flits %g, baseline %g", modes[m], f, base);
        assert_true(stat("technique filtering.pdr = ") > 0);
        assert_true(stat("technique filtering.fm = ") > 0);
    }
}

static void test_unsupported_combinations_exit_2(void **state)
{
    (void)state;
    assert_int_equal(
        run_gpuest(RUN " --set technique.filtering=df_man --set technique.compression=dpc", out, sizeof out), 2);
    assert_non_null(strstr(out, "technique.compression"));
    assert_int_equal(run_gpuest(RUN " --set technique.filtering=df_sieve", out, sizeof out), 2);
    /* the estimator takes filtering, but not filtering with PCU coalescing (validated first) */
    assert_int_equal(run_gpuest("estimate --preset fermi --workload hotspot --scale small --set technique.filtering=df_man "
                                "--set technique.coalescing=pcu",
                                out, sizeof out),
                     2);
    assert_non_null(strstr(out, "technique.filtering"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filtering_cuts_reply_flits),
        cmocka_unit_test(test_unsupported_combinations_exit_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
