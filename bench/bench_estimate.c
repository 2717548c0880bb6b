/* bench_estimate.c: estimate time per design point against the detailed run of the same point.
 *
 * usage: bench_estimate PRESET WORKLOAD SCALE [REPEATS]
 * Loads models/calibrations/PRESET-WORKLOAD-SCALE.cal, estimates the baseline and every held-out
 * configuration REPEATS times (thread CPU time, best of the repeats per point), then runs the
 * baseline in detail once (thread CPU time) and prints the ratio, measured in this one run. */
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
    printf("speedup (detailed / mean estimate): %.0fx; calibration cost (recorded in the file): %.1f s wall\n",
           sim / (total / n), c.calib_seconds);
    return 0;
}
