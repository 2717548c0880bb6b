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

/* Every policy has an estimate (the adaptive ones were refused before): the adaptive ones print
 * their candidates and the one their rule takes. kernel_opt is no value of the key. */
static void test_estimate_takes_every_policy(void **state)
{
    (void)state;
    static const char *const policies[] = {"latte_cc", "latte_cc_bdi_bpc", "adaptive_hit_count", "adaptive_cmp",
                                           "fann"};
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "estimate --preset fermi --workload backprop --scale small "
                                  "--set technique.l1_compression=%s", policies[i]);
        if (run_gpuest(cmd, out, sizeof out) != 0)
            fail_msg("%s: %s", policies[i], out);
        assert_non_null(strstr(out, "adaptive compressed L1, candidates none"));
        assert_non_null(strstr(out, "the policy's rule takes"));
    }
    assert_int_equal(run_gpuest("estimate --preset fermi --workload backprop --scale small "
                                "--set technique.l1_compression=static_sc", out, sizeof out), 0);
    assert_non_null(strstr(out, "(compressed L1)"));
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

/* Writes a label file: per feature value v (every feature = v), `ties` EPs where the three modes
 * took the same cycles (label none) and one EP where BDI (v < 0.5) or SC (v >= 0.5) is 10 %
 * cheaper (ties 0: only those). */
static void write_labels(const char *path, int ties)
{
    static const char *const names[] = {"avail_warps", "cycles_per_schedule", "latency_tolerance",
                                        "hit_ratio_none", "hit_ratio_bdi", "hit_ratio_sc", "wait_bdi", "wait_sc",
                                        "miss_rate", "miss_rate_change", "miss_latency", "queue_depth", "capacity",
                                        "ep_in_period", "mode_none", "mode_bdi", "mode_sc", "hit_extra"};
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        fprintf(f, "%s,", names[i]);
    fprintf(f, "rule_choice,cycles_none,cycles_bdi,cycles_sc,label\n");
    for (int k = 0; k < 20; k++) {
        double v = k / 19.0;
        for (int t = 0; t <= ties; t++) {
            int tie = t < ties, sc = v >= 0.5;
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                fprintf(f, "%.4f,", v);
            fprintf(f, "0,1000,%d,%d,%d\n", tie || sc ? 1000 : 900, tie || !sc ? 1000 : 900, tie ? 0 : sc ? 2 : 1);
        }
    }
    fclose(f);
}

/* `l1c-fann train` with cost targets: where 4 EPs in 5 are ties labelled none, one-hot targets
 * learn "none" everywhere and lose 10 % on the others; cost targets leave the ties out and pick
 * the cheaper mode, so the cost network is kept with no regret on the validation EPs. Catches a
 * cost target of the wrong sign (it would pick the dearest mode), ties kept as targets, and a
 * selection that does not compare the two kinds of target on validation. */
static void test_fann_train_prefers_cost_targets(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cfann-XXXXXX", cmd[256], tr[64], va[64];
    assert_non_null(mkdtemp(dir));
    snprintf(tr, sizeof tr, "%s/train.csv", dir);
    snprintf(va, sizeof va, "%s/valid.csv", dir);
    write_labels(tr, 4);
    write_labels(va, 0);
    snprintf(cmd, sizeof cmd, "l1c-fann train --train %s --valid %s --model-dir %s --epochs 300", tr, va, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "target label hidden  4: train agree 0.800"));
    assert_non_null(strstr(out, "kept: target cost, hidden 4, valid regret 0.00 %"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_bdi_spends_every_ep_in_bdi),
        cmocka_unit_test(test_estimate_takes_every_policy),
        cmocka_unit_test(test_fann_policy_and_oracle_options),
        cmocka_unit_test(test_fann_train_prefers_cost_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
