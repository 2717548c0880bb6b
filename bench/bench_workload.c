/* bench_workload.c: line requests generated per second (lazy warp generation + coalescing) on one core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload/workload.h"

/* CPU time of this thread: the machine is shared, so wall time would count other people's work. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    uint64_t insts, mem, lines;
    double gen_s;       /* workload creation (input data) */
    double run_s;       /* instruction generation + coalescing */
} result_t;

/* Runs every launch warp by warp, coalescing each memory instruction. */
static int run(const char *name, gpuest_scale_t scale, result_t *r)
{
    gpuest_error_t err;
    gpuest_workload_t *wl;
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    if (gpuest_workload_create(name, scale, 1, &wl, &err) != GPUEST_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return 1;
    }
    double t1 = now_s();
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    gpuest_inst_t in;
    for (;;) {
        gpuest_launch_t l;
        int done;
        if (gpuest_workload_next_launch(wl, &l, &done, &err) != GPUEST_OK || done)
            break;
        for (uint32_t c = 0; c < l.num_ctas; c++)
            for (uint32_t w = 0; w < l.warps_per_cta; w++) {
                gpuest_warp_t *wp;
                if (gpuest_warp_open(wl, c, w, &wp, &err) != GPUEST_OK)
                    goto fail;
                while (gpuest_warp_next(wp, &in, &err) == GPUEST_OK && in.kind != GPUEST_INST_END) {
                    r->insts++;
                    if (in.kind == GPUEST_INST_MEM) {
                        r->mem++;
                        r->lines += gpuest_coalesce(&in, req);
                    }
                }
                gpuest_warp_close(wp);
            }
        /* end_launch runs the kernel's host-side algorithm; timed separately below */
        double e0 = now_s();
        if (gpuest_workload_end_launch(wl, &err) != GPUEST_OK)
            goto fail;
        t1 += now_s() - e0;
    }
    r->gen_s = t1 - t0;
    r->run_s = now_s() - t1;
    gpuest_workload_destroy(wl);
    return 0;
fail:
    fprintf(stderr, "%s: %s\n", name, err.msg);
    gpuest_workload_destroy(wl);
    return 1;
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
        result_t r;
        if (run(gpuest_generators[i]->name, scale, &r) != 0)
            return 1;
        printf("%-12s %14llu %14llu %14llu %10.3f %14.2f\n", gpuest_generators[i]->name,
               (unsigned long long)r.insts, (unsigned long long)r.mem, (unsigned long long)r.lines, r.run_s,
               r.run_s > 0 ? (double)r.lines / r.run_s / 1e6 : 0.0);
        lines += r.lines;
        secs += r.run_s;
    }
    printf("\n%-12s %44llu %10.3f %14.2f\n", "all", (unsigned long long)lines, secs,
           secs > 0 ? (double)lines / secs / 1e6 : 0.0);
    printf("target: >= 5 million line requests per second\n");
    return 0;
}
