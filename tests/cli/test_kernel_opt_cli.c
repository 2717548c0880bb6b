/* test_kernel_opt_cli.c: `gpuest simulate --set technique.l1_compression=kernel_opt` on the real
 * simulator (latte15, streamcluster at scale tiny: three launches whose fastest modes are none,
 * SC and BDI, so every mode must win once):
 *  - every launch's row in --csv has exactly the fewest of the three cycles its 'kernel_opt
 *    launch' line reports, and the total is their sum (the parent reruns the launch in the
 *    winner from the same state, and the simulator is deterministic);
 *  - launch 0's three costs are the launch-0 cycles of separate none, static_bdi and static_sc
 *    runs (every run starts launch 0 from the same state), so each copy ran in its own mode;
 *  - the winners are none, SC, BDI (catches a policy stuck in one mode);
 *  - the same command gives the same bytes twice (determinism);
 *  - the estimate of kernel_opt takes its fastest candidate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_program.h"

#define RUN "simulate --preset latte15 --workload streamcluster --scale tiny --set technique.l1_compression="
#define LAUNCHES 3

static char out[1 << 16];

/* Cycles of each launch (column 4 of the CSV rows with a launch index, column 16) and the total. */
static int read_cycles(const char *path, unsigned long long *cyc, int max, unsigned long long *total)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        char *f[20];
        int nf = 0;
        for (char *p = strtok(line, ","); p && nf < 20; p = strtok(NULL, ","))
            f[nf++] = p;
        if (nf < 16 || strcmp(f[0], "workload") == 0)
            continue;
        if (strcmp(f[2], "total") == 0)
            *total = strtoull(f[3], NULL, 10);
        else if (n < max)
            cyc[n++] = strtoull(f[3], NULL, 10);
    }
    fclose(fp);
    return n;
}

static void test_launch_rows_are_the_winners(void **st)
{
    (void)st;
    char csv[] = "/tmp/gpuest-kopt-XXXXXX";
    int fd = mkstemp(csv);
    assert_true(fd >= 0);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, RUN "kernel_opt --csv %s", csv);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    double cost[LAUNCHES][3];
    char choice[LAUNCHES][8];
    for (int l = 0; l < LAUNCHES; l++) {
        char key[64];
        snprintf(key, sizeof key, "kernel_opt launch %d ", l);
        const char *p = strstr(out, key);
        if (!p)
            fail_msg("no '%s' in: %s", key, out);
        p = strchr(p + strlen(key), ':');
        assert_non_null(p);
        assert_int_equal(
            sscanf(p, ": none %lf bdi %lf sc %lf -> %7s", &cost[l][0], &cost[l][1], &cost[l][2], choice[l]), 4);
    }
    assert_string_equal(choice[0], "none");
    assert_string_equal(choice[1], "sc");
    assert_string_equal(choice[2], "bdi");
    unsigned long long cyc[LAUNCHES + 1], total = 0, sum = 0;
    assert_int_equal(read_cycles(csv, cyc, LAUNCHES + 1, &total), LAUNCHES);
    for (int l = 0; l < LAUNCHES; l++) {
        double best = cost[l][0];
        for (int m = 1; m < 3; m++)
            best = cost[l][m] < best ? cost[l][m] : best;
        assert_true((double)cyc[l] == best);
        sum += cyc[l];
    }
    assert_true(sum == total);

    /* launch 0 of each static run */
    static const char *const statics[3] = {"none", "static_bdi", "static_sc"};
    for (int m = 0; m < 3; m++) {
        unsigned long long c[64], t = 0;
        snprintf(cmd, sizeof cmd, RUN "%s --csv %s", statics[m], csv);
        assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
        assert_true(read_cycles(csv, c, 64, &t) >= 1);
        assert_true((double)c[0] == cost[0][m]);
    }
    unlink(csv);
}

static void test_same_output_twice(void **st)
{
    (void)st;
    static char again[1 << 16];
    assert_int_equal(run_gpuest(RUN "kernel_opt", out, sizeof out), 0);
    assert_int_equal(run_gpuest(RUN "kernel_opt", again, sizeof again), 0);
    /* the lines after the table up to the timing lines (which hold wall time) */
    char *a = strstr(out, "kernel_opt launch 0"), *b = strstr(again, "kernel_opt launch 0");
    assert_non_null(a);
    assert_non_null(b);
    char *ta = strstr(out, "gpgpu_simulation_time"), *tb = strstr(again, "gpgpu_simulation_time");
    assert_non_null(ta);
    assert_non_null(tb);
    *ta = *tb = 0; /* the table before the timing lines */
    assert_string_equal(out, again);
    assert_string_equal(a, b);
}

/* The estimate of kernel_opt is its fastest candidate's (the model's rule GPUEST_MODEL_L1C_FASTEST,
 * per phase where the calibration has phases): on fermi 2dconv (small) static_sc's estimate is
 * faster than none's and static_bdi's, so kernel_opt's IPC is at least each of theirs and above
 * none's. Catches the rule picking the slowest candidate, staying in none, or AMAT_GPU's pick. */
static double estimate_ipc(const char *policy)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "estimate --preset fermi --workload 2dconv --scale small --set technique.l1_compression=%s", policy);
    if (run_gpuest(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", policy, out);
    for (const char *p = strstr(out, "\npoint "); p; p = strstr(p + 1, "\npoint ")) {
        double ipc;
        if (sscanf(p, "\npoint %lf", &ipc) == 1)
            return ipc;
    }
    fail_msg("%s: no estimate row in: %s", policy, out);
    return 0;
}

static void test_estimate_takes_the_fastest(void **st)
{
    (void)st;
    double kopt = estimate_ipc("kernel_opt"), none = estimate_ipc("none");
    double bdi = estimate_ipc("static_bdi"), sc = estimate_ipc("static_sc");
    assert_true(kopt >= none && kopt >= bdi && kopt >= sc);
    assert_true(kopt > none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_rows_are_the_winners),
        cmocka_unit_test(test_same_output_twice),
        cmocka_unit_test(test_estimate_takes_the_fastest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
