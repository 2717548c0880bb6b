/* test_l1compression_cli.c: the compressed L1D as a user meets it: `gpuest simulate --set
 * technique.l1_compression=P` prints the policy's statistics, a static policy spends every EP in
 * its mode, and commands that cannot run it (the estimator) exit 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

/* Every policy has an estimate (the adaptive ones were refused before): the adaptive ones and
 * kernel_opt print their candidates and the one their rule takes; kernel_opt also simulates. */
static void test_estimate_takes_every_policy(void **state)
{
    (void)state;
    static const char *const policies[] = {"latte_cc", "latte_cc_bdi_bpc", "adaptive_hit_count", "adaptive_cmp",
                                           "fann",     "kernel_opt"};
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
    assert_int_equal(run_gpuest(RUN " --set technique.l1_compression=kernel_opt", out, sizeof out), 0);
    assert_non_null(strstr(out, "kernel_opt launch 0 "));
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
                                        "ep_in_period", "mode_none", "mode_bdi", "mode_sc", "hit_extra",
                                        "amat_none", "amat_bdi", "amat_sc", "rule_none", "rule_bdi", "rule_sc"};
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
    assert_non_null(strstr(out, "target label hidden  4 margin 0.000 % guard 0: train agree 0.800"));
    assert_non_null(strstr(out, "kept: target cost, hidden 4, margin 0.000 %, guard 0, valid regret 0.00 %"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Label files for rule-relative targets: every feature = v; the rule chose SC (rule_choice 2)
 * everywhere. v < 0.5: the rule is right (SC 1000 cycles, none and BDI 1010); v >= 0.5: BDI is
 * 1.5 % cheaper than the rule's SC (985 against 1000, none 1000). n values of v in [0, 1]. */
static void write_rule_labels(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 24; i++)
        fprintf(f, "%s,", i < 18 ? (const char *[]){"avail_warps", "cycles_per_schedule", "latency_tolerance",
                                                    "hit_ratio_none", "hit_ratio_bdi", "hit_ratio_sc", "wait_bdi",
                                                    "wait_sc", "miss_rate", "miss_rate_change", "miss_latency",
                                                    "queue_depth", "capacity", "ep_in_period", "mode_none",
                                                    "mode_bdi", "mode_sc", "hit_extra"}[i]
                                 : (const char *[]){"amat_none", "amat_bdi", "amat_sc", "rule_none", "rule_bdi",
                                                    "rule_sc"}[i - 18]);
    fprintf(f, "rule_choice,cycles_none,cycles_bdi,cycles_sc,label\n");
    for (int k = 0; k < n; k++) {
        double v = k / (n - 1.0);
        for (int i = 0; i < 24; i++)
            fprintf(f, "%.4f,", v);
        if (v < 0.5)
            fprintf(f, "2,1010,1010,1000,2\n");
        else
            fprintf(f, "2,1000,985,1000,1\n");
    }
    fclose(f);
}

/* The line of `out` that starts with prefix must contain want. */
static void line_has(const char *prefix, const char *want)
{
    const char *p = strstr(out, prefix);
    if (!p)
        fail_msg("no line '%s' in:\n%s", prefix, out);
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), p);
    if (!strstr(line, want))
        fail_msg("line '%s' lacks '%s'", line, want);
}

/* Rule-relative targets and the margin (span 5 %): the network learns BDI's 1.5 % saving for
 * v >= 0.5, an output near 0.5 + 0.015 / 0.1 = 0.65 against the rule's 0.5, a predicted saving
 * near (0.65 - 0.5) x 2 x 5 % = 1.5 %; for v < 0.5 the others read 0.5 - 0.01 / 0.1 = 0.4. So
 * margins up to 1 % follow BDI where it pays (validation regret 0), the 2 % and 3 % margins keep
 * the rule everywhere and lose 10 x 15 cycles of 10 x 985 + 10 x 1000: 0.76 %, the rule's own
 * regret. Catches a saving of the wrong sign (it would leave the rule where the rule is right), a
 * margin that is not applied (2 % would read 0.00 %) or not compared with the predicted saving in
 * cycles (a missing factor 2 x span), and a kept margin that is not the largest of least regret. */
static void test_fann_train_rule_targets_and_margin(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cfann-XXXXXX", cmd[256], tr[64], va[64];
    assert_non_null(mkdtemp(dir));
    snprintf(tr, sizeof tr, "%s/train.csv", dir);
    snprintf(va, sizeof va, "%s/valid.csv", dir);
    write_rule_labels(tr, 40);
    write_rule_labels(va, 20);
    snprintf(cmd, sizeof cmd, "l1c-fann train --train %s --valid %s --model-dir %s --epochs 300", tr, va, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    line_has("target rule  hidden  4 margin 0.000 %", "valid agree 1.000 regret 0.00 %");
    line_has("target rule  hidden  4 margin 1.000 %", "valid agree 1.000 regret 0.00 %");
    line_has("target rule  hidden  4 margin 2.000 %", "valid agree 0.500 regret 0.76 %");
    line_has("target rule  hidden  4 margin 3.000 %", "valid agree 0.500 regret 0.76 %");
    line_has("rule (latte_cc) on valid", "agree 0.500 regret 0.76 %");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Appends n EPs at feature value v where the rule's SC is right and BDI is 3 % dearer (none 1000,
 * BDI 1030, SC 1000, label SC): a network trained by write_rule_labels departs to BDI at v >= 0.5
 * and loses 30 cycles per EP there. */
static void append_rule_right(const char *path, int n, double v)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 24; i++)
            fprintf(f, "%.4f,", v);
        fprintf(f, "2,1000,1030,1000,2\n");
    }
    fclose(f);
}

/* --select mean against pooled: validation file A is write_rule_labels(20) (departing to BDI saves
 * 15 cycles on its 10 EPs at v >= 0.5; keeping the rule loses 150 of 19850, 0.76 %), file B holds
 * 2 EPs at v = 1 where departing loses 30 each (3 % of B's 2000). Pooled over the 22 EPs departing
 * (margins up to 1 %) loses 60 of 21850 (0.27 %) and keeping the rule (2 %, 3 %) 150 (0.69 %): the
 * 1 % margin is kept. As the mean over the two files departing reads (0 + 3 %) / 2 = 1.50 % and
 * keeping the rule (0.76 + 0) / 2 = 0.38 %: the 3 % margin is kept. Catches a mean that ignores
 * the file boundaries (it would equal the pooled figures) or weighs files by their EPs. */
static void test_fann_train_select_mean(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cfann-XXXXXX", cmd[512], tr[64], va[64], vb[64];
    assert_non_null(mkdtemp(dir));
    snprintf(tr, sizeof tr, "%s/train.csv", dir);
    snprintf(va, sizeof va, "%s/a.csv", dir);
    snprintf(vb, sizeof vb, "%s/b.csv", dir);
    write_rule_labels(tr, 40);
    write_rule_labels(va, 20);
    write_rule_labels(vb, 0);
    append_rule_right(vb, 2, 1.0);
    const char *base = "l1c-fann train --target rule --epochs 300";
    snprintf(cmd, sizeof cmd, "%s --train %s --valid %s,%s --model-dir %s", base, tr, va, vb, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    line_has("target rule  hidden  4 margin 1.000 % guard 0", "valid agree 0.909 regret 0.27 %");
    line_has("target rule  hidden  4 margin 3.000 % guard 0", "valid agree 0.545 regret 0.69 %");
    line_has("kept:", "hidden 4, margin 1.000 %");
    snprintf(cmd, sizeof cmd, "%s --train %s --valid %s,%s --model-dir %s --select mean", base, tr, va, vb, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    line_has("target rule  hidden  4 margin 1.000 % guard 0", "valid agree 0.500 regret 1.50 %");
    line_has("target rule  hidden  4 margin 3.000 % guard 0", "valid agree 0.750 regret 0.38 %");
    line_has("rule (latte_cc) on valid", "regret 0.38 % (mean over the files)");
    line_has("kept:", "margin 3.000 %");
    snprintf(cmd, sizeof cmd, "%s --train %s --valid %s --model-dir %s --select median", base, tr, va, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* --range-guard choose, --hidden, --margin: the validation file adds to write_rule_labels(20) 4 EPs
 * at v = 2, outside the training range [0, 1], where the rule is right and BDI 3 % dearer. The
 * unguarded network carries its v >= 0.5 answer (depart to BDI) out there and loses 120 cycles of
 * 23850 (0.50 %); with the guard the rule decides out of range and the 1 % margin has no regret:
 * kept with guard 1. --hidden 8 --margin 1 trains and scores one network at that margin only.
 * Catches a choice that tries one guard only, a guard not written into the model, and the two
 * options ignored. */
static void test_fann_train_guard_choice_and_fixed_options(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cfann-XXXXXX", cmd[512], tr[64], va[64];
    assert_non_null(mkdtemp(dir));
    snprintf(tr, sizeof tr, "%s/train.csv", dir);
    snprintf(va, sizeof va, "%s/valid.csv", dir);
    write_rule_labels(tr, 40);
    write_rule_labels(va, 20);
    append_rule_right(va, 4, 2.0);
    snprintf(cmd, sizeof cmd, "l1c-fann train --target rule --epochs 300 --train %s --valid %s --model-dir %s "
                              "--range-guard choose", tr, va, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    line_has("target rule  hidden  4 margin 1.000 % guard 1", "regret 0.00 %");
    line_has("target rule  hidden  4 margin 1.000 % guard 0", "regret 0.50 %");
    line_has("kept:", "margin 1.000 %, guard 1, valid regret 0.00 %");
    char scale[128];
    snprintf(scale, sizeof scale, "%s/latte-fann.scale.csv", dir);
    FILE *f = fopen(scale, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    fclose(f);
    assert_non_null(strstr(out, "range_guard,1"));
    snprintf(cmd, sizeof cmd, "l1c-fann train --target rule --epochs 300 --train %s --valid %s --model-dir %s "
                              "--hidden 8 --margin 1", tr, va, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    line_has("target rule  hidden  8 margin 1.000 % guard 0", "regret 0.50 %");
    assert_null(strstr(out, "hidden  4"));
    assert_null(strstr(out, "margin 3.000"));
    line_has("kept:", "target rule, hidden 8, margin 1.000 %, guard 0");
    snprintf(cmd, sizeof cmd, "l1c-fann train --train %s --valid %s --model-dir %s --range-guard 2", tr, va, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The label and evaluation scripts keep the split's sets apart: a workload in two of the train /
 * validation / test sets is refused with exit 2 before anything runs, disjoint sets run (here with
 * /bin/true as the simulator: nothing is labelled), and the evaluation refuses a model folder not
 * named models (whole runs read models/ from their working directory). Catches a refusal that
 * checks training against the default sets only, or refuses every override. */
static void test_fann_scripts_keep_sets_apart(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cfann-XXXXXX", cmd[1024];
    assert_non_null(mkdtemp(dir));
    const char *collect = "sh " GPUEST_SOURCE_DIR "/train/latte_fann_collect.sh /bin/true test 10";
    snprintf(cmd, sizeof cmd, "TEST_WORKLOADS='pvc lud' VALID_WORKLOADS='ss lud' %s %s/a 2>/dev/null >&2", collect,
             dir);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
    snprintf(cmd, sizeof cmd, "TEST_WORKLOADS='pvc' TRAIN_WORKLOADS='kmeans pvc' %s %s/b 2>/dev/null >&2", collect,
             dir);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
    snprintf(cmd, sizeof cmd, "TEST_WORKLOADS='pvc' VALID_WORKLOADS='ss' TRAIN_WORKLOADS='kmeans' %s %s/c >/dev/null",
             collect, dir);
    assert_int_equal(WEXITSTATUS(system(cmd)), 0);
    snprintf(cmd, sizeof cmd, "MODEL_DIR=%s SKIP_TRAIN=1 sh " GPUEST_SOURCE_DIR "/train/latte_fann_eval.sh /bin/true "
             "%s %s %s/e.csv 2>/dev/null >&2", dir, dir, dir, dir);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
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
        cmocka_unit_test(test_fann_train_rule_targets_and_margin),
        cmocka_unit_test(test_fann_train_select_mean),
        cmocka_unit_test(test_fann_train_guard_choice_and_fixed_options),
        cmocka_unit_test(test_fann_scripts_keep_sets_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
