/* bench_estimate.c: estimate time per design point against the detailed run of the same point.
 *
 * usage: bench_estimate PRESET WORKLOAD SCALE [REPEATS]
 * Loads models/calibrations/PRESET-WORKLOAD-SCALE.cal and measures (thread CPU time):
 *  1. single estimates: the baseline and every held-out configuration, each on a fresh model
 *     (best of REPEATS per point), as 'gpuest estimate' without --batch pays;
 *  2. the batch form ('gpuest estimate --batch'): a design space of 48 points, L2 hit latency x
 *     DRAM timing x flit width (4 x 4 x 3), estimated in one batch, whose points share the
 *     network part of the model where their networks are equal (3 networks here); the mean time a
 *     point over the whole batch, network set-up included (best of REPEATS batches), and a check
 *     that every batch estimate is bit-identical to the single estimate of the same point; then
 *     the same points again on the same batch (networks and kernel phases set up: a long batch's
 *     cost a point), whose estimates must equal the first pass's;
 * then runs the baseline in detail once and prints the ratios, measured in this one run, and the
 * calibration's cost as its file records it (its detailed runs' and its total wall seconds).
 * BENCH_NO_SIM=1 skips the detailed run (estimate timings only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "study/study.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_estimate PRESET WORKLOAD SCALE [REPEATS]\n");
        return 2;
    }
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    gpuest_scale_t scale;
    gpuest_error_t err;
    gpuest_config_t cfg;
    if (gpuest_scale_parse(argv[3], &scale) != GPUEST_OK || gpuest_config_preset(&cfg, argv[1], &err) != GPUEST_OK) {
        fprintf(stderr, "bad preset or scale\n");
        return 2;
    }
    char path[512];
    gpuest_calibration_path(GPUEST_SOURCE_DIR "/models/calibrations", argv[1], argv[2], scale, path, sizeof path);
    static gpuest_calibration_t c;
    if (gpuest_calibration_read(path, &c, &err) != GPUEST_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    gpuest_study_variant_t v[17];
    memset(&v[0], 0, sizeof v[0]);
    snprintf(v[0].label, sizeof v[0].label, "baseline");
    int n = 1 + gpuest_study_heldout(&cfg, v + 1, 16);
    double total = 0.0, worst = 0.0;
    printf("%-14s %12s\n", "point", "estimate_us");
    for (int i = 0; i < n; i++) {
        gpuest_config_t vc;
        if (gpuest_study_apply(&cfg, &v[i], &vc, &err) != GPUEST_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        double best = 1e30;
        for (int r = 0; r < reps; r++) {
            gpuest_study_estimate_t e;
            double t0 = cpu_now();
            if (gpuest_study_estimate(&c, &vc, NULL, 0.95, &e, &err) != GPUEST_OK) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
            double t = cpu_now() - t0;
            best = t < best ? t : best;
        }
        printf("%-14s %12.0f\n", v[i].label, best * 1e6);
        total += best;
        worst = best > worst ? best : worst;
    }
    /* 2. batch form over a design space */
    static const int l2lat[4] = {60, 120, 180, 240}, tcl[4] = {8, 12, 16, 24}, flitx[3] = {1, 2, 4};
    static gpuest_config_t space[48];
    int ns = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
            for (int d = 0; d < 4; d++) {
                gpuest_config_t *p = &space[ns++];
                *p = cfg;
                p->noc.flit_bytes = cfg.noc.flit_bytes * flitx[a] / 2;
                p->l2.hit_latency = l2lat[b];
                p->dram.tCL = tcl[d];
            }
    double best_batch = 1e30, best_again = 1e30;
    int identical = 1;
    for (int r = 0; r < reps; r++) {
        gpuest_study_batch_t *b = NULL;
        if (gpuest_study_batch_create(&b, &err) != GPUEST_OK)
            return 1;
        static gpuest_study_estimate_t eb[48];
        double t0 = cpu_now();
        for (int i = 0; i < ns; i++)
            if (gpuest_study_estimate_in(b, &c, &space[i], NULL, 0.95, &eb[i], &err) != GPUEST_OK) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
        double t = cpu_now() - t0;
        /* the same points again on the same batch: every network (and each kernel phase's open
         * model, saturation scales and curves) already set up, the cost a point of a long batch
         * tends to; the estimates must not change */
        static gpuest_study_estimate_t e2[48];
        t0 = cpu_now();
        for (int i = 0; i < ns; i++)
            if (gpuest_study_estimate_in(b, &c, &space[i], NULL, 0.95, &e2[i], &err) != GPUEST_OK) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
        double t2 = cpu_now() - t0;
        best_again = t2 < best_again ? t2 : best_again;
        for (int i = 0; i < ns; i++)
            if (memcmp(&e2[i].ipc, &eb[i].ipc, sizeof e2[i].ipc) != 0 || memcmp(&e2[i].amat, &eb[i].amat, sizeof e2[i].amat) != 0)
                identical = 0;
        gpuest_study_batch_destroy(b);
        if (r == 0) {
            double it = 0;
            for (int i = 0; i < ns; i++)
                it += eb[i].raw.outer_iterations;
            printf("batch: mean outer iterations of the closed model %.1f a solve\n", it / ns);
        }
        best_batch = t < best_batch ? t : best_batch;
        for (int i = 0; r == 0 && i < ns; i++) {
            gpuest_study_estimate_t e1;
            if (gpuest_study_estimate(&c, &space[i], NULL, 0.95, &e1, &err) != GPUEST_OK)
                return 1;
            if (memcmp(&e1.ipc, &eb[i].ipc, sizeof e1.ipc) != 0 || memcmp(&e1.amat, &eb[i].amat, sizeof e1.amat) != 0)
                identical = 0;
        }
    }
    printf("batch of %d design points (L2 latency x tCL x flit width, 3 networks): %.0f us a point (thread CPU, "
           "best of %d batches, set-up included); estimates %s the single ones\n",
           ns, best_batch / ns * 1e6, reps, identical ? "bit-identical to" : "DIFFERENT from");
    printf("the same %d points again on the set-up batch: %.0f us a point (thread CPU, best of %d)\n", ns,
           best_again / ns * 1e6, reps);
    if (getenv("BENCH_NO_SIM"))
        return 0;
    gpuest_study_run_t run;
    double t0 = cpu_now();
    if (gpuest_study_run_detailed(&cfg, argv[2], scale, c.seed, &run, &err) != GPUEST_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double sim = cpu_now() - t0;
    printf("estimate: mean %.0f us, worst %.0f us a point (thread CPU, best of %d)\n", total / n * 1e6, worst * 1e6,
           reps);
    printf("detailed run of the baseline: %.3f s (thread CPU), %llu cycles\n", sim, (unsigned long long)run.cycles);
    printf("speedup (detailed / mean single estimate): %.0fx; (detailed / batch estimate a point): %.0fx; "
           "calibration cost (recorded in the file): %.1f s wall\n",
           sim / (total / n), sim / (best_batch / ns), c.calib_seconds);
    /* the calibration's own detailed runs, as recorded (wall seconds on the machine of the day),
     * against this run's detailed baseline: the calibration costs about this many detailed runs */
    double recorded = 0.0;
    for (int i = 0; i < c.nruns; i++)
        recorded += c.runs[i].sim_seconds;
    printf("calibration: %d detailed runs recorded at %.1f s wall (the baseline's recorded %.1f s wall against %.3f s "
           "thread CPU here), %.1f s wall for the whole calibration = %.1f baseline runs\n",
           c.nruns, recorded, c.runs[0].sim_seconds, sim, c.calib_seconds,
           c.runs[0].sim_seconds > 0 ? c.calib_seconds / c.runs[0].sim_seconds : 0.0);
    return 0;
}
