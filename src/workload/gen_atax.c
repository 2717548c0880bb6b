/* gen_atax.c: PolyBench/GPU 1.0 ATAX (CUDA/ATAX/atax.cu: atax_kernel1 tmp = A x, atax_kernel2 y = A^T tmp). */
#include <math.h>
#include <stdlib.h>

#include "workload_int.h"

#define ATAX_BLOCK 256      /* DIM_THREAD_BLOCK_X 256, DIM_THREAD_BLOCK_Y 1 in atax.cu */
#define ATAX_UNROLL 7       /* loop iterations emitted per fill call */
#define ATAX_PI 3.14159265358979323846

typedef struct {
    int64_t nx, ny;
    gpuest_alloc_t *a, *x, *y, *tmp;  /* float A[nx*ny], x[ny], y[ny], tmp[nx] */
    int kernel;                       /* launches begun: 0, 1, 2 */
} atax_t;

const gpuest_gen_ops_t gpuest_gen_atax_ops;
const gpuest_generator_t gpuest_gen_atax = {
    "atax", "PolyBench", "ATAX", "reuse", "fp32",
    "PolyBench/GPU 1.0 CUDA/ATAX/atax.cu atax_kernel1 + atax_kernel2", &gpuest_gen_atax_ops};

/* Input: PolyBench's init_array (x[i] = i*pi, A[i][j] = i*j/NX); these are
 * the values the benchmark really holds, so the seed is not used. */
static gpuest_err atax_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    (void)rng;
    atax_t *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "atax: out of memory");
    *out = s;
    s->nx = s->ny = gen_pick(scale, 64, 1024, 4096);
    GPUEST_TRY(gpuest_memimg_alloc(img, "A", GPUEST_DT_FP32, (uint64_t)(s->nx * s->ny) * 4, &s->a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "x", GPUEST_DT_FP32, (uint64_t)s->ny * 4, &s->x, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "y", GPUEST_DT_FP32, (uint64_t)s->ny * 4, &s->y, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "tmp", GPUEST_DT_FP32, (uint64_t)s->nx * 4, &s->tmp, err));
    for (int64_t i = 0; i < s->nx; i++) {
        GEN_AT(s->x, float, i) = (float)((double)i * ATAX_PI);
        for (int64_t j = 0; j < s->ny; j++)
            GEN_AT(s->a, float, i * s->ny + j) = (float)(i * j) / (float)s->nx;
    }
    return GPUEST_OK;
}

static void atax_destroy(void *ctx) { free(ctx); }

static gpuest_err atax_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                   gpuest_error_t *err)
{
    (void)img, (void)err;
    atax_t *s = ctx;
    if (s->kernel >= 2) {
        *done = 1;
        return GPUEST_OK;
    }
    int64_t n = s->kernel == 0 ? s->nx : s->ny;
    gen_launch(l, s->kernel == 0 ? "atax_kernel1" : "atax_kernel2", (uint32_t)((n + ATAX_BLOCK - 1) / ATAX_BLOCK), 1,
               1, ATAX_BLOCK, 1, 1, 0, 10);
    return GPUEST_OK;
}

static gpuest_err atax_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    atax_t *s = ctx;
    const float *a = (const float *)(const void *)s->a->data;
    float *tmp = (float *)(void *)s->tmp->data, *x = (float *)(void *)s->x->data, *y = (float *)(void *)s->y->data;
    if (s->kernel == 0) {
        for (int64_t i = 0; i < s->nx; i++)
            for (int64_t j = 0; j < s->ny; j++)
                tmp[i] += a[i * s->ny + j] * x[j];
    } else {
        for (int64_t j = 0; j < s->ny; j++)
            for (int64_t i = 0; i < s->nx; i++)
                y[j] += a[i * s->ny + j] * tmp[i];
    }
    s->kernel++;
    return GPUEST_OK;
}

static void atax_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* kernel1: i = gtid; for (j < NY) tmp[i] += A[i*NY+j] * x[j]   (row walk: 32 rows per warp)
 * kernel2: j = gtid; for (i < NX) y[j] += A[i*NY+j] * tmp[i]   (coalesced, tmp[i] broadcast)
 * The accumulator lives in global memory and may alias A, so it is loaded and
 * stored in every iteration: load acc, load A, load vector, FMA, store acc. */
static gpuest_err atax_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                            gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    atax_t *s = ctx;
    int k1 = s->kernel == 0;
    int64_t g[32], ai[32], vi[32];
    for (int k = 0; k < 32; k++)
        g[k] = (int64_t)w->ctaid[0] * ATAX_BLOCK + w->tid0 + k;
    uint32_t act = gen_mask_below(g, w->live, k1 ? s->nx : s->ny);
    int64_t trip = k1 ? s->ny : s->nx;
    if (w->step == 0) {
        gen_alu(w, 0x00, 3, w->live);
        gen_compute(w, 0x0c, GPUEST_LAT_BRANCH, w->live);
        w->step = 1;
        if (!act)
            w->finished = 1;
        return GPUEST_OK;
    }
    gpuest_alloc_t *acc = k1 ? s->tmp : s->y, *vec = k1 ? s->x : s->tmp;
    for (int it = 0; it < ATAX_UNROLL && w->v[0] < trip; it++, w->v[0]++) {
        int64_t q = w->v[0];
        for (int k = 0; k < 32; k++) {
            ai[k] = k1 ? g[k] * s->ny + q : q * s->ny + g[k];
            vi[k] = q;
        }
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, act, acc->base, g, 4);
        gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, act, s->a->base, ai, 4);
        gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, vec->base, vi, 4);
        gen_compute(w, 0x38, GPUEST_LAT_ALU, act);
        gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, act, acc->base, g, 4);
        gen_compute(w, 0x48, GPUEST_LAT_BRANCH, act);
    }
    if (w->v[0] >= trip)
        w->finished = 1;
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_atax_ops = {atax_create, atax_destroy, atax_next_launch, atax_end_launch,
                                              atax_warp_init, atax_fill};
