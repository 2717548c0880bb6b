/* script_source.c: the scripted instruction source used by the simulator tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "script_source.h"

typedef struct {
    script_t *s;
    uint32_t cta;
    int pc;
    uint32_t rep;
} script_warp_t;

static gpuest_err next_launch(void *ctx, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)err;
    script_t *s = ctx;
    if (s->current + 1 >= s->nkernels) {
        *done = 1;
        return GPUEST_OK;
    }
    s->current++;
    const script_kernel_t *k = &s->kernels[s->current];
    memset(l, 0, sizeof *l);
    if (k->name)
        snprintf(l->name, sizeof l->name, "%s", k->name);
    else
        snprintf(l->name, sizeof l->name, "script%d", s->current);
    l->index = (uint32_t)s->current;
    l->grid[0] = k->ctas;
    l->grid[1] = l->grid[2] = 1;
    l->block[0] = k->warps_per_cta * 32;
    l->block[1] = l->block[2] = 1;
    l->num_ctas = k->ctas;
    l->threads_per_cta = k->warps_per_cta * 32;
    l->warps_per_cta = k->warps_per_cta;
    l->shmem_bytes = k->shmem_bytes;
    l->regs_per_thread = k->regs_per_thread;
    l->regs_per_cta = k->regs_per_thread * l->threads_per_cta;
    *done = 0;
    return GPUEST_OK;
}

static gpuest_err end_launch(void *ctx, gpuest_error_t *err)
{
    script_t *s = ctx;
    if (s->open_warps != 0)
        return gpuest_fail(err, GPUEST_EINVAL, "end_launch with %d warps open", s->open_warps);
    return GPUEST_OK;
}

static gpuest_err warp_open(void *ctx, uint32_t cta, uint32_t warp, void **out, gpuest_error_t *err)
{
    (void)warp;
    script_warp_t *w = calloc(1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "script warp");
    w->s = ctx;
    w->cta = cta;
    w->s->open_warps++;
    *out = w;
    return GPUEST_OK;
}

static gpuest_err warp_next(void *ctx, void *warp, gpuest_inst_t *in, gpuest_error_t *err)
{
    (void)ctx;
    (void)err;
    script_warp_t *w = warp;
    const script_kernel_t *k = &w->s->kernels[w->s->current];
    memset(in, 0, sizeof *in);
    while (w->pc < k->ninsts && k->insts[w->pc].only_cta >= 0 && (uint32_t)k->insts[w->pc].only_cta != w->cta)
        w->pc++;
    if (w->pc >= k->ninsts) {
        in->kind = GPUEST_INST_END;
        return GPUEST_OK;
    }
    const script_inst_t *si = &k->insts[w->pc];
    in->kind = si->kind;
    in->pc = (uint32_t)w->pc * GPUEST_GEN_INST_BYTES;
    in->active_mask = 0xFFFFFFFFu;
    in->lat = si->lat;
    in->op = si->op;
    if (si->dst)
        in->dst[in->ndst++] = (uint8_t)(si->dst - 1);
    if (si->src)
        in->src[in->nsrc++] = (uint8_t)(si->src - 1);
    if (si->src2)
        in->src[in->nsrc++] = (uint8_t)(si->src2 - 1);
    if (si->kind == GPUEST_INST_MEM || (si->lat == GPUEST_LAT_CONST && si->size > 0)) {
        in->size = si->size;
        for (int lane = 0; lane < 32; lane++)
            in->addr[lane] = si->addr + (uint64_t)lane * si->stride;
    }
    uint32_t reps = si->repeat ? si->repeat : 1;
    if (++w->rep >= reps) {
        w->rep = 0;
        w->pc++;
    }
    return GPUEST_OK;
}

static void warp_close(void *ctx, void *warp)
{
    script_t *s = ctx;
    s->open_warps--;
    free(warp);
}

void script_source(gpuest_sim_source_t *src, script_t *s)
{
    s->current = -1;
    s->open_warps = 0;
    src->ctx = s;
    src->next_launch = next_launch;
    src->end_launch = end_launch;
    src->warp_open = warp_open;
    src->warp_next = warp_next;
    src->warp_close = warp_close;
    src->read_line = NULL; /* scripts carry no data values */
}

void script_kernel(script_t *s, int k, const char *name, uint32_t ctas, int n, const script_inst_t *insts)
{
    script_kernel_t *kk = &s->kernels[k];
    memset(kk, 0, sizeof *kk);
    kk->name = name;
    kk->ctas = ctas;
    kk->warps_per_cta = 1;
    kk->regs_per_thread = 16;
    kk->ninsts = n;
    memcpy(kk->insts, insts, (size_t)n * sizeof *insts);
    if (k + 1 > s->nkernels)
        s->nkernels = k + 1;
}

void script_on_load(void *ctx, int sm, int slot, uint64_t issue, uint64_t done, int hits, int misses)
{
    (void)sm;
    (void)slot;
    script_loads_t *l = ctx;
    if (l->n < SCRIPT_MAX_LOADS) {
        l->issue[l->n] = issue;
        l->done[l->n] = done;
        l->hits[l->n] = hits;
        l->misses[l->n] = misses;
        l->n++;
    }
}

void script_run_drained(const gpuest_config_t *c, script_t *s, const gpuest_sim_opts_t *o, gpuest_sim_result_t *r)
{
    gpuest_sim_source_t src;
    script_source(&src, s);
    gpuest_error_t e = {0};
    if (gpuest_sim_run(c, &src, o, r, &e) != GPUEST_OK)
        fail_msg("simulation failed: %s", e.msg);
    assert_int_equal(r->requests_sent, r->replies_received);
    assert_int_equal(r->outstanding, 0);
}
