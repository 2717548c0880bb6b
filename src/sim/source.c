/* source.c: the instruction source adapter over a gpuest_workload_t (generators and traces). */
#include "sim_int.h"

static gpuest_err wl_next_launch(void *ctx, gpuest_launch_t *launch, int *done, gpuest_error_t *err)
{
    return gpuest_workload_next_launch(ctx, launch, done, err);
}

static gpuest_err wl_end_launch(void *ctx, gpuest_error_t *err) { return gpuest_workload_end_launch(ctx, err); }

static gpuest_err wl_warp_open(void *ctx, uint32_t cta, uint32_t warp, void **out, gpuest_error_t *err)
{
    gpuest_warp_t *w = NULL;
    gpuest_err rc = gpuest_warp_open(ctx, cta, warp, &w, err);
    *out = w;
    return rc;
}

static gpuest_err wl_warp_next(void *ctx, void *warp, gpuest_inst_t *inst, gpuest_error_t *err)
{
    (void)ctx;
    return gpuest_warp_next(warp, inst, err);
}

static void wl_warp_close(void *ctx, void *warp)
{
    (void)ctx;
    gpuest_warp_close(warp);
}

static const uint8_t *wl_read_line(void *ctx, uint64_t line, uint8_t buf[GPUEST_LINE_BYTES])
{
    const gpuest_memimg_t *img = gpuest_workload_image(ctx);
    if (!gpuest_memimg_has_values(img))
        return NULL;
    gpuest_memimg_read_line(img, line, buf);
    return buf;
}

void gpuest_sim_source_workload(gpuest_sim_source_t *src, gpuest_workload_t *wl)
{
    src->ctx = wl;
    src->next_launch = wl_next_launch;
    src->end_launch = wl_end_launch;
    src->warp_open = wl_warp_open;
    src->warp_next = wl_warp_next;
    src->warp_close = wl_warp_close;
    src->read_line = wl_read_line;
}

gpuest_err sim_source_count_warp(const gpuest_sim_source_t *s, void *warp, uint64_t *warp_insts,
                                 uint64_t *thread_insts, int *counted, gpuest_error_t *err)
{
    *counted = 0;
    if (s->warp_next != wl_warp_next)
        return GPUEST_OK;
    *counted = 1;
    return gpuest_warp_count(warp, warp_insts, thread_insts, err);
}
