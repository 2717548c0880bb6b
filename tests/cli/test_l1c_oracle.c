/* test_l1c_oracle.c: the fork checkpoint labeller of 'gpuest simulate --l1c-oracle'.
 *  - cli_fork_branch on a scripted computation: every child starts from the parent's state at the
 *    fork (a child's changes reach neither the parent nor the next child), the costs come back
 *    in branch order, a child that ends without reporting reads as missing;
 *  - cli_fork_label: least cost, ties and near-ties (the margin) to the lower latency mode;
 *  - the oracle on the compressed L1 policy driven by a scripted SM whose accesses take 3 cycles
 *    in none, 2 in BDI and 4 in SC: the label of EP 0 is BDI with 768 / 512 / 1024 cycles, and the
 *    run goes on in BDI;
 *  - period labels ('--l1c-continue period'): cli_fork_label_keep and the labeller on the same
 *    scripted SM over two periods. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/l1c_oracle.h"
#include "technique/technique.h"
#include "technique/technique_int.h"

/* A scripted computation: branch k runs steps[k] steps of size[k] from the parent's state 40
 * (costs 40 + 5 x 10 = 90, 40 + 2 x 6 = 52, 40 + 1 x 6 = 46); each child then spoils the state,
 * which neither the parent nor the next child may see. */
static long state_v;

static void test_branch_costs_from_checkpoint(void **st)
{
    (void)st;
    static const int steps[3] = {5, 2, 1}, size[3] = {10, 6, 6};
    state_v = 40;
    double cost[3] = {0, 0, 0};
    int branch = -1;
    int rc = cli_fork_branch(3, &branch, cost);
    if (rc == 1) { /* a child */
        if (state_v != 40)
            cli_fork_report(-1.0);
        long v = state_v;
        for (int i = 0; i < steps[branch]; i++)
            v += size[branch];
        state_v = -1000; /* spoils only this child's copy */
        cli_fork_report((double)v);
        _exit(3); /* not reached */
    }
    assert_int_equal(rc, 0);
    assert_int_equal(state_v, 40);
    assert_true(cost[0] == 90.0 && cost[1] == 52.0 && cost[2] == 46.0);
    assert_int_equal(cli_fork_label(cost, 3, 0.0), 2);
    assert_int_equal(cli_fork_label(cost, 3, 0.2), 1); /* 52 <= 46 x 1.2 = 55.2 */
    assert_false(cli_fork_is_child());
}

static void test_child_without_report(void **st)
{
    (void)st;
    double cost[2] = {0, 0};
    int branch = -1;
    int rc = cli_fork_branch(2, &branch, cost);
    if (rc == 1) {
        if (branch == 1)
            _exit(0); /* ends without a cost */
        cli_fork_report(7.0);
    }
    assert_int_equal(rc, 0);
    assert_true(cost[0] == 7.0);
    assert_true(isnan(cost[1]));
    assert_int_equal(cli_fork_label(cost, 2, 0.0), -1);
}

static void test_label_ties(void **st)
{
    (void)st;
    const double a[3] = {30, 10, 10}, b[3] = {100, 99, 98}, c[3] = {100, 99, 50};
    assert_int_equal(cli_fork_label(a, 3, 0.0), 1);  /* a tie goes to the lower latency mode */
    assert_int_equal(cli_fork_label(b, 3, 0.02), 1); /* 99 <= 98 x 1.02 = 99.96, 100 is not */
    assert_int_equal(cli_fork_label(b, 3, 0.0), 2);
    assert_int_equal(cli_fork_label(c, 3, 0.02), 2);
}

/* Rollout labels: the rule's choice (base) unless another mode is strictly cheaper. Catches a
 * base that loses ties (cli_fork_label would give BDI for {30, 10, 10}), a margin left in (98 is
 * 2 % under 100 and must win), ties among the others not going to the lower index, a missing
 * cost not refused. */
static void test_label_base_keeps_rule_on_ties(void **st)
{
    (void)st;
    const double a[3] = {30, 10, 10}, b[3] = {100, 99, 98}, c[3] = {100, 99, 99}, d[3] = {10, 20, NAN};
    assert_int_equal(cli_fork_label_base(a, 3, 2), 2);
    assert_int_equal(cli_fork_label_base(a, 3, 0), 1);
    assert_int_equal(cli_fork_label_base(b, 3, 0), 2);
    assert_int_equal(cli_fork_label_base(b, 3, 2), 2);
    assert_int_equal(cli_fork_label_base(c, 3, 0), 1);
    assert_int_equal(cli_fork_label_base(c, 3, 2), 2);
    assert_int_equal(cli_fork_label_base(d, 3, 0), -1);
}

/* ---------------------------------------------------------------- the oracle on a scripted SM */
static const int cycles_per_access[GPUEST_L1C_MODES] = {3, 2, 4, 5};

/* LATTE-CC on latte15 with its hooks in h (the scripted SM's EPs go through them), and an empty
 * file at path (a mkstemp template) for the oracle's rows. */
static gpuest_technique_set_t *scripted_latte_cc(gpuest_sim_hooks_t *h, char *path)
{
    gpuest_config_t cfg;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&cfg, "latte15", &e), GPUEST_OK);
    cfg.technique.l1_compression = GPUEST_L1COMP_LATTE_CC;
    gpuest_technique_env_t env = {&cfg, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    memset(h, 0, sizeof *h);
    gpuest_technique_set_t *set = NULL;
    assert_int_equal(gpuest_technique_set_create(&env, h, &set, &e), GPUEST_OK);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return set;
}

/* The scripted SM 0: eps EPs of 256 L1D accesses to a follower set (and 10 more), each access
 * taking its mode's cycles_per_access; modes[e] is the mode EP e ran in. */
static void run_scripted_eps(gpuest_sim_hooks_t *h, int eps, int *modes)
{
    uint64_t cycle = 1000;
    for (int i = 0; i < eps * 256 + 10; i++) {
        if (i % 256 == 0 && i / 256 < eps)
            modes[i / 256] = tech_l1c_mode(h->ctx, 0);
        cycle += (uint64_t)cycles_per_access[tech_l1c_mode(h->ctx, 0)];
        gpuest_sim_l1c_event_t ev = {0};
        ev.set = 3; /* a follower set */
        ev.sets = 32;
        ev.line = 0x1000;
        ev.core_cycle = cycle;
        h->l1c_access(h->ctx, &ev);
    }
}

static void test_oracle_labels_fastest_mode(void **st)
{
    (void)st;
    gpuest_error_t e = {0};
    gpuest_sim_hooks_t h;
    char path[] = "/tmp/gpuest-oracle-XXXXXX";
    gpuest_technique_set_t *set = scripted_latte_cc(&h, path);
    assert_int_equal(cli_l1c_oracle_start("scripted", 1, 1, 0, &e), GPUEST_OK);
    int modes_seen[3];
    run_scripted_eps(&h, 3, modes_seen); /* EP 3 ends after the run: EP 2's children report nothing */
    assert_int_equal(cli_l1c_oracle_finish(path, &e), GPUEST_OK);
    assert_false(cli_fork_is_child());
    gpuest_technique_set_destroy(set);
    assert_int_equal(modes_seen[0], GPUEST_L1C_NONE);
    assert_int_equal(modes_seen[1], GPUEST_L1C_BDI); /* the parent follows EP 0's label */
    assert_int_equal(modes_seen[2], GPUEST_L1C_BDI); /* EP 1's label: BDI (512 < 768 < 1024) */
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[4096];
    int rows = 0;
    char last[4096] = "";
    while (fgets(line, sizeof line, fp))
        if (rows++ > 0 && rows == 2)
            snprintf(last, sizeof last, "%s", line);
    fclose(fp);
    unlink(path);
    assert_int_equal(rows, 3); /* header, EP 0, EP 1; EP 2's children outlived the run */
    /* EP 0's row ends with: mode 0, rule's choice, 768, 512, 1024, label 1 */
    size_t n = strlen(last);
    while (n && (last[n - 1] == '\n' || last[n - 1] == '\r'))
        last[--n] = '\0';
    const char *tail = strstr(last, ",768,512,1024,1");
    assert_non_null(tail);
    assert_int_equal(strlen(tail), strlen(",768,512,1024,1"));
    assert_true(strncmp(last, "scripted,0,0,1768,", 18) == 0); /* workload, SM, EP 0, its end cycle */
}

/* Period labels (cost[0] the rule's child): the rule keeps ties and near-ties within the margin;
 * only a held mode cheaper than cost[0] x (1 - margin) wins, the cheapest, ties to the lower
 * index. Catches a label that takes the least cost with ties to a held mode (none ties the rule
 * in a), a margin ignored or applied the wrong way (b: 98.5 is 1.5 % under 100), a missing cost
 * not refused. */
static void test_label_keep_rule_on_ties(void **st)
{
    (void)st;
    const double a[4] = {100, 100, 120, 130}, b[4] = {100, 99.5, 98.5, 98.5}, c[4] = {100, 99.5, 99.2, 101},
                 d[4] = {100, 90, NAN, 80};
    assert_int_equal(cli_fork_label_keep(a, 4, 0.0), 0);
    assert_int_equal(cli_fork_label_keep(a, 4, 0.01), 0);
    assert_int_equal(cli_fork_label_keep(b, 4, 0.01), 2);  /* 98.5 < 99, and 2 before 3 */
    assert_int_equal(cli_fork_label_keep(c, 4, 0.01), 0);  /* 99.2 is within 1 % of 100 */
    assert_int_equal(cli_fork_label_keep(c, 4, 0.0), 2);
    assert_int_equal(cli_fork_label_keep(d, 4, 0.01), -1);
}

/* The period labeller on the scripted SM (accesses 3 cycles in none, 2 in BDI, 4 in SC; only
 * follower-set misses, so LATTE-CC's rule has no sampled access and keeps the SM's mode). Period
 * 0 is decided at the end of EP 1 (the SM in none): the children time EPs 2..9 (2048 accesses):
 * rule (keeps none) 6144, none 6144, BDI 4096, SC 8192, so BDI is held for EPs 2..9 and the rule
 * then keeps BDI. Period 1 (decided at the end of EP 11, the SM in BDI): rule 4096, none 6144, BDI
 * 4096, SC 8192: BDI ties the rule and the rule keeps the period (label -1). Catches a tie given
 * to the held mode, a decision at EP 0's end (EP 1 would run BDI), children timed over another
 * window, the rule child forcing a mode, a parent not following the label, a missing
 * cycles_rule column. */
static void test_period_oracle_labels(void **st)
{
    (void)st;
    gpuest_error_t e = {0};
    gpuest_sim_hooks_t h;
    char path[] = "/tmp/gpuest-oracle-XXXXXX";
    gpuest_technique_set_t *set = scripted_latte_cc(&h, path);
    assert_int_equal(cli_l1c_oracle_start("scripted", 0, 0, 2, &e), GPUEST_OK);
    int modes[20];
    run_scripted_eps(&h, 20, modes);
    assert_int_equal(cli_l1c_oracle_finish(path, &e), GPUEST_OK);
    assert_false(cli_fork_is_child());
    gpuest_technique_set_destroy(set);
    for (int ep = 0; ep < 20; ep++)
        if (modes[ep] != (ep < 2 ? GPUEST_L1C_NONE : GPUEST_L1C_BDI))
            fail_msg("EP %d ran in mode %d", ep, modes[ep]);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[3][4096];
    int rows = 0;
    while (rows < 3 && fgets(line[rows], sizeof line[rows], fp))
        rows++;
    assert_null(fgets(line[0] + 2000, 100, fp)); /* no fourth line */
    fclose(fp);
    unlink(path);
    assert_int_equal(rows, 3);
    assert_non_null(strstr(line[0], ",cycles_none,cycles_bdi,cycles_sc,cycles_rule,label"));
    assert_non_null(strstr(line[1], ",6144,4096,8192,6144,1\n"));
    assert_true(strncmp(line[1], "scripted,0,1,", 13) == 0);
    assert_non_null(strstr(line[2], ",6144,4096,8192,4096,-1\n"));
    assert_true(strncmp(line[2], "scripted,0,11,", 14) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_branch_costs_from_checkpoint),
        cmocka_unit_test(test_child_without_report),
        cmocka_unit_test(test_label_ties),
        cmocka_unit_test(test_label_base_keeps_rule_on_ties),
        cmocka_unit_test(test_oracle_labels_fastest_mode),
        cmocka_unit_test(test_label_keep_rule_on_ties),
        cmocka_unit_test(test_period_oracle_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
