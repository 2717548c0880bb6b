/* test_l1c_period_cli.c: the sixth round of the FANN mode selector (docs/latte-cc.md, "Sixth
 * round: decisions held for a period") as a user meets it: `gpuest l1c-fann train` on period
 * labels writes a period model, `gpuest simulate --set technique.l1_compression=fann` runs it, and
 * an old per-EP model file still runs as it did. Every run: bfs, scale tiny, seed 1, latte15. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_program.h"
#include "technique/technique.h"

static char out[1 << 16];

#define RUN "simulate --preset latte15 --workload bfs --scale tiny --seed 1 --set technique.l1_compression="
/* Measured before this round's code change (the build of the commit that wrote the round's
 * design): latte_cc and the fifth-round (per-EP) model on bfs tiny. */
#define BFS_TINY_LATTE_CC 26367.0
#define BFS_TINY_FANN_R5 26485.0

/* The total cycles of `gpuest simulate` run in folder dir (whose models/ the fann policy reads). */
static double cycles_in(const char *dir, const char *policy)
{
    char prog[1024], args[512];
    snprintf(prog, sizeof prog, "cd %s && %s", dir, GPUEST_PROGRAM);
    snprintf(args, sizeof args, RUN "%s --csv run.csv", policy);
    if (test_run_program(prog, args, out, sizeof out) != 0)
        fail_msg("%s: %s", policy, out);
    char path[600];
    snprintf(path, sizeof path, "%s/run.csv", dir);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[8192];
    double total = -1;
    while (fgets(line, sizeof line, fp)) {
        char *p = strstr(line, ",total,");
        if (p)
            total = atof(p + strlen(",total,"));
    }
    fclose(fp);
    unlink(path);
    return total;
}

/* The fifth-round model (a copy of the per-EP model shipped then, in tests/technique/data) gives
 * the cycles it gave before period models existed, which differ from latte_cc's. Catches an old
 * model read as a period model (it would decide once per period), a default for the missing
 * 'period' metadata other than per-EP, any change to the per-EP path. */
static void test_old_per_ep_model_unchanged(void **state)
{
    (void)state;
    const char *dir = GPUEST_SOURCE_DIR "/tests/technique/data/latte-fann-r5";
    assert_true(cycles_in(dir, "fann") == BFS_TINY_FANN_R5);
    assert_true(cycles_in(dir, "latte_cc") == BFS_TINY_LATTE_CC);
}

/* A period label file: n periods whose three held modes cost what the rule child cost (no
 * saving), the features varying with the row. */
static void write_period_labels(const char *path, int n, int with_rule_column)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "workload,sm,ep,core_cycle");
    for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
        fprintf(fp, ",%s", gpuest_l1c_fann_feature_names[i]);
    fprintf(fp, ",mode,rule_choice,cycles_none,cycles_bdi,cycles_sc%s,label\n", with_rule_column ? ",cycles_rule" : "");
    for (int r = 0; r < n; r++) {
        fprintf(fp, "w,%d,1,%d", r % 15, 1000 + r);
        for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
            fprintf(fp, ",%g", i == 8 ? 0.05 + 0.9 * r / n : (double)(r % 3));
        if (with_rule_column)
            fprintf(fp, ",0,1,5000,5000,5000,5000,-1\n");
        else
            fprintf(fp, ",0,1,5000,5000,5000,0\n");
    }
    fclose(fp);
}

/* A period model trained where holding never saves anything (targets 0.5) and kept at a 1 %
 * margin never holds: fann runs exactly latte_cc's cycles, and the model carries 'period' = 1.
 * Period labels train rule targets only; per-EP and period files do not mix. Catches a fallback
 * that holds a mode anyway (-1 read as none), a period model that decides per EP with no rule
 * output to compare against, the metadata not written, cost targets trained on period rows,
 * mixed lists accepted. */
static void test_period_model_without_saving_is_the_rule(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuest-l1cperiod-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char tr[128], old[128], models[128], cmd[1024];
    snprintf(tr, sizeof tr, "%s/train.csv", dir);
    snprintf(old, sizeof old, "%s/old.csv", dir);
    snprintf(models, sizeof models, "%s/models", dir);
    assert_int_equal(mkdir(models, 0755), 0);
    write_period_labels(tr, 60, 1);
    write_period_labels(old, 20, 0);
    snprintf(cmd, sizeof cmd, "l1c-fann train --train %s --valid %s --model-dir %s --epochs 200 --hidden 4 "
                              "--margin 1", tr, tr, models);
    if (run_gpuest(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    assert_non_null(strstr(out, "kept: target rule"));
    char scale[160];
    snprintf(scale, sizeof scale, "%s/latte-fann.scale.csv", models);
    FILE *fp = fopen(scale, "r");
    assert_non_null(fp);
    char line[512];
    int period = 0;
    while (fgets(line, sizeof line, fp))
        period |= strncmp(line, "meta,period,1,", 14) == 0;
    fclose(fp);
    assert_true(period);
    assert_true(cycles_in(dir, "fann") == BFS_TINY_LATTE_CC);
    snprintf(cmd, sizeof cmd, "l1c-fann train --train %s --valid %s --model-dir %s --epochs 50 --target cost", tr, tr,
             models);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, "period labels train rule-relative targets only"));
    snprintf(cmd, sizeof cmd, "l1c-fann train --train %s,%s --valid %s --model-dir %s --epochs 50", tr, old, tr,
             models);
    assert_int_equal(run_gpuest(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, "cannot be mixed"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_old_per_ep_model_unchanged),
        cmocka_unit_test(test_period_model_without_saving_is_the_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
