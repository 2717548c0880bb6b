/* test_sample_ci.c: sampling intervals cover a known truth at about their nominal rate.
 *
 * A synthetic population of units (two kernels, per-unit CPI drawn from a seeded generator around
 * known kernel CPIs, unequal unit lengths) is sampled repeatedly; the stratified ratio estimator's
 * 95 % interval must cover the population IPC in 95 % +- a binomial margin of the experiments.
 * A bug in the variance (a missing 1/n, the wrong z, no stratum weighting) moves the rate far out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "study/study.h"

#define POP 2000  /* units in each kernel's population */
#define PICK 40   /* sampled per kernel */
#define REPS 400

static void coverage(void **state)
{
    (void)state;
    gpuest_rng_t *rng;
    assert_int_equal(gpuest_rng_create(12345, &rng), GPUEST_OK);
    static gpuest_sample_unit_t pop[2][POP];
    double tot_cycles = 0, tot_insts = 0;
    uint64_t kt[2] = {0, 0}, kw[2] = {0, 0};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < POP; i++) {
            gpuest_sample_unit_t *u = &pop[k][i];
            u->kernel = k;
            u->thread_insts = 20000 + gpuest_rng_below(rng, 10000);
            u->warp_insts = u->thread_insts / 32;
            double cpi = (k ? 0.02 : 0.05) * (1.0 + 0.4 * gpuest_rng_gaussian(rng, 1.0));
            if (cpi < 0.002)
                cpi = 0.002;
            u->cycles = (uint64_t)(cpi * (double)u->thread_insts);
            u->amat_sum = 100.0 * (double)u->cycles / 1000.0;
            u->amat_n = (double)u->cycles / 1000.0;
            tot_cycles += (double)u->cycles;
            tot_insts += (double)u->thread_insts;
            kt[k] += u->thread_insts;
            kw[k] += u->warp_insts;
        }
    double truth = tot_insts / tot_cycles;
    int covered = 0;
    gpuest_sample_unit_t units[2 * PICK];
    for (int r = 0; r < REPS; r++) {
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < PICK; j++)
                units[k * PICK + j] = pop[k][gpuest_rng_below(rng, POP)];
        gpuest_sample_result_t raw = {.units = units, .num_units = 2 * PICK, .num_kernels = 2,
                                      .kernel_warp_insts = kw, .kernel_thread_insts = kt};
        gpuest_study_sampled_t s;
        gpuest_error_t err;
        assert_int_equal(gpuest_study_sample_estimate(&raw, 0.95, 0.0, &s, &err), GPUEST_OK);
        covered += truth >= s.ipc.lo && truth <= s.ipc.hi;
    }
    gpuest_rng_destroy(rng);
    double rate = (double)covered / REPS;
    printf("coverage %.3f (nominal 0.95)\n", rate);
    /* binomial sd at 0.95 over 400 reps is 0.011: allow about 3 sd either way */
    assert_true(rate > 0.91 && rate < 0.99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(coverage)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
