/* gen_spmv.c: SHOC SpMV CSR scalar kernel (src/cuda/level1/spmv/Spmv.cu spmv_csr_scalar_kernel), one thread per row. */
#include <stdlib.h>

#include "workload_int.h"

#define SPMV_THREADS 128   /* BLOCK_SIZE in SHOC's Spmv.cu */
#define SPMV_PASSES 2      /* y = A x, then x = A y: the second pass reads the first's output */
#define SPMV_ITERS_PER_FILL 8

typedef struct {
    int64_t n, nnz;
    gpuest_alloc_t *val, *cols, *rowd, *vec[2];
    int pass;
} spmv_t;

static gpuest_err spmv_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    spmv_t *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "spmv: out of memory");
    *out = s;
    s->n = gen_pick(scale, 1024, 32768, 262144);
    /* Sparsity of a power-law graph's adjacency (rows of very different
     * lengths) plus the diagonal, values normalised per row so that the
     * iteration stays bounded. */
    gen_graph_t g;
    GPUEST_TRY(gen_graph_powerlaw(rng, s->n, 10.0, &g, err));
    s->nnz = g.m + s->n;
    gpuest_err rc = gpuest_memimg_alloc(img, "d_val", GPUEST_DT_FP32, (uint64_t)s->nnz * 4, &s->val, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_cols", GPUEST_DT_INT32, (uint64_t)s->nnz * 4, &s->cols, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_rowDelimiters", GPUEST_DT_INT32, (uint64_t)(s->n + 1) * 4, &s->rowd, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_vec", GPUEST_DT_FP32, (uint64_t)s->n * 4, &s->vec[0], err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "d_out", GPUEST_DT_FP32, (uint64_t)s->n * 4, &s->vec[1], err);
    if (rc != GPUEST_OK) {
        gen_graph_free(&g);
        return rc;
    }
    int64_t e = 0;
    for (int64_t r = 0; r < s->n; r++) {
        GEN_AT(s->rowd, int32_t, r) = (int32_t)e;
        int64_t len = g.row[r + 1] - g.row[r] + 1;
        for (int64_t k = g.row[r]; k <= g.row[r + 1]; k++, e++) {
            /* the row's neighbours, then the diagonal */
            GEN_AT(s->cols, int32_t, e) = k < g.row[r + 1] ? g.col[k] : (int32_t)r;
            GEN_AT(s->val, float, e) = (float)((0.5 + gpuest_rng_uniform(rng)) / (double)len);
        }
    }
    GEN_AT(s->rowd, int32_t, s->n) = (int32_t)e;
    s->nnz = e;
    for (int64_t r = 0; r < s->n; r++)
        GEN_AT(s->vec[0], float, r) = (float)gpuest_rng_uniform(rng);
    gen_graph_free(&g);
    return GPUEST_OK;
}

static void spmv_destroy(void *ctx) { free(ctx); }

static gpuest_err spmv_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                   gpuest_error_t *err)
{
    (void)img, (void)err;
    spmv_t *s = ctx;
    if (s->pass >= SPMV_PASSES) {
        *done = 1;
        return GPUEST_OK;
    }
    gen_launch(l, "spmv_csr_scalar_kernel", (uint32_t)((s->n + SPMV_THREADS - 1) / SPMV_THREADS), 1, 1,
               SPMV_THREADS, 1, 1, 0, 16);
    return GPUEST_OK;
}

static gpuest_err spmv_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    spmv_t *s = ctx;
    const float *x = (const float *)(const void *)s->vec[s->pass & 1]->data;
    float *y = (float *)(void *)s->vec[1 - (s->pass & 1)]->data;
    for (int64_t r = 0; r < s->n; r++) {
        float t = 0;
        for (int32_t j = GEN_AT(s->rowd, int32_t, r); j < GEN_AT(s->rowd, int32_t, r + 1); j++)
            t += GEN_AT(s->val, float, j) * x[GEN_AT(s->cols, int32_t, j)];
        y[r] = t;
    }
    s->pass++;
    return GPUEST_OK;
}

static void spmv_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img, (void)l;
    spmv_t *s = ctx;
    int64_t row[32];
    for (int k = 0; k < 32; k++)
        row[k] = (int64_t)w->ctaid[0] * SPMV_THREADS + w->tid0 + k;
    w->v[0] = gen_mask_below(row, w->live, s->n);
    for (int k = 0; k < 32; k++) {
        w->lane[2][k] = row[k];
        int in = (int)(w->v[0] >> k & 1);
        w->lane[0][k] = in ? GEN_AT(s->rowd, int32_t, row[k]) : 0;       /* j */
        w->lane[1][k] = in ? GEN_AT(s->rowd, int32_t, row[k] + 1) : 0;   /* end */
    }
}

static gpuest_err spmv_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                            gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    spmv_t *s = ctx;
    uint32_t act = (uint32_t)w->v[0];
    int64_t idx[32];
    const gpuest_alloc_t *x = s->vec[s->pass & 1], *y = s->vec[1 - (s->pass & 1)];
    if (w->step == 0) {
        gen_alu(w, 0x00, 3, w->live);
        gen_compute(w, 0x18, GPUEST_LAT_BRANCH, w->live);
        w->step = 1;
        if (!act) {
            w->finished = 1;
            return GPUEST_OK;
        }
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, act, s->rowd->base, w->lane[2], 4);
        for (int k = 0; k < 32; k++)
            idx[k] = w->lane[2][k] + 1;
        gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, act, s->rowd->base, idx, 4);
        return GPUEST_OK;
    }
    for (int it = 0; it < SPMV_ITERS_PER_FILL; it++) {
        uint32_t run = 0;
        for (int k = 0; k < 32; k++)
            if ((act >> k & 1) && w->lane[0][k] < w->lane[1][k])
                run |= 1u << k;
        gen_compute(w, 0x30, GPUEST_LAT_BRANCH, act);
        if (!run) {
            gen_mem_idx(w, 0x60, GPUEST_MEM_STORE, 4, act, y->base, w->lane[2], 4);   /* out[myRow] = t */
            w->finished = 1;
            return GPUEST_OK;
        }
        gen_mem_idx(w, 0x38, GPUEST_MEM_LOAD, 4, run, s->cols->base, w->lane[0], 4);
        gen_mem_idx(w, 0x40, GPUEST_MEM_LOAD, 4, run, s->val->base, w->lane[0], 4);
        for (int k = 0; k < 32; k++)
            idx[k] = (run >> k & 1) ? GEN_AT(s->cols, int32_t, w->lane[0][k]) : 0;
        gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 4, run, x->base, idx, 4);   /* texReader(col) */
        gen_addr_from_load(w, 2);                                          /* col = cols[j], two loads back */
        gen_alu(w, 0x50, 2, run);
        for (int k = 0; k < 32; k++)
            if (run >> k & 1)
                w->lane[0][k]++;
    }
    return GPUEST_OK;
}

static const gpuest_gen_ops_t spmv_ops_tab = {spmv_create, spmv_destroy, spmv_next_launch, spmv_end_launch,
                                              spmv_warp_init, spmv_fill};

const gpuest_generator_t gpuest_gen_spmv = {"spmv", "SHOC", "SpMV (CSR scalar)", "graph", "fp32",
    "SHOC src/cuda/level1/spmv/Spmv.cu spmv_csr_scalar_kernel", &spmv_ops_tab};
