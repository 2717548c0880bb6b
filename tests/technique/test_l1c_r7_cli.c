/* test_l1c_r7_cli.c: the seventh round of the FANN mode selector (docs/latte-cc.md, "Seventh
 * round") as a user meets it: `gpuest l1c-fann train --spans p99` writes the spans it trained with
 * into the model, and train/latte_fann_pick.sh keeps the candidate of the best worst-workload
 * speedup on hand-made choice tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_program.h"
#include "technique/technique.h"

static char out[1 << 16];

/* Period labels against a rule child of 1000 cycles, each row twice: holding none / BDI / SC costs
 * 900 / 1450 / 1000 (savings +10 %, -45 %, 0) and 980 / 3000 / 1100 (+2 %, -200 %, -10 %). */
static void write_labels(const char *path)
{
    static const int costs[2][3] = {{900, 1450, 1000}, {980, 3000, 1100}};
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "workload,sm,ep,core_cycle");
    for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
        fprintf(fp, ",%s", gpuest_l1c_fann_feature_names[i]);
    fprintf(fp, ",mode,rule_choice,cycles_none,cycles_bdi,cycles_sc,cycles_rule,label\n");
    for (int r = 0; r < 4; r++) {
        fprintf(fp, "w,%d,1,%d", r, 1000 + r);
        for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
            fprintf(fp, ",%d", (r + i) % 3);
        const int *c = costs[r % 2];
        fprintf(fp, ",0,1,%d,%d,%d,1000,0\n", c[0], c[1], c[2]);
    }
    fclose(fp);
}

static int has_meta(const char *scale, const char *line)
{
    FILE *fp = fopen(scale, "r");
    assert_non_null(fp);
    char buf[512];
    int found = 0;
    while (fgets(buf, sizeof buf, fp))
        found |= strncmp(buf, line, strlen(line)) == 0;
    fclose(fp);
    return found;
}

/* Positive savings 0.10, 0.02 (twice each): nearest rank ceil(0.99 x 4) = 4 -> gain span 0.1;
 * losses 0.45, 2.0, 0.10 (twice each): rank 6 -> loss span 2. The model's rule_span (what the
 * policy decodes decisions with) must be the gain span and rule_span_loss the loss span; without
 * --spans the fixed 5 % stays and no rule_span_loss is written. Catches the option ignored, the
 * loss span written as rule_span (the policy would read gains 20 times too large), spans from
 * the validation rows, an unknown --spans value accepted. */
static void test_train_writes_p99_spans(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cr7-XXXXXX", tr[256], scale[300], cmd[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(tr, sizeof tr, "%s/train.csv", dir);
    write_labels(tr);
    snprintf(scale, sizeof scale, "%s/latte-fann.scale.csv", dir);
    const char *base = "l1c-fann train --target rule --epochs 20 --hidden 4 --margin 1";
    snprintf(cmd, sizeof cmd, "%s --train %s --valid %s --model-dir %s --spans p99", base, tr, tr, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "gain 10.000 %, loss 200.000 %"));
    assert_true(has_meta(scale, "meta,rule_span,0.1,"));
    assert_true(has_meta(scale, "meta,rule_span_loss,2,"));
    snprintf(cmd, sizeof cmd, "%s --train %s --valid %s --model-dir %s", base, tr, tr, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 0);
    assert_true(has_meta(scale, "meta,rule_span,0.05,"));
    assert_false(has_meta(scale, "meta,rule_span_loss,"));
    snprintf(cmd, sizeof cmd, "%s --train %s --valid %s --model-dir %s --spans p90", base, tr, tr, dir);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Runs the pick script on a table; returns its first output line in line. */
static int pick(const char *crit, const char *table, char *line, size_t cap)
{
    char path[] = "/tmp/gpuest-l1cpick-XXXXXX", cmd[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, table, strlen(table)), (long)strlen(table));
    close(fd);
    snprintf(cmd, sizeof cmd, "sh " GPUEST_SOURCE_DIR "/train/latte_fann_pick.sh %s %s 2>/dev/null", crit, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    line[0] = 0;
    if (!fgets(line, (int)cap, p))
        line[0] = 0;
    line[strcspn(line, "\n")] = 0;
    int rc = pclose(p);
    unlink(path);
    return WEXITSTATUS(rc);
}

#define HEAD "hidden,margin_pct,guard,cycles_fann_a,fann_over_latte_cc_a,cycles_fann_b,fann_over_latte_cc_b," \
             "mean_fann_over_latte_cc\n"

/* Table 1: the rule's twin (worst 0, mean 0), a candidate of the best mean that loses 1 % on b,
 * and one that loses nowhere with a mean of +0.5 %. maxmin keeps the third, mean the second.
 * Catches a maxmin that reads the mean, and ties on the worst kept by row order, not the mean. */
static void test_pick_worst_then_mean(void **state)
{
    (void)state;
    char line[128];
    const char *t = HEAD "16,5,1,1,1.0000,1,1.0000,1.00000\n"
                         "4,0,1,1,1.0500,1,0.9900,1.02000\n"
                         "8,0,0,1,1.0100,1,1.0000,1.00500\n";
    assert_int_equal(pick("maxmin", t, line, sizeof line), 0);
    assert_string_equal(line, "8,0,0");
    assert_int_equal(pick("mean", t, line, sizeof line), 0);
    assert_string_equal(line, "4,0,1");
    assert_int_equal(pick("worst", t, line, sizeof line), 2);
}

/* Table 2: the worst rounded half up to 0.1 %: -0.05 % (0.9995) rounds to 0 like 0 itself, so the
 * second and third rows tie on the worst and on the mean (+1 %), and the first of them is kept
 * (the larger margin); the first row (worst 0) has the smaller mean. Catches an unrounded worst
 * (the third row, 0 > -0.05 %), rounding down (-0.05 % -> -0.1 %: the third row), ties to the last
 * row. */
static void test_pick_rounding_and_ties(void **state)
{
    (void)state;
    char line[128];
    const char *t = HEAD "16,5,1,1,1.0000,1,1.0000,1.00000\n"
                         "4,2,1,1,0.9995,1,1.0205,1.01000\n"
                         "8,1,0,1,1.0200,1,1.0000,1.01000\n";
    assert_int_equal(pick("maxmin", t, line, sizeof line), 0);
    assert_string_equal(line, "4,2,1");
}

/* The evaluation script refuses two model folders holding the same network (exit 2 before any
 * run; /bin/true stands for the simulator): after the shipping decision models/ holds the round-7
 * network, and naming it as the fifth round's folder repeated r7's cycles under r5's name. Catches
 * the check missing or comparing the folder names instead of the files. */
static void test_eval_refuses_the_same_network_twice(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cr7e-XXXXXX", cmd[2048];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p a/models b/models c/models && for d in a b c; do echo $d > $d/models/latte-fann.net; done"
             " && cp a/models/latte-fann.net c/models/", dir);
    assert_int_equal(system(cmd), 0);
    const char *ev = "sh " GPUEST_SOURCE_DIR "/train/latte_fann_eval_r7.sh /bin/true";
    snprintf(cmd, sizeof cmd, "cd %s && %s a/models b/models c/models x y out.csv test:w 2>/dev/null", dir, ev);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
    snprintf(cmd, sizeof cmd, "cd %s && echo c > c/models/latte-fann.net && %s a/models b/models c/models x y "
                              "out.csv '' >/dev/null 2>&1", dir, ev);
    assert_int_equal(WEXITSTATUS(system(cmd)), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_writes_p99_spans),
        cmocka_unit_test(test_pick_worst_then_mean),
        cmocka_unit_test(test_pick_rounding_and_ties),
        cmocka_unit_test(test_eval_refuses_the_same_network_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
