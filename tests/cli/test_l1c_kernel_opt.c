/* test_l1c_kernel_opt.c: technique.l1_compression = kernel_opt (src/cli/l1c_kernel_opt.c).
 *  - the key takes kernel_opt;
 *  - a path that simulates each launch once (no cli_kopt_prepare: sweep, sample, study runs)
 *    is refused with a message naming the key and 'gpuest simulate';
 *  - on a scripted simulation of three launches whose cycles depend on the L1D mode the policy
 *    set (launch 0: none 100 / BDI 80 / SC 120; launch 1: 50 / 70 / 40; launch 2: 60 / 60 / 60),
 *    each forked copy reports its own launch, the parent runs each launch in its winner (BDI, SC,
 *    and none for the tie) and its cycles are 80 + 40 + 60 = 180;
 *  - a copy whose run fails makes the launch an error naming the launch and the mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/l1c_kernel_opt.h"
#include "cli/l1c_oracle.h"
#include "technique/technique.h"
#include "technique/technique_int.h"

static void test_key_takes_kernel_opt(void **st)
{
    (void)st;
    gpuest_config_t cfg;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&cfg, "latte15", &e), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&cfg, "technique.l1_compression=kernel_opt", "--set", &e), GPUEST_OK);
    assert_int_equal(cfg.technique.l1_compression, GPUEST_L1COMP_KERNEL_OPT);
}

/* Catches kernel_opt created without the per-launch driver: it would run every launch in none
 * and look like a policy. */
static void test_refused_without_the_driver(void **st)
{
    (void)st;
    gpuest_config_t cfg;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&cfg, "latte15", &e), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&cfg, "technique.l1_compression=kernel_opt", "--set", &e), GPUEST_OK);
    gpuest_technique_env_t env = {&cfg, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_sim_hooks_t h = {0};
    gpuest_technique_set_t *set = NULL;
    assert_int_equal(gpuest_technique_set_create(&env, &h, &set, &e), GPUEST_EUNSUPPORTED);
    gpuest_technique_set_destroy(set);
    assert_non_null(strstr(e.msg, "technique.l1_compression = kernel_opt"));
    assert_non_null(strstr(e.msg, "'gpuest simulate'"));
    /* and the mode cannot be set on another policy */
    cfg.technique.l1_compression = GPUEST_L1COMP_STATIC_BDI;
    assert_int_equal(gpuest_technique_set_create(&env, &h, &set, &e), GPUEST_OK);
    assert_int_equal(gpuest_technique_set_l1c_mode(set, GPUEST_L1C_SC, &e), GPUEST_EINVAL);
    gpuest_technique_set_destroy(set);
}

/* ---------------------------------------------------------------- a scripted simulation */
#define LAUNCHES 3
static const uint64_t cost[LAUNCHES][GPUEST_L1C_MODES] = {{100, 80, 120, 0}, {50, 70, 40, 0}, {60, 60, 60, 0}};

typedef struct {
    int next;      /* the next launch to hand out */
    int fail_mode; /* a run of this mode fails (-1: none) */
} script_t;

static gpuest_err script_next(void *ctx, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)err;
    script_t *s = ctx;
    memset(l, 0, sizeof *l);
    *done = s->next >= LAUNCHES;
    if (!*done) {
        l->index = (uint32_t)s->next;
        snprintf(l->name, sizeof l->name, "k%d", s->next++);
    }
    return GPUEST_OK;
}

/* What gpuest_sim_run does with launches (gpu.c run_all): asks for a launch, runs it (here its
 * cycles come from the mode SM 0's L1D stores lines in), keeps its row, asks again. */
static gpuest_err fake_run(const gpuest_sim_source_t *src, void *l1c, int fail_mode, gpuest_sim_result_t *r,
                           gpuest_error_t *err)
{
    memset(r, 0, sizeof *r);
    r->kernels = calloc(LAUNCHES, sizeof *r->kernels);
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        GPUEST_TRY(src->next_launch(src->ctx, &l, &done, err));
        if (done)
            break;
        int mode = tech_l1c_mode(l1c, 0);
        if (mode == fail_mode)
            return gpuest_fail(err, GPUEST_EDEADLOCK, "scripted failure");
        gpuest_sim_stats_t *k = &r->kernels[r->num_kernels++];
        snprintf(k->kernel, sizeof k->kernel, "%s", l.name);
        k->launch = (int)l.index;
        k->cycles = cost[l.index][mode];
        r->total.cycles += k->cycles;
    }
    return GPUEST_OK;
}

static gpuest_technique_set_t *kernel_opt_set(gpuest_sim_hooks_t *h)
{
    gpuest_config_t cfg;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&cfg, "latte15", &e), GPUEST_OK);
    cfg.technique.l1_compression = GPUEST_L1COMP_KERNEL_OPT;
    gpuest_technique_env_t env = {&cfg, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_technique_set_t *set = NULL;
    cli_kopt_prepare();
    assert_int_equal(gpuest_technique_set_create(&env, h, &set, &e), GPUEST_OK);
    return set;
}

/* Catches: the parent not switching to the winner (it would take 100 + 50 + 60 = 210), the most
 * cycles taken (120 + 70 + 60), a tie not going to none, a copy that does not stop at the end of its
 * launch (it would report a later launch's cycles), costs kept in the wrong order. */
static void test_each_launch_runs_in_its_winner(void **st)
{
    (void)st;
    gpuest_sim_hooks_t h = {0};
    gpuest_technique_set_t *set = kernel_opt_set(&h);
    script_t sc = {0, -1};
    gpuest_sim_source_t src = {0};
    src.ctx = &sc;
    src.next_launch = script_next;
    gpuest_sim_opts_t so;
    gpuest_sim_opts_default(&so);
    gpuest_error_t e = {0};
    assert_int_equal(cli_kopt_start(&src, &so, set, &e), GPUEST_OK);
    gpuest_sim_result_t r;
    gpuest_err rc = fake_run(&src, h.ctx, -1, &r, &e);
    cli_kopt_child_end(rc, &r); /* a forked copy ends here */
    assert_false(cli_fork_is_child());
    assert_int_equal(rc, GPUEST_OK);
    assert_int_equal(r.num_kernels, LAUNCHES);
    static const int winner[LAUNCHES] = {1, 2, 0}; /* BDI, SC, none (the tie) */
    uint64_t sum = 0;
    assert_int_equal(cli_kopt_count(), LAUNCHES);
    for (int l = 0; l < LAUNCHES; l++) {
        const cli_kopt_launch_t *k = cli_kopt_launch((size_t)l);
        for (int m = 0; m < CLI_KOPT_MODES; m++)
            assert_true(k->cycles[m] == (double)cost[l][cli_kopt_modes[m]]);
        assert_int_equal(k->choice, winner[l]);
        assert_int_equal(r.kernels[l].cycles, cost[l][cli_kopt_modes[winner[l]]]);
        sum += r.kernels[l].cycles;
    }
    assert_int_equal(sum, 180);
    assert_int_equal(r.total.cycles, 180);
    free(r.kernels);
    cli_kopt_stop();
    gpuest_technique_set_destroy(set);
}

/* Catches a failed copy read as a cost of 0 (SC would win launch 0) or ignored. */
static void test_failed_copy_is_an_error(void **st)
{
    (void)st;
    gpuest_sim_hooks_t h = {0};
    gpuest_technique_set_t *set = kernel_opt_set(&h);
    script_t sc = {0, GPUEST_L1C_SC};
    gpuest_sim_source_t src = {0};
    src.ctx = &sc;
    src.next_launch = script_next;
    gpuest_error_t e = {0};
    assert_int_equal(cli_kopt_start(&src, NULL, set, &e), GPUEST_OK);
    gpuest_sim_result_t r;
    gpuest_err rc = fake_run(&src, h.ctx, GPUEST_L1C_SC, &r, &e);
    cli_kopt_child_end(rc, &r);
    assert_false(cli_fork_is_child());
    assert_int_equal(rc, GPUEST_EIO);
    assert_non_null(strstr(e.msg, "launch 0 (k0) in mode sc"));
    assert_non_null(strstr(e.msg, "static_sc"));
    assert_int_equal(r.num_kernels, 0);
    free(r.kernels);
    cli_kopt_stop();
    gpuest_technique_set_destroy(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_takes_kernel_opt),
        cmocka_unit_test(test_refused_without_the_driver),
        cmocka_unit_test(test_each_launch_runs_in_its_winner),
        cmocka_unit_test(test_failed_copy_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
