/* gen_wordcount.c: Mars Word Count (sample_apps/WordCount/map.cu through Mars's MapperCount and Mapper), one text line per thread. */
#include <stdlib.h>

#include "workload_int.h"

#define WC_THREADS 256
#define WC_MIN_WORD 7        /* the map emits words longer than 6 characters */
#define WC_VOCAB 4000
#define WC_CHARS_PER_FILL 8

typedef struct {
    int64_t lines, bytes, emitted, key_bytes;
    gpuest_alloc_t *file, *offsets, *count_keys, *count_vals, *count_n, *keys, *vals, *inter;
    int32_t *key_base;       /* per record: first key byte of its output (prefix sum of MapperCount) */
    int32_t *out_base;       /* per record: first output record */
    int launched;
} wc_t;

static int is_sep(unsigned char c) { return c == ' ' || c == '\n'; }

/* Text: lines of 6..18 words drawn from a Zipf(1) vocabulary of lowercase words of 2..14 letters. */
static gpuest_err wc_text(wc_t *w, gpuest_memimg_t *img, gpuest_rng_t *rng, gpuest_error_t *err)
{
    char (*vocab)[16] = malloc(WC_VOCAB * sizeof *vocab);
    double *cum = malloc(WC_VOCAB * sizeof *cum);
    int64_t *len = malloc((size_t)w->lines * sizeof *len);
    int32_t *words = malloc((size_t)w->lines * 18 * sizeof *words);
    gpuest_err rc = GPUEST_OK;
    if (!vocab || !cum || !len || !words) {
        rc = gpuest_fail(err, GPUEST_ENOMEM, "wordcount: out of memory");
        goto out;
    }
    double total = 0;
    for (int v = 0; v < WC_VOCAB; v++) {
        int n = 2 + (int)gpuest_rng_below(rng, 4) + (int)gpuest_rng_below(rng, 5);
        if (gpuest_rng_below(rng, 10) == 0)
            n += (int)gpuest_rng_below(rng, 6);
        for (int c = 0; c < n; c++)
            vocab[v][c] = (char)('a' + gpuest_rng_below(rng, 26));
        vocab[v][n] = '\0';
        total += 1.0 / (v + 1);
        cum[v] = total;
    }
    int64_t bytes = 0;
    for (int64_t l = 0; l < w->lines; l++) {
        int nw = 6 + (int)gpuest_rng_below(rng, 13);
        len[l] = 0;
        for (int k = 0; k < 18; k++) {
            int32_t v = -1;
            if (k < nw) {
                double x = gpuest_rng_uniform(rng) * total;
                int lo = 0, hi = WC_VOCAB - 1;
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    if (cum[mid] > x)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                v = lo;
                len[l] += (int64_t)strlen(vocab[v]) + 1;   /* word + space or newline */
            }
            words[l * 18 + k] = v;
        }
        bytes += len[l];
    }
    w->bytes = bytes;
    rc = gpuest_memimg_alloc(img, "inputKeys", GPUEST_DT_BYTES, (uint64_t)bytes, &w->file, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "inputOffsetSizes", GPUEST_DT_INT32, (uint64_t)w->lines * 16, &w->offsets, err);
    if (rc != GPUEST_OK)
        goto out;
    int64_t off = 0;
    for (int64_t l = 0; l < w->lines; l++) {
        GEN_AT(w->offsets, int32_t, 4 * l) = (int32_t)off;
        GEN_AT(w->offsets, int32_t, 4 * l + 1) = (int32_t)len[l];
        for (int k = 0; k < 18 && words[l * 18 + k] >= 0; k++) {
            const char *s = vocab[words[l * 18 + k]];
            size_t n = strlen(s);
            memcpy(w->file->data + off, s, n);
            off += (int64_t)n;
            w->file->data[off++] = (k + 1 < 18 && words[l * 18 + k + 1] >= 0) ? ' ' : '\n';
        }
    }
out:
    free(vocab), free(cum), free(len), free(words);
    return rc;
}

static gpuest_err wc_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    wc_t *w = calloc(1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "wordcount: out of memory");
    *out = w;
    w->lines = gen_pick(scale, 512, 8192, 131072);
    GPUEST_TRY(wc_text(w, img, rng, err));
    /* The outputs' sizes, as MapperCount will find them. */
    w->key_base = malloc((size_t)(w->lines + 1) * sizeof *w->key_base);
    w->out_base = malloc((size_t)(w->lines + 1) * sizeof *w->out_base);
    if (!w->key_base || !w->out_base)
        return gpuest_fail(err, GPUEST_ENOMEM, "wordcount: out of memory");
    int64_t kb = 0, ob = 0;
    for (int64_t l = 0; l < w->lines; l++) {
        w->key_base[l] = (int32_t)kb, w->out_base[l] = (int32_t)ob;
        int32_t off = GEN_AT(w->offsets, int32_t, 4 * l), n = GEN_AT(w->offsets, int32_t, 4 * l + 1), start = 0;
        for (int32_t p = 0; p < n; p++)
            if (is_sep(w->file->data[off + p])) {
                if (p - start >= WC_MIN_WORD)
                    kb += p - start, ob++;
                start = p + 1;
            }
    }
    w->key_base[w->lines] = (int32_t)kb, w->out_base[w->lines] = (int32_t)ob;
    w->key_bytes = kb, w->emitted = ob;
    uint64_t nl = (uint64_t)w->lines * 4;
    GPUEST_TRY(gpuest_memimg_alloc(img, "interKeysSizePerTask", GPUEST_DT_INT32, nl, &w->count_keys, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "interValsSizePerTask", GPUEST_DT_INT32, nl, &w->count_vals, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "interCountPerTask", GPUEST_DT_INT32, nl, &w->count_n, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "interKeys", GPUEST_DT_BYTES, (uint64_t)(kb ? kb : 1), &w->keys, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "interVals", GPUEST_DT_INT32, (uint64_t)(ob ? ob : 1) * 4, &w->vals, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "interOffsetSizes", GPUEST_DT_INT32, (uint64_t)(ob ? ob : 1) * 16, &w->inter,
                                   err));
    return GPUEST_OK;
}

static void wc_destroy(void *ctx)
{
    wc_t *w = ctx;
    if (!w)
        return;
    free(w->key_base);
    free(w->out_base);
    free(w);
}

static gpuest_err wc_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    wc_t *w = ctx;
    if (w->launched >= 2) {
        *done = 1;
        return GPUEST_OK;
    }
    gen_launch(l, w->launched == 0 ? "MapperCount" : "Mapper", (uint32_t)((w->lines + WC_THREADS - 1) / WC_THREADS),
               1, 1, WC_THREADS, 1, 1, 0, 20);
    return GPUEST_OK;
}

static gpuest_err wc_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    wc_t *w = ctx;
    for (int64_t r = 0; r < w->lines; r++) {
        int32_t nk = w->key_base[r + 1] - w->key_base[r], no = w->out_base[r + 1] - w->out_base[r];
        if (w->launched == 0) {
            GEN_AT(w->count_keys, int32_t, r) = nk;
            GEN_AT(w->count_vals, int32_t, r) = 4 * no;
            GEN_AT(w->count_n, int32_t, r) = no;
            continue;
        }
        int32_t off = GEN_AT(w->offsets, int32_t, 4 * r), n = GEN_AT(w->offsets, int32_t, 4 * r + 1);
        int32_t start = 0, kb = w->key_base[r], ob = w->out_base[r];
        for (int32_t p = 0; p < n; p++)
            if (is_sep(w->file->data[off + p])) {
                int32_t wl = p - start;
                if (wl >= WC_MIN_WORD) {
                    memcpy(w->keys->data + kb, w->file->data + off + start, (size_t)wl);
                    GEN_AT(w->vals, int32_t, ob) = 1;
                    GEN_AT(w->inter, int32_t, 4 * ob) = kb;
                    GEN_AT(w->inter, int32_t, 4 * ob + 1) = wl;
                    GEN_AT(w->inter, int32_t, 4 * ob + 2) = 4 * ob;
                    GEN_AT(w->inter, int32_t, 4 * ob + 3) = 4;
                    kb += wl, ob++;
                }
                start = p + 1;
            }
    }
    w->launched++;
    return GPUEST_OK;
}

/* lane[0] = position in the line, lane[1] = line length, lane[2] = start of the current word,
 * lane[3] = outputs emitted so far (and v[1] the key bytes written, per lane in lane[3] too). */
static void wc_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img, (void)l;
    wc_t *c = ctx;
    int64_t rec[32];
    for (int k = 0; k < 32; k++)
        rec[k] = (int64_t)w->ctaid[0] * WC_THREADS + w->tid0 + k;
    w->v[0] = gen_mask_below(rec, w->live, c->lines);
    for (int k = 0; k < 32; k++) {
        int in = (int)(w->v[0] >> k & 1);
        w->lane[0][k] = 0;
        w->lane[1][k] = in ? GEN_AT(c->offsets, int32_t, 4 * rec[k] + 1) : 0;
        w->lane[2][k] = 0;
        w->lane[3][k] = 0;
    }
}

/* Stores of one emitted output per lane in mask (Mapper only): key bytes, value, offsets. */
static void wc_emit(wc_t *c, gpuest_warp_t *w, uint32_t mask, const int64_t *rec, const int64_t *wlen)
{
    int64_t idx[32], maxlen = 0;
    for (int k = 0; k < 32; k++)
        if ((mask >> k & 1) && wlen[k] > maxlen)
            maxlen = wlen[k];
    /* key bytes written so far by lane k = sum of its earlier words: recomputed from lane[3] */
    for (int64_t ch = 0; ch < maxlen; ch++) {
        uint32_t m = 0;
        for (int k = 0; k < 32; k++)
            if ((mask >> k & 1) && ch < wlen[k]) {
                m |= 1u << k;
                idx[k] = c->key_base[rec[k]] + w->lane[3][k] / 1024 + ch;
            }
        gen_mem_idx(w, 0x80, GPUEST_MEM_STORE, 1, m, c->keys->base, idx, 1);
    }
    for (int k = 0; k < 32; k++)
        idx[k] = (mask >> k & 1) ? c->out_base[rec[k]] + w->lane[3][k] % 1024 : 0;
    gen_mem_idx(w, 0x88, GPUEST_MEM_STORE, 4, mask, c->vals->base, idx, 4);
    gen_mem_idx(w, 0x90, GPUEST_MEM_STORE, 16, mask, c->inter->base, idx, 16);
    for (int k = 0; k < 32; k++)
        if (mask >> k & 1)
            w->lane[3][k] += 1 + 1024 * wlen[k];   /* low part: outputs, high part: key bytes */
}

static gpuest_err wc_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    wc_t *c = ctx;
    uint32_t act = (uint32_t)w->v[0];
    int64_t rec[32], idx[32];
    for (int k = 0; k < 32; k++)
        rec[k] = (int64_t)w->ctaid[0] * WC_THREADS + w->tid0 + k;
    int mapper = l->name[6] == '\0';   /* "Mapper" vs "MapperCount" */
    if (w->step == 0) {
        gen_alu(w, 0x00, 4, w->live);
        gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 16, act, c->offsets->base, rec, 16);   /* int4 inputOffsetSizes[i] */
        w->step = 1;
        if (!act)
            w->finished = 1;
        return GPUEST_OK;
    }
    for (int it = 0; it < WC_CHARS_PER_FILL; it++) {
        uint32_t run = 0;
        for (int k = 0; k < 32; k++)
            if ((act >> k & 1) && w->lane[0][k] < w->lane[1][k])
                run |= 1u << k;
        gen_compute(w, 0x28, GPUEST_LAT_BRANCH, act);
        if (!run) {
            if (!mapper) { /* the three per-task counters */
                gen_mem_idx(w, 0xa0, GPUEST_MEM_STORE, 4, act, c->count_keys->base, rec, 4);
                gen_mem_idx(w, 0xa8, GPUEST_MEM_STORE, 4, act, c->count_vals->base, rec, 4);
                gen_mem_idx(w, 0xb0, GPUEST_MEM_STORE, 4, act, c->count_n->base, rec, 4);
            }
            w->finished = 1;
            return GPUEST_OK;
        }
        uint32_t emit = 0;
        int64_t wlen[32];
        for (int k = 0; k < 32; k++) {
            wlen[k] = 0;
            if (!(run >> k & 1))
                continue;
            int64_t p = w->lane[0][k];
            idx[k] = GEN_AT(c->offsets, int32_t, 4 * rec[k]) + p;
            if (is_sep(c->file->data[idx[k]])) {
                if (p - w->lane[2][k] >= WC_MIN_WORD) {
                    emit |= 1u << k;
                    wlen[k] = p - w->lane[2][k];
                }
                w->lane[2][k] = p + 1;
            }
            w->lane[0][k] = p + 1;
        }
        gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 1, run, c->file->base, idx, 1);   /* one character */
        gen_alu(w, 0x38, 2, run);
        if (emit) {
            gen_compute(w, 0x48, GPUEST_LAT_BRANCH, run);
            if (mapper)
                wc_emit(c, w, emit, rec, wlen);
            else
                gen_alu(w, 0x50, 2, emit);   /* count += 1; keySize += len */
            return GPUEST_OK;             /* at most one emission per fill keeps the buffer bounded */
        }
    }
    return GPUEST_OK;
}

static const gpuest_gen_ops_t wc_ops = {wc_create, wc_destroy, wc_next_launch, wc_end_launch, wc_warp_init, wc_fill};

const gpuest_generator_t gpuest_gen_wordcount = {
    "wordcount", "Mars", "Word Count", "mapreduce", "bytes",
    "Mars sample_apps/WordCount/map.cu map() through MarsLib MapperCount + Mapper (one text line per thread)",
    &wc_ops};
