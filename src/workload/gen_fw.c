/* gen_fw.c: Pannotia Floyd-Warshall (graph_app/fw/kernel/kernel.cl floydwarshall), one launch per intermediate vertex k. */
#include <stdlib.h>

#include "workload_int.h"

#define FW_BS 16          /* 16 x 16 work-groups */
#define FW_INF (1 << 29)  /* "no path": sums of two stay inside int */

typedef struct {
    int64_t dim;
    int64_t k;            /* launches begun */
    gpuest_alloc_t *dist, *next;
} fw_t;

static gpuest_err fw_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    fw_t *f = calloc(1, sizeof *f);
    if (!f)
        return gpuest_fail(err, GPUEST_ENOMEM, "fw: out of memory");
    *out = f;
    int64_t n = f->dim = gen_pick(scale, 64, 128, 512);
    GPUEST_TRY(gpuest_memimg_alloc(img, "dist", GPUEST_DT_INT32, (uint64_t)(n * n) * 4, &f->dist, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "next", GPUEST_DT_INT32, (uint64_t)(n * n) * 4, &f->next, err));
    /* A random directed graph with 16 n edges of weight 0..100 (as 512_65536.gr), power-law out-degrees. */
    int32_t *d = (int32_t *)(void *)f->dist->data, *nx = (int32_t *)(void *)f->next->data;
    for (int64_t i = 0; i < n * n; i++) {
        d[i] = (i / n == i % n) ? 0 : FW_INF;
        nx[i] = -1;
    }
    gen_graph_t g;
    GPUEST_TRY(gen_graph_powerlaw(rng, n, 16.0, &g, err));
    for (int64_t u = 0; u < n; u++)
        for (int64_t e = g.row[u]; e < g.row[u + 1]; e++) {
            int64_t v = g.col[e];
            int32_t w = (int32_t)gpuest_rng_below(rng, 101);
            if (w < d[u * n + v]) {
                d[u * n + v] = w;
                nx[u * n + v] = (int32_t)v;
            }
        }
    gen_graph_free(&g);
    return GPUEST_OK;
}

static void fw_destroy(void *ctx) { free(ctx); }

static gpuest_err fw_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    fw_t *f = ctx;
    if (f->k >= f->dim) {
        *done = 1;
        return GPUEST_OK;
    }
    uint32_t g = (uint32_t)((f->dim + FW_BS - 1) / FW_BS);
    gen_launch(l, "floydwarshall", g, g, 1, FW_BS, FW_BS, 1, 0, 12);
    return GPUEST_OK;
}

static gpuest_err fw_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    fw_t *f = ctx;
    int64_t n = f->dim, k = f->k;
    int32_t *d = (int32_t *)(void *)f->dist->data, *nx = (int32_t *)(void *)f->next->data;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            if (d[i * n + k] + d[k * n + j] < d[i * n + j]) {
                d[i * n + j] = d[i * n + k] + d[k * n + j];
                nx[i * n + j] = (int32_t)k;
            }
    f->k++;
    return GPUEST_OK;
}

static void fw_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

static gpuest_err fw_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    fw_t *f = ctx;
    int64_t n = f->dim, k = f->k, ij[32], ik[32], kj[32];
    uint32_t act = 0, upd = 0;
    const int32_t *d = (const int32_t *)(const void *)f->dist->data;
    for (int lane = 0; lane < 32; lane++) {
        uint32_t tx, ty, tz;
        gen_thread_idx(l, w, lane, &tx, &ty, &tz);
        int64_t i = (int64_t)w->ctaid[0] * FW_BS + tx;   /* get_global_id(0): the row, fastest */
        int64_t j = (int64_t)w->ctaid[1] * FW_BS + ty;
        ij[lane] = i * n + j, ik[lane] = i * n + k, kj[lane] = k * n + j;
        if ((w->live >> lane & 1) && i < n && j < n) {
            act |= 1u << lane;
            if (d[ik[lane]] + d[kj[lane]] < d[ij[lane]])
                upd |= 1u << lane;
        }
    }
    gen_alu(w, 0x00, 5, w->live);
    gen_compute(w, 0x28, GPUEST_LAT_BRANCH, w->live);
    gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, f->dist->base, ik, 4);
    gen_mem_idx(w, 0x38, GPUEST_MEM_LOAD, 4, act, f->dist->base, kj, 4);
    gen_mem_idx(w, 0x40, GPUEST_MEM_LOAD, 4, act, f->dist->base, ij, 4);
    if (act)
        gen_alu(w, 0x48, 2, act);
    gen_mem_idx(w, 0x58, GPUEST_MEM_STORE, 4, upd, f->dist->base, ij, 4);
    gen_mem_idx(w, 0x60, GPUEST_MEM_STORE, 4, upd, f->next->base, ij, 4);
    w->finished = 1;
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_fw_ops = {fw_create, fw_destroy, fw_next_launch, fw_end_launch, fw_warp_init,
                                            fw_fill};

const gpuest_generator_t gpuest_gen_fw = {
    "fw", "Pannotia", "Floyd-Warshall", "graph", "int32",
    "Pannotia graph_app/fw/kernel/kernel.cl floydwarshall (one launch per k, i = get_global_id(0) fastest)",
    &gpuest_gen_fw_ops};
