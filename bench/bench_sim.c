/* bench_sim.c: detailed-simulator speed (core cycles/s, warp instructions/s) on mesh56 at --scale small, and peak memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cpu.h"
#include "sim/sim.h"

/* usage: bench_sim [scale] [workload...]   (defaults: small bfs gemm). Rates are given per
 * wall-clock second and per CPU second (the second is the one-core figure on a shared machine). */
int main(int argc, char **argv)
{
    const char *scale_name = argc > 1 ? argv[1] : "small";
    const char *defaults[] = {"bfs", "gemm"};
    const char **names = argc > 2 ? (const char **)argv + 2 : defaults;
    int n = argc > 2 ? argc - 2 : 2;
    gpuest_scale_t scale;
    gpuest_error_t e;
    gpuest_config_t cfg;
    if (gpuest_scale_parse(scale_name, &scale) != GPUEST_OK || gpuest_config_preset(&cfg, "mesh56", &e) != GPUEST_OK) {
        fprintf(stderr, "bench_sim: bad scale '%s'\n", scale_name);
        return 2;
    }
    printf("%-10s %-8s %10s %10s %8s %8s %12s %12s %14s %14s\n", "workload", "scale", "cycles", "warp_insts",
           "wall_s", "cpu_s", "cycles/s", "insts/s", "cycles/cpu_s", "insts/cpu_s");
    for (int i = 0; i < n; i++) {
        gpuest_workload_t *wl = NULL;
        if (gpuest_workload_create(names[i], scale, 1, &wl, &e) != GPUEST_OK) {
            fprintf(stderr, "bench_sim: %s\n", e.msg);
            return 1;
        }
        gpuest_sim_source_t src;
        gpuest_sim_source_workload(&src, wl);
        gpuest_sim_result_t r;
        double c0 = cpu_seconds();
        gpuest_err rc = gpuest_sim_run(&cfg, &src, NULL, &r, &e);
        if (rc != GPUEST_OK) {
            fprintf(stderr, "bench_sim: %s: %s\n", names[i], e.msg);
            return 1;
        }
        double cpu = cpu_seconds() - c0;
        double w = r.wall_seconds > 1e-9 ? r.wall_seconds : 1e-9, c = cpu > 1e-9 ? cpu : 1e-9;
        double cyc = (double)r.total.cycles, ins = (double)r.total.warp_instructions;
        printf("%-10s %-8s %10.0f %10.0f %8.2f %8.2f %12.0f %12.0f %14.0f %14.0f\n", names[i], scale_name, cyc, ins,
               r.wall_seconds, cpu, cyc / w, ins / w, cyc / c, ins / c);
        gpuest_sim_result_free(&r);
        gpuest_workload_destroy(wl);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak resident memory: %.1f MiB (getrusage ru_maxrss)\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
