/* gen_bicg.c: PolyBench/GPU 1.0 BICG (CUDA/BICG/bicg.cu: bicg_kernel1 s = A^T r, bicg_kernel2 q = A p). */
#include <stdlib.h>

#include "workload_int.h"

#define BICG_BLOCK 256      /* DIM_THREAD_BLOCK_X 256, DIM_THREAD_BLOCK_Y 1 in bicg.cu */
#define BICG_UNROLL 7       /* loop iterations emitted per fill call */
#define BICG_PI 3.14159265358979323846

typedef struct {
    int64_t nx, ny;
    gpuest_alloc_t *a, *r, *s, *p, *q;  /* float A[nx*ny], r[nx], s[ny], p[ny], q[nx] */
    int kernel;                         /* launches begun: 0, 1, 2 */
} bicg_t;

const gpuest_gen_ops_t gpuest_gen_bicg_ops;
const gpuest_generator_t gpuest_gen_bicg = {
    "bicg", "PolyBench", "BICG", "reuse", "fp32",
    "PolyBench/GPU 1.0 CUDA/BICG/bicg.cu bicg_kernel1 + bicg_kernel2", &gpuest_gen_bicg_ops};

/* Input: PolyBench's init_array (r[i] = p[i] = i*pi, A[i][j] = i*j/NX); the
 * benchmark's own values, so the seed is not used. */
static gpuest_err bicg_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    (void)rng;
    bicg_t *b = calloc(1, sizeof *b);
    if (!b)
        return gpuest_fail(err, GPUEST_ENOMEM, "bicg: out of memory");
    *out = b;
    b->nx = b->ny = gen_pick(scale, 64, 1024, 4096);
    GPUEST_TRY(gpuest_memimg_alloc(img, "A", GPUEST_DT_FP32, (uint64_t)(b->nx * b->ny) * 4, &b->a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "r", GPUEST_DT_FP32, (uint64_t)b->nx * 4, &b->r, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "s", GPUEST_DT_FP32, (uint64_t)b->ny * 4, &b->s, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "p", GPUEST_DT_FP32, (uint64_t)b->ny * 4, &b->p, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "q", GPUEST_DT_FP32, (uint64_t)b->nx * 4, &b->q, err));
    for (int64_t i = 0; i < b->nx; i++) {
        GEN_AT(b->r, float, i) = (float)((double)i * BICG_PI);
        for (int64_t j = 0; j < b->ny; j++)
            GEN_AT(b->a, float, i * b->ny + j) = (float)(i * j) / (float)b->nx;
    }
    for (int64_t j = 0; j < b->ny; j++)
        GEN_AT(b->p, float, j) = (float)((double)j * BICG_PI);
    return GPUEST_OK;
}

static void bicg_destroy(void *ctx) { free(ctx); }

static gpuest_err bicg_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                   gpuest_error_t *err)
{
    (void)img, (void)err;
    bicg_t *b = ctx;
    if (b->kernel >= 2) {
        *done = 1;
        return GPUEST_OK;
    }
    int64_t n = b->kernel == 0 ? b->ny : b->nx;
    gen_launch(l, b->kernel == 0 ? "bicg_kernel1" : "bicg_kernel2", (uint32_t)((n + BICG_BLOCK - 1) / BICG_BLOCK), 1,
               1, BICG_BLOCK, 1, 1, 0, 10);
    return GPUEST_OK;
}

static gpuest_err bicg_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    bicg_t *b = ctx;
    const float *a = (const float *)(const void *)b->a->data;
    float *r = (float *)(void *)b->r->data, *s = (float *)(void *)b->s->data;
    float *p = (float *)(void *)b->p->data, *q = (float *)(void *)b->q->data;
    if (b->kernel == 0) {
        for (int64_t j = 0; j < b->ny; j++) {
            s[j] = 0.0f;
            for (int64_t i = 0; i < b->nx; i++)
                s[j] += a[i * b->ny + j] * r[i];
        }
    } else {
        for (int64_t i = 0; i < b->nx; i++) {
            q[i] = 0.0f;
            for (int64_t j = 0; j < b->ny; j++)
                q[i] += a[i * b->ny + j] * p[j];
        }
    }
    b->kernel++;
    return GPUEST_OK;
}

static void bicg_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* kernel1: j = gtid; s[j] = 0; for (i < NX) s[j] += A[i*NY+j] * r[i]   (coalesced, r[i] broadcast)
 * kernel2: i = gtid; q[i] = 0; for (j < NY) q[i] += A[i*NY+j] * p[j]   (row walk: 32 rows per warp)
 * The global accumulator is loaded and stored in every iteration (it may
 * alias A): load acc, load A, load vector, FMA, store acc. */
static gpuest_err bicg_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                            gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    bicg_t *b = ctx;
    int k1 = b->kernel == 0;
    int64_t g[32], ai[32], vi[32];
    for (int k = 0; k < 32; k++)
        g[k] = (int64_t)w->ctaid[0] * BICG_BLOCK + w->tid0 + k;
    uint32_t act = gen_mask_below(g, w->live, k1 ? b->ny : b->nx);
    int64_t trip = k1 ? b->nx : b->ny;
    gpuest_alloc_t *acc = k1 ? b->s : b->q, *vec = k1 ? b->r : b->p;
    if (w->step == 0) {
        gen_alu(w, 0x00, 3, w->live);
        gen_compute(w, 0x0c, GPUEST_LAT_BRANCH, w->live);
        gen_mem_idx(w, 0x10, GPUEST_MEM_STORE, 4, act, acc->base, g, 4);   /* acc = 0 */
        w->step = 1;
        if (!act)
            w->finished = 1;
        return GPUEST_OK;
    }
    for (int it = 0; it < BICG_UNROLL && w->v[0] < trip; it++, w->v[0]++) {
        int64_t q = w->v[0];
        for (int k = 0; k < 32; k++) {
            ai[k] = k1 ? q * b->ny + g[k] : g[k] * b->ny + q;
            vi[k] = q;
        }
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, act, acc->base, g, 4);
        gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, act, b->a->base, ai, 4);
        gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, vec->base, vi, 4);
        gen_compute(w, 0x38, GPUEST_LAT_ALU, act);
        gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, act, acc->base, g, 4);
        gen_compute(w, 0x48, GPUEST_LAT_BRANCH, act);
    }
    if (w->v[0] >= trip)
        w->finished = 1;
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_bicg_ops = {bicg_create, bicg_destroy, bicg_next_launch, bicg_end_launch,
                                              bicg_warp_init, bicg_fill};
