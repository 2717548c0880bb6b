/* mars_common.c: the Mars MapReduce runtime (MapperCount, prefix_sum, bitonic Group sort) shared by the Mars generators. */
#include <string.h>

#include "mars_int.h"

void mars_geometry(mars_geom_t *g, int64_t nrec)
{
    g->nrec = nrec;
    int64_t blocks = (nrec + MARS_THREADS - 1) / MARS_THREADS;
    g->grid = (uint32_t)(blocks < 1 ? 1 : blocks < MARS_MAX_BLOCKS ? blocks : MARS_MAX_BLOCKS);
    g->rpt = (uint32_t)((nrec + mars_threads(g) - 1) / mars_threads(g));
    if (g->rpt == 0)
        g->rpt = 1;
    for (g->sort_n = 1; g->sort_n < nrec; g->sort_n *= 2)
        ;
}

gpuest_err mars_alloc_counts(gpuest_memimg_t *img, const mars_geom_t *g, const char *const names[3],
                             mars_counts_t *c, gpuest_error_t *err)
{
    uint64_t bytes = (uint64_t)mars_threads(g) * 4;
    GPUEST_TRY(gpuest_memimg_alloc(img, names[0], GPUEST_DT_INT32, bytes, &c->ksize, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, names[1], GPUEST_DT_INT32, bytes, &c->vsize, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, names[2], GPUEST_DT_INT32, bytes, &c->count, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_psKeySizes", GPUEST_DT_INT32, bytes, &c->psk, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "d_psValSizes", GPUEST_DT_INT32, bytes, &c->psv, err));
    return gpuest_memimg_alloc(img, "d_psCounts", GPUEST_DT_INT32, bytes, &c->psc, err);
}

void mars_launch(gpuest_launch_t *l, int kernel, const mars_geom_t *g, uint32_t map_regs)
{
    switch (kernel) {
    case MARS_COUNT:
        gen_launch(l, "MapperCount", g->grid, 1, 1, MARS_THREADS, 1, 1, 0, 16);
        break;
    case MARS_SCAN:
        gen_launch(l, "prefix_sum", g->grid, 1, 1, MARS_THREADS, 1, 1, 0, 10);
        break;
    case MARS_MAP:
        gen_launch(l, "Mapper", g->grid, 1, 1, MARS_THREADS, 1, 1, 0, map_regs);
        break;
    default: /* one thread per sorted slot */
        gen_launch(l, "bitonic_sort", (uint32_t)((g->sort_n + MARS_THREADS - 1) / MARS_THREADS), 1, 1,
                   (uint32_t)(g->sort_n < MARS_THREADS ? g->sort_n : MARS_THREADS), 1, 1, 0, 12);
    }
}

void mars_end_count(const mars_geom_t *g, const mars_counts_t *c, int32_t key_bytes, int32_t val_bytes)
{
    for (int64_t t = 0; t < mars_threads(g); t++) {
        int32_t n = 0;
        for (uint32_t r = 0; r < g->rpt; r++)
            n += mars_record(g, t, r) < g->nrec;
        GEN_AT(c->ksize, int32_t, t) = key_bytes * n;
        GEN_AT(c->vsize, int32_t, t) = val_bytes * n;
        GEN_AT(c->count, int32_t, t) = n;
    }
}

/* Exclusive prefix sums of the three per-thread arrays. */
void mars_end_scan(const mars_geom_t *g, const mars_counts_t *c)
{
    int32_t a = 0, b = 0, s = 0;
    for (int64_t t = 0; t < mars_threads(g); t++) {
        GEN_AT(c->psk, int32_t, t) = a, a += GEN_AT(c->ksize, int32_t, t);
        GEN_AT(c->psv, int32_t, t) = b, b += GEN_AT(c->vsize, int32_t, t);
        GEN_AT(c->psc, int32_t, t) = s, s += GEN_AT(c->count, int32_t, t);
    }
}

int64_t mars_emit_slot(const mars_geom_t *g, const mars_counts_t *c, int64_t t, uint32_t r)
{
    int64_t n = 0;
    for (uint32_t rr = 0; rr < r; rr++)
        n += mars_record(g, t, rr) < g->nrec;
    return GEN_AT(c->psc, int32_t, t) + n;
}

void mars_sort_start(mars_sort_t *s) { s->k = 2, s->j = 1; }

/* One compare-exchange stage of the bitonic network. */
void mars_run_sort(const mars_sort_t *s, int64_t sort_n, gpuest_alloc_t *keys, gpuest_alloc_t *vals,
                   size_t val_bytes, mars_out_of_order_fn out_of_order)
{
    unsigned char *key = keys->data, *val = vals->data, tmp[8];
    for (int64_t i = 0; i < sort_n; i++) {
        int64_t p = i ^ s->j;
        if (p <= i)
            continue;
        if (out_of_order(key, i, p, (i & s->k) == 0)) {
            memcpy(tmp, key + 4 * i, 4), memcpy(key + 4 * i, key + 4 * p, 4), memcpy(key + 4 * p, tmp, 4);
            memcpy(tmp, val + val_bytes * i, val_bytes);
            memcpy(val + val_bytes * i, val + val_bytes * p, val_bytes);
            memcpy(val + val_bytes * p, tmp, val_bytes);
        }
    }
}

/* for (k = 2; k <= n; k *= 2) for (j = k/2; j > 0; j /= 2) */
int mars_sort_advance(mars_sort_t *s, int64_t sort_n)
{
    if (s->j > 1) {
        s->j /= 2;
    } else if (s->k < sort_n) {
        s->k *= 2;
        s->j = s->k / 2;
    } else {
        return 1;
    }
    return 0;
}

uint32_t mars_map_round(const mars_geom_t *g, const int64_t *t, uint32_t r, uint32_t live, int64_t *q)
{
    for (int k = 0; k < 32; k++)
        q[k] = mars_record(g, t[k], r);
    return gen_mask_below(q, live, g->nrec);
}

int mars_map_header(const mars_counts_t *c, const mars_input_t *in, int nin, uint32_t m, gpuest_warp_t *w,
                    const int64_t *t, const int64_t *q)
{
    gen_compute(w, 0x200, GPUEST_LAT_BRANCH, w->live);
    if (!m) {
        w->finished = 1;
        return 0;
    }
    gen_mem_idx(w, 0x208, GPUEST_MEM_LOAD, 4, m, c->psc->base, t, 4);
    for (int i = 0; i < nin; i++)
        gen_mem_idx(w, 0x210 + 8 * (uint32_t)i, GPUEST_MEM_LOAD, in[i].bytes, m, in[i].alloc->base, q, in[i].bytes);
    return 1;
}

void mars_map_next_round(const mars_geom_t *g, gpuest_warp_t *w)
{
    w->v[0]++;
    w->v[1] = 0;
    if (w->v[0] >= g->rpt)
        w->finished = 1;
}

/* MapperCount: per record round load the record's inputs; then store the three counts. */
void mars_fill_count(const mars_geom_t *g, const mars_counts_t *c, const mars_input_t *in, int nin, gpuest_warp_t *w,
                     const int64_t *t)
{
    int64_t q[32];
    gen_alu(w, 0x00, 4, w->live);
    for (uint32_t r = 0; r < g->rpt; r++) {
        uint32_t m = mars_map_round(g, t, r, w->live, q);
        gen_compute(w, 0x10, GPUEST_LAT_BRANCH, w->live);
        for (int i = 0; i < nin; i++)
            gen_mem_idx(w, 0x18 + 8 * (uint32_t)i, GPUEST_MEM_LOAD, in[i].bytes, m, in[i].alloc->base, q,
                        in[i].bytes);
        if (m)
            gen_alu(w, 0x18 + 8 * (uint32_t)nin, 2, m);
    }
    gen_mem_idx(w, 0x30, GPUEST_MEM_STORE, 4, w->live, c->ksize->base, t, 4);
    gen_mem_idx(w, 0x38, GPUEST_MEM_STORE, 4, w->live, c->vsize->base, t, 4);
    gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, w->live, c->count->base, t, 4);
    w->finished = 1;
}

/* prefix_sum: each thread reads its three counts and writes its three offsets
 * (the data movement of Mars's scan, without the scan's internal passes). */
void mars_fill_scan(const mars_counts_t *c, gpuest_warp_t *w, const int64_t *t)
{
    gen_alu(w, 0x100, 2, w->live);
    gen_mem_idx(w, 0x108, GPUEST_MEM_LOAD, 4, w->live, c->ksize->base, t, 4);
    gen_mem_idx(w, 0x110, GPUEST_MEM_LOAD, 4, w->live, c->vsize->base, t, 4);
    gen_mem_idx(w, 0x118, GPUEST_MEM_LOAD, 4, w->live, c->count->base, t, 4);
    gen_alu(w, 0x120, 6, w->live);
    gen_mem_idx(w, 0x138, GPUEST_MEM_STORE, 4, w->live, c->psk->base, t, 4);
    gen_mem_idx(w, 0x140, GPUEST_MEM_STORE, 4, w->live, c->psv->base, t, 4);
    gen_mem_idx(w, 0x148, GPUEST_MEM_STORE, 4, w->live, c->psc->base, t, 4);
    w->finished = 1;
}

/* bitonic_sort: thread i compares key[i] with key[i^j] when i^j > i and swaps
 * key and value pairs that are out of order for this k. */
void mars_fill_sort(const mars_sort_t *s, int64_t sort_n, const gpuest_alloc_t *keys, const gpuest_alloc_t *vals,
                    uint32_t val_bytes, mars_out_of_order_fn out_of_order, gpuest_warp_t *w, const gpuest_launch_t *l)
{
    int64_t i[32], p[32];
    uint32_t lo = 0, sw = 0;
    for (int k = 0; k < 32; k++) {
        i[k] = (int64_t)w->ctaid[0] * l->block[0] + w->tid0 + k;
        p[k] = i[k] ^ s->j;
        if ((w->live >> k & 1) && i[k] < sort_n && p[k] > i[k]) {
            lo |= 1u << k;
            if (out_of_order(keys->data, i[k], p[k], (i[k] & s->k) == 0))
                sw |= 1u << k;
        }
    }
    gen_alu(w, 0x300, 3, w->live);
    gen_compute(w, 0x30c, GPUEST_LAT_BRANCH, w->live);
    gen_mem_idx(w, 0x310, GPUEST_MEM_LOAD, 4, lo, keys->base, i, 4);
    gen_mem_idx(w, 0x318, GPUEST_MEM_LOAD, 4, lo, keys->base, p, 4);
    if (lo)
        gen_compute(w, 0x320, GPUEST_LAT_BRANCH, lo);
    gen_mem_idx(w, 0x328, GPUEST_MEM_LOAD, val_bytes, sw, vals->base, i, val_bytes);
    gen_mem_idx(w, 0x330, GPUEST_MEM_LOAD, val_bytes, sw, vals->base, p, val_bytes);
    gen_mem_idx(w, 0x338, GPUEST_MEM_STORE, 4, sw, keys->base, i, 4);
    gen_mem_idx(w, 0x340, GPUEST_MEM_STORE, 4, sw, keys->base, p, 4);
    gen_mem_idx(w, 0x348, GPUEST_MEM_STORE, val_bytes, sw, vals->base, i, val_bytes);
    gen_mem_idx(w, 0x350, GPUEST_MEM_STORE, val_bytes, sw, vals->base, p, val_bytes);
    w->finished = 1;
}
