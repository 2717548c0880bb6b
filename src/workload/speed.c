/* speed.c: front-end speed measurement: every warp of every launch generated and coalesced, timed by phase. */
#include <string.h>
#include <time.h>

#include "workload/workload.h"

/* Thread CPU time: the machine may be shared, so wall time would count other people's work. */
double gpuest_workload_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Generates every warp of the open launch to its end, coalescing memory instructions. */
static gpuest_err measure_launch(gpuest_workload_t *wl, const gpuest_launch_t *l, gpuest_workload_speed_t *s,
                                 gpuest_error_t *err)
{
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    for (uint32_t c = 0; c < l->num_ctas; c++)
        for (uint32_t w = 0; w < l->warps_per_cta; w++) {
            gpuest_warp_t *wp;
            GPUEST_TRY(gpuest_warp_open(wl, c, w, &wp, err));
            s->warps++;
            for (;;) {
                gpuest_inst_t in;
                gpuest_err rc = gpuest_warp_next(wp, &in, err);
                if (rc != GPUEST_OK) {
                    gpuest_warp_close(wp);
                    return rc;
                }
                if (in.kind == GPUEST_INST_END)
                    break;
                s->insts++;
                if (in.kind == GPUEST_INST_MEM) {
                    s->mem_insts++;
                    s->line_requests += gpuest_coalesce(&in, req);
                }
            }
            gpuest_warp_close(wp);
        }
    return GPUEST_OK;
}

gpuest_err gpuest_workload_measure(gpuest_workload_t *wl, uint64_t max_launches, gpuest_workload_speed_t *out,
                                   gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    while (out->launches < max_launches) {
        gpuest_launch_t l;
        int done = 0;
        double t0 = gpuest_workload_cpu_s();
        GPUEST_TRY(gpuest_workload_next_launch(wl, &l, &done, err));
        double t1 = gpuest_workload_cpu_s();
        out->next_s += t1 - t0;
        if (done)
            break;
        out->launches++;
        GPUEST_TRY(measure_launch(wl, &l, out, err));
        double t2 = gpuest_workload_cpu_s();
        out->gen_s += t2 - t1;
        GPUEST_TRY(gpuest_workload_end_launch(wl, err));
        out->end_s += gpuest_workload_cpu_s() - t2;
    }
    return GPUEST_OK;
}
