/* gen_pathfinder.c: Rodinia 3.1 Pathfinder (cuda/pathfinder/pathfinder.cu: dynproc_kernel with pyramid height). */
#include <stdlib.h>

#include "workload_int.h"

#define PF_BLOCK 256   /* BLOCK_SIZE */
#define PF_HALO 1

typedef struct {
    int64_t rows, cols;
    int pyramid;                   /* pyramid_height */
    int64_t border, small_cols;    /* borderCols, smallBlockCol */
    uint32_t block_cols;           /* grid size */
    gpuest_alloc_t *wall;          /* int gpuWall[(rows-1)*cols] (rows 1.. of the wall) */
    gpuest_alloc_t *res[2];        /* int gpuResult[2][cols] */
    int64_t t;                     /* startStep of the next launch */
    int src, dst;                  /* result buffers of the current launch */
    int iteration;                 /* MIN(pyramid_height, rows-t-1) of the current launch */
} pf_t;

const gpuest_gen_ops_t gpuest_gen_pathfinder_ops;
const gpuest_generator_t gpuest_gen_pathfinder = {
    "pathfinder", "Rodinia", "Pathfinder", "dynprog", "int32",
    "Rodinia 3.1 cuda/pathfinder/pathfinder.cu dynproc_kernel (ceil((rows-1)/pyramid) launches)",
    &gpuest_gen_pathfinder_ops};

/* Input: wall[i][j] = rand() % 10 as in pathfinder.cu (seeded here);
 * gpuResult[0] starts as the first wall row. */
static gpuest_err pf_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    pf_t *p = calloc(1, sizeof *p);
    if (!p)
        return gpuest_fail(err, GPUEST_ENOMEM, "pathfinder: out of memory");
    *out = p;
    p->cols = gen_pick(scale, 600, 10000, 100000);
    p->rows = gen_pick(scale, 9, 100, 100);
    p->pyramid = (int)gen_pick(scale, 4, 20, 20);
    p->border = p->pyramid * PF_HALO;
    p->small_cols = PF_BLOCK - p->pyramid * PF_HALO * 2;
    p->block_cols = (uint32_t)(p->cols / p->small_cols + (p->cols % p->small_cols == 0 ? 0 : 1));
    uint64_t c = (uint64_t)p->cols;
    GPUEST_TRY(gpuest_memimg_alloc(img, "gpuWall", GPUEST_DT_INT32, (uint64_t)(p->rows - 1) * c * 4, &p->wall, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "gpuResult0", GPUEST_DT_INT32, c * 4, &p->res[0], err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "gpuResult1", GPUEST_DT_INT32, c * 4, &p->res[1], err));
    for (int64_t j = 0; j < p->cols; j++)
        GEN_AT(p->res[0], int32_t, j) = (int32_t)gpuest_rng_below(rng, 10);
    for (int64_t i = 0; i < (p->rows - 1) * p->cols; i++)
        GEN_AT(p->wall, int32_t, i) = (int32_t)gpuest_rng_below(rng, 10);
    p->src = 1, p->dst = 0;
    return GPUEST_OK;
}

static void pf_destroy(void *ctx) { free(ctx); }

static gpuest_err pf_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    pf_t *p = ctx;
    if (p->t >= p->rows - 1) {
        *done = 1;
        return GPUEST_OK;
    }
    int tmp = p->src; /* the host swaps src and dst before each launch */
    p->src = p->dst, p->dst = tmp;
    p->iteration = (int)(p->rows - p->t - 1 < p->pyramid ? p->rows - p->t - 1 : p->pyramid);
    gen_launch(l, "dynproc_kernel", p->block_cols, 1, 1, PF_BLOCK, 1, 1, 2 * PF_BLOCK * 4, 18);
    return GPUEST_OK;
}

/* The pyramid computes exactly `iteration` rows of the plain recurrence
 * dst[x] = min(src[x-1], src[x], src[x+1]) + wall[row][x] (edges clamped). */
static gpuest_err pf_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l;
    pf_t *p = ctx;
    int32_t *cur = malloc((size_t)p->cols * sizeof *cur), *nxt = malloc((size_t)p->cols * sizeof *nxt);
    if (!cur || !nxt) {
        free(cur), free(nxt);
        return gpuest_fail(err, GPUEST_ENOMEM, "pathfinder: out of memory");
    }
    const int32_t *wall = (const int32_t *)(const void *)p->wall->data;
    for (int64_t x = 0; x < p->cols; x++)
        cur[x] = GEN_AT(p->res[p->src], int32_t, x);
    for (int i = 0; i < p->iteration; i++) {
        for (int64_t x = 0; x < p->cols; x++) {
            int32_t m = cur[x];
            if (x > 0 && cur[x - 1] < m)
                m = cur[x - 1];
            if (x + 1 < p->cols && cur[x + 1] < m)
                m = cur[x + 1];
            nxt[x] = m + wall[(p->t + i) * p->cols + x];
        }
        int32_t *sw = cur;
        cur = nxt, nxt = sw;
    }
    for (int64_t x = 0; x < p->cols; x++)
        GEN_AT(p->res[p->dst], int32_t, x) = cur[x];
    free(cur), free(nxt);
    p->t += p->pyramid;
    return GPUEST_OK;
}

static void pf_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img, (void)l;
    pf_t *p = ctx;
    int64_t blk_x = p->small_cols * (int64_t)w->ctaid[0] - p->border;
    int64_t blk_xmax = blk_x + PF_BLOCK - 1;
    w->v[0] = blk_x;
    w->v[1] = blk_x < 0 ? -blk_x : 0;                                               /* validXmin */
    w->v[2] = blk_xmax > p->cols - 1 ? PF_BLOCK - 1 - (blk_xmax - p->cols + 1) : PF_BLOCK - 1; /* validXmax */
}

/* Lanes whose tx satisfies lo <= tx <= hi. */
static uint32_t pf_range(const gpuest_warp_t *w, int64_t lo, int64_t hi)
{
    uint32_t m = 0;
    for (int k = 0; k < 32; k++) {
        int64_t tx = w->tid0 + (uint32_t)k;
        if (tx >= lo && tx <= hi)
            m |= 1u << k;
    }
    return m;
}

static gpuest_err pf_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    pf_t *p = ctx;
    int64_t xidx[32];
    for (int k = 0; k < 32; k++)
        xidx[k] = w->v[0] + w->tid0 + k;
    uint32_t all = w->live, valid = pf_range(w, w->v[1], w->v[2]);
    if (w->step == 0) { /* if (IN_RANGE(xidx, 0, cols-1)) prev[tx] = gpuSrc[xidx] */
        gen_alu(w, 0x00, 8, all);
        uint32_t in = gen_mask_below(xidx, all, p->cols);
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, in, p->res[p->src]->base, xidx, 4);
        if (in)
            gen_compute(w, 0x24, GPUEST_LAT_SHMEM, in);
        gen_barrier(w, 0x28);
        w->step = 1;
        return GPUEST_OK;
    }
    int i = (int)(w->step - 1);
    /* computed lanes: IN_RANGE(tx, i+1, BLOCK_SIZE-i-2) && isValid */
    uint32_t comp = pf_range(w, i + 1, PF_BLOCK - i - 2) & valid;
    if (i < p->iteration) {
        gen_compute(w, 0x30, GPUEST_LAT_BRANCH, all);
        if (comp) {
            gen_compute(w, 0x34, GPUEST_LAT_SHMEM, comp);
            gen_compute(w, 0x38, GPUEST_LAT_SHMEM, comp);
            gen_compute(w, 0x3c, GPUEST_LAT_SHMEM, comp);
            gen_alu(w, 0x40, 4, comp);
            int64_t wi[32];
            for (int k = 0; k < 32; k++)
                wi[k] = p->cols * (p->t + i) + xidx[k];
            gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, comp, p->wall->base, wi, 4);
            gen_compute(w, 0x54, GPUEST_LAT_ALU, comp);
            gen_compute(w, 0x58, GPUEST_LAT_SHMEM, comp);
        }
        gen_barrier(w, 0x60);
        if (i < p->iteration - 1) {
            if (comp) {
                gen_compute(w, 0x64, GPUEST_LAT_SHMEM, comp);
                gen_compute(w, 0x68, GPUEST_LAT_SHMEM, comp);
            }
            gen_barrier(w, 0x6c);
        }
        w->step++;
        return GPUEST_OK;
    }
    /* if (computed) gpuResults[xidx] = result[tx]; computed is from the last iteration */
    uint32_t last = pf_range(w, p->iteration, PF_BLOCK - p->iteration - 1) & valid;
    if (last)
        gen_compute(w, 0x70, GPUEST_LAT_SHMEM, last);
    gen_mem_idx(w, 0x78, GPUEST_MEM_STORE, 4, last, p->res[p->dst]->base, xidx, 4);
    w->finished = 1;
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_pathfinder_ops = {pf_create, pf_destroy, pf_next_launch, pf_end_launch,
                                                    pf_warp_init, pf_fill};
