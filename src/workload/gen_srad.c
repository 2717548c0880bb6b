/* gen_srad.c: Rodinia 3.1 SRAD v2 (cuda/srad/srad_v2/srad_kernel.cu: srad_cuda_1, srad_cuda_2), speckle-reducing diffusion. */
#include <math.h>
#include <stdlib.h>

#include "workload_int.h"

#define SRAD_BS 16   /* BLOCK_SIZE in srad.h */

typedef struct {
    int64_t rows, cols;
    int niter, iter;
    int phase;                   /* 0: next is srad_cuda_1, 1: srad_cuda_2 */
    float lambda, q0sqr;
    int64_t r1, r2, c1, c2;      /* region of interest for q0sqr */
    gpuest_alloc_t *ec, *wc, *nc, *sc, *j, *c;   /* E_C, W_C, N_C, S_C, J_cuda, C_cuda */
} srad_t;

const gpuest_gen_ops_t gpuest_gen_srad_ops;
const gpuest_generator_t gpuest_gen_srad = {
    "srad", "Rodinia", "SRAD v2", "stencil", "fp32",
    "Rodinia 3.1 cuda/srad/srad_v2/srad_kernel.cu srad_cuda_1 + srad_cuda_2 (one pair per iteration)",
    &gpuest_gen_srad_ops};

/* Input: J = exp(image) as in srad.cu, with a spatially correlated image in
 * [0, 1) instead of rand() noise (an ultrasound-like picture: smooth regions). */
static gpuest_err srad_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    srad_t *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "srad: out of memory");
    *out = s;
    s->rows = s->cols = gen_pick(scale, 32, 512, 2048);
    s->niter = 2;      /* srad 2048 2048 0 127 0 127 0.5 2 */
    s->lambda = 0.5f;
    s->r1 = 0, s->c1 = 0;
    s->r2 = s->rows - 1 < 127 ? s->rows - 1 : 127;
    s->c2 = s->cols - 1 < 127 ? s->cols - 1 : 127;
    uint64_t bytes = (uint64_t)(s->rows * s->cols) * 4;
    GPUEST_TRY(gpuest_memimg_alloc(img, "E_C", GPUEST_DT_FP32, bytes, &s->ec, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "W_C", GPUEST_DT_FP32, bytes, &s->wc, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "N_C", GPUEST_DT_FP32, bytes, &s->nc, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "S_C", GPUEST_DT_FP32, bytes, &s->sc, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "J_cuda", GPUEST_DT_FP32, bytes, &s->j, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "C_cuda", GPUEST_DT_FP32, bytes, &s->c, err));
    gpuest_memimg_set_approx(s->j, 12); /* approximable image (thesis 6.2: 12 bits) */
    float *j = (float *)(void *)s->j->data;
    gen_field_f32(rng, j, s->cols, s->rows, 0.0f, 1.0f);
    for (int64_t i = 0; i < s->rows * s->cols; i++)
        j[i] = expf(j[i]);
    return GPUEST_OK;
}

static void srad_destroy(void *ctx) { free(ctx); }

/* Host side of each iteration: q0sqr from the region of interest of J. */
static void srad_q0(srad_t *s)
{
    const float *j = (const float *)(const void *)s->j->data;
    float sum = 0, sum2 = 0;
    for (int64_t r = s->r1; r <= s->r2; r++)
        for (int64_t c = s->c1; c <= s->c2; c++) {
            float t = j[r * s->cols + c];
            sum += t;
            sum2 += t * t;
        }
    float size = (float)((s->r2 - s->r1 + 1) * (s->c2 - s->c1 + 1));
    float mean = sum / size, var = sum2 / size - mean * mean;
    s->q0sqr = var / (mean * mean);
}

static gpuest_err srad_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                   gpuest_error_t *err)
{
    (void)img, (void)err;
    srad_t *s = ctx;
    if (s->iter >= s->niter) {
        *done = 1;
        return GPUEST_OK;
    }
    uint32_t gx = (uint32_t)(s->cols / SRAD_BS), gy = (uint32_t)(s->rows / SRAD_BS);
    if (s->phase == 0) {
        srad_q0(s);
        gen_launch(l, "srad_cuda_1", gx, gy, 1, SRAD_BS, SRAD_BS, 1, 6 * SRAD_BS * SRAD_BS * 4, 24);
    } else {
        gen_launch(l, "srad_cuda_2", gx, gy, 1, SRAD_BS, SRAD_BS, 1, 5 * SRAD_BS * SRAD_BS * 4, 20);
    }
    return GPUEST_OK;
}

/* Clamped neighbour access: the kernels' shared-memory cases amount to
 * replicating the border pixel at the image edges. */
static float srad_px(const float *a, const srad_t *s, int64_t r, int64_t c)
{
    r = r < 0 ? 0 : r >= s->rows ? s->rows - 1 : r;
    c = c < 0 ? 0 : c >= s->cols ? s->cols - 1 : c;
    return a[r * s->cols + c];
}

static void srad_run1(srad_t *s)
{
    const float *j = (const float *)(const void *)s->j->data;
    float *cc = (float *)(void *)s->c->data, *e = (float *)(void *)s->ec->data, *w = (float *)(void *)s->wc->data;
    float *n = (float *)(void *)s->nc->data, *so = (float *)(void *)s->sc->data;
    float q0 = s->q0sqr;
    for (int64_t r = 0; r < s->rows; r++)
        for (int64_t c = 0; c < s->cols; c++) {
            int64_t i = r * s->cols + c;
            float jc = j[i];
            float dn = srad_px(j, s, r - 1, c) - jc, ds = srad_px(j, s, r + 1, c) - jc;
            float dw = srad_px(j, s, r, c - 1) - jc, de = srad_px(j, s, r, c + 1) - jc;
            float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
            float lp = (dn + ds + dw + de) / jc;
            float num = (0.5f * g2) - ((1.0f / 16.0f) * (lp * lp));
            float den = 1 + (.25f * lp);
            float qsqr = num / (den * den);
            den = (qsqr - q0) / (q0 * (1 + q0));
            float coef = 1.0f / (1.0f + den);
            cc[i] = coef < 0 ? 0 : coef > 1 ? 1 : coef;
            e[i] = de, w[i] = dw, so[i] = ds, n[i] = dn;
        }
}

static void srad_run2(srad_t *s)
{
    float *j = (float *)(void *)s->j->data;
    const float *cc = (const float *)(const void *)s->c->data;
    const float *e = (const float *)(const void *)s->ec->data, *w = (const float *)(const void *)s->wc->data;
    const float *n = (const float *)(const void *)s->nc->data, *so = (const float *)(const void *)s->sc->data;
    for (int64_t r = 0; r < s->rows; r++)
        for (int64_t c = 0; c < s->cols; c++) {
            int64_t i = r * s->cols + c;
            float cn = cc[i], cw = cc[i];
            float cs = srad_px(cc, s, r + 1, c), ce = srad_px(cc, s, r, c + 1);
            float d = cn * n[i] + cs * so[i] + cw * w[i] + ce * e[i];
            j[i] = j[i] + 0.25f * s->lambda * d;   /* every thread reads its own J only */
        }
}

static gpuest_err srad_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    srad_t *s = ctx;
    if (s->phase == 0) {
        srad_run1(s);
        s->phase = 1;
    } else {
        srad_run2(s);
        s->phase = 0;
        s->iter++;
    }
    return GPUEST_OK;
}

static void srad_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* Element index of lane k for a (16,16) CTA: base + cols*ty + tx form. */
typedef struct {
    int64_t base;   /* cols*16*by + 16*bx */
    int64_t ty[32], tx[32];
} srad_geo_t;

static void srad_geo(const srad_t *s, const gpuest_warp_t *w, srad_geo_t *g)
{
    g->base = s->cols * SRAD_BS * (int64_t)w->ctaid[1] + SRAD_BS * (int64_t)w->ctaid[0];
    for (int k = 0; k < 32; k++) {
        g->ty[k] = (w->tid0 + (uint32_t)k) / SRAD_BS;
        g->tx[k] = (w->tid0 + (uint32_t)k) % SRAD_BS;
    }
}

/* One load/store where lane k touches element f(k) of array a. */
typedef int64_t (*srad_idx_fn)(const srad_t *s, const srad_geo_t *g, int k);

static void srad_mem(gpuest_warp_t *w, uint32_t pc, gpuest_mem_op_t op, const gpuest_alloc_t *a, const srad_t *s,
                     const srad_geo_t *g, srad_idx_fn f)
{
    int64_t idx[32];
    for (int k = 0; k < 32; k++)
        idx[k] = f(s, g, k);
    gen_mem_idx(w, pc, op, 4, 0xffffffffu, a->base, idx, 4);
}

static int64_t ix_c(const srad_t *s, const srad_geo_t *g, int k) { return g->base + s->cols * g->ty[k] + g->tx[k]; }
static int64_t ix_n(const srad_t *s, const srad_geo_t *g, int k) { return g->base + g->tx[k] - s->cols; }
static int64_t ix_s(const srad_t *s, const srad_geo_t *g, int k) { return g->base + s->cols * SRAD_BS + g->tx[k]; }
static int64_t ix_w(const srad_t *s, const srad_geo_t *g, int k) { return g->base + s->cols * g->ty[k] - 1; }
static int64_t ix_e(const srad_t *s, const srad_geo_t *g, int k) { return g->base + s->cols * g->ty[k] + SRAD_BS; }
/* Border overrides: first row of the image, last row, first column, last column. */
static int64_t ix_n0(const srad_t *s, const srad_geo_t *g, int k) { return g->base % s->cols + g->tx[k]; }
static int64_t ix_sl(const srad_t *s, const srad_geo_t *g, int k) { return g->base + s->cols * (SRAD_BS - 1) + g->tx[k]; }
static int64_t ix_w0(const srad_t *s, const srad_geo_t *g, int k) { return g->base - g->base % s->cols + s->cols * g->ty[k]; }
static int64_t ix_el(const srad_t *s, const srad_geo_t *g, int k) { return g->base + s->cols * g->ty[k] + SRAD_BS - 1; }

static void srad_fill1(srad_t *s, const gpuest_launch_t *l, gpuest_warp_t *w, const srad_geo_t *g)
{
    uint32_t bx = w->ctaid[0], by = w->ctaid[1], all = 0xffffffffu;
    gen_alu(w, 0x00, 6, all);
    srad_mem(w, 0x10, GPUEST_MEM_LOAD, s->j, s, g, ix_n);   /* north[ty][tx] = J[index_n] */
    srad_mem(w, 0x18, GPUEST_MEM_LOAD, s->j, s, g, ix_s);   /* south[ty][tx] = J[index_s] */
    gen_compute(w, 0x20, GPUEST_LAT_BRANCH, all);
    if (by == 0)
        srad_mem(w, 0x28, GPUEST_MEM_LOAD, s->j, s, g, ix_n0);
    else if (by == l->grid[1] - 1)
        srad_mem(w, 0x30, GPUEST_MEM_LOAD, s->j, s, g, ix_sl);
    gen_compute(w, 0x34, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x38);
    srad_mem(w, 0x40, GPUEST_MEM_LOAD, s->j, s, g, ix_w);   /* west: one address per row */
    srad_mem(w, 0x48, GPUEST_MEM_LOAD, s->j, s, g, ix_e);
    gen_compute(w, 0x50, GPUEST_LAT_BRANCH, all);
    if (bx == 0)
        srad_mem(w, 0x58, GPUEST_MEM_LOAD, s->j, s, g, ix_w0);
    else if (bx == l->grid[0] - 1)
        srad_mem(w, 0x60, GPUEST_MEM_LOAD, s->j, s, g, ix_el);
    gen_compute(w, 0x64, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x68);
    srad_mem(w, 0x70, GPUEST_MEM_LOAD, s->j, s, g, ix_c);   /* temp[ty][tx] = J[index] */
    gen_compute(w, 0x74, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x78);
    /* Neighbour selection (9 border cases), gradient, Laplacian, coefficient. */
    gen_compute(w, 0x80, GPUEST_LAT_BRANCH, all);
    for (int k = 0; k < 5; k++)
        gen_compute(w, 0x84 + 4 * (uint32_t)k, GPUEST_LAT_SHMEM, all);
    gen_alu(w, 0xa0, 14, all);
    gen_compute(w, 0xe0, GPUEST_LAT_SFU, all);
    gen_compute(w, 0xe4, GPUEST_LAT_SFU, all);
    gen_compute(w, 0xe8, GPUEST_LAT_SFU, all);
    gen_compute(w, 0xec, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0xf0);
}

static void srad_fill2(srad_t *s, const gpuest_launch_t *l, gpuest_warp_t *w, const srad_geo_t *g)
{
    uint32_t bx = w->ctaid[0], by = w->ctaid[1], all = 0xffffffffu;
    gen_alu(w, 0x200, 4, all);
    srad_mem(w, 0x210, GPUEST_MEM_LOAD, s->j, s, g, ix_c);
    gen_compute(w, 0x214, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x218);
    srad_mem(w, 0x220, GPUEST_MEM_LOAD, s->c, s, g, ix_s);  /* south_c */
    gen_compute(w, 0x224, GPUEST_LAT_BRANCH, all);
    if (by == l->grid[1] - 1)
        srad_mem(w, 0x228, GPUEST_MEM_LOAD, s->c, s, g, ix_sl);
    gen_compute(w, 0x22c, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x230);
    srad_mem(w, 0x238, GPUEST_MEM_LOAD, s->c, s, g, ix_e);  /* east_c */
    gen_compute(w, 0x23c, GPUEST_LAT_BRANCH, all);
    if (bx == l->grid[0] - 1)
        srad_mem(w, 0x240, GPUEST_MEM_LOAD, s->c, s, g, ix_el);
    gen_compute(w, 0x244, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x248);
    srad_mem(w, 0x250, GPUEST_MEM_LOAD, s->c, s, g, ix_c);  /* c_cuda_temp */
    gen_compute(w, 0x254, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x258);
    gen_compute(w, 0x260, GPUEST_LAT_BRANCH, all);
    gen_compute(w, 0x264, GPUEST_LAT_SHMEM, all);
    gen_compute(w, 0x268, GPUEST_LAT_SHMEM, all);
    gen_compute(w, 0x26c, GPUEST_LAT_SHMEM, all);
    /* d_sum = cn*N_C + cs*S_C + cw*W_C + ce*E_C */
    srad_mem(w, 0x270, GPUEST_MEM_LOAD, s->nc, s, g, ix_c);
    srad_mem(w, 0x278, GPUEST_MEM_LOAD, s->sc, s, g, ix_c);
    srad_mem(w, 0x280, GPUEST_MEM_LOAD, s->wc, s, g, ix_c);
    srad_mem(w, 0x288, GPUEST_MEM_LOAD, s->ec, s, g, ix_c);
    gen_alu(w, 0x290, 6, all);
    gen_compute(w, 0x2a8, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x2b0);
}

static gpuest_err srad_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                            gpuest_error_t *err)
{
    (void)img, (void)err;
    srad_t *s = ctx;
    srad_geo_t g;
    srad_geo(s, w, &g);
    uint32_t all = 0xffffffffu;
    if (w->step == 0) {
        if (s->phase == 0)
            srad_fill1(s, l, w, &g);
        else
            srad_fill2(s, l, w, &g);
        w->step = 1;
        return GPUEST_OK;
    }
    if (s->phase == 0) { /* C_cuda, E_C, W_C, S_C, N_C [index] */
        gen_compute(w, 0x100, GPUEST_LAT_SHMEM, all);
        srad_mem(w, 0x108, GPUEST_MEM_STORE, s->c, s, &g, ix_c);
        srad_mem(w, 0x110, GPUEST_MEM_STORE, s->ec, s, &g, ix_c);
        srad_mem(w, 0x118, GPUEST_MEM_STORE, s->wc, s, &g, ix_c);
        srad_mem(w, 0x120, GPUEST_MEM_STORE, s->sc, s, &g, ix_c);
        srad_mem(w, 0x128, GPUEST_MEM_STORE, s->nc, s, &g, ix_c);
    } else {
        gen_compute(w, 0x300, GPUEST_LAT_SHMEM, all);
        srad_mem(w, 0x308, GPUEST_MEM_STORE, s->j, s, &g, ix_c);
    }
    w->finished = 1;
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_srad_ops = {srad_create, srad_destroy, srad_next_launch, srad_end_launch,
                                              srad_warp_init, srad_fill};
