/* gen_gaussian.c: Rodinia 3.1 Gaussian elimination (cuda/gaussian/gaussian.cu: Fan1, Fan2), one launch pair per column t. */
#include <math.h>
#include <stdlib.h>

#include "workload_int.h"

#define GS_MAXBLOCK 512   /* MAXBLOCKSIZE: Fan1 block */
#define GS_XY 4           /* BLOCK_SIZE_XY: Fan2 block is 4x4 */

typedef struct {
    int64_t n;                 /* Size */
    gpuest_alloc_t *m, *a, *b; /* float m[n*n] (multipliers), a[n*n], b[n] */
    int64_t t;                 /* current column */
    int phase;                 /* 0: next is Fan1, 1: Fan2 */
} gs_t;

const gpuest_gen_ops_t gpuest_gen_gaussian_ops;
const gpuest_generator_t gpuest_gen_gaussian = {
    "gaussian", "Rodinia", "Gaussian", "reuse", "fp32",
    "Rodinia 3.1 cuda/gaussian/gaussian.cu Fan1 + Fan2 (one pair per column, 2(n-1) launches)",
    &gpuest_gen_gaussian_ops};

/* Input: the matrix Rodinia builds with -s (create_matrix): a[i][j] =
 * 10*exp(lambda*|i-j|) with lambda = -0.01, b = 1. Here the seed perturbs
 * lambda (-0.005 .. -0.02) so that different seeds give different condition
 * numbers, the quantity the approximation predictor of the packet-compression
 * thesis takes as input. */
static gpuest_err gs_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    gs_t *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "gaussian: out of memory");
    *out = s;
    s->n = gen_pick(scale, 16, 96, 208);
    uint64_t n = (uint64_t)s->n;
    GPUEST_TRY(gpuest_memimg_alloc(img, "m_cuda", GPUEST_DT_FP32, n * n * 4, &s->m, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "a_cuda", GPUEST_DT_FP32, n * n * 4, &s->a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "b_cuda", GPUEST_DT_FP32, n * 4, &s->b, err));
    gpuest_memimg_set_approx(s->a, 4); gpuest_memimg_set_approx(s->b, 4); /* approximable inputs (thesis 6.2: 4 bits for GE) */
    double lambda = -0.005 * pow(4.0, gpuest_rng_uniform(rng));
    for (int64_t i = 0; i < s->n; i++) {
        for (int64_t j = 0; j < s->n; j++)
            GEN_AT(s->a, float, i * s->n + j) = (float)(10.0 * exp(lambda * (double)llabs(i - j)));
        GEN_AT(s->b, float, i) = 1.0f;
    }
    return GPUEST_OK;
}

static void gs_destroy(void *ctx) { free(ctx); }

static uint32_t gs_div_up(int64_t a, int64_t b) { return (uint32_t)((a + b - 1) / b); }

static gpuest_err gs_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    gs_t *s = ctx;
    if (s->t >= s->n - 1) { /* for (t = 0; t < Size-1; t++) */
        *done = 1;
        return GPUEST_OK;
    }
    if (s->phase == 0)
        gen_launch(l, "Fan1", gs_div_up(s->n, GS_MAXBLOCK), 1, 1, GS_MAXBLOCK, 1, 1, 0, 8);
    else
        gen_launch(l, "Fan2", gs_div_up(s->n, GS_XY), gs_div_up(s->n, GS_XY), 1, GS_XY, GS_XY, 1, 0, 12);
    return GPUEST_OK;
}

static gpuest_err gs_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    gs_t *s = ctx;
    int64_t n = s->n, t = s->t;
    float *a = (float *)(void *)s->a->data, *m = (float *)(void *)s->m->data, *b = (float *)(void *)s->b->data;
    if (s->phase == 0) {
        for (int64_t r = 0; r < n - 1 - t; r++)
            m[n * (r + t + 1) + t] = a[n * (r + t + 1) + t] / a[n * t + t];
        s->phase = 1;
        return GPUEST_OK;
    }
    /* Fan2 reads the pivot row a[t][*] (never written by Fan2) and column m[*][t]. */
    for (int64_t x = 0; x < n - 1 - t; x++) {
        for (int64_t y = 0; y < n - t; y++)
            a[n * (x + 1 + t) + (y + t)] -= m[n * (x + 1 + t) + t] * a[n * t + (y + t)];
        b[x + 1 + t] -= m[n * (x + 1 + t) + t] * b[t];
    }
    s->phase = 0;
    s->t++;
    return GPUEST_OK;
}

static void gs_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* Fan1: thread r < Size-1-t computes m[Size*(r+t+1)+t] = a[Size*(r+t+1)+t] / a[Size*t+t]. */
static void gs_fill_fan1(gs_t *s, gpuest_warp_t *w)
{
    int64_t n = s->n, t = s->t, r[32], row[32], piv[32];
    for (int k = 0; k < 32; k++) {
        r[k] = (int64_t)w->ctaid[0] * GS_MAXBLOCK + w->tid0 + k;
        row[k] = n * (r[k] + t + 1) + t;
        piv[k] = n * t + t;
    }
    uint32_t act = gen_mask_below(r, w->live, n - 1 - t);
    gen_alu(w, 0x00, 3, w->live);
    gen_compute(w, 0x0c, GPUEST_LAT_BRANCH, w->live);
    gen_mem_idx(w, 0x10, GPUEST_MEM_LOAD, 4, act, s->a->base, row, 4);
    gen_mem_idx(w, 0x18, GPUEST_MEM_LOAD, 4, act, s->a->base, piv, 4);
    if (act)
        gen_compute(w, 0x20, GPUEST_LAT_SFU, act);
    gen_mem_idx(w, 0x28, GPUEST_MEM_STORE, 4, act, s->m->base, row, 4);
    w->finished = 1;
}

/* Fan2: 4x4 threads, xidx (row) = bx*4+tx fastest, yidx (column) = by*4+ty:
 * a[Size*(xidx+1+t)+(yidx+t)] -= m[Size*(xidx+1+t)+t] * a[Size*t+(yidx+t)];
 * the yidx == 0 threads also update b[xidx+1+t]. Operands are loaded in
 * source order: multiplier, pivot row, target. */
static void gs_fill_fan2(gs_t *s, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    int64_t n = s->n, t = s->t, x[32], y[32], mi[32], pi[32], ai[32], bi[32], bt[32];
    uint32_t act = 0, col0 = 0;
    for (int k = 0; k < 32; k++) {
        uint32_t tx, ty, tz;
        gen_thread_idx(l, w, k, &tx, &ty, &tz);
        x[k] = (int64_t)w->ctaid[0] * GS_XY + tx;
        y[k] = (int64_t)w->ctaid[1] * GS_XY + ty;
        mi[k] = n * (x[k] + 1 + t) + t;
        pi[k] = n * t + (y[k] + t);
        ai[k] = n * (x[k] + 1 + t) + (y[k] + t);
        bi[k] = x[k] + 1 + t;
        bt[k] = t;
        if ((w->live >> k & 1) && x[k] < n - 1 - t && y[k] < n - t) {
            act |= 1u << k;
            if (y[k] == 0)
                col0 |= 1u << k;
        }
    }
    gen_alu(w, 0x100, 4, w->live);
    gen_compute(w, 0x110, GPUEST_LAT_BRANCH, w->live);
    gen_mem_idx(w, 0x118, GPUEST_MEM_LOAD, 4, act, s->m->base, mi, 4);
    gen_mem_idx(w, 0x120, GPUEST_MEM_LOAD, 4, act, s->a->base, pi, 4);
    gen_mem_idx(w, 0x128, GPUEST_MEM_LOAD, 4, act, s->a->base, ai, 4);
    if (act)
        gen_compute(w, 0x130, GPUEST_LAT_ALU, act);
    gen_mem_idx(w, 0x138, GPUEST_MEM_STORE, 4, act, s->a->base, ai, 4);
    if (act)
        gen_compute(w, 0x140, GPUEST_LAT_BRANCH, act);
    gen_mem_idx(w, 0x148, GPUEST_MEM_LOAD, 4, col0, s->m->base, mi, 4);
    gen_mem_idx(w, 0x150, GPUEST_MEM_LOAD, 4, col0, s->b->base, bt, 4);
    gen_mem_idx(w, 0x158, GPUEST_MEM_LOAD, 4, col0, s->b->base, bi, 4);
    if (col0)
        gen_compute(w, 0x160, GPUEST_LAT_ALU, col0);
    gen_mem_idx(w, 0x168, GPUEST_MEM_STORE, 4, col0, s->b->base, bi, 4);
    w->finished = 1;
}

static gpuest_err gs_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    gs_t *s = ctx;
    if (s->phase == 0)
        gs_fill_fan1(s, w);
    else
        gs_fill_fan2(s, l, w);
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_gaussian_ops = {gs_create, gs_destroy, gs_next_launch, gs_end_launch,
                                                  gs_warp_init, gs_fill};
