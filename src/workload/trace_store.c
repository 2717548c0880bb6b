/* trace_store.c: in-memory storage of traces read from files, replayed through the workload interface. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload_int.h"

static uint64_t g_memory_limit; /* 0: not set, use the physical memory */

void gpuest_workload_set_memory_limit(uint64_t bytes) { g_memory_limit = bytes; }

uint64_t gpuest_workload_memory_limit(void)
{
    if (g_memory_limit)
        return g_memory_limit;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return UINT64_C(1) << 34; /* unknown: 16 GiB */
    return (uint64_t)pages * (uint64_t)page;
}

gpuest_err tr_check_insts(const tr_trace_t *t, uint64_t n, gpuest_error_t *err)
{
    (void)t;
    uint64_t limit = gpuest_workload_memory_limit();
    if (n > limit / sizeof(tr_inst_t))
        return gpuest_fail(err, GPUEST_ERANGE,
                           "insts = %llu: holding them needs more than the memory limit of %llu bytes (at most %llu "
                           "instructions per warp)",
                           (unsigned long long)n, (unsigned long long)limit,
                           (unsigned long long)(limit / sizeof(tr_inst_t)));
    return GPUEST_OK;
}

/* Whole-string hexadecimal with an optional 0x prefix; 0 on anything else or overflow. */
int tr_parse_hex(const char *s, uint64_t *out)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 16);
    if (*end || errno)
        return 0;
    *out = v;
    return 1;
}

tr_trace_t *tr_new(void) { return calloc(1, sizeof(tr_trace_t)); }

void tr_free(tr_trace_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nk; i++) {
        size_t nw = (size_t)t->k[i].l.num_ctas * t->k[i].l.warps_per_cta;
        for (size_t w = 0; w < nw; w++)
            free(t->k[i].warps[w].insts);
        free(t->k[i].warps);
    }
    free(t->k);
    free(t->addr);
    free(t);
}

gpuest_err tr_add_kernel(tr_trace_t *t, const gpuest_launch_t *l, tr_kernel_t **out, gpuest_error_t *err)
{
    if (t->nk == t->capk) {
        size_t cap = t->capk ? t->capk * 2 : 8;
        tr_kernel_t *k = realloc(t->k, cap * sizeof *k);
        if (!k)
            return gpuest_fail(err, GPUEST_ENOMEM, "trace: out of memory");
        t->k = k;
        t->capk = cap;
    }
    /* Geometry checked in 64 bits before the 32-bit derived fields are formed. */
    uint64_t ctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (ctas == 0 || ctas > UINT32_MAX)
        return gpuest_fail(err, GPUEST_ERANGE, "kernel %s: grid of %llu CTAs is outside 1..2^32-1", l->name,
                           (unsigned long long)ctas);
    if (threads == 0 || threads > 1024)
        return gpuest_fail(err, GPUEST_ERANGE, "kernel %s: block of %llu threads is outside 1..1024", l->name,
                           (unsigned long long)threads);
    if (l->regs_per_thread > 255)
        return gpuest_fail(err, GPUEST_ERANGE, "kernel %s: %u registers per thread, at most 255", l->name,
                           l->regs_per_thread);
    uint64_t limit = gpuest_workload_memory_limit();
    uint64_t warps = ctas * ((threads + GPUEST_WARP_SIZE - 1) / GPUEST_WARP_SIZE);
    if (warps > limit / sizeof(tr_warp_t))
        return gpuest_fail(err, GPUEST_ERANGE,
                           "kernel %s: %llu warps need more than the memory limit of %llu bytes for their tables",
                           l->name, (unsigned long long)warps, (unsigned long long)limit);
    tr_kernel_t *k = &t->k[t->nk];
    k->l = *l;
    k->l.num_ctas = l->grid[0] * l->grid[1] * l->grid[2];
    k->l.threads_per_cta = l->block[0] * l->block[1] * l->block[2];
    k->l.warps_per_cta = (k->l.threads_per_cta + GPUEST_WARP_SIZE - 1) / GPUEST_WARP_SIZE;
    k->l.regs_per_cta = l->regs_per_thread * k->l.threads_per_cta;
    uint64_t nw = (uint64_t)k->l.num_ctas * k->l.warps_per_cta;
    if (nw == 0 || nw > (UINT64_C(1) << 28))
        return gpuest_fail(err, GPUEST_ERANGE, "trace kernel %s: %llu warps is outside 1..2^28", l->name,
                           (unsigned long long)nw);
    k->warps = calloc((size_t)nw, sizeof *k->warps);
    if (!k->warps)
        return gpuest_fail(err, GPUEST_ENOMEM, "trace: out of memory");
    t->nk++;
    *out = k;
    return GPUEST_OK;
}

gpuest_err tr_add_inst(tr_trace_t *t, tr_kernel_t *k, uint32_t cta, uint32_t warp, const gpuest_inst_t *in,
                       gpuest_error_t *err)
{
    tr_warp_t *w = &k->warps[(size_t)cta * k->l.warps_per_cta + warp];
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        tr_inst_t *p = realloc(w->insts, cap * sizeof *p);
        if (!p)
            return gpuest_fail(err, GPUEST_ENOMEM, "trace: out of memory");
        w->insts = p;
        w->cap = cap;
    }
    tr_inst_t *ti = &w->insts[w->n++];
    ti->kind = (uint8_t)in->kind;
    ti->lat = (uint8_t)in->lat;
    ti->op = (uint8_t)in->op;
    ti->size = (uint8_t)in->size;
    ti->pc = in->pc;
    ti->mask = in->active_mask;
    ti->ndst = in->ndst <= GPUEST_INST_MAX_DST ? in->ndst : GPUEST_INST_MAX_DST;
    ti->nsrc = in->nsrc <= GPUEST_INST_MAX_SRC ? in->nsrc : GPUEST_INST_MAX_SRC;
    memcpy(ti->dst, in->dst, sizeof ti->dst);
    memcpy(ti->src, in->src, sizeof ti->src);
    ti->addr_off = t->naddr;
    if (!gpuest_inst_has_addr(in))
        return GPUEST_OK;
    for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++) {
        if (!(in->active_mask >> lane & 1))
            continue;
        if (t->naddr == t->capaddr) {
            size_t cap = t->capaddr ? t->capaddr * 2 : 1024;
            uint64_t *a = realloc(t->addr, cap * sizeof *a);
            if (!a)
                return gpuest_fail(err, GPUEST_ENOMEM, "trace: out of memory");
            t->addr = a;
            t->capaddr = cap;
        }
        t->addr[t->naddr++] = in->addr[lane];
    }
    return GPUEST_OK;
}

/* ------------------------------------------------------------ replay ops */

static gpuest_err tr_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **ctx,
                            gpuest_error_t *err)
{
    (void)img, (void)scale, (void)rng, (void)ctx;
    return gpuest_fail(err, GPUEST_EUNSUPPORTED, "traces are opened with gpuest_workload_open_*");
}

static void tr_destroy(void *ctx) { tr_free(ctx); }

static gpuest_err tr_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                 gpuest_error_t *err)
{
    (void)img, (void)err;
    tr_trace_t *t = ctx;
    if (t->next >= t->nk) {
        *done = 1;
        return GPUEST_OK;
    }
    *l = t->k[t->next].l;
    return GPUEST_OK;
}

static gpuest_err tr_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    ((tr_trace_t *)ctx)->next++;
    return GPUEST_OK;
}

static void tr_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l;
    w->v[0] = 0;   /* next stored instruction */
}

static gpuest_err tr_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    tr_trace_t *t = ctx;
    const tr_kernel_t *k = &t->k[t->next];
    const tr_warp_t *tw = &k->warps[(size_t)w->cta * l->warps_per_cta + w->warp];
    size_t i = (size_t)w->v[0];
    while (i < tw->n && w->n < GEN_BUF) {
        const tr_inst_t *ti = &tw->insts[i++];
        gpuest_inst_t *in = gen_push_raw(w, (gpuest_inst_kind_t)ti->kind, ti->pc, ti->mask,
                                         (gpuest_lat_class_t)ti->lat, (gpuest_mem_op_t)ti->op, ti->size);
        in->ndst = ti->ndst;
        in->nsrc = ti->nsrc;
        memcpy(in->dst, ti->dst, sizeof in->dst);
        memcpy(in->src, ti->src, sizeof in->src);
        if (gpuest_inst_has_addr(in)) {
            const uint64_t *a = &t->addr[ti->addr_off];
            for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++)
                in->addr[lane] = (ti->mask >> lane & 1) ? *a++ : 0;
        }
    }
    w->v[0] = (int64_t)i;
    if (i >= tw->n)
        w->finished = 1;
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_trace_ops = {tr_create, tr_destroy, tr_next_launch, tr_end_launch, tr_warp_init,
                                           tr_fill};
