/* gen_speed.c: generation-speed probe for the generators (not a test): runs workloads warp by warp, coalesces, reports rates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workload.h"

static uint64_t max_launches = UINT64_MAX;   /* -n N: stop after N launches */

/* Runs every launch of name at scale; prints one row. Returns 0 on success. */
static int run_one(const char *name, gpuest_scale_t scale, uint64_t seed)
{
    gpuest_error_t err;
    gpuest_workload_t *wl = NULL;
    double t0 = gpuest_workload_cpu_s();
    if (gpuest_workload_create(name, scale, seed, &wl, &err) != GPUEST_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return 1;
    }
    double t1 = gpuest_workload_cpu_s();
    gpuest_workload_speed_t r;
    if (gpuest_workload_measure(wl, max_launches, &r, &err) != GPUEST_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        gpuest_workload_destroy(wl);
        return 1;
    }
    /* host_s: input building, launch decisions and the host-side algorithms */
    double host = (t1 - t0) + r.next_s + r.end_s;
    printf("%-14s %-7s %8llu %10llu %12llu %11llu %12llu %8.2f %8.2f %8.2f\n", name, gpuest_scale_name(scale),
           (unsigned long long)r.launches, (unsigned long long)r.warps, (unsigned long long)r.insts,
           (unsigned long long)r.mem_insts, (unsigned long long)r.line_requests, host + r.gen_s, host,
           r.gen_s > 0 ? (double)r.line_requests / r.gen_s / 1e6 : 0);
    gpuest_workload_destroy(wl);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen_speed [-n LAUNCHES] tiny|small|default NAME...\n");
        return 2;
    }
    if (strcmp(argv[1], "-n") == 0 && argc > 4) {
        max_launches = strtoull(argv[2], NULL, 10);
        argv += 2, argc -= 2;
    }
    gpuest_scale_t scale;
    if (gpuest_scale_parse(argv[1], &scale) != GPUEST_OK) {
        fprintf(stderr, "bad scale %s\n", argv[1]);
        return 2;
    }
    printf("%-14s %-7s %8s %10s %12s %11s %12s %8s %8s %8s\n", "workload", "scale", "launches", "warps", "warp_insts",
           "mem_insts", "line_reqs", "cpu_s", "host_s", "Mreq/s");
    int rc = 0;
    for (int i = 2; i < argc; i++)
        rc |= run_one(argv[i], scale, 1);
    return rc;
}
