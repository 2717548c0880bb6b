/* gen_speed.c: generation-speed probe for the generators (not a test): runs workloads warp by warp, coalesces, reports rates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload/workload.h"

/* CPU time of this process: the machine is shared, so wall time overstates. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t max_launches = UINT64_MAX;   /* -n N: stop after N launches */

/* Runs every launch of name at scale; prints one row. Returns 0 on success. */
static int run_one(const char *name, gpuest_scale_t scale, uint64_t seed)
{
    gpuest_error_t err;
    gpuest_workload_t *wl = NULL;
    double t0 = now();
    if (gpuest_workload_create(name, scale, seed, &wl, &err) != GPUEST_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return 1;
    }
    double t1 = now(), tgen = 0;
    uint64_t launches = 0, warps = 0, insts = 0, mem = 0, lines = 0;
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        if (gpuest_workload_next_launch(wl, &l, &done, &err) != GPUEST_OK)
            goto fail;
        if (done || launches >= max_launches)
            break;
        launches++;
        double ta = now();
        for (uint32_t c = 0; c < l.num_ctas; c++)
            for (uint32_t w = 0; w < l.warps_per_cta; w++) {
                gpuest_warp_t *wp = NULL;
                if (gpuest_warp_open(wl, c, w, &wp, &err) != GPUEST_OK)
                    goto fail;
                warps++;
                for (;;) {
                    gpuest_inst_t in;
                    if (gpuest_warp_next(wp, &in, &err) != GPUEST_OK)
                        goto fail;
                    if (in.kind == GPUEST_INST_END)
                        break;
                    insts++;
                    if (in.kind == GPUEST_INST_MEM) {
                        gpuest_line_req_t req[GPUEST_COALESCE_MAX];
                        mem++;
                        lines += gpuest_coalesce(&in, req);
                    }
                }
                gpuest_warp_close(wp);
            }
        tgen += now() - ta;
        if (gpuest_workload_end_launch(wl, &err) != GPUEST_OK)
            goto fail;
    }
    double t2 = now();
    printf("%-14s %-7s %8llu %10llu %12llu %11llu %12llu %8.2f %8.2f %8.2f\n", name, gpuest_scale_name(scale),
           (unsigned long long)launches, (unsigned long long)warps, (unsigned long long)insts, (unsigned long long)mem,
           (unsigned long long)lines, t2 - t0, (t2 - t1) - tgen + (t1 - t0), tgen > 0 ? (double)lines / tgen / 1e6 : 0);
    gpuest_workload_destroy(wl);
    return 0;
fail:
    fprintf(stderr, "%s: %s\n", name, err.msg);
    gpuest_workload_destroy(wl);
    return 1;
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
