/* gen_2mm.c: PolyBench/GPU 2MM (CUDA/2MM/2mm.cu mm2_kernel1, mm2_kernel2): tmp = alpha A B, then
 * D = beta D + tmp C, one thread per output element, 32x8 blocks (j = x, i = y). */
#include <stdlib.h>

#include "workload_int.h"

#define MM2_ALPHA 32412.0f   /* init_array's alpha and beta */
#define MM2_BETA 2123.0f
#define MM2_K_PER_FILL 6

typedef struct {
    int64_t ni, nj, nk, nl;
    gpuest_alloc_t *tmp, *a, *b, *c, *d;
    int next;   /* launches issued: 0 none, 1 mm2_kernel1, 2 mm2_kernel2 */
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
    int64_t cols = g->next == 1 ? g->nj : g->nl;
    gen_launch(l, g->next == 1 ? "mm2_kernel1" : "mm2_kernel2", (uint32_t)((cols + 31) / 32),
               (uint32_t)((g->ni + 7) / 8), 1, 32, 8, 1, 0, 14);
    return GPUEST_OK;
}

/* The kernels' effects, each element's float operations those of its thread's loop in ascending k
 * (the loops run i, k, j so that the right operand is read along its rows, as gen_gemm.c does). */
static void mm2_kernel1_host(mm2_t *g)
{
    const float *restrict A = (const float *)(const void *)g->a->data;
    const float *restrict B = (const float *)(const void *)g->b->data;
    float *restrict T = (float *)(void *)g->tmp->data;
    for (int64_t i = 0; i < g->ni; i++) { /* tmp[i][j] = 0; tmp[i][j] += alpha * A[i][k] * B[k][j] */
        float *Ti = &T[i * g->nj];
        for (int64_t j = 0; j < g->nj; j++)
            Ti[j] = 0.0f;
        for (int64_t k = 0; k < g->nk; k++) {
            float a = MM2_ALPHA * A[i * g->nk + k];
            const float *Bk = &B[k * g->nj];
            for (int64_t j = 0; j < g->nj; j++)
                Ti[j] += a * Bk[j];
        }
    }
}

static void mm2_kernel2_host(mm2_t *g)
{
    const float *restrict T = (const float *)(const void *)g->tmp->data;
    const float *restrict C = (const float *)(const void *)g->c->data;
    float *restrict D = (float *)(void *)g->d->data;
    for (int64_t i = 0; i < g->ni; i++) { /* D[i][j] *= beta; D[i][j] += tmp[i][k] * C[k][j] */
        float *Di = &D[i * g->nl];
        for (int64_t j = 0; j < g->nl; j++)
            Di[j] *= MM2_BETA;
        for (int64_t k = 0; k < g->nj; k++) {
            float t = T[i * g->nj + k];
            const float *Ck = &C[k * g->nl];
            for (int64_t j = 0; j < g->nl; j++)
                Di[j] += t * Ck[j];
        }
    }
}

static gpuest_err mm2_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    mm2_t *g = ctx;
    if (g->next == 1)
        mm2_kernel1_host(g);
    else
        mm2_kernel2_host(g);
    return GPUEST_OK;
}

static void mm2_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img;
    mm2_t *g = ctx;
    int64_t cols = g->next == 1 ? g->nj : g->nl;
    uint32_t act = 0;
    for (int k = 0; k < 32; k++) {
        uint32_t tx, ty, tz;
        gen_thread_idx(l, w, k, &tx, &ty, &tz);
        w->lane[0][k] = (int64_t)w->ctaid[1] * 8 + ty;   /* i */
        w->lane[1][k] = (int64_t)w->ctaid[0] * 32 + tx;  /* j */
        if ((w->live >> k & 1) && w->lane[0][k] < g->ni && w->lane[1][k] < cols)
            act |= 1u << k;
    }
    w->v[0] = act;
}

/* The operands of one launch: out[i][j] (row length ocols) accumulates left[i][k] (row length
 * lcols) times right[k][j] (row length ocols) over k < nk. */
typedef struct {
    gpuest_alloc_t *out, *left, *right;
    int64_t ocols, lcols, nk;
} mm2_ops_t;

static mm2_ops_t mm2_operands(const mm2_t *g)
{
    if (g->next == 1)
        return (mm2_ops_t){g->tmp, g->a, g->b, g->nj, g->nk, g->nk};
    return (mm2_ops_t){g->d, g->tmp, g->c, g->nl, g->nj, g->nj};
}

static gpuest_err mm2_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                           gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    mm2_t *g = ctx;
    mm2_ops_t o = mm2_operands(g);
    uint32_t act = (uint32_t)w->v[0];
    int64_t idx[32];
    for (int k = 0; k < 32; k++)
        idx[k] = w->lane[0][k] * o.ocols + w->lane[1][k];
    if (w->step == 0) { /* kernel1: tmp[i][j] = 0; kernel2: D[i][j] *= beta */
        gen_alu(w, 0x00, 5, w->live);
        gen_compute(w, 0x28, GPUEST_LAT_BRANCH, w->live);
        if (!act) {
            w->finished = 1;
            return GPUEST_OK;
        }
        if (g->next == 2) {
            gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, o.out->base, idx, 4);
            gen_compute(w, 0x38, GPUEST_LAT_ALU, act);
        }
        gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, act, o.out->base, idx, 4);
        w->step = 1;
        return GPUEST_OK;
    }
    /* per k: left[i][k] (one word for the whole warp: i is the warp's row), right[k][j] (coalesced),
     * out re-read and re-written in global memory every k, as coded (it may alias the operands) */
    int64_t k0 = (int64_t)w->step - 1;
    for (int64_t kk = k0; kk < o.nk && kk < k0 + MM2_K_PER_FILL; kk++) {
        int64_t li[32], ri[32];
        for (int k = 0; k < 32; k++) {
            li[k] = w->lane[0][k] * o.lcols + kk;
            ri[k] = kk * o.ocols + w->lane[1][k];
        }
        gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 4, act, o.left->base, li, 4);
        gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, act, o.right->base, ri, 4);
        gen_mem_idx(w, 0x58, GPUEST_MEM_LOAD, 4, act, o.out->base, idx, 4);
        gen_alu(w, 0x60, g->next == 1 ? 2 : 1, act); /* alpha * A * B + tmp, or tmp * C + D */
        gen_mem_idx(w, 0x70, GPUEST_MEM_STORE, 4, act, o.out->base, idx, 4);
        gen_compute(w, 0x78, GPUEST_LAT_BRANCH, act);
    }
    w->step += MM2_K_PER_FILL;
    if ((int64_t)w->step - 1 >= o.nk)
        w->finished = 1;
    return GPUEST_OK;
}

static const gpuest_gen_ops_t mm2_ops_tab = {mm2_create, mm2_destroy, mm2_next_launch, mm2_end_launch,
                                             mm2_warp_init, mm2_fill};

const gpuest_generator_t gpuest_gen_2mm = {"2mm", "PolyBench", "2MM", "reuse", "fp32",
    "PolyBench/GPU CUDA/2MM/2mm.cu mm2_kernel1, mm2_kernel2", &mm2_ops_tab};
