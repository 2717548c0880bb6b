/* gen_color.c: Pannotia graph coloring, max variant (graph_app/color/kernel/kernel_max.cl: color, color2), until every vertex is colored. */
#include <stdlib.h>

#include "workload_int.h"

#define CL_THREADS 256   /* work-group size */
#define CL_UNROLL 6      /* neighbour-loop iterations emitted per fill call */

typedef struct {
    int64_t n, m;
    gpuest_alloc_t *row, *col, *value, *color, *stop, *maxd;
    int32_t graph_color;   /* colour assigned by the current pair */
    int phase;             /* 0: next is color, 1: color2 */
    int finished;
} cl_t;

const gpuest_gen_ops_t gpuest_gen_color_ops;
const gpuest_generator_t gpuest_gen_color = {
    "color", "Pannotia", "Graph coloring (max)", "graph", "int32",
    "Pannotia graph_app/color/kernel/kernel_max.cl color + color2 (one pair per colour until none is uncolored)",
    &gpuest_gen_color_ops};

/* Input: a power-law graph (CSR, both directions) with distinct random vertex
 * values in (0, 1], so that the max-independent-set rule gives a valid colouring. */
static gpuest_err cl_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    cl_t *c = calloc(1, sizeof *c);
    if (!c)
        return gpuest_fail(err, GPUEST_ENOMEM, "color: out of memory");
    *out = c;
    c->n = gen_pick(scale, 256, 16384, 1000000);
    gen_graph_t g;
    GPUEST_TRY(gen_graph_powerlaw(rng, c->n, 6.0, &g, err));
    c->m = g.m;
    uint64_t n = (uint64_t)c->n;
    gpuest_err rc = gpuest_memimg_alloc(img, "row", GPUEST_DT_INT32, n * 4, &c->row, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "col", GPUEST_DT_INT32, (uint64_t)(g.m ? g.m : 1) * 4, &c->col, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "node_value", GPUEST_DT_FP32, n * 4, &c->value, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "col_array", GPUEST_DT_INT32, n * 4, &c->color, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "stop", GPUEST_DT_INT32, 4, &c->stop, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "max_d", GPUEST_DT_FP32, n * 4, &c->maxd, err);
    if (rc != GPUEST_OK) {
        gen_graph_free(&g);
        return rc;
    }
    for (int64_t i = 0; i < c->n; i++) { /* Pannotia's row array has num_nodes entries */
        GEN_AT(c->row, int32_t, i) = (int32_t)g.row[i];
        GEN_AT(c->color, int32_t, i) = -1;
    }
    for (int64_t e = 0; e < g.m; e++)
        GEN_AT(c->col, int32_t, e) = g.col[e];
    gen_graph_free(&g);
    /* Distinct values: a shuffled ranking 1..n scaled into (0, 1]. */
    int32_t *perm = malloc(n * sizeof *perm);
    if (!perm)
        return gpuest_fail(err, GPUEST_ENOMEM, "color: out of memory");
    for (int64_t i = 0; i < c->n; i++)
        perm[i] = (int32_t)i + 1;
    for (int64_t i = c->n - 1; i > 0; i--) {
        int64_t j = (int64_t)gpuest_rng_below(rng, (uint64_t)i + 1);
        int32_t t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (int64_t i = 0; i < c->n; i++)
        GEN_AT(c->value, float, i) = (float)perm[i] / (float)c->n;
    free(perm);
    c->graph_color = 1;
    return GPUEST_OK;
}

static void cl_destroy(void *ctx) { free(ctx); }

/* Host loop: do { stop = 0; color; color2; graph_color++; } while (stop). */
static gpuest_err cl_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    cl_t *c = ctx;
    if (c->finished) {
        *done = 1;
        return GPUEST_OK;
    }
    uint32_t blocks = (uint32_t)((c->n + CL_THREADS - 1) / CL_THREADS);
    if (c->phase == 0) {
        GEN_AT(c->stop, int32_t, 0) = 0;
        gen_launch(l, "color", blocks, 1, 1, CL_THREADS, 1, 1, 0, 16);
    } else {
        gen_launch(l, "color2", blocks, 1, 1, CL_THREADS, 1, 1, 0, 8);
    }
    return GPUEST_OK;
}

static int64_t cl_end(const cl_t *c, int64_t v)
{
    return v + 1 < c->n ? GEN_AT(c->row, int32_t, v + 1) : c->m;
}

static gpuest_err cl_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    cl_t *c = ctx;
    int32_t *col = (int32_t *)(void *)c->color->data;
    const int32_t *adj = (const int32_t *)(const void *)c->col->data;
    const float *val = (const float *)(const void *)c->value->data;
    float *maxd = (float *)(void *)c->maxd->data;
    if (c->phase == 0) {
        for (int64_t v = 0; v < c->n; v++) {
            if (col[v] != -1)
                continue;
            GEN_AT(c->stop, int32_t, 0) = 1;
            float mx = -1;
            for (int64_t e = GEN_AT(c->row, int32_t, v); e < cl_end(c, v); e++)
                if (col[adj[e]] == -1 && val[adj[e]] > mx)
                    mx = val[adj[e]];
            maxd[v] = mx;
        }
        c->phase = 1;
        return GPUEST_OK;
    }
    for (int64_t v = 0; v < c->n; v++)
        if (col[v] == -1 && val[v] >= maxd[v])
            col[v] = c->graph_color;
    c->phase = 0;
    c->graph_color++;
    if (GEN_AT(c->stop, int32_t, 0) == 0)
        c->finished = 1;
    return GPUEST_OK;
}

static void cl_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

static void cl_fill_color2(cl_t *c, gpuest_warp_t *w, const int64_t *tid, uint32_t in)
{
    const int32_t *col = (const int32_t *)(const void *)c->color->data;
    const float *val = (const float *)(const void *)c->value->data, *maxd = (const float *)(const void *)c->maxd->data;
    uint32_t un = 0, win = 0;
    for (int k = 0; k < 32; k++)
        if ((in >> k & 1) && col[tid[k]] == -1) {
            un |= 1u << k;
            if (val[tid[k]] >= maxd[tid[k]])
                win |= 1u << k;
        }
    gen_mem_idx(w, 0x110, GPUEST_MEM_LOAD, 4, in, c->color->base, tid, 4);
    gen_compute(w, 0x118, GPUEST_LAT_BRANCH, in);
    gen_mem_idx(w, 0x120, GPUEST_MEM_LOAD, 4, un, c->value->base, tid, 4);
    gen_mem_idx(w, 0x128, GPUEST_MEM_LOAD, 4, un, c->maxd->base, tid, 4);
    if (un)
        gen_compute(w, 0x130, GPUEST_LAT_BRANCH, un);
    gen_mem_idx(w, 0x138, GPUEST_MEM_STORE, 4, win, c->color->base, tid, 4);
    w->finished = 1;
}

static gpuest_err cl_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    cl_t *c = ctx;
    int64_t tid[32], idx[32];
    for (int k = 0; k < 32; k++)
        tid[k] = (int64_t)w->ctaid[0] * CL_THREADS + w->tid0 + k;
    uint32_t in = gen_mask_below(tid, w->live, c->n);
    if (w->step == 0)
        gen_alu(w, 0x00, 3, w->live);
    if (c->phase == 1) {
        cl_fill_color2(c, w, tid, in);
        return GPUEST_OK;
    }
    const int32_t *col = (const int32_t *)(const void *)c->color->data;
    const int32_t *adj = (const int32_t *)(const void *)c->col->data;
    if (w->step == 0) { /* if (col_array[tid] == -1) { *stop = 1; start = row[tid]; end = ... } */
        uint32_t un = 0, notlast = 0;
        for (int k = 0; k < 32; k++)
            if ((in >> k & 1) && col[tid[k]] == -1) {
                un |= 1u << k;
                if (tid[k] + 1 < c->n)
                    notlast |= 1u << k;
                w->lane[0][k] = GEN_AT(c->row, int32_t, tid[k]);
                w->lane[1][k] = cl_end(c, tid[k]);
            }
        gen_mem_idx(w, 0x10, GPUEST_MEM_LOAD, 4, in, c->color->base, tid, 4);
        gen_compute(w, 0x18, GPUEST_LAT_BRANCH, in);
        if (!un) {
            w->finished = 1;
            return GPUEST_OK;
        }
        for (int k = 0; k < 32; k++)
            idx[k] = 0;
        gen_mem_idx(w, 0x20, GPUEST_MEM_STORE, 4, un, c->stop->base, idx, 4);
        gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, un, c->row->base, tid, 4);
        for (int k = 0; k < 32; k++)
            idx[k] = tid[k] + 1;
        gen_compute(w, 0x30, GPUEST_LAT_BRANCH, un);
        gen_mem_idx(w, 0x38, GPUEST_MEM_LOAD, 4, notlast, c->row->base, idx, 4);
        w->v[0] = un;
        w->step = 1;
        return GPUEST_OK;
    }
    /* for (edge = start; edge < end; edge++) if (col_array[col[edge]] == -1) max with node_value */
    uint32_t un = (uint32_t)w->v[0];
    for (int it = 0; it < CL_UNROLL; it++) {
        uint32_t run = 0, open = 0;
        int64_t nb[32];
        for (int k = 0; k < 32; k++) {
            nb[k] = 0;
            if ((un >> k & 1) && w->lane[0][k] < w->lane[1][k]) {
                run |= 1u << k;
                nb[k] = adj[w->lane[0][k]];
                if (col[nb[k]] == -1)
                    open |= 1u << k;
            }
        }
        gen_compute(w, 0x40, GPUEST_LAT_BRANCH, un);
        if (!run) { /* max_d[tid] = maximum */
            gen_mem_idx(w, 0x80, GPUEST_MEM_STORE, 4, un, c->maxd->base, tid, 4);
            w->finished = 1;
            return GPUEST_OK;
        }
        gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 4, run, c->col->base, w->lane[0], 4);
        gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, run, c->color->base, nb, 4);
        gen_addr_from_load(w, 1); /* color[nb], nb = col[j] */
        gen_compute(w, 0x58, GPUEST_LAT_BRANCH, run);
        gen_mem_idx(w, 0x60, GPUEST_MEM_LOAD, 4, open, c->value->base, nb, 4);
        gen_addr_from_load(w, 2); /* value[nb] */
        if (open)
            gen_compute(w, 0x68, GPUEST_LAT_ALU, open);
        for (int k = 0; k < 32; k++)
            if (run >> k & 1)
                w->lane[0][k]++;
    }
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_color_ops = {cl_create, cl_destroy, cl_next_launch, cl_end_launch, cl_warp_init,
                                               cl_fill};
