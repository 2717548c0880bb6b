/* gen_ss.c: Mars Similarity Score (sample_apps/SimilarityScore: MapperCount, prefix sum, Mapper, bitonic Group sort), pairwise cosine of documents. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mars_int.h"

#define SS_UNROLL 8          /* float4 loop iterations emitted per fill call */

/* Kernels in launch order: MapperCount, prefix_sum, Mapper, then one
 * bitonic_sort launch per (k, j) stage of the Group phase. */
enum { SS_DONE = MARS_SORT + 1 };

typedef struct {
    int64_t docs, dim;
    mars_geom_t g;                   /* records (g.nrec) = docs*(docs-1)/2 pairs */
    mars_sort_t sort;                /* bitonic stage of the current sort launch */
    int kernel;                      /* MARS_COUNT .. MARS_SORT, SS_DONE */
    gpuest_alloc_t *offs, *keys, *vals, *matrix;         /* map input */
    mars_counts_t c;                 /* per-thread counts and their prefix sums */
    gpuest_alloc_t *okeys, *ovals, *ooffs;               /* intermediate output */
} ss_t;

const gpuest_gen_ops_t gpuest_gen_ss_ops;
const gpuest_generator_t gpuest_gen_ss = {
    "ss", "Mars", "Similarity Score", "mapreduce", "fp32",
    "Mars sample_apps/SimilarityScore map.cu through MarsLib Mapper/MapperCount, then the bitonic Group sort",
    &gpuest_gen_ss_ops};

/* Documents: non-negative term weights, most terms absent, frequent terms
 * drawn with a Zipf-like preference for low term ids (as word counts are). */
static void ss_documents(ss_t *s, gpuest_rng_t *rng)
{
    float *m = (float *)(void *)s->matrix->data;
    for (int64_t d = 0; d < s->docs; d++) {
        int64_t terms = s->dim / 4 + (int64_t)gpuest_rng_below(rng, (uint64_t)s->dim / 4 + 1);
        for (int64_t t = 0; t < terms; t++) {
            double u = gpuest_rng_uniform_pos(rng);
            int64_t f = (int64_t)((double)s->dim * pow(u, 2.0)); /* denser at low ids */
            if (f >= s->dim)
                f = s->dim - 1;
            m[d * s->dim + f] += (float)(1.0 + floor(-log(gpuest_rng_uniform_pos(rng)) * 3.0));
        }
    }
}

static gpuest_err ss_alloc(gpuest_memimg_t *img, const char *name, gpuest_dtype_t t, uint64_t bytes,
                           gpuest_alloc_t **out, gpuest_error_t *err)
{
    return gpuest_memimg_alloc(img, name, t, bytes ? bytes : 4, out, err);
}

static gpuest_err ss_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    ss_t *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "ss: out of memory");
    *out = s;
    s->docs = gen_pick(scale, 16, 128, 1024);
    s->dim = gen_pick(scale, 16, 64, 256);
    mars_geometry(&s->g, s->docs * (s->docs - 1) / 2);
    uint64_t r = (uint64_t)s->g.nrec;
    static const char *const count_names[3] = {"d_interKeysSizePerTask", "d_interValsSizePerTask",
                                               "d_interCountPerTask"};
    GPUEST_TRY(ss_alloc(img, "d_inputOffsetSizes", GPUEST_DT_INT32, r * 16, &s->offs, err));
    GPUEST_TRY(ss_alloc(img, "d_inputKeys", GPUEST_DT_INT32, r * 8, &s->keys, err));
    GPUEST_TRY(ss_alloc(img, "d_inputVals", GPUEST_DT_INT32, r * 4, &s->vals, err));
    GPUEST_TRY(ss_alloc(img, "d_matrix", GPUEST_DT_FP32, (uint64_t)(s->docs * s->dim) * 4, &s->matrix, err));
    GPUEST_TRY(mars_alloc_counts(img, &s->g, count_names, &s->c, err));
    GPUEST_TRY(ss_alloc(img, "d_interKeys", GPUEST_DT_FP32, (uint64_t)s->g.sort_n * 4, &s->okeys, err));
    GPUEST_TRY(ss_alloc(img, "d_interVals", GPUEST_DT_INT32, (uint64_t)s->g.sort_n * 8, &s->ovals, err));
    GPUEST_TRY(ss_alloc(img, "d_interOffsetSizes", GPUEST_DT_INT32, r * 16, &s->ooffs, err));
    ss_documents(s, rng);
    int64_t q = 0;
    for (int32_t a = 0; a < s->docs; a++)
        for (int32_t b = a + 1; b < s->docs; b++, q++) {
            int32_t *o = &GEN_AT(s->offs, int32_t, 4 * q);
            o[0] = (int32_t)(8 * q), o[1] = 8, o[2] = (int32_t)(4 * q), o[3] = 4;
            GEN_AT(s->keys, int32_t, 2 * q) = a;
            GEN_AT(s->keys, int32_t, 2 * q + 1) = b;
            GEN_AT(s->vals, int32_t, q) = (int32_t)s->dim;
        }
    return GPUEST_OK;
}

static void ss_destroy(void *ctx) { free(ctx); }

static gpuest_err ss_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    ss_t *s = ctx;
    if (s->kernel == SS_DONE)
        *done = 1;
    else
        mars_launch(l, s->kernel, &s->g, 32);
    return GPUEST_OK;
}

/* Cosine similarity of two documents, as the map function computes it. */
static float ss_score(const ss_t *s, int64_t a, int64_t b)
{
    const float *m = (const float *)(const void *)s->matrix->data;
    float dot = 0, na = 0, nb = 0;
    for (int64_t i = 0; i < s->dim; i++) {
        float x = m[a * s->dim + i], y = m[b * s->dim + i];
        dot += x * y, na += x * x, nb += y * y;
    }
    return na > 0 && nb > 0 ? dot / (sqrtf(na) * sqrtf(nb)) : 0.0f;
}

static void ss_run_map(ss_t *s)
{
    for (int64_t t = 0; t < mars_threads(&s->g); t++) {
        int32_t off = GEN_AT(s->c.psc, int32_t, t), n = 0;
        for (uint32_t r = 0; r < s->g.rpt; r++) {
            int64_t q = mars_record(&s->g, t, r);
            if (q >= s->g.nrec)
                continue;
            int64_t o = off + n++;
            GEN_AT(s->okeys, float, o) = ss_score(s, GEN_AT(s->keys, int32_t, 2 * q), GEN_AT(s->keys, int32_t, 2 * q + 1));
            GEN_AT(s->ovals, int32_t, 2 * o) = GEN_AT(s->keys, int32_t, 2 * q);
            GEN_AT(s->ovals, int32_t, 2 * o + 1) = GEN_AT(s->keys, int32_t, 2 * q + 1);
            int32_t *oo = &GEN_AT(s->ooffs, int32_t, 4 * o);
            oo[0] = (int32_t)(4 * o), oo[1] = 4, oo[2] = (int32_t)(8 * o), oo[3] = 8;
        }
    }
    for (int64_t o = s->g.nrec; o < s->g.sort_n; o++) /* padding sorts last */
        GEN_AT(s->okeys, float, o) = FLT_MAX;
}

/* Bitonic order of the scores (ascending); values are (doc1, doc2) pairs of 8 bytes. */
static int ss_out_of_order(const void *keys, int64_t i, int64_t p, int up)
{
    const float *key = keys;
    return (key[i] > key[p]) == up && key[i] != key[p];
}

static gpuest_err ss_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    ss_t *s = ctx;
    if (s->kernel == MARS_COUNT) {
        mars_end_count(&s->g, &s->c, 4, 8);
        s->kernel = MARS_SCAN;
    } else if (s->kernel == MARS_SCAN) {
        mars_end_scan(&s->g, &s->c);
        s->kernel = MARS_MAP;
    } else if (s->kernel == MARS_MAP) {
        ss_run_map(s);
        s->kernel = s->g.sort_n > 1 ? MARS_SORT : SS_DONE;
        mars_sort_start(&s->sort);
    } else {
        mars_run_sort(&s->sort, s->g.sort_n, s->okeys, s->ovals, 8, ss_out_of_order);
        if (mars_sort_advance(&s->sort, s->g.sort_n))
            s->kernel = SS_DONE;
    }
    return GPUEST_OK;
}

static void ss_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* Mapper. v[0] = record round r, v[1] = phase (0 header, 1 float4 loop, 2 emit), v[2] = loop index. */
static void ss_fill_map(ss_t *s, gpuest_warp_t *w, const int64_t *t)
{
    int64_t q[32], a[32], b[32];
    uint32_t r = (uint32_t)w->v[0];
    uint32_t m = mars_map_round(&s->g, t, r, w->live, q);
    if (w->v[1] == 0) { /* the record's offsets/sizes, key (doc pair) and value (dim) */
        const mars_input_t in[3] = {{s->offs, 16}, {s->keys, 8}, {s->vals, 4}};
        if (!mars_map_header(&s->c, in, 3, m, w, t, q))
            return;
        w->v[1] = 1, w->v[2] = 0;
        return;
    }
    if (w->v[1] == 1) { /* for (i < dim/4): float4 a = doc1[i], b = doc2[i] */
        for (int it = 0; it < SS_UNROLL && w->v[2] < s->dim / 4; it++, w->v[2]++) {
            for (int k = 0; k < 32; k++) {
                int64_t d1 = (m >> k & 1) ? GEN_AT(s->keys, int32_t, 2 * q[k]) : 0;
                int64_t d2 = (m >> k & 1) ? GEN_AT(s->keys, int32_t, 2 * q[k] + 1) : 0;
                a[k] = d1 * (s->dim / 4) + w->v[2];
                b[k] = d2 * (s->dim / 4) + w->v[2];
            }
            gen_mem_idx(w, 0x230, GPUEST_MEM_LOAD, 16, m, s->matrix->base, a, 16);
            gen_mem_idx(w, 0x238, GPUEST_MEM_LOAD, 16, m, s->matrix->base, b, 16);
            gen_alu(w, 0x240, 3, m);
        }
        if (w->v[2] >= s->dim / 4)
            w->v[1] = 2;
        return;
    }
    /* score = dot / (sqrt(na) * sqrt(nb)); emit <score, (doc1, doc2)> at the thread's offset */
    gen_compute(w, 0x260, GPUEST_LAT_SFU, m);
    gen_compute(w, 0x264, GPUEST_LAT_SFU, m);
    gen_compute(w, 0x268, GPUEST_LAT_SFU, m);
    int64_t o[32];
    for (int k = 0; k < 32; k++) /* this thread's r-th emitted record */
        o[k] = (m >> k & 1) ? mars_emit_slot(&s->g, &s->c, t[k], r) : 0;
    gen_mem_idx(w, 0x270, GPUEST_MEM_STORE, 4, m, s->okeys->base, o, 4);
    gen_mem_idx(w, 0x278, GPUEST_MEM_STORE, 8, m, s->ovals->base, o, 8);
    gen_mem_idx(w, 0x280, GPUEST_MEM_STORE, 16, m, s->ooffs->base, o, 16);
    mars_map_next_round(&s->g, w);
}

static gpuest_err ss_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    ss_t *s = ctx;
    int64_t t[32];
    for (int k = 0; k < 32; k++)
        t[k] = (int64_t)w->ctaid[0] * MARS_THREADS + w->tid0 + k;
    if (s->kernel == MARS_COUNT) {
        const mars_input_t in[2] = {{s->offs, 16}, {s->keys, 8}}; /* offsets/sizes and key */
        mars_fill_count(&s->g, &s->c, in, 2, w, t);
    } else if (s->kernel == MARS_SCAN) {
        mars_fill_scan(&s->c, w, t);
    } else if (s->kernel == MARS_MAP) {
        ss_fill_map(s, w, t);
    } else {
        mars_fill_sort(&s->sort, s->g.sort_n, s->okeys, s->ovals, 8, ss_out_of_order, w, l);
    }
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_ss_ops = {ss_create, ss_destroy, ss_next_launch, ss_end_launch, ss_warp_init,
                                            ss_fill};
