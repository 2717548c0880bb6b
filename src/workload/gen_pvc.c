/* gen_pvc.c: Mars Page View Count (sample_apps/PageViewCount): two MapReduce passes over a web log (dedupe entries, count views per URL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mars_int.h"

#define PVC_BYTES_PER_FILL 12 /* byte-loop iterations emitted per fill call */
#define PVC_LINE_MAX 96

/* Launch order per pass: MapperCount, prefix_sum, Mapper, bitonic_sort
 * stages (Group), Reducer. Pass 1 maps whole entries (hash of URL+IP+cookie)
 * and reduces each group to one entry; pass 2 maps the unique entries to their
 * URL and reduces each URL group to its view count. */
enum { PV_REDUCE = MARS_SORT + 1 };

typedef struct {
    mars_geom_t g;                /* over the input records of the pass */
    gpuest_alloc_t *in;           /* int4 {offset, length, 0, 0} per record */
    gpuest_alloc_t *keys, *vals;  /* intermediate <hash, value>, sorted in place */
    int64_t groups;               /* distinct keys after the pass */
} pv_pass_t;

typedef struct {
    int64_t entries, urls;
    gpuest_alloc_t *log;                           /* the web log text */
    mars_counts_t c;                               /* per-thread counts, prefix sums */
    gpuest_alloc_t *uniq;                          /* pass-1 output: int4 per unique entry (pass-2 input) */
    gpuest_alloc_t *okeys, *ovals;                 /* pass-2 output: URL hash, views */
    pv_pass_t pass[2];
    int p, stage;                                  /* current pass and kernel (MARS_COUNT .. PV_REDUCE) */
    mars_sort_t sort;                              /* bitonic stage */
    int64_t *gidx;                                 /* group number of each sorted slot (leaders) */
    int finished;
} pv_t;

const gpuest_gen_ops_t gpuest_gen_pvc_ops;
const gpuest_generator_t gpuest_gen_pvc = {
    "pvc", "Mars", "Page View Count", "mapreduce", "bytes",
    "Mars sample_apps/PageViewCount map.cu/reduce.cu through MarsLib Mapper/Reducer, two passes with Group sorts",
    &gpuest_gen_pvc_ops};

/* ---------------------------------------------------------------- input */

/* Zipf(1) draw over 1..n by inversion of the harmonic partial sums. */
static int64_t pv_zipf(gpuest_rng_t *rng, const double *cum, int64_t n)
{
    double u = gpuest_rng_uniform(rng) * cum[n - 1];
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (cum[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Web log lines "URL IP COOKIE": URLs Zipf-distributed over a site's pages,
 * visitors from a pool (IP + cookie), and about a quarter of the entries
 * repeating an earlier view (reloads), which pass 1 removes. */
static gpuest_err pv_make_log(pv_t *v, gpuest_memimg_t *img, gpuest_rng_t *rng, gpuest_error_t *err)
{
    double *cum = malloc((size_t)v->urls * sizeof *cum);
    char *text = malloc((size_t)v->entries * PVC_LINE_MAX);
    int64_t *off = malloc((size_t)v->entries * sizeof *off), *len = malloc((size_t)v->entries * sizeof *len);
    if (!cum || !text || !off || !len) {
        free(cum), free(text), free(off), free(len);
        return gpuest_fail(err, GPUEST_ENOMEM, "pvc: out of memory");
    }
    double c = 0;
    for (int64_t i = 0; i < v->urls; i++)
        cum[i] = c += 1.0 / (double)(i + 1);
    int64_t users = v->entries / 4 + 1, pos = 0;
    static const char *const dirs[] = {"news", "sport", "shop", "blog", "img", "video", "help", "forum"};
    for (int64_t e = 0; e < v->entries; e++) {
        int n;
        if (e > 0 && gpuest_rng_uniform(rng) < 0.25) { /* repeat an earlier entry */
            int64_t src = (int64_t)gpuest_rng_below(rng, (uint64_t)e);
            memmove(text + pos, text + off[src], (size_t)len[src] + 1);
            n = (int)len[src];
        } else {
            int64_t u = pv_zipf(rng, cum, v->urls), who = (int64_t)gpuest_rng_below(rng, (uint64_t)users);
            uint32_t h = (uint32_t)(who * 2654435761u);
            n = snprintf(text + pos, PVC_LINE_MAX, "http://www.site%d.com/%s/page%lld.html 10.%d.%d.%d %08x",
                         (int)(u % 7), dirs[u % 8], (long long)u, (int)(h >> 24), (int)(h >> 16 & 255),
                         (int)(h >> 8 & 255), (unsigned)(h ^ 0x5bd1e995u));
            if (n < 0 || n >= PVC_LINE_MAX)
                n = PVC_LINE_MAX - 1;
            text[pos + n] = '\n';
        }
        off[e] = pos, len[e] = n;
        pos += n + 1;
    }
    gpuest_err rc = gpuest_memimg_alloc(img, "d_log", GPUEST_DT_BYTES, (uint64_t)pos, &v->log, err);
    if (rc == GPUEST_OK) {
        memcpy(v->log->data, text, (size_t)pos);
        for (int64_t e = 0; e < v->entries; e++) {
            int32_t *r = &GEN_AT(v->pass[0].in, int32_t, 4 * e);
            r[0] = (int32_t)off[e], r[1] = (int32_t)len[e], r[2] = 0, r[3] = 0;
        }
    }
    free(cum), free(text), free(off), free(len);
    return rc;
}

static gpuest_err pv_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    pv_t *v = calloc(1, sizeof *v);
    if (!v)
        return gpuest_fail(err, GPUEST_ENOMEM, "pvc: out of memory");
    *out = v;
    v->entries = gen_pick(scale, 64, 4096, 524288);
    v->urls = gen_pick(scale, 16, 512, 20000);
    pv_pass_t *p0 = &v->pass[0], *p1 = &v->pass[1];
    mars_geometry(&p0->g, v->entries);
    uint64_t sn = (uint64_t)p0->g.sort_n, ne = (uint64_t)v->entries;
    static const char *const count_names[3] = {"d_interCountsKeys", "d_interCountsVals", "d_interCounts"};
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_inputOffsetSizes", GPUEST_DT_INT32, ne * 16, &p0->in, err));
    GPUEST_TRY(mars_alloc_counts(img, &p0->g, count_names, &v->c, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_interKeys1", GPUEST_DT_UINT32, sn * 4, &p0->keys, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_interVals1", GPUEST_DT_INT32, sn * 4, &p0->vals, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_uniqueOffsetSizes", GPUEST_DT_INT32, ne * 16, &v->uniq, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_interKeys2", GPUEST_DT_UINT32, sn * 4, &p1->keys, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_interVals2", GPUEST_DT_INT32, sn * 4, &p1->vals, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_outputKeys", GPUEST_DT_UINT32, ne * 4, &v->okeys, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_outputVals", GPUEST_DT_INT32, ne * 4, &v->ovals, err));
    p1->in = v->uniq;
    v->gidx = malloc(sn * sizeof *v->gidx);
    if (!v->gidx)
        return gpuest_fail(err, GPUEST_ENOMEM, "pvc: out of memory");
    return pv_make_log(v, img, rng, err);
}

static void pv_destroy(void *ctx)
{
    pv_t *v = ctx;
    if (v)
        free(v->gidx);
    free(v);
}

/* ---------------------------------------------------------------- functional model */

/* FNV-1a over the record's bytes: the whole entry (pass 0) or the URL up to the first space (pass 1). */
static uint32_t pv_hash(const pv_t *v, int p, int64_t off, int64_t len, int64_t *used)
{
    uint32_t h = 2166136261u;
    int64_t i = 0;
    for (; i < len; i++) {
        unsigned char ch = v->log->data[off + i];
        if (p == 1 && ch == ' ')
            break;
        h = (h ^ ch) * 16777619u;
    }
    if (used)
        *used = i;
    return h;
}

static void pv_run_map(pv_t *v, pv_pass_t *ps)
{
    uint32_t *key = (uint32_t *)(void *)ps->keys->data;
    int32_t *val = (int32_t *)(void *)ps->vals->data;
    for (int64_t t = 0; t < mars_threads(&ps->g); t++) {
        int64_t o = GEN_AT(v->c.psc, int32_t, t);
        for (uint32_t r = 0; r < ps->g.rpt; r++) {
            int64_t q = mars_record(&ps->g, t, r);
            if (q >= ps->g.nrec)
                continue;
            const int32_t *rec = &GEN_AT(ps->in, int32_t, 4 * q);
            key[o] = pv_hash(v, v->p, rec[0], rec[1], NULL);
            val[o] = v->p == 0 ? (int32_t)q : 1;
            o++;
        }
    }
    for (int64_t o = ps->g.nrec; o < ps->g.sort_n; o++)
        key[o] = UINT32_MAX, val[o] = 0;
}

/* Bitonic order of the URL / entry hashes; values are 4-byte record numbers or counts. */
static int pv_out_of_order(const void *keys, int64_t i, int64_t p, int up)
{
    const uint32_t *key = keys;
    return key[i] != key[p] && (key[i] > key[p]) == up;
}

/* Group leaders (first slot of each key) and their group numbers. */
static void pv_groups(pv_t *v, pv_pass_t *ps)
{
    const uint32_t *key = (const uint32_t *)(const void *)ps->keys->data;
    int64_t g = 0;
    for (int64_t i = 0; i < ps->g.nrec; i++) {
        v->gidx[i] = (i == 0 || key[i] != key[i - 1]) ? g++ : -1;
    }
    ps->groups = g;
}

static void pv_run_reduce(pv_t *v, pv_pass_t *ps)
{
    const uint32_t *key = (const uint32_t *)(const void *)ps->keys->data;
    const int32_t *val = (const int32_t *)(const void *)ps->vals->data;
    for (int64_t i = 0; i < ps->g.nrec; i++) {
        int64_t g = v->gidx[i];
        if (g < 0)
            continue;
        if (v->p == 0) { /* keep one entry of the group */
            const int32_t *src = &GEN_AT(ps->in, int32_t, 4 * val[i]);
            memcpy(&GEN_AT(v->uniq, int32_t, 4 * g), src, 16);
        } else { /* views of the URL */
            int32_t n = 0;
            for (int64_t j = i; j < ps->g.nrec && key[j] == key[i]; j++)
                n += val[j];
            GEN_AT(v->okeys, uint32_t, g) = key[i];
            GEN_AT(v->ovals, int32_t, g) = n;
        }
    }
}

/* ---------------------------------------------------------------- launches */

static gpuest_err pv_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    pv_t *v = ctx;
    if (v->finished) {
        *done = 1;
        return GPUEST_OK;
    }
    pv_pass_t *ps = &v->pass[v->p];
    uint32_t red_blocks = (uint32_t)((ps->g.nrec + MARS_THREADS - 1) / MARS_THREADS);
    if (v->stage == PV_REDUCE)
        gen_launch(l, "Reducer", red_blocks ? red_blocks : 1, 1, 1, MARS_THREADS, 1, 1, 0, 16);
    else
        mars_launch(l, v->stage, &ps->g, 24);
    return GPUEST_OK;
}

static gpuest_err pv_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    pv_t *v = ctx;
    pv_pass_t *ps = &v->pass[v->p];
    if (v->stage == MARS_COUNT) {
        mars_end_count(&ps->g, &v->c, 4, 4);
        v->stage = MARS_SCAN;
    } else if (v->stage == MARS_SCAN) {
        mars_end_scan(&ps->g, &v->c);
        v->stage = MARS_MAP;
    } else if (v->stage == MARS_MAP) {
        pv_run_map(v, ps);
        mars_sort_start(&v->sort);
        v->stage = ps->g.sort_n > 1 ? MARS_SORT : PV_REDUCE;
        if (v->stage == PV_REDUCE)
            pv_groups(v, ps);
    } else if (v->stage == MARS_SORT) {
        mars_run_sort(&v->sort, ps->g.sort_n, ps->keys, ps->vals, 4, pv_out_of_order);
        if (mars_sort_advance(&v->sort, ps->g.sort_n)) {
            v->stage = PV_REDUCE;
            pv_groups(v, ps);
        }
    } else {
        pv_run_reduce(v, ps);
        if (v->p == 0) {
            v->p = 1;
            v->stage = MARS_COUNT;
            mars_geometry(&v->pass[1].g, ps->groups);
        } else {
            v->finished = 1;
        }
    }
    return GPUEST_OK;
}

static void pv_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* ---------------------------------------------------------------- warp streams */

/* Mapper. v[0] = record round, v[1] = phase (0 header, 1 byte loop, 2 emit),
 * lane[0] = next byte address, lane[1] = bytes left to hash per lane. */
static void pv_fill_map(pv_t *v, pv_pass_t *ps, gpuest_warp_t *w, const int64_t *t)
{
    int64_t q[32];
    uint32_t r = (uint32_t)w->v[0];
    uint32_t m = mars_map_round(&ps->g, t, r, w->live, q);
    if (w->v[1] == 0) {
        const mars_input_t in = {ps->in, 16}; /* the record's int4 offset/size */
        if (!mars_map_header(&v->c, &in, 1, m, w, t, q))
            return;
        for (int k = 0; k < 32; k++) {
            w->lane[0][k] = w->lane[1][k] = 0;
            if (m >> k & 1) {
                const int32_t *rec = &GEN_AT(ps->in, int32_t, 4 * q[k]);
                int64_t used;
                pv_hash(v, v->p, rec[0], rec[1], &used);
                w->lane[0][k] = rec[0];
                /* pass 2 also reads the space that stops the URL scan */
                w->lane[1][k] = v->p == 1 && used < rec[1] ? used + 1 : used;
            }
        }
        w->v[1] = 1;
        return;
    }
    if (w->v[1] == 1) { /* while (byte) h = (h ^ byte) * prime: one byte per lane per step */
        for (int it = 0; it < PVC_BYTES_PER_FILL; it++) {
            uint32_t run = 0;
            for (int k = 0; k < 32; k++)
                if ((m >> k & 1) && w->lane[1][k] > 0)
                    run |= 1u << k;
            gen_compute(w, 0x220, GPUEST_LAT_BRANCH, m);
            if (!run) {
                w->v[1] = 2;
                return;
            }
            gen_mem_idx(w, 0x228, GPUEST_MEM_LOAD, 1, run, v->log->base, w->lane[0], 1);
            gen_alu(w, 0x230, 2, run);
            for (int k = 0; k < 32; k++)
                if (run >> k & 1)
                    w->lane[0][k]++, w->lane[1][k]--;
        }
        return;
    }
    /* emit <hash, value> at the thread's output slot */
    int64_t o[32];
    for (int k = 0; k < 32; k++)
        o[k] = (m >> k & 1) ? mars_emit_slot(&ps->g, &v->c, t[k], r) : 0;
    gen_mem_idx(w, 0x240, GPUEST_MEM_STORE, 4, m, ps->keys->base, o, 4);
    gen_mem_idx(w, 0x248, GPUEST_MEM_STORE, 4, m, ps->vals->base, o, 4);
    mars_map_next_round(&ps->g, w);
}

/* Reducer: thread per sorted slot; a slot whose key differs from its left
 * neighbour leads a group. Pass 1 leaders copy their entry's record; pass 2
 * leaders walk their group summing the views (lane[0] = slot, lane[1] = sum). */
static void pv_fill_reduce(pv_t *v, pv_pass_t *ps, gpuest_warp_t *w, const int64_t *t)
{
    const uint32_t *key = (const uint32_t *)(const void *)ps->keys->data;
    const int32_t *val = (const int32_t *)(const void *)ps->vals->data;
    uint32_t in = gen_mask_below(t, w->live, ps->g.nrec), lead = 0;
    for (int k = 0; k < 32; k++)
        if ((in >> k & 1) && v->gidx[t[k]] >= 0)
            lead |= 1u << k;
    int64_t a[32], g[32];
    if (w->step == 0) {
        uint32_t left = 0;
        for (int k = 0; k < 32; k++) {
            a[k] = t[k] - 1;
            if ((in >> k & 1) && t[k] > 0)
                left |= 1u << k;
        }
        gen_alu(w, 0x400, 2, w->live);
        gen_mem_idx(w, 0x408, GPUEST_MEM_LOAD, 4, in, ps->keys->base, t, 4);
        gen_mem_idx(w, 0x410, GPUEST_MEM_LOAD, 4, left, ps->keys->base, a, 4);
        gen_compute(w, 0x418, GPUEST_LAT_BRANCH, in);
        if (!lead) {
            w->finished = 1;
            return;
        }
        for (int k = 0; k < 32; k++) {
            w->lane[0][k] = t[k];
            g[k] = (lead >> k & 1) ? v->gidx[t[k]] : 0;
            a[k] = (lead >> k & 1) ? val[t[k]] : 0;
        }
        gen_mem_idx(w, 0x420, GPUEST_MEM_LOAD, 4, lead, ps->vals->base, t, 4);
        if (v->p == 0) { /* copy the entry's int4 record to its unique slot */
            gen_mem_idx(w, 0x428, GPUEST_MEM_LOAD, 16, lead, ps->in->base, a, 16);
            gen_mem_idx(w, 0x430, GPUEST_MEM_STORE, 16, lead, v->uniq->base, g, 16);
            w->finished = 1;
            return;
        }
        w->step = 1;
        return;
    }
    /* pass 2: for (j = i + 1; j < n && key[j] == key[i]; j++) views += val[j] */
    for (int it = 0; it < 8; it++) {
        uint32_t run = 0;
        for (int k = 0; k < 32; k++) {
            a[k] = w->lane[0][k] + 1;
            if ((lead >> k & 1) && a[k] < ps->g.nrec && w->lane[1][k] == 0)
                run |= 1u << k;
        }
        gen_compute(w, 0x440, GPUEST_LAT_BRANCH, lead);
        if (!run) {
            for (int k = 0; k < 32; k++)
                g[k] = (lead >> k & 1) ? v->gidx[t[k]] : 0;
            gen_mem_idx(w, 0x460, GPUEST_MEM_STORE, 4, lead, v->okeys->base, g, 4);
            gen_mem_idx(w, 0x468, GPUEST_MEM_STORE, 4, lead, v->ovals->base, g, 4);
            w->finished = 1;
            return;
        }
        uint32_t same = 0;
        for (int k = 0; k < 32; k++)
            if ((run >> k & 1) && key[a[k]] == key[t[k]])
                same |= 1u << k;
        gen_mem_idx(w, 0x448, GPUEST_MEM_LOAD, 4, run, ps->keys->base, a, 4);
        gen_mem_idx(w, 0x450, GPUEST_MEM_LOAD, 4, same, ps->vals->base, a, 4);
        if (same)
            gen_compute(w, 0x458, GPUEST_LAT_ALU, same);
        for (int k = 0; k < 32; k++) {
            if (same >> k & 1)
                w->lane[0][k]++;
            else if (run >> k & 1)
                w->lane[1][k] = 1;   /* group ended */
        }
    }
}

static gpuest_err pv_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    pv_t *v = ctx;
    pv_pass_t *ps = &v->pass[v->p];
    int64_t t[32];
    for (int k = 0; k < 32; k++)
        t[k] = (int64_t)w->ctaid[0] * MARS_THREADS + w->tid0 + k;
    switch (v->stage) {
    case MARS_COUNT: {
        const mars_input_t in = {ps->in, 16}; /* the record's int4 offset/size */
        mars_fill_count(&ps->g, &v->c, &in, 1, w, t);
        break;
    }
    case MARS_SCAN:
        mars_fill_scan(&v->c, w, t);
        break;
    case MARS_MAP:
        pv_fill_map(v, ps, w, t);
        break;
    case MARS_SORT:
        mars_fill_sort(&v->sort, ps->g.sort_n, ps->keys, ps->vals, 4, pv_out_of_order, w, l);
        break;
    default:
        pv_fill_reduce(v, ps, w, t);
    }
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_pvc_ops = {pv_create, pv_destroy, pv_next_launch, pv_end_launch, pv_warp_init,
                                             pv_fill};
