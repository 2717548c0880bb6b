/* gen_2mm.c: PolyBench/GPU 2MM (CUDA/2MM/2mm.cu mm2_kernel1, mm2_kernel2): tmp = alpha A B, then
 * D = beta D + tmp C, one thread per output element, 32x8 blocks (j = x, i = y). */
#include <stdlib.h>

#include "polybench_int.h"

#define MM2_ALPHA 32412.0f   /* init_array's alpha and beta */
#define MM2_BETA 2123.0f

typedef struct {
    int64_t ni, nj, nk, nl;
    gpuest_alloc_t *tmp, *a, *b, *c, *d;
    int next;   /* launches issued: 0 none, 1 mm2_kernel1, 2 mm2_kernel2 */
    pb_mm_t k[2]; /* tmp = alpha A B; D = beta D + tmp C (polybench_mm.c) */
} mm2_t;

static gpuest_err mm2_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                             gpuest_error_t *err)
{
    (void)rng;
    mm2_t *g = calloc(1, sizeof *g);
    if (!g)
        return gpuest_fail(err, GPUEST_ENOMEM, "2mm: out of memory");
    *out = g;
    /* gemm's sizes (the suite's STANDARD 1024 would make default scale 8x longer than gemm's) */
    g->ni = g->nj = g->nk = g->nl = gen_pick(scale, 64, 256, 512);
    /* mm2Cuda's cudaMalloc order */
    GPUEST_TRY(gpuest_memimg_alloc(img, "tmp", GPUEST_DT_FP32, (uint64_t)(g->ni * g->nj) * 4, &g->tmp, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "A", GPUEST_DT_FP32, (uint64_t)(g->ni * g->nk) * 4, &g->a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "B", GPUEST_DT_FP32, (uint64_t)(g->nk * g->nj) * 4, &g->b, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "C", GPUEST_DT_FP32, (uint64_t)(g->nj * g->nl) * 4, &g->c, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "D", GPUEST_DT_FP32, (uint64_t)(g->ni * g->nl) * 4, &g->d, err));
    /* init_array: A = i k / NI, B = k (j+1) / NJ, C = k (j+3) / NL, D = i (j+2) / NK, each
     * ((float)row * col) / N in float as the source writes it; tmp is copied in uninitialised
     * (zero here) and cleared by mm2_kernel1. */
    for (int64_t i = 0; i < g->ni; i++)
        for (int64_t k = 0; k < g->nk; k++)
            GEN_AT(g->a, float, i * g->nk + k) = (float)i * (float)k / (float)g->ni;
    for (int64_t k = 0; k < g->nk; k++)
        for (int64_t j = 0; j < g->nj; j++)
            GEN_AT(g->b, float, k * g->nj + j) = (float)k * (float)(j + 1) / (float)g->nj;
    for (int64_t k = 0; k < g->nj; k++)
        for (int64_t j = 0; j < g->nl; j++)
            GEN_AT(g->c, float, k * g->nl + j) = (float)k * (float)(j + 3) / (float)g->nl;
    for (int64_t i = 0; i < g->ni; i++)
        for (int64_t j = 0; j < g->nl; j++)
            GEN_AT(g->d, float, i * g->nl + j) = (float)i * (float)(j + 2) / (float)g->nk;
    g->k[0] = (pb_mm_t){.out = g->tmp, .left = g->a, .right = g->b, .rows = g->ni, .ocols = g->nj, .lcols = g->nk,
                        .nk = g->nk, .left_scale = MM2_ALPHA, .out_scale = 0.0f, .zero_out = 1, .alu_per_k = 2};
    g->k[1] = (pb_mm_t){.out = g->d, .left = g->tmp, .right = g->c, .rows = g->ni, .ocols = g->nl, .lcols = g->nj,
                        .nk = g->nj, .left_scale = 1.0f, .out_scale = MM2_BETA, .zero_out = 0, .alu_per_k = 1};
    return GPUEST_OK;
}

static void mm2_destroy(void *ctx) { free(ctx); }

static gpuest_err mm2_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                  gpuest_error_t *err)
{
    (void)img, (void)err;
    mm2_t *g = ctx;
    if (g->next >= 2) {
        *done = 1;
        return GPUEST_OK;
    }
    g->next++;
    pb_mm_launch(&g->k[g->next - 1], g->next == 1 ? "mm2_kernel1" : "mm2_kernel2", l);
    return GPUEST_OK;
}

/* The kernels' effects: kernel 1 tmp[i][j] = 0, then += alpha A[i][k] B[k][j]; kernel 2
 * D[i][j] *= beta, then += tmp[i][k] C[k][j]; in ascending k, as the threads' loops. */
static gpuest_err mm2_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    mm2_t *g = ctx;
    pb_mm_host(&g->k[g->next - 1]);
    return GPUEST_OK;
}

static void mm2_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img;
    mm2_t *g = ctx;
    pb_mm_warp_init(&g->k[g->next - 1], l, w);
}

/* Per k: left[i][k] (one word for the whole warp), right[k][j] (coalesced), out re-read and
 * re-written in global memory every k, as coded (it may alias the operands). */
static gpuest_err mm2_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                           gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    mm2_t *g = ctx;
    pb_mm_fill(&g->k[g->next - 1], w);
    return GPUEST_OK;
}

static const gpuest_gen_ops_t mm2_ops_tab = {mm2_create, mm2_destroy, mm2_next_launch, mm2_end_launch,
                                             mm2_warp_init, mm2_fill};

const gpuest_generator_t gpuest_gen_2mm = {"2mm", "PolyBench", "2MM", "reuse", "fp32",
    "PolyBench/GPU CUDA/2MM/2mm.cu mm2_kernel1, mm2_kernel2", &mm2_ops_tab};
