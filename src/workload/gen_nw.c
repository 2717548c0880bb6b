/* gen_nw.c: Rodinia 3.1 Needleman-Wunsch (nw/needle_kernel.cu needle_cuda_shared_1 / _2), anti-diagonal 16x16 tiles. */
#include <stdlib.h>

#include "workload_int.h"

#define NW_BLOCK 16
#define NW_PENALTY 10

typedef struct {
    int64_t n;             /* sequence length; matrices are (n+1) x (n+1) */
    int64_t cols;          /* max_cols = n + 1 */
    int64_t block_width;   /* (max_cols - 1) / BLOCK_SIZE */
    int64_t i;             /* diagonal of the current launch */
    int kernel;            /* 1 or 2 */
    gpuest_alloc_t *ref, *mat;
} nw_t;

static gpuest_err nw_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    nw_t *w = calloc(1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "nw: out of memory");
    *out = w;
    w->n = gen_pick(scale, 64, 512, 2048);
    w->cols = w->n + 1;
    w->block_width = (w->cols - 1) / NW_BLOCK;
    uint64_t bytes = (uint64_t)(w->cols * w->cols) * 4;
    GPUEST_TRY(gpuest_memimg_alloc(img, "referrence_cuda", GPUEST_DT_INT32, bytes, &w->ref, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "matrix_cuda", GPUEST_DT_INT32, bytes, &w->mat, err));
    /* Two random sequences over 10 residues (rand() % 10 + 1 in needle.cu) and a
     * BLOSUM-like symmetric substitution table: 4..11 on the diagonal, -4..2 off it. */
    int sub[11][11];
    for (int a = 1; a <= 10; a++)
        for (int b = a; b <= 10; b++) {
            int v = a == b ? 4 + (int)gpuest_rng_below(rng, 8) : -4 + (int)gpuest_rng_below(rng, 7);
            sub[a][b] = sub[b][a] = v;
        }
    int *s1 = malloc((size_t)w->cols * sizeof *s1), *s2 = malloc((size_t)w->cols * sizeof *s2);
    if (!s1 || !s2) {
        free(s1), free(s2);
        return gpuest_fail(err, GPUEST_ENOMEM, "nw: out of memory");
    }
    for (int64_t k = 1; k < w->cols; k++) {
        s1[k] = 1 + (int)gpuest_rng_below(rng, 10);
        s2[k] = 1 + (int)gpuest_rng_below(rng, 10);
    }
    for (int64_t r = 1; r < w->cols; r++)
        for (int64_t c = 1; c < w->cols; c++)
            GEN_AT(w->ref, int32_t, r * w->cols + c) = sub[s1[r]][s2[c]];
    for (int64_t k = 0; k < w->cols; k++) {
        GEN_AT(w->mat, int32_t, k * w->cols) = (int32_t)(-k * NW_PENALTY);
        GEN_AT(w->mat, int32_t, k) = (int32_t)(-k * NW_PENALTY);
    }
    free(s1), free(s2);
    w->kernel = 1;
    w->i = 0;
    return GPUEST_OK;
}

static void nw_destroy(void *ctx) { free(ctx); }

static gpuest_err nw_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                 gpuest_error_t *err)
{
    (void)img, (void)err;
    nw_t *w = ctx;
    /* for (i = 1; i <= block_width; i++) shared_1<<<i>>>; for (i = block_width - 1; i >= 1; i--) shared_2<<<i>>> */
    if (w->kernel == 1) {
        w->i++;
        if (w->i > w->block_width) {
            w->kernel = 2;
            w->i = w->block_width;
        }
    }
    if (w->kernel == 2) {
        w->i--;
        if (w->i < 1) {
            *done = 1;
            return GPUEST_OK;
        }
    }
    gen_launch(l, w->kernel == 1 ? "needle_cuda_shared_1" : "needle_cuda_shared_2", (uint32_t)w->i, 1, 1,
               NW_BLOCK, 1, 1, (uint32_t)(((NW_BLOCK + 1) * (NW_BLOCK + 1) + NW_BLOCK * NW_BLOCK) * 4), 18);
    return GPUEST_OK;
}

/* Tile (bx, by) of the current launch's CTA bx. */
static void nw_tile(const nw_t *w, int64_t bx, int64_t *tx, int64_t *ty)
{
    if (w->kernel == 1) {
        *tx = bx;
        *ty = w->i - 1 - bx;
    } else {
        *tx = bx + w->block_width - w->i;
        *ty = w->block_width - bx - 1;
    }
}

static gpuest_err nw_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    nw_t *w = ctx;
    int32_t *m = (int32_t *)(void *)w->mat->data;
    const int32_t *r = (const int32_t *)(const void *)w->ref->data;
    int64_t C = w->cols;
    for (int64_t bx = 0; bx < w->i; bx++) {
        int64_t tbx, tby;
        nw_tile(w, bx, &tbx, &tby);
        for (int64_t y = tby * NW_BLOCK + 1; y <= tby * NW_BLOCK + NW_BLOCK; y++)
            for (int64_t x = tbx * NW_BLOCK + 1; x <= tbx * NW_BLOCK + NW_BLOCK; x++) {
                int32_t a = m[(y - 1) * C + x - 1] + r[y * C + x];
                int32_t b = m[y * C + x - 1] - NW_PENALTY, c = m[(y - 1) * C + x] - NW_PENALTY;
                int32_t v = a > b ? a : b;
                m[y * C + x] = v > c ? v : c;
            }
    }
    return GPUEST_OK;
}

static void nw_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img, (void)l;
    const nw_t *nw = ctx;
    int64_t tbx, tby;
    nw_tile(nw, w->ctaid[0], &tbx, &tby);
    w->v[0] = nw->cols * NW_BLOCK * tby + NW_BLOCK * tbx;   /* index_nw */
}

static gpuest_err nw_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    const nw_t *nw = ctx;
    int64_t C = nw->cols, nwi = w->v[0], idx[32];
    uint32_t all = w->live;   /* 16 lanes */
    switch (w->step) {
    case 0:
        gen_alu(w, 0x00, 8, all);
        gen_mem(w, 0x40, GPUEST_MEM_LOAD, 4, 1u)->addr[0] = nw->mat->base + (uint64_t)nwi * 4;  /* tx == 0 */
        gen_compute(w, 0x48, GPUEST_LAT_SHMEM, 1u);
        for (int ty = 0; ty < NW_BLOCK; ty++) {   /* ref[ty][tx] = referrence[index + cols*ty] */
            for (int k = 0; k < 32; k++)
                idx[k] = nwi + k + C + 1 + C * ty;
            gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, all, nw->ref->base, idx, 4);
            gen_compute(w, 0x58, GPUEST_LAT_SHMEM, all);
        }
        gen_barrier(w, 0x60);
        for (int k = 0; k < 32; k++)              /* temp[tx+1][0] = matrix[index_w + cols*tx] */
            idx[k] = nwi + C + C * k;
        gen_mem_idx(w, 0x68, GPUEST_MEM_LOAD, 4, all, nw->mat->base, idx, 4);
        gen_compute(w, 0x70, GPUEST_LAT_SHMEM, all);
        gen_barrier(w, 0x78);
        for (int k = 0; k < 32; k++)              /* temp[0][tx+1] = matrix[index_n] */
            idx[k] = nwi + k + 1;
        gen_mem_idx(w, 0x80, GPUEST_MEM_LOAD, 4, all, nw->mat->base, idx, 4);
        gen_compute(w, 0x88, GPUEST_LAT_SHMEM, all);
        gen_barrier(w, 0x90);
        w->step = 1;
        return GPUEST_OK;
    case 1:
    case 2: { /* the two triangular sweeps over the tile, 16 and 15 steps */
        int steps = w->step == 1 ? NW_BLOCK : NW_BLOCK - 1;
        for (int s = 0; s < steps; s++) {
            int m = w->step == 1 ? s : NW_BLOCK - 2 - s;
            uint32_t on = (uint32_t)((1u << (m + 1)) - 1u) & all;   /* tx <= m */
            if (on) {
                gen_compute(w, 0xa0, GPUEST_LAT_SHMEM, on);
                gen_compute(w, 0xa8, GPUEST_LAT_ALU, on);
            }
            gen_barrier(w, 0xb0);
        }
        w->step++;
        return GPUEST_OK;
    }
    default:
        for (int ty = 0; ty < NW_BLOCK; ty++) {   /* matrix[index + ty*cols] = temp[ty+1][tx+1] */
            for (int k = 0; k < 32; k++)
                idx[k] = nwi + k + C + 1 + C * ty;
            gen_mem_idx(w, 0xc0, GPUEST_MEM_STORE, 4, all, nw->mat->base, idx, 4);
        }
        w->finished = 1;
        return GPUEST_OK;
    }
}

static const gpuest_gen_ops_t nw_ops_tab = {nw_create, nw_destroy, nw_next_launch, nw_end_launch, nw_warp_init,
                                            nw_fill};

const gpuest_generator_t gpuest_gen_nw = {"nw", "Rodinia", "NW", "dynprog", "int32",
    "Rodinia 3.1 nw/needle_kernel.cu needle_cuda_shared_1 + needle_cuda_shared_2", &nw_ops_tab};
