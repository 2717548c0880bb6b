/* gen_bfs.c: Rodinia 3.1 BFS (bfs/kernel.cu Kernel, bfs/kernel2.cu Kernel2), level by level over a power-law graph. */
#include <stdlib.h>

#include "workload_int.h"

#define BFS_THREADS 512   /* MAX_THREADS_PER_BLOCK in Rodinia's bfs.cu */

typedef struct {
    int64_t n;
    gpuest_alloc_t *nodes, *edges, *mask, *updating, *visited, *cost, *over;
    int phase;          /* 0: next launch is Kernel, 1: Kernel2 */
    int iterations;     /* Kernel launches so far */
} bfs_t;

static gpuest_err bfs_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                             gpuest_error_t *err)
{
    bfs_t *b = calloc(1, sizeof *b);
    if (!b)
        return gpuest_fail(err, GPUEST_ENOMEM, "bfs: out of memory");
    *out = b;
    b->n = gen_pick(scale, 512, 32768, 1000000);
    gen_graph_t g;
    GPUEST_TRY(gen_graph_powerlaw(rng, b->n, 6.0, &g, err));
    int64_t n = b->n;
    gpuest_err rc = gpuest_memimg_alloc(img, "d_graph_nodes", GPUEST_DT_INT32, (uint64_t)n * 8, &b->nodes, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_graph_edges", GPUEST_DT_INT32, (uint64_t)(g.m ? g.m : 1) * 4, &b->edges, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_graph_mask", GPUEST_DT_BYTES, (uint64_t)n, &b->mask, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_updating_graph_mask", GPUEST_DT_BYTES, (uint64_t)n, &b->updating, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_graph_visited", GPUEST_DT_BYTES, (uint64_t)n, &b->visited, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_cost", GPUEST_DT_INT32, (uint64_t)n * 4, &b->cost, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_over", GPUEST_DT_BYTES, 1, &b->over, err);
    if (rc != GPUEST_OK) {
        gen_graph_free(&g);
        return rc;
    }
    for (int64_t i = 0; i < n; i++) {
        GEN_AT(b->nodes, int32_t, 2 * i) = (int32_t)g.row[i];
        GEN_AT(b->nodes, int32_t, 2 * i + 1) = (int32_t)(g.row[i + 1] - g.row[i]);
        GEN_AT(b->cost, int32_t, i) = -1;
    }
    for (int64_t e = 0; e < g.m; e++)
        GEN_AT(b->edges, int32_t, e) = g.col[e];
    gen_graph_free(&g);
    /* Source vertex 0, as in Rodinia. */
    b->mask->data[0] = 1;
    b->visited->data[0] = 1;
    GEN_AT(b->cost, int32_t, 0) = 0;
    return GPUEST_OK;
}

static void bfs_destroy(void *ctx) { free(ctx); }

static gpuest_err bfs_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                  gpuest_error_t *err)
{
    (void)img, (void)err;
    bfs_t *b = ctx;
    uint32_t blocks = (uint32_t)((b->n + BFS_THREADS - 1) / BFS_THREADS);
    uint32_t threads = b->n < BFS_THREADS ? (uint32_t)b->n : BFS_THREADS;
    if (b->phase == 0) {
        /* do { stop = false; Kernel; Kernel2; } while (stop) */
        if (b->iterations > 0 && b->over->data[0] == 0) {
            *done = 1;
            return GPUEST_OK;
        }
        b->over->data[0] = 0;
        b->iterations++;
        gen_launch(l, "bfs_kernel", blocks, 1, 1, threads, 1, 1, 0, 16);
    } else {
        gen_launch(l, "bfs_kernel2", blocks, 1, 1, threads, 1, 1, 0, 8);
    }
    return GPUEST_OK;
}

static gpuest_err bfs_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    bfs_t *b = ctx;
    unsigned char *mask = b->mask->data, *upd = b->updating->data, *vis = b->visited->data;
    int32_t *cost = (int32_t *)(void *)b->cost->data;
    const int32_t *nodes = (const int32_t *)(const void *)b->nodes->data;
    const int32_t *edges = (const int32_t *)(const void *)b->edges->data;
    if (b->phase == 0) {
        for (int64_t t = 0; t < b->n; t++) {
            if (!mask[t])
                continue;
            mask[t] = 0;
            for (int32_t i = nodes[2 * t]; i < nodes[2 * t] + nodes[2 * t + 1]; i++) {
                int32_t id = edges[i];
                if (!vis[id]) {
                    cost[id] = cost[t] + 1;
                    upd[id] = 1;
                }
            }
        }
    } else {
        for (int64_t t = 0; t < b->n; t++)
            if (upd[t]) {
                mask[t] = 1;
                vis[t] = 1;
                b->over->data[0] = 1;
                upd[t] = 0;
            }
    }
    b->phase ^= 1;
    return GPUEST_OK;
}

static void bfs_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* Kernel2: streaming over the masks. */
static void bfs_fill_k2(bfs_t *b, const gpuest_launch_t *l, gpuest_warp_t *w, const int64_t *tid, uint32_t in)
{
    (void)l;
    uint32_t act = 0;
    gen_alu(w, 0x100, 2, w->live);
    gen_mem_idx(w, 0x110, GPUEST_MEM_LOAD, 1, in, b->updating->base, tid, 1);
    for (int k = 0; k < 32; k++)
        if ((in >> k & 1) && b->updating->data[tid[k]])
            act |= 1u << k;
    gen_compute(w, 0x118, GPUEST_LAT_BRANCH, in);
    gen_mem_idx(w, 0x120, GPUEST_MEM_STORE, 1, act, b->mask->base, tid, 1);
    gen_mem_idx(w, 0x128, GPUEST_MEM_STORE, 1, act, b->visited->base, tid, 1);
    gpuest_inst_t *i = gen_mem(w, 0x130, GPUEST_MEM_STORE, 1, act);
    for (int k = 0; i && k < 32; k++)
        if (act >> k & 1)
            i->addr[k] = b->over->base;
    gen_mem_idx(w, 0x138, GPUEST_MEM_STORE, 1, act, b->updating->base, tid, 1);
    w->finished = 1;
}

static gpuest_err bfs_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                           gpuest_error_t *err)
{
    (void)img, (void)err;
    bfs_t *b = ctx;
    int64_t tid[32];
    for (int k = 0; k < 32; k++)
        tid[k] = (int64_t)w->ctaid[0] * BFS_THREADS + w->tid0 + k;
    uint32_t in = gen_mask_below(tid, w->live, b->n);
    if (b->phase == 1) {
        bfs_fill_k2(b, l, w, tid, in);
        return GPUEST_OK;
    }
    const int32_t *nodes = (const int32_t *)(const void *)b->nodes->data;
    const int32_t *edges = (const int32_t *)(const void *)b->edges->data;
    if (w->step == 0) { /* if (tid < n && g_graph_mask[tid]) */
        gen_alu(w, 0x00, 2, w->live);
        gen_mem_idx(w, 0x10, GPUEST_MEM_LOAD, 1, in, b->mask->base, tid, 1);
        gen_compute(w, 0x18, GPUEST_LAT_BRANCH, in);
        uint32_t act = 0;
        for (int k = 0; k < 32; k++)
            if ((in >> k & 1) && b->mask->data[tid[k]])
                act |= 1u << k;
        if (!act) {
            w->finished = 1;
            return GPUEST_OK;
        }
        gen_mem_idx(w, 0x20, GPUEST_MEM_STORE, 1, act, b->mask->base, tid, 1);
        gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, act, b->nodes->base, tid, 8);      /* .starting */
        gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, b->nodes->base + 4, tid, 8);  /* .no_of_edges */
        for (int k = 0; k < 32; k++) {
            int64_t s = (act >> k & 1) ? nodes[2 * tid[k]] : 0;
            w->lane[0][k] = s;
            w->lane[1][k] = (act >> k & 1) ? s + nodes[2 * tid[k] + 1] : 0;
        }
        w->v[0] = act;
        w->step = 1;
        return GPUEST_OK;
    }
    /* Up to 4 iterations of: for (i = starting; i < starting + no_of_edges; i++) */
    uint32_t act = (uint32_t)w->v[0];
    for (int it = 0; it < 4; it++) {
        gen_compute(w, 0x38, GPUEST_LAT_BRANCH, act);
        uint32_t run = 0;
        for (int k = 0; k < 32; k++)
            if ((act >> k & 1) && w->lane[0][k] < w->lane[1][k])
                run |= 1u << k;
        if (!run) {
            w->finished = 1;
            return GPUEST_OK;
        }
        int64_t id[32];
        uint32_t fresh = 0;
        for (int k = 0; k < 32; k++) {
            id[k] = (run >> k & 1) ? edges[w->lane[0][k]] : 0;
            if ((run >> k & 1) && !b->visited->data[id[k]])
                fresh |= 1u << k;
        }
        gen_mem_idx(w, 0x40, GPUEST_MEM_LOAD, 4, run, b->edges->base, w->lane[0], 4);
        gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 1, run, b->visited->base, id, 1);
        gen_addr_from_load(w, 1); /* visited[id], id = edges[i] */
        gen_compute(w, 0x50, GPUEST_LAT_BRANCH, run);
        gen_mem_idx(w, 0x58, GPUEST_MEM_LOAD, 4, fresh, b->cost->base, tid, 4);
        if (fresh)
            gen_compute(w, 0x60, GPUEST_LAT_ALU, fresh);
        gen_mem_idx(w, 0x68, GPUEST_MEM_STORE, 4, fresh, b->cost->base, id, 4);
        gen_mem_idx(w, 0x70, GPUEST_MEM_STORE, 1, fresh, b->updating->base, id, 1);
        gen_compute(w, 0x78, GPUEST_LAT_ALU, run);   /* i++ */
        for (int k = 0; k < 32; k++)
            if (run >> k & 1)
                w->lane[0][k]++;
    }
    return GPUEST_OK;
}

static const gpuest_gen_ops_t bfs_ops_tab = {bfs_create, bfs_destroy, bfs_next_launch, bfs_end_launch,
                                             bfs_warp_init, bfs_fill};

const gpuest_generator_t gpuest_gen_bfs = {"bfs", "Rodinia", "BFS", "graph", "int32",
    "Rodinia 3.1 bfs/kernel.cu Kernel + bfs/kernel2.cu Kernel2 (one pair per BFS level)", &bfs_ops_tab};
