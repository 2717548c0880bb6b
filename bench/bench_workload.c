/* bench_workload.c: line requests generated per second (lazy warp generation + coalescing) on one core. */
#include <stdio.h>
#include <stdlib.h>

#include "workload/workload.h"

/* Runs every launch warp by warp, coalescing each memory instruction; creation
 * (input data) and end_launch (the host-side algorithm) are not counted in run_s. */
static int run(const char *name, gpuest_scale_t scale, gpuest_workload_speed_t *r, double *run_s)
{
    gpuest_error_t err;
    gpuest_workload_t *wl;
    if (gpuest_workload_create(name, scale, 1, &wl, &err) != GPUEST_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return 1;
    }
    gpuest_err rc = gpuest_workload_measure(wl, UINT64_MAX, r, &err);
    if (rc != GPUEST_OK)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    gpuest_workload_destroy(wl);
    *run_s = r->next_s + r->gen_s;
    return rc != GPUEST_OK;
}

int main(int argc, char **argv)
{
    gpuest_scale_t scale = GPUEST_SCALE_SMALL;
    if (argc > 1 && gpuest_scale_parse(argv[1], &scale) != GPUEST_OK) {
        fprintf(stderr, "usage: bench_workload [tiny|small|default]\n");
        return 2;
    }
    printf("bench_workload: scale %s, one core; rate = line requests / (generation + coalescing time),\n"
           "input building and the host-side algorithm between launches excluded; times are thread CPU time\n\n",
           gpuest_scale_name(scale));
    printf("%-12s %14s %14s %14s %10s %14s\n", "generator", "warp_insts", "mem_insts", "line_reqs", "cpu_s",
           "Mlines/s");
    uint64_t lines = 0;
    double secs = 0;
    for (size_t i = 0; gpuest_generators[i]; i++) {
        gpuest_workload_speed_t r;
        double run_s;
        if (run(gpuest_generators[i]->name, scale, &r, &run_s) != 0)
            return 1;
        printf("%-12s %14llu %14llu %14llu %10.3f %14.2f\n", gpuest_generators[i]->name,
               (unsigned long long)r.insts, (unsigned long long)r.mem_insts, (unsigned long long)r.line_requests,
               run_s, run_s > 0 ? (double)r.line_requests / run_s / 1e6 : 0.0);
        lines += r.line_requests;
        secs += run_s;
    }
    printf("\n%-12s %44llu %10.3f %14.2f\n", "all", (unsigned long long)lines, secs,
           secs > 0 ? (double)lines / secs / 1e6 : 0.0);
    printf("target: >= 5 million line requests per second\n");
    return 0;
}
