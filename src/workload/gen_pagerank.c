/* gen_pagerank.c: Pannotia PageRank (graph_app/prk/kernel/kernel.cl: inibuffer, then pagerank1 and
 * pagerank2 once per iteration, ITER = 20 iterations as in prk/pagerank.cpp) over a power-law graph. */
#include <stdlib.h>

#include "workload_int.h"

#define PR_THREADS 256   /* work-group size of pagerank.cpp */
#define PR_ITER 20       /* ITER in pagerank.cpp: a fixed count, no convergence test */
#define PR_UNROLL 5      /* edge-loop iterations emitted per fill call (9 instructions each) */

typedef struct {
    int64_t n, m;
    gpuest_alloc_t *row, *col, *pr1, *pr2;
    int next;            /* launches issued so far: 0 is inibuffer, then pagerank1/pagerank2 pairs */
    int kind;            /* kernel of the open launch: 0 inibuffer, 1 pagerank1, 2 pagerank2 */
} pr_t;

const gpuest_gen_ops_t gpuest_gen_pagerank_ops;
const gpuest_generator_t gpuest_gen_pagerank = {
    "pagerank", "Pannotia", "PageRank", "graph", "fp32",
    "Pannotia graph_app/prk/kernel/kernel.cl inibuffer, then pagerank1 + pagerank2 per iteration (20 iterations)",
    &gpuest_gen_pagerank_ops};

/* End of vertex v's edge list: Pannotia's row array has n entries, the last vertex ends at m. */
static int64_t pr_end(const int32_t *row, int64_t n, int64_t m, int64_t v)
{
    return v + 1 < n ? row[v + 1] : m;
}

/* pagerank1's effect. The kernel's float atomic adds land in an order the hardware picks; here
 * they are applied vertex by vertex in ascending order, each vertex's edges in CSR order, so
 * the image is the same bit for bit on every run (another order moves only the low bits). */
void gen_pagerank1(int64_t n, int64_t m, const int32_t *row, const int32_t *col, const float *pr1, float *pr2)
{
    for (int64_t v = 0; v < n; v++) {
        int64_t start = row[v], end = pr_end(row, n, m, v);
        for (int64_t e = start; e < end; e++)
            pr2[col[e]] += pr1[v] / (float)(end - start);
    }
}

/* pagerank2's effect: page_rank1 = 0.15/(float)n + 0.85*page_rank2, with the source's double
 * constants (so the sum is formed in double and rounded once to float), then page_rank2 = 0. */
void gen_pagerank2(int64_t n, float *pr1, float *pr2)
{
    for (int64_t v = 0; v < n; v++) {
        pr1[v] = (float)(0.15 / (float)n + 0.85 * pr2[v]);
        pr2[v] = 0.0f;
    }
}

/* Input: a power-law graph (Chung-Lu, both directions of each edge stored) with the average
 * degree of the suite's coAuthorsDBLP input (about 6.5); default scale has its 299,067 vertices. */
static gpuest_err pr_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    pr_t *p = calloc(1, sizeof *p);
    if (!p)
        return gpuest_fail(err, GPUEST_ENOMEM, "pagerank: out of memory");
    *out = p;
    p->n = gen_pick(scale, 256, 16384, 299067);
    gen_graph_t g;
    GPUEST_TRY(gen_graph_powerlaw(rng, p->n, 6.5, &g, err));
    p->m = g.m;
    uint64_t n = (uint64_t)p->n;
    /* allocation order of pagerank.cpp (its unused `data` array is left out) */
    gpuest_err rc = gpuest_memimg_alloc(img, "row_d", GPUEST_DT_INT32, n * 4, &p->row, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "col_d", GPUEST_DT_INT32, (uint64_t)(g.m ? g.m : 1) * 4, &p->col, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "pagerank1_d", GPUEST_DT_FP32, n * 4, &p->pr1, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "pagerank2_d", GPUEST_DT_FP32, n * 4, &p->pr2, err);
    if (rc != GPUEST_OK) {
        gen_graph_free(&g);
        return rc;
    }
    for (int64_t i = 0; i < p->n; i++)
        GEN_AT(p->row, int32_t, i) = (int32_t)g.row[i];
    for (int64_t e = 0; e < g.m; e++)
        GEN_AT(p->col, int32_t, e) = g.col[e];
    gen_graph_free(&g);
    return GPUEST_OK; /* the rank buffers start zeroed; inibuffer writes them */
}

static void pr_destroy(void *ctx) { free(ctx); }

static gpuest_err pr_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    pr_t *p = ctx;
    if (p->next > 2 * PR_ITER) {
        *done = 1;
        return GPUEST_OK;
    }
    uint32_t blocks = (uint32_t)((p->n + PR_THREADS - 1) / PR_THREADS);
    p->kind = p->next == 0 ? 0 : p->next % 2 == 1 ? 1 : 2;
    static const char *const names[3] = {"inibuffer", "pagerank1", "pagerank2"};
    gen_launch(l, names[p->kind], blocks, 1, 1, PR_THREADS, 1, 1, 0, p->kind == 1 ? 16 : 8);
    p->next++;
    return GPUEST_OK;
}

static gpuest_err pr_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    pr_t *p = ctx;
    float *pr1 = (float *)(void *)p->pr1->data, *pr2 = (float *)(void *)p->pr2->data;
    if (p->kind == 0) {
        for (int64_t v = 0; v < p->n; v++) {
            pr1[v] = 1 / (float)p->n;
            pr2[v] = 0.0f;
        }
    } else if (p->kind == 1) {
        gen_pagerank1(p->n, p->m, (const int32_t *)(const void *)p->row->data,
                      (const int32_t *)(const void *)p->col->data, pr1, pr2);
    } else {
        gen_pagerank2(p->n, pr1, pr2);
    }
    return GPUEST_OK;
}

static void pr_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* inibuffer and pagerank2: one vertex per thread, streaming. */
static void pr_fill_stream(pr_t *p, gpuest_warp_t *w, const int64_t *tid, uint32_t in)
{
    gen_compute(w, 0x18, GPUEST_LAT_BRANCH, w->live); /* if (tid < num_nodes) */
    if (p->kind == 0) { /* page_rank1 = 1/n; page_rank2 = 0 */
        gen_alu(w, 0x20, 1, in);
        gen_mem_idx(w, 0x28, GPUEST_MEM_STORE, 4, in, p->pr1->base, tid, 4);
        gen_mem_idx(w, 0x30, GPUEST_MEM_STORE, 4, in, p->pr2->base, tid, 4);
    } else { /* page_rank1 = 0.15/n + 0.85*page_rank2; page_rank2 = 0 */
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, in, p->pr2->base, tid, 4);
        if (in)
            gen_alu(w, 0x28, 3, in);
        gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, in, p->pr1->base, tid, 4);
        gen_mem_idx(w, 0x48, GPUEST_MEM_STORE, 4, in, p->pr2->base, tid, 4);
    }
    w->finished = 1;
}

/* pagerank1, first fill: start = row[tid]; end = tid + 1 < n ? row[tid + 1] : num_edges. */
static void pr_fill_bounds(pr_t *p, gpuest_warp_t *w, const int64_t *tid, uint32_t in)
{
    const int32_t *row = (const int32_t *)(const void *)p->row->data;
    int64_t idx[32];
    uint32_t notlast = 0;
    for (int k = 0; k < 32; k++) {
        idx[k] = tid[k] + 1;
        w->lane[0][k] = w->lane[1][k] = 0;
        if (in >> k & 1) {
            if (tid[k] + 1 < p->n)
                notlast |= 1u << k;
            w->lane[0][k] = row[tid[k]];
            w->lane[1][k] = pr_end(row, p->n, p->m, tid[k]);
        }
    }
    gen_compute(w, 0x18, GPUEST_LAT_BRANCH, w->live);
    if (!in) {
        w->finished = 1;
        return;
    }
    gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, in, p->row->base, tid, 4);
    gen_compute(w, 0x28, GPUEST_LAT_BRANCH, in);
    gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, notlast, p->row->base, idx, 4);
    w->v[0] = in;
    w->step = 1;
}

/* pagerank1's edge loop: for (edge = start; edge < end; edge++) { nid = col[edge];
 * add_float_atomic(&page_rank2[nid], page_rank1[tid] / (float)(end - start)); }. Each lane walks its
 * own edge list (divergent trip counts). page_rank1[tid] is re-read every iteration: the atomic
 * writes through another global pointer that may alias it. add_float_atomic reads *address, adds,
 * and retries atomic_cmpxchg until no other thread intervened; it is issued as that plain read and
 * one atomic performed at the L2 (the retries under contention are not modelled). */
static void pr_fill_edges(pr_t *p, gpuest_warp_t *w, const int64_t *tid)
{
    const int32_t *col = (const int32_t *)(const void *)p->col->data;
    uint32_t in = (uint32_t)w->v[0];
    for (int it = 0; it < PR_UNROLL; it++) {
        uint32_t run = 0;
        int64_t nid[32];
        for (int k = 0; k < 32; k++) {
            nid[k] = 0;
            if ((in >> k & 1) && w->lane[0][k] < w->lane[1][k]) {
                run |= 1u << k;
                nid[k] = col[w->lane[0][k]];
            }
        }
        gen_compute(w, 0x38, GPUEST_LAT_BRANCH, in);
        if (!run) {
            w->finished = 1;
            return;
        }
        gen_mem_idx(w, 0x40, GPUEST_MEM_LOAD, 4, run, p->col->base, w->lane[0], 4);
        gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 4, run, p->pr1->base, tid, 4);
        gen_alu(w, 0x50, 2, run); /* (float)(end - start), the division */
        gen_mem_idx(w, 0x60, GPUEST_MEM_LOAD, 4, run, p->pr2->base, nid, 4);
        gen_addr_from_load(w, 2); /* page_rank2[nid], nid = col[edge] */
        gen_alu(w, 0x68, 1, run);
        gen_mem_idx(w, 0x70, GPUEST_MEM_ATOMIC, 4, run, p->pr2->base, nid, 4);
        gen_addr_from_load(w, 3);
        gen_compute(w, 0x78, GPUEST_LAT_BRANCH, run); /* readback != oldval */
        for (int k = 0; k < 32; k++)
            if (run >> k & 1)
                w->lane[0][k]++;
    }
}

static gpuest_err pr_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    pr_t *p = ctx;
    int64_t tid[32];
    for (int k = 0; k < 32; k++)
        tid[k] = (int64_t)w->ctaid[0] * PR_THREADS + w->tid0 + k;
    uint32_t in = gen_mask_below(tid, w->live, p->n);
    if (w->step == 0)
        gen_alu(w, 0x00, 3, w->live); /* get_global_id(0) */
    if (p->kind != 1)
        pr_fill_stream(p, w, tid, in);
    else if (w->step == 0)
        pr_fill_bounds(p, w, tid, in);
    else
        pr_fill_edges(p, w, tid);
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_pagerank_ops = {pr_create, pr_destroy, pr_next_launch, pr_end_launch,
                                                  pr_warp_init, pr_fill};
