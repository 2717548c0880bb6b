/* alloc_inl.h: per-cycle allocator operations (iSLIP and separable input-first), inlined into the router pipeline. */
#ifndef GPUEST_NOC_ALLOC_INL_H
#define GPUEST_NOC_ALLOC_INL_H

#include "noc_int.h"

/* Forgets this cycle's requests and matches (touches only rows that were used). */
static inline void noc_alloc_clear(noc_alloc_t *a)
{
    for (int j = 0; j < a->nin_list; j++) {
        int i = a->in_list[j];
        uint64_t *row = &a->in_req[(size_t)i * a->wo];
        row[0] = 0; /* one word in every mesh router; wider rows only in big crossbars */
        for (int w = 1; w < a->wo; w++)
            row[w] = 0;
        a->inmatch[i] = -1;
    }
    for (int j = 0; j < a->nout_list; j++) {
        int o = a->out_list[j];
        uint64_t *row = &a->out_req[(size_t)o * a->wi];
        row[0] = 0;
        for (int w = 1; w < a->wi; w++)
            row[w] = 0;
        a->outmatch[o] = -1;
    }
    a->nin_list = a->nout_list = 0;
}

static inline int bs_empty(const uint64_t *bs, int w)
{
    for (int i = 0; i < w; i++)
        if (bs[i])
            return 0;
    return 1;
}

static inline void noc_alloc_request(noc_alloc_t *a, int in, int out)
{
    assert(in >= 0 && in < a->nin && out >= 0 && out < a->nout);
    uint64_t *ir = &a->in_req[(size_t)in * a->wo];
    uint64_t *orq = &a->out_req[(size_t)out * a->wi];
    if (bs_empty(ir, a->wo))
        a->in_list[a->nin_list++] = in;
    if (bs_empty(orq, a->wi))
        a->out_list[a->nout_list++] = out;
    ir[out >> 6] |= UINT64_C(1) << (out & 63);
    orq[in >> 6] |= UINT64_C(1) << (in & 63);
}

static inline int noc_alloc_has(const noc_alloc_t *a, int in, int out)
{
    return (int)((a->in_req[(size_t)in * a->wo + (out >> 6)] >> (out & 63)) & 1);
}

/* First set bit with index in [from, n), or -1. */
static inline int bs_find(const uint64_t *bs, int n, int from)
{
    if (from >= n)
        return -1;
    int w = from >> 6;
    uint64_t cur = bs[w] & (~UINT64_C(0) << (from & 63));
    int nw = (n + 63) >> 6;
    for (;;) {
        if (cur) {
            int idx = (w << 6) + __builtin_ctzll(cur);
            return idx < n ? idx : -1;
        }
        if (++w >= nw)
            return -1;
        cur = bs[w];
    }
}

/* Round-robin pick: first set index at or after ptr (cyclic) for which
 * ok_tab[index] == want (ok_tab NULL: any set index). */
static inline int rr_pick(const uint64_t *bs, int n, int ptr, const int *ok_tab, int want)
{
    for (int i = bs_find(bs, n, ptr); i >= 0; i = bs_find(bs, n, i + 1))
        if (!ok_tab || ok_tab[i] == want)
            return i;
    for (int i = bs_find(bs, n, 0); i >= 0 && i < ptr; i = bs_find(bs, n, i + 1))
        if (!ok_tab || ok_tab[i] == want)
            return i;
    return -1;
}

/* iSLIP: each free output grants the first requesting free input from its
 * pointer; each input accepts the first granting output from its pointer;
 * pointers move past the match only for first-iteration accepts. */
static inline void run_islip(noc_alloc_t *a)
{
    if (a->nin_list == 1) { /* one requester: every output grants it; it accepts from its pointer */
        int i = a->in_list[0];
        int o = rr_pick(&a->in_req[(size_t)i * a->wo], a->nout, a->aptr[i], NULL, 0);
        a->inmatch[i] = o;
        a->outmatch[o] = i;
        a->gptr[o] = (i + 1) % a->nin;
        a->aptr[i] = (o + 1) % a->nout;
        return;
    }
    for (int it = 0; it < a->iters; it++) {
        for (int j = 0; j < a->nout_list; j++) {
            int o = a->out_list[j];
            a->grant[o] = -1;
            if (a->outmatch[o] >= 0)
                continue;
            a->grant[o] = rr_pick(&a->out_req[(size_t)o * a->wi], a->nin, a->gptr[o], a->inmatch, -1);
        }
        int matched = 0;
        for (int j = 0; j < a->nin_list; j++) {
            int i = a->in_list[j];
            if (a->inmatch[i] >= 0)
                continue;
            int o = rr_pick(&a->in_req[(size_t)i * a->wo], a->nout, a->aptr[i], a->grant, i);
            if (o < 0)
                continue;
            a->inmatch[i] = o;
            a->outmatch[o] = i;
            matched = 1;
            if (it == 0) {
                a->gptr[o] = (i + 1) % a->nin;
                a->aptr[i] = (o + 1) % a->nout;
            }
        }
        if (!matched)
            break;
    }
}

/* Separable input-first: every input picks one requested output (round robin),
 * then every output picks one of the inputs that chose it (round robin). */
static inline void run_input_first(noc_alloc_t *a)
{
    /* choice per input kept in inmatch temporarily as -(o+2) */
    for (int j = 0; j < a->nin_list; j++) {
        int i = a->in_list[j];
        int o = rr_pick(&a->in_req[(size_t)i * a->wo], a->nout, a->aptr[i], NULL, 0);
        a->inmatch[i] = o >= 0 ? -(o + 2) : -1;
    }
    for (int j = 0; j < a->nout_list; j++) {
        int o = a->out_list[j];
        int best = -1, bestd = a->nin + 1;
        const uint64_t *bs = &a->out_req[(size_t)o * a->wi];
        for (int i = bs_find(bs, a->nin, 0); i >= 0; i = bs_find(bs, a->nin, i + 1)) {
            if (a->inmatch[i] != -(o + 2))
                continue;
            int d = (i - a->gptr[o] + a->nin) % a->nin;
            if (d < bestd) {
                bestd = d;
                best = i;
            }
        }
        if (best >= 0) {
            a->outmatch[o] = best;
            a->gptr[o] = (best + 1) % a->nin;
            a->aptr[best] = (o + 1) % a->nout;
        }
    }
    for (int j = 0; j < a->nin_list; j++)
        a->inmatch[a->in_list[j]] = -1;
    for (int j = 0; j < a->nout_list; j++) {
        int o = a->out_list[j];
        if (a->outmatch[o] >= 0)
            a->inmatch[a->outmatch[o]] = o;
    }
}

static inline void noc_alloc_run(noc_alloc_t *a)
{
    if (a->type == GPUEST_NOC_ALLOC_SEPARABLE_IF)
        run_input_first(a);
    else
        run_islip(a);
}

#endif
