/* polybench_mv.c: PolyBench matrix-vector kernels (ATAX, BICG): inputs, launches, host results and warp streams. */
#include <stdlib.h>

#include "polybench_int.h"

#define PB_PI 3.14159265358979323846

void pb_init_matrix(gpuest_alloc_t *a, int64_t nx, int64_t ny)
{
    for (int64_t i = 0; i < nx; i++)
        for (int64_t j = 0; j < ny; j++)
            GEN_AT(a, float, i * ny + j) = (float)(i * j) / (float)nx;
}

void pb_init_vector(gpuest_alloc_t *vec, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        GEN_AT(vec, float, i) = (float)((double)i * PB_PI);
}

static int64_t pb_a_index(const pb_mv_t *mv, int64_t g, int64_t q)
{
    return mv->rows ? g * mv->ny + q : q * mv->ny + g;
}

static void pb_mv_run(const pb_mv_t *mv)
{
    const float *a = (const float *)(const void *)mv->a->data, *vec = (const float *)(const void *)mv->vec->data;
    float *acc = (float *)(void *)mv->acc->data;
    for (int64_t g = 0; g < mv->n; g++) {
        if (mv->zero_acc)
            acc[g] = 0.0f;
        for (int64_t q = 0; q < mv->trip; q++)
            acc[g] += a[pb_a_index(mv, g, q)] * vec[q];
    }
}

/* g = gtid; [acc[g] = 0;] for (q < trip) acc[g] += A[..] * vec[q]
 * The accumulator lives in global memory and may alias A, so it is loaded and
 * stored in every iteration: load acc, load A, load vector, FMA, store acc. */
static void pb_mv_fill(const pb_mv_t *mv, gpuest_warp_t *w)
{
    int64_t g[32], ai[32], vi[32];
    for (int k = 0; k < 32; k++)
        g[k] = (int64_t)w->ctaid[0] * PB_MV_BLOCK + w->tid0 + k;
    uint32_t act = gen_mask_below(g, w->live, mv->n);
    if (w->step == 0) {
        gen_alu(w, 0x00, 3, w->live);
        gen_compute(w, 0x0c, GPUEST_LAT_BRANCH, w->live);
        if (mv->zero_acc)
            gen_mem_idx(w, 0x10, GPUEST_MEM_STORE, 4, act, mv->acc->base, g, 4);
        w->step = 1;
        if (!act)
            w->finished = 1;
        return;
    }
    for (int it = 0; it < PB_MV_UNROLL && w->v[0] < mv->trip; it++, w->v[0]++) {
        int64_t q = w->v[0];
        for (int k = 0; k < 32; k++) {
            ai[k] = pb_a_index(mv, g[k], q);
            vi[k] = q;
        }
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, act, mv->acc->base, g, 4);
        gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, act, mv->a->base, ai, 4);
        gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, mv->vec->base, vi, 4);
        gen_compute(w, 0x38, GPUEST_LAT_ALU, act);
        gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, act, mv->acc->base, g, 4);
        gen_compute(w, 0x48, GPUEST_LAT_BRANCH, act);
    }
    if (w->v[0] >= mv->trip)
        w->finished = 1;
}

void pb_pair_destroy(void *ctx) { free(ctx); }

gpuest_err pb_pair_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    pb_pair_t *p = ctx;
    if (p->kernel >= 2) {
        *done = 1;
        return GPUEST_OK;
    }
    const pb_mv_t *mv = &p->k[p->kernel];
    gen_launch(l, p->name[p->kernel], (uint32_t)((mv->n + PB_MV_BLOCK - 1) / PB_MV_BLOCK), 1, 1, PB_MV_BLOCK, 1, 1,
               0, 10);
    return GPUEST_OK;
}

gpuest_err pb_pair_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    pb_pair_t *p = ctx;
    pb_mv_run(&p->k[p->kernel]);
    p->kernel++;
    return GPUEST_OK;
}

void pb_pair_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

gpuest_err pb_pair_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                        gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    const pb_pair_t *p = ctx;
    pb_mv_fill(&p->k[p->kernel], w);
    return GPUEST_OK;
}
