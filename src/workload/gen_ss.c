/* gen_ss.c: Mars Similarity Score (sample_apps/SimilarityScore: MapperCount, prefix sum, Mapper, bitonic Group sort), pairwise cosine of documents. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

#define SS_THREADS 256       /* dimBlockMap */
#define SS_MAX_BLOCKS 512    /* map grid cap; each thread then maps several records */
#define SS_UNROLL 8          /* float4 loop iterations emitted per fill call */

/* Kernels in launch order: MapperCount, prefix_sum, Mapper, then one
 * bitonic_sort launch per (k, j) stage of the Group phase. */
enum { SS_COUNT = 0, SS_SCAN = 1, SS_MAP = 2, SS_SORT = 3, SS_DONE = 4 };

typedef struct {
    int64_t docs, dim, records;      /* records = docs*(docs-1)/2 pairs */
    uint32_t grid, rpt;              /* map grid and records per thread */
    int64_t sort_n;                  /* records padded to a power of two */
    int64_t k, j;                    /* bitonic stage of the current sort launch */
    int kernel;
    gpuest_alloc_t *offs, *keys, *vals, *matrix;         /* map input */
    gpuest_alloc_t *ksize, *vsize, *count, *psk, *psv, *psc; /* per-thread counts and their prefix sums */
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
    s->records = s->docs * (s->docs - 1) / 2;
    int64_t blocks = (s->records + SS_THREADS - 1) / SS_THREADS;
    s->grid = (uint32_t)(blocks < SS_MAX_BLOCKS ? blocks : SS_MAX_BLOCKS);
    s->rpt = (uint32_t)((s->records + (int64_t)s->grid * SS_THREADS - 1) / ((int64_t)s->grid * SS_THREADS));
    for (s->sort_n = 1; s->sort_n < s->records; s->sort_n *= 2)
        ;
    uint64_t r = (uint64_t)s->records, th = (uint64_t)s->grid * SS_THREADS;
    GPUEST_TRY(ss_alloc(img, "d_inputOffsetSizes", GPUEST_DT_INT32, r * 16, &s->offs, err));
    GPUEST_TRY(ss_alloc(img, "d_inputKeys", GPUEST_DT_INT32, r * 8, &s->keys, err));
    GPUEST_TRY(ss_alloc(img, "d_inputVals", GPUEST_DT_INT32, r * 4, &s->vals, err));
    GPUEST_TRY(ss_alloc(img, "d_matrix", GPUEST_DT_FP32, (uint64_t)(s->docs * s->dim) * 4, &s->matrix, err));
    GPUEST_TRY(ss_alloc(img, "d_interKeysSizePerTask", GPUEST_DT_INT32, th * 4, &s->ksize, err));
    GPUEST_TRY(ss_alloc(img, "d_interValsSizePerTask", GPUEST_DT_INT32, th * 4, &s->vsize, err));
    GPUEST_TRY(ss_alloc(img, "d_interCountPerTask", GPUEST_DT_INT32, th * 4, &s->count, err));
    GPUEST_TRY(ss_alloc(img, "d_psKeySizes", GPUEST_DT_INT32, th * 4, &s->psk, err));
    GPUEST_TRY(ss_alloc(img, "d_psValSizes", GPUEST_DT_INT32, th * 4, &s->psv, err));
    GPUEST_TRY(ss_alloc(img, "d_psCounts", GPUEST_DT_INT32, th * 4, &s->psc, err));
    GPUEST_TRY(ss_alloc(img, "d_interKeys", GPUEST_DT_FP32, (uint64_t)s->sort_n * 4, &s->okeys, err));
    GPUEST_TRY(ss_alloc(img, "d_interVals", GPUEST_DT_INT32, (uint64_t)s->sort_n * 8, &s->ovals, err));
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
    switch (s->kernel) {
    case SS_COUNT:
        gen_launch(l, "MapperCount", s->grid, 1, 1, SS_THREADS, 1, 1, 0, 16);
        break;
    case SS_SCAN:
        gen_launch(l, "prefix_sum", s->grid, 1, 1, SS_THREADS, 1, 1, 0, 10);
        break;
    case SS_MAP:
        gen_launch(l, "Mapper", s->grid, 1, 1, SS_THREADS, 1, 1, 0, 32);
        break;
    case SS_SORT: {
        int64_t n = s->sort_n;
        gen_launch(l, "bitonic_sort", (uint32_t)((n + SS_THREADS - 1) / SS_THREADS), 1, 1,
                   (uint32_t)(n < SS_THREADS ? n : SS_THREADS), 1, 1, 0, 12);
        break;
    }
    default:
        *done = 1;
    }
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

/* Records of thread t: index = bid*rpt*256 + r*256 + tx. */
static int64_t ss_record(const ss_t *s, int64_t t, uint32_t r)
{
    int64_t bid = t / SS_THREADS, tx = t % SS_THREADS;
    return bid * s->rpt * SS_THREADS + (int64_t)r * SS_THREADS + tx;
}

static void ss_run_map(ss_t *s)
{
    int64_t threads = (int64_t)s->grid * SS_THREADS;
    for (int64_t t = 0; t < threads; t++) {
        int32_t off = GEN_AT(s->psc, int32_t, t), n = 0;
        for (uint32_t r = 0; r < s->rpt; r++) {
            int64_t q = ss_record(s, t, r);
            if (q >= s->records)
                continue;
            int64_t o = off + n++;
            GEN_AT(s->okeys, float, o) = ss_score(s, GEN_AT(s->keys, int32_t, 2 * q), GEN_AT(s->keys, int32_t, 2 * q + 1));
            GEN_AT(s->ovals, int32_t, 2 * o) = GEN_AT(s->keys, int32_t, 2 * q);
            GEN_AT(s->ovals, int32_t, 2 * o + 1) = GEN_AT(s->keys, int32_t, 2 * q + 1);
            int32_t *oo = &GEN_AT(s->ooffs, int32_t, 4 * o);
            oo[0] = (int32_t)(4 * o), oo[1] = 4, oo[2] = (int32_t)(8 * o), oo[3] = 8;
        }
    }
    for (int64_t o = s->records; o < s->sort_n; o++) /* padding sorts last */
        GEN_AT(s->okeys, float, o) = FLT_MAX;
}

/* One compare-exchange stage of the bitonic network (ascending scores). */
static void ss_run_sort(ss_t *s)
{
    float *key = (float *)(void *)s->okeys->data;
    int64_t *val = (int64_t *)(void *)s->ovals->data;
    for (int64_t i = 0; i < s->sort_n; i++) {
        int64_t p = i ^ s->j;
        if (p <= i)
            continue;
        int up = (i & s->k) == 0;
        if ((key[i] > key[p]) == up && key[i] != key[p]) {
            float tk = key[i];
            key[i] = key[p], key[p] = tk;
            int64_t tv = val[i];
            val[i] = val[p], val[p] = tv;
        }
    }
}

static gpuest_err ss_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    ss_t *s = ctx;
    int64_t threads = (int64_t)s->grid * SS_THREADS;
    if (s->kernel == SS_COUNT) {
        for (int64_t t = 0; t < threads; t++) {
            int32_t n = 0;
            for (uint32_t r = 0; r < s->rpt; r++)
                n += ss_record(s, t, r) < s->records;
            GEN_AT(s->ksize, int32_t, t) = 4 * n;
            GEN_AT(s->vsize, int32_t, t) = 8 * n;
            GEN_AT(s->count, int32_t, t) = n;
        }
        s->kernel = SS_SCAN;
    } else if (s->kernel == SS_SCAN) { /* exclusive prefix sums */
        int32_t a = 0, b = 0, c = 0;
        for (int64_t t = 0; t < threads; t++) {
            GEN_AT(s->psk, int32_t, t) = a, a += GEN_AT(s->ksize, int32_t, t);
            GEN_AT(s->psv, int32_t, t) = b, b += GEN_AT(s->vsize, int32_t, t);
            GEN_AT(s->psc, int32_t, t) = c, c += GEN_AT(s->count, int32_t, t);
        }
        s->kernel = SS_MAP;
    } else if (s->kernel == SS_MAP) {
        ss_run_map(s);
        s->kernel = s->sort_n > 1 ? SS_SORT : SS_DONE;
        s->k = 2, s->j = 1;
    } else {
        ss_run_sort(s);
        /* for (k = 2; k <= n; k *= 2) for (j = k/2; j > 0; j /= 2) */
        if (s->j > 1) {
            s->j /= 2;
        } else if (s->k < s->sort_n) {
            s->k *= 2;
            s->j = s->k / 2;
        } else {
            s->kernel = SS_DONE;
        }
    }
    return GPUEST_OK;
}

static void ss_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* MapperCount: per record load its offsets/sizes and key; then store the three counts. */
static void ss_fill_count(ss_t *s, gpuest_warp_t *w, const int64_t *t)
{
    int64_t q[32];
    gen_alu(w, 0x00, 4, w->live);
    for (uint32_t r = 0; r < s->rpt; r++) {
        for (int k = 0; k < 32; k++)
            q[k] = ss_record(s, t[k], r);
        uint32_t m = gen_mask_below(q, w->live, s->records);
        gen_compute(w, 0x10, GPUEST_LAT_BRANCH, w->live);
        gen_mem_idx(w, 0x18, GPUEST_MEM_LOAD, 16, m, s->offs->base, q, 16);
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 8, m, s->keys->base, q, 8);
        if (m)
            gen_alu(w, 0x28, 2, m);
    }
    gen_mem_idx(w, 0x30, GPUEST_MEM_STORE, 4, w->live, s->ksize->base, t, 4);
    gen_mem_idx(w, 0x38, GPUEST_MEM_STORE, 4, w->live, s->vsize->base, t, 4);
    gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, w->live, s->count->base, t, 4);
    w->finished = 1;
}

/* prefix_sum: each thread reads its three counts and writes its three offsets
 * (the data movement of Mars's scan, without the scan's internal passes). */
static void ss_fill_scan(ss_t *s, gpuest_warp_t *w, const int64_t *t)
{
    gen_alu(w, 0x100, 2, w->live);
    gen_mem_idx(w, 0x108, GPUEST_MEM_LOAD, 4, w->live, s->ksize->base, t, 4);
    gen_mem_idx(w, 0x110, GPUEST_MEM_LOAD, 4, w->live, s->vsize->base, t, 4);
    gen_mem_idx(w, 0x118, GPUEST_MEM_LOAD, 4, w->live, s->count->base, t, 4);
    gen_alu(w, 0x120, 6, w->live);
    gen_mem_idx(w, 0x138, GPUEST_MEM_STORE, 4, w->live, s->psk->base, t, 4);
    gen_mem_idx(w, 0x140, GPUEST_MEM_STORE, 4, w->live, s->psv->base, t, 4);
    gen_mem_idx(w, 0x148, GPUEST_MEM_STORE, 4, w->live, s->psc->base, t, 4);
    w->finished = 1;
}

/* Mapper. v[0] = record round r, v[1] = phase (0 header, 1 float4 loop, 2 emit), v[2] = loop index. */
static void ss_fill_map(ss_t *s, gpuest_warp_t *w, const int64_t *t)
{
    int64_t q[32], a[32], b[32];
    uint32_t r = (uint32_t)w->v[0];
    for (int k = 0; k < 32; k++)
        q[k] = ss_record(s, t[k], r);
    uint32_t m = gen_mask_below(q, w->live, s->records);
    if (w->v[1] == 0) {
        gen_compute(w, 0x200, GPUEST_LAT_BRANCH, w->live);
        if (!m) {
            w->finished = 1;
            return;
        }
        gen_mem_idx(w, 0x208, GPUEST_MEM_LOAD, 4, m, s->psc->base, t, 4);
        gen_mem_idx(w, 0x210, GPUEST_MEM_LOAD, 16, m, s->offs->base, q, 16);
        gen_mem_idx(w, 0x218, GPUEST_MEM_LOAD, 8, m, s->keys->base, q, 8);
        gen_mem_idx(w, 0x220, GPUEST_MEM_LOAD, 4, m, s->vals->base, q, 4);
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
    for (int k = 0; k < 32; k++) {
        o[k] = 0;
        if (m >> k & 1) { /* this thread's r-th emitted record */
            int64_t n = 0;
            for (uint32_t rr = 0; rr < r; rr++)
                n += ss_record(s, t[k], rr) < s->records;
            o[k] = GEN_AT(s->psc, int32_t, t[k]) + n;
        }
    }
    gen_mem_idx(w, 0x270, GPUEST_MEM_STORE, 4, m, s->okeys->base, o, 4);
    gen_mem_idx(w, 0x278, GPUEST_MEM_STORE, 8, m, s->ovals->base, o, 8);
    gen_mem_idx(w, 0x280, GPUEST_MEM_STORE, 16, m, s->ooffs->base, o, 16);
    w->v[0]++;
    w->v[1] = 0;
    if (w->v[0] >= s->rpt)
        w->finished = 1;
}

/* bitonic_sort: thread i compares key[i] with key[i^j] when i^j > i and swaps
 * key and value pairs that are out of order for this k. */
static void ss_fill_sort(ss_t *s, gpuest_warp_t *w, const gpuest_launch_t *l)
{
    const float *key = (const float *)(const void *)s->okeys->data;
    int64_t i[32], p[32];
    uint32_t lo = 0, sw = 0;
    for (int k = 0; k < 32; k++) {
        i[k] = (int64_t)w->ctaid[0] * l->block[0] + w->tid0 + k;
        p[k] = i[k] ^ s->j;
        if ((w->live >> k & 1) && i[k] < s->sort_n && p[k] > i[k]) {
            lo |= 1u << k;
            int up = (i[k] & s->k) == 0;
            if ((key[i[k]] > key[p[k]]) == up && key[i[k]] != key[p[k]])
                sw |= 1u << k;
        }
    }
    gen_alu(w, 0x300, 3, w->live);
    gen_compute(w, 0x30c, GPUEST_LAT_BRANCH, w->live);
    gen_mem_idx(w, 0x310, GPUEST_MEM_LOAD, 4, lo, s->okeys->base, i, 4);
    gen_mem_idx(w, 0x318, GPUEST_MEM_LOAD, 4, lo, s->okeys->base, p, 4);
    if (lo)
        gen_compute(w, 0x320, GPUEST_LAT_BRANCH, lo);
    gen_mem_idx(w, 0x328, GPUEST_MEM_LOAD, 8, sw, s->ovals->base, i, 8);
    gen_mem_idx(w, 0x330, GPUEST_MEM_LOAD, 8, sw, s->ovals->base, p, 8);
    gen_mem_idx(w, 0x338, GPUEST_MEM_STORE, 4, sw, s->okeys->base, i, 4);
    gen_mem_idx(w, 0x340, GPUEST_MEM_STORE, 4, sw, s->okeys->base, p, 4);
    gen_mem_idx(w, 0x348, GPUEST_MEM_STORE, 8, sw, s->ovals->base, i, 8);
    gen_mem_idx(w, 0x350, GPUEST_MEM_STORE, 8, sw, s->ovals->base, p, 8);
    w->finished = 1;
}

static gpuest_err ss_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    ss_t *s = ctx;
    int64_t t[32];
    for (int k = 0; k < 32; k++)
        t[k] = (int64_t)w->ctaid[0] * SS_THREADS + w->tid0 + k;
    if (s->kernel == SS_COUNT)
        ss_fill_count(s, w, t);
    else if (s->kernel == SS_SCAN)
        ss_fill_scan(s, w, t);
    else if (s->kernel == SS_MAP)
        ss_fill_map(s, w, t);
    else
        ss_fill_sort(s, w, l);
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_ss_ops = {ss_create, ss_destroy, ss_next_launch, ss_end_launch, ss_warp_init,
                                            ss_fill};
