/* gen_2dconv.c: PolyBench/GPU 2DCONV (CUDA/2DCONV/2DConvolution.cu convolution2D_kernel), 3x3 stencil over an image. */
#include <stdlib.h>

#include "workload_int.h"

typedef struct {
    int64_t ni, nj;
    gpuest_alloc_t *a, *b;
    int launched;
} conv_t;

static gpuest_err conv_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    conv_t *c = calloc(1, sizeof *c);
    if (!c)
        return gpuest_fail(err, GPUEST_ENOMEM, "2dconv: out of memory");
    *out = c;
    c->ni = c->nj = gen_pick(scale, 64, 1024, 4096);
    uint64_t bytes = (uint64_t)(c->ni * c->nj) * 4;
    GPUEST_TRY(gpuest_memimg_alloc(img, "A", GPUEST_DT_FP32, bytes, &c->a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "B", GPUEST_DT_FP32, bytes, &c->b, err));
    /* PolyBench fills A with rand()/RAND_MAX; we use a spatially correlated
     * image in [0, 1) so that values look like a picture. */
    gen_field_f32(rng, (float *)(void *)c->a->data, c->nj, c->ni, 0.0f, 1.0f);
    gpuest_memimg_set_approx(c->a, 8);
    gpuest_memimg_set_approx(c->b, 8);
    return GPUEST_OK;
}

static void conv_destroy(void *ctx) { free(ctx); }

static gpuest_err conv_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                   gpuest_error_t *err)
{
    (void)img, (void)err;
    conv_t *c = ctx;
    if (c->launched++) {
        *done = 1;
        return GPUEST_OK;
    }
    /* DIM_THREAD_BLOCK_X 32, DIM_THREAD_BLOCK_Y 8 */
    gen_launch(l, "convolution2D_kernel", (uint32_t)((c->nj + 31) / 32), (uint32_t)((c->ni + 7) / 8), 1, 32, 8, 1,
               0, 12);
    return GPUEST_OK;
}

static const float conv_coef[3][3] = {{0.2f, -0.3f, 0.4f}, {0.5f, 0.6f, 0.7f}, {-0.8f, -0.9f, 0.10f}};

static gpuest_err conv_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    conv_t *c = ctx;
    const float *A = (const float *)(const void *)c->a->data;
    float *B = (float *)(void *)c->b->data;
    int64_t nj = c->nj;
    for (int64_t i = 1; i < c->ni - 1; i++)
        for (int64_t j = 1; j < nj - 1; j++) {
            /* c<row><col> in PolyBench: c11 pairs with A[i-1][j-1], c21 with A[i-1][j], ... */
            float s = 0;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++)
                    s += conv_coef[dj + 1][di + 1] * A[(i + di) * nj + j + dj];
            B[i * nj + j] = s;
        }
    return GPUEST_OK;
}

static void conv_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

static gpuest_err conv_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                            gpuest_error_t *err)
{
    (void)img, (void)err;
    conv_t *c = ctx;
    int64_t ii[32], jj[32], idx[32];
    uint32_t act = 0;
    for (int k = 0; k < 32; k++) {
        uint32_t tx, ty, tz;
        gen_thread_idx(l, w, k, &tx, &ty, &tz);
        jj[k] = (int64_t)w->ctaid[0] * 32 + tx;
        ii[k] = (int64_t)w->ctaid[1] * 8 + ty;
        if ((w->live >> k & 1) && ii[k] < c->ni - 1 && jj[k] < c->nj - 1 && ii[k] > 0 && jj[k] > 0)
            act |= 1u << k;
    }
    gen_alu(w, 0x00, 6, w->live);   /* index arithmetic, constants */
    gen_compute(w, 0x30, GPUEST_LAT_BRANCH, w->live);
    uint32_t pc = 0x40;
    for (int di = -1; di <= 1; di++)
        for (int dj = -1; dj <= 1; dj++) {
            for (int k = 0; k < 32; k++)
                idx[k] = (ii[k] + di) * c->nj + jj[k] + dj;
            gen_mem_idx(w, pc, GPUEST_MEM_LOAD, 4, act, c->a->base, idx, 4);
            if (act)
                gen_compute(w, pc + 4, GPUEST_LAT_ALU, act);   /* multiply-add */
            pc += 8;
        }
    for (int k = 0; k < 32; k++)
        idx[k] = ii[k] * c->nj + jj[k];
    gen_mem_idx(w, pc, GPUEST_MEM_STORE, 4, act, c->b->base, idx, 4);
    w->finished = 1;
    return GPUEST_OK;
}

static const gpuest_gen_ops_t conv2d_ops_tab = {conv_create, conv_destroy, conv_next_launch, conv_end_launch,
                                                conv_warp_init, conv_fill};

const gpuest_generator_t gpuest_gen_2dconv = {"2dconv", "PolyBench", "2DCONV", "stencil", "fp32",
    "PolyBench/GPU CUDA/2DCONV/2DConvolution.cu convolution2D_kernel", &conv2d_ops_tab};
