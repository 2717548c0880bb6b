/* gen_gemm.c: PolyBench/GPU GEMM (CUDA/GEMM/gemm.cu gemm_kernel): C = alpha*A*B + beta*C, one thread per C element. */
#include <stdlib.h>

#include "workload_int.h"

#define GEMM_ALPHA 32412.0f
#define GEMM_BETA 2123.0f
#define GEMM_K_PER_FILL 6

typedef struct {
    int64_t ni, nj, nk;
    gpuest_alloc_t *a, *b, *c;
    int launched;
} gemm_t;

static gpuest_err gemm_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    (void)rng;
    gemm_t *g = calloc(1, sizeof *g);
    if (!g)
        return gpuest_fail(err, GPUEST_ENOMEM, "gemm: out of memory");
    *out = g;
    g->ni = g->nj = g->nk = gen_pick(scale, 64, 256, 512);
    GPUEST_TRY(gpuest_memimg_alloc(img, "a", GPUEST_DT_FP32, (uint64_t)(g->ni * g->nk) * 4, &g->a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "b", GPUEST_DT_FP32, (uint64_t)(g->nk * g->nj) * 4, &g->b, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "c", GPUEST_DT_FP32, (uint64_t)(g->ni * g->nj) * 4, &g->c, err));
    /* PolyBench init_arrays: A[i][k] = i*k/NI, B[k][j] = k*j/NI, C[i][j] = i*j/NI. */
    for (int64_t i = 0; i < g->ni; i++)
        for (int64_t k = 0; k < g->nk; k++)
            GEN_AT(g->a, float, i * g->nk + k) = (float)(i * k) / (float)g->ni;
    for (int64_t k = 0; k < g->nk; k++)
        for (int64_t j = 0; j < g->nj; j++)
            GEN_AT(g->b, float, k * g->nj + j) = (float)(k * j) / (float)g->ni;
    for (int64_t i = 0; i < g->ni; i++)
        for (int64_t j = 0; j < g->nj; j++)
            GEN_AT(g->c, float, i * g->nj + j) = (float)(i * j) / (float)g->ni;
    return GPUEST_OK;
}

static void gemm_destroy(void *ctx) { free(ctx); }

static gpuest_err gemm_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                   gpuest_error_t *err)
{
    (void)img, (void)err;
    gemm_t *g = ctx;
    if (g->launched++) {
        *done = 1;
        return GPUEST_OK;
    }
    gen_launch(l, "gemm_kernel", (uint32_t)((g->nj + 31) / 32), (uint32_t)((g->ni + 7) / 8), 1, 32, 8, 1, 0, 14);
    return GPUEST_OK;
}

static gpuest_err gemm_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    gemm_t *g = ctx;
    const float *restrict A = (const float *)(const void *)g->a->data;
    const float *restrict B = (const float *)(const void *)g->b->data;
    float *restrict C = (float *)(void *)g->c->data;
    /* C[i][j] = BETA C[i][j] + sum over k of (ALPHA A[i][k]) B[k][j], k in ascending order, each
     * element's float operations those of the kernel's own loop; the loops run i, k, j so that B and
     * C are read along their rows (the j-innermost order read B down its columns and was 4 % of a
     * sampled gemm run at default scale, done once per generator instance) */
    for (int64_t i = 0; i < g->ni; i++) {
        float *Ci = &C[i * g->nj];
        for (int64_t j = 0; j < g->nj; j++)
            Ci[j] = Ci[j] * GEMM_BETA;
        for (int64_t k = 0; k < g->nk; k++) {
            float a = GEMM_ALPHA * A[i * g->nk + k];
            const float *Bk = &B[k * g->nj];
            for (int64_t j = 0; j < g->nj; j++)
                Ci[j] += a * Bk[j];
        }
    }
    return GPUEST_OK;
}

static void gemm_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img;
    gemm_t *g = ctx;
    uint32_t act = 0;
    for (int k = 0; k < 32; k++) {
        uint32_t tx, ty, tz;
        gen_thread_idx(l, w, k, &tx, &ty, &tz);
        w->lane[0][k] = (int64_t)w->ctaid[1] * 8 + ty;   /* i */
        w->lane[1][k] = (int64_t)w->ctaid[0] * 32 + tx;  /* j */
        if ((w->live >> k & 1) && w->lane[0][k] < g->ni && w->lane[1][k] < g->nj)
            act |= 1u << k;
    }
    w->v[0] = act;
}

static gpuest_err gemm_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                            gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    gemm_t *g = ctx;
    uint32_t act = (uint32_t)w->v[0];
    int64_t idx[32];
    for (int k = 0; k < 32; k++)
        idx[k] = w->lane[0][k] * g->nj + w->lane[1][k];
    if (w->step == 0) { /* c[i][j] *= beta */
        gen_alu(w, 0x00, 5, w->live);
        gen_compute(w, 0x28, GPUEST_LAT_BRANCH, w->live);
        if (!act) {
            w->finished = 1;
            return GPUEST_OK;
        }
        gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, g->c->base, idx, 4);
        gen_compute(w, 0x38, GPUEST_LAT_ALU, act);
        gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, act, g->c->base, idx, 4);
        w->step = 1;
        return GPUEST_OK;
    }
    /* for (k = 0; k < NK; k++) c[i][j] += alpha * a[i][k] * b[k][j]; as coded, c is re-read and re-written. */
    int64_t k0 = (int64_t)w->step - 1;
    for (int64_t kk = k0; kk < g->nk && kk < k0 + GEMM_K_PER_FILL; kk++) {
        int64_t ai[32], bi[32];
        for (int k = 0; k < 32; k++) {
            ai[k] = w->lane[0][k] * g->nk + kk;
            bi[k] = kk * g->nj + w->lane[1][k];
        }
        gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 4, act, g->a->base, ai, 4);
        gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, act, g->b->base, bi, 4);
        gen_mem_idx(w, 0x58, GPUEST_MEM_LOAD, 4, act, g->c->base, idx, 4);
        gen_alu(w, 0x60, 2, act);
        gen_mem_idx(w, 0x70, GPUEST_MEM_STORE, 4, act, g->c->base, idx, 4);
        gen_compute(w, 0x78, GPUEST_LAT_BRANCH, act);
    }
    w->step += GEMM_K_PER_FILL;
    if ((int64_t)w->step - 1 >= g->nk)
        w->finished = 1;
    return GPUEST_OK;
}

static const gpuest_gen_ops_t gemm_ops_tab = {gemm_create, gemm_destroy, gemm_next_launch, gemm_end_launch,
                                              gemm_warp_init, gemm_fill};

const gpuest_generator_t gpuest_gen_gemm = {"gemm", "PolyBench", "GEMM", "reuse", "fp32",
    "PolyBench/GPU CUDA/GEMM/gemm.cu gemm_kernel", &gemm_ops_tab};
