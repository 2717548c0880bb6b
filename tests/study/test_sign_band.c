/* test_sign_band.c: scripts/sign-band.sh on files worked by hand. Band of fermi aa: baseline
 * 100, perturbations 102 and 99: [-1, +2] %. Band of mesh56 bb: baseline 50 (not the file's first
 * row), perturbations 50.5 and 50.25: effects +1 and +0.5 %, the band [0, +1] (zero is always
 * inside: the baseline's own run). fermi cc has no band file. Points: p1 +1.50 (inside, wrong),
 * p2 +2.50 (outside, right), p3 -1.20 (outside, right), q1 +0.30 (inside, wrong), q2 -0.40
 * (outside, right), r1 (no band, right); a -before.csv copy's point and rows without a sign are
 * not counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_program.h"

static char dir[64];

static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    test_write_text(path, text);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gpuest-sign-band-XXXXXX");
    assert_non_null(mkdtemp(dir));
    put("band-fermi-aa-small.csv", "point,sets,ipc_sim\nbaseline,,100\nl1lat_m1,l1.hit_latency=19,102\n"
                                   "l2lat_p1,l2.hit_latency=121,99\n");
    put("band-mesh56-bb-small.csv", "point,sets,ipc_sim\nl1lat_m1,x,50.5\nbaseline,,50\nl1lat_p1,y,50.25\n");
    static const char head[] = "point,sets,ipc_sim,effect_sim_pct,effect_est_pct,sign_agree\n";
    char text[1024];
    snprintf(text, sizeof text,
             "%sl2lat_x0.5,l2,1,-,-,-\np1,a,1,+1.50,-0.20,no\np2,b,1,+2.50,+1.00,yes\n"
             "p3,c,1,-1.20,-0.50,yes\n",
             head);
    put("techniques-fermi-aa-small-1.csv", text);
    snprintf(text, sizeof text, "%sp9,z,1,+5.00,+5.00,yes\n", head);
    put("techniques-fermi-aa-small-2-before.csv", text);
    snprintf(text, sizeof text, "%sq1,a,1,+0.30,-0.10,no\nq2,b,1,-0.40,-0.20,yes\n", head);
    put("validate-mesh56-bb-small.csv", text);
    snprintf(text, sizeof text, "%sr1,a,1,+3.00,+3.00,yes\n", head);
    put("validate-fermi-cc-small.csv", text);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_counts_by_band(void **state)
{
    (void)state;
    char args[256], out[4096];
    snprintf(args, sizeof args, "%s %s", dir, dir);
    assert_int_equal(test_run_program("sh scripts/sign-band.sh", args, out, sizeof out), 0);
    assert_non_null(strstr(out, "outside the band: 3 of 3 right\n"));
    assert_non_null(strstr(out, "inside the band: 0 of 2 right\n"));
    assert_non_null(strstr(out, "without a band file: 1 of 1 right\n"));
}

static void test_lists_points_with_their_band(void **state)
{
    (void)state;
    char args[256], out[4096];
    snprintf(args, sizeof args, "-v %s %s", dir, dir);
    assert_int_equal(test_run_program("sh scripts/sign-band.sh", args, out, sizeof out), 0);
    assert_non_null(strstr(out, "fermi aa p1 +1.50 -0.20 no -1.00 2.00 inside\n"));
    assert_non_null(strstr(out, "mesh56 bb q1 +0.30 -0.10 no 0.00 1.00 inside\n"));
    assert_non_null(strstr(out, "mesh56 bb q2 -0.40 -0.20 yes 0.00 1.00 outside\n"));
    assert_null(strstr(out, "p9"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_by_band),
        cmocka_unit_test(test_lists_points_with_their_band),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
