/* gen_gemm.c: PolyBench/GPU GEMM (CUDA/GEMM/gemm.cu gemm_kernel): C = alpha*A*B + beta*C, one thread per C element. */
#include <stdlib.h>

#include "polybench_int.h"

#define GEMM_ALPHA 32412.0f
#define GEMM_BETA 2123.0f

typedef struct {
    int64_t ni, nj, nk;
    gpuest_alloc_t *a, *b, *c;
    int launched;
    pb_mm_t mm; /* the launch: c = beta c, then c += alpha a b (polybench_mm.c) */
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
    g->mm = (pb_mm_t){.out = g->c, .left = g->a, .right = g->b, .rows = g->ni, .ocols = g->nj, .lcols = g->nk,
                      .nk = g->nk, .left_scale = GEMM_ALPHA, .out_scale = GEMM_BETA, .zero_out = 0, .alu_per_k = 2};
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
    pb_mm_launch(&g->mm, "gemm_kernel", l);
    return GPUEST_OK;
}

static gpuest_err gemm_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    pb_mm_host(&((gemm_t *)ctx)->mm); /* C[i][j] = BETA C[i][j] + sum over k of (ALPHA A[i][k]) B[k][j] */
    return GPUEST_OK;
}

static void gemm_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img;
    pb_mm_warp_init(&((gemm_t *)ctx)->mm, l, w);
}

static gpuest_err gemm_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                            gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    pb_mm_fill(&((gemm_t *)ctx)->mm, w); /* c[i][j] *= beta; for k: c[i][j] += alpha * a[i][k] * b[k][j] */
    return GPUEST_OK;
}

static const gpuest_gen_ops_t gemm_ops_tab = {gemm_create, gemm_destroy, gemm_next_launch, gemm_end_launch,
                                              gemm_warp_init, gemm_fill};

const gpuest_generator_t gpuest_gen_gemm = {"gemm", "PolyBench", "GEMM", "reuse", "fp32",
    "PolyBench/GPU CUDA/GEMM/gemm.cu gemm_kernel", &gemm_ops_tab};
