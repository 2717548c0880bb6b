/* test_l1compression_cli.c: the compressed L1D as a user meets it: `gpuest simulate --set
 * technique.l1_compression=P` prints the policy's statistics, a static policy spends every EP in
 * its mode, and commands that cannot run it (the estimator) exit 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_program.h"

static char out[1 << 16];

#define RUN "simulate --preset latte15 --workload ss --scale tiny"

static double stat(const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "technique l1_compression.%s = ", name);
    const char *p = strstr(out, key);
    if (!p)
        fail_msg("no '%s' in the output", key);
    return atof(p + strlen(key));
}

static void test_static_bdi_spends_every_ep_in_bdi(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest(RUN " --set technique.l1_compression=static_bdi", out, sizeof out), 0);
    assert_true(stat("eps") >= 1);
    assert_true(stat("ep_share_bdi") == 1.0);
    assert_true(stat("ep_share_none") == 0.0);
    assert_true(stat("books") == 0.0); /* no SC code book without SC */
    assert_true(stat("fills_compressed") > 0.0);
}

static void test_estimate_refuses_it(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest("estimate --preset latte15 --workload ss --scale tiny "
                                "--set technique.l1_compression=latte_cc", out, sizeof out), 2);
    assert_non_null(strstr(out, "technique.l1_compression"));
    assert_int_equal(run_gpuest(RUN " --set technique.l1_compression=kernel_opt", out, sizeof out), 2);
}

/* The fann policy with the shipped model (models/latte-fann.net) runs and reports its EPs; the
 * oracle's label collection refuses a policy without the sampled sets' features. */
static void test_fann_policy_and_oracle_options(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest(RUN " --set technique.l1_compression=fann", out, sizeof out), 0);
    assert_true(stat("eps") >= 1);
    assert_true(stat("ep_share_bpc") == 0.0); /* fann chooses among none, BDI and SC */
    assert_int_equal(run_gpuest(RUN " --set technique.l1_compression=static_bdi --l1c-oracle /nonexistent/x.csv", out,
                                sizeof out),
                     2);
    assert_non_null(strstr(out, "--l1c-oracle needs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_bdi_spends_every_ep_in_bdi),
        cmocka_unit_test(test_estimate_refuses_it),
        cmocka_unit_test(test_fann_policy_and_oracle_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
