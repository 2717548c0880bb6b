/* sample_script.h: the scaffolding of the scripted kernels of the sampled-simulation tests
 * (test_sample_ff.c, test_sample_bias.c, test_sample_bp.c): a launch of `ctas` CTAs of `warps`
 * warps, a count of the warps open (a launch that ends with warps open is an error of the
 * simulator's source protocol), and one heap record per warp. Each test keeps its own instruction
 * generator (warp_next), its own launches and its own context struct, whose first member is a
 * sample_script_t. */
#ifndef GPUEST_TEST_SAMPLE_SCRIPT_H
#define GPUEST_TEST_SAMPLE_SCRIPT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "workload/workload.h"

typedef struct {
    int open; /* warps opened and not yet closed */
    /* a one-launch script (sample_script_one): its launch and its iterations per warp */
    const char *name;
    uint32_t ctas, warps, iters;
    int launched;
} sample_script_t;

/* One warp's record; a test that needs more keeps it in `step`/`i`/`kernel`. */
typedef struct {
    uint32_t cta, warp, step, i;
    int kernel;
} sample_script_warp_t;

static inline void sample_script_launch(gpuest_launch_t *l, const char *name, uint32_t index, uint32_t ctas,
                                        uint32_t warps)
{
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->index = index;
    l->grid[0] = l->num_ctas = ctas;
    l->grid[1] = l->grid[2] = 1;
    l->block[0] = l->threads_per_cta = warps * 32;
    l->block[1] = l->block[2] = 1;
    l->warps_per_cta = warps;
    l->regs_per_thread = 16;
    l->regs_per_cta = 16 * warps * 32;
}

static inline gpuest_err sample_script_end_launch(void *ctx, gpuest_error_t *err)
{
    const sample_script_t *s = ctx;
    if (s->open)
        return gpuest_fail(err, GPUEST_EINVAL, "end_launch with %d warps open", s->open);
    return GPUEST_OK;
}

static inline gpuest_err sample_script_warp_open(void *ctx, uint32_t cta, uint32_t warp, void **out,
                                                 gpuest_error_t *err)
{
    sample_script_t *s = ctx;
    sample_script_warp_t *w = calloc(1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "script warp");
    w->cta = cta;
    w->warp = warp;
    s->open++;
    *out = w;
    return GPUEST_OK;
}

static inline void sample_script_warp_close(void *ctx, void *warp)
{
    sample_script_t *s = ctx;
    s->open--;
    free(warp);
}

/* A source over ctx (whose first member is a sample_script_t) with the test's own launches and
 * instruction generator. */
static inline void sample_script_source(gpuest_sim_source_t *src, void *ctx,
                                        gpuest_err (*next_launch)(void *, gpuest_launch_t *, int *, gpuest_error_t *),
                                        gpuest_err (*warp_next)(void *, void *, gpuest_inst_t *, gpuest_error_t *))
{
    memset(src, 0, sizeof *src);
    src->ctx = ctx;
    src->next_launch = next_launch;
    src->end_launch = sample_script_end_launch;
    src->warp_open = sample_script_warp_open;
    src->warp_next = warp_next;
    src->warp_close = sample_script_warp_close;
}

/* next_launch of a one-launch script: s->ctas CTAs of s->warps warps named s->name. */
static inline gpuest_err sample_script_one_launch(void *ctx, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)err;
    sample_script_t *s = ctx;
    *done = s->launched == 1;
    if (!*done) {
        s->launched++;
        sample_script_launch(l, s->name, 0, s->ctas, s->warps);
    }
    return GPUEST_OK;
}

/* A source of one launch whose warps run warp_next for `iters` iterations (warp_next reads them). */
static inline void sample_script_one(gpuest_sim_source_t *src, sample_script_t *s, const char *name, uint32_t ctas,
                                     uint32_t warps, uint32_t iters,
                                     gpuest_err (*warp_next)(void *, void *, gpuest_inst_t *, gpuest_error_t *))
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->ctas = ctas;
    s->warps = warps;
    s->iters = iters;
    sample_script_source(src, s, sample_script_one_launch, warp_next);
}

/* The "stream_use" kernel: per iteration a load of a whole line of the warp's own (register 1, a
 * DRAM read), then an ALU instruction that reads it (register 2); after `iters` iterations, the end.
 * Lines start at 1 GiB and are numbered by (CTA, warp, iteration). */
static inline gpuest_err sample_script_stream_use(void *ctx, void *warp, gpuest_inst_t *in, gpuest_error_t *err)
{
    (void)err;
    const sample_script_t *s = ctx;
    sample_script_warp_t *w = warp;
    memset(in, 0, sizeof *in);
    in->active_mask = 0xFFFFFFFFu;
    uint32_t i = w->step / 2, k = w->step % 2;
    in->pc = k * GPUEST_GEN_INST_BYTES;
    if (i >= s->iters) {
        in->kind = GPUEST_INST_END;
        return GPUEST_OK;
    }
    if (k == 0) {
        uint64_t line = ((uint64_t)w->cta * s->warps + w->warp) * s->iters + i;
        in->kind = GPUEST_INST_MEM;
        in->op = GPUEST_MEM_LOAD;
        in->size = 4;
        for (int lane = 0; lane < 32; lane++)
            in->addr[lane] = 0x40000000ull + line * GPUEST_LINE_BYTES + (uint64_t)lane * 4;
        in->dst[in->ndst++] = 1;
    } else {
        in->kind = GPUEST_INST_COMPUTE;
        in->lat = GPUEST_LAT_ALU;
        in->dst[in->ndst++] = 2;
        in->src[in->nsrc++] = 1;
    }
    w->step++;
    return GPUEST_OK;
}

/* The small sampling plan the scripted-kernel tests share: 8 units of unit_insts warp instructions,
 * 1000 warming cycles, 2 AMAT windows. */
static inline void sample_script_opts(gpuest_sample_opts_t *o, uint64_t unit_insts, uint64_t seed)
{
    gpuest_sample_opts_default(o);
    o->units = 8;
    o->unit_insts = unit_insts;
    o->warm_cycles = 1000;
    o->warm_amats = 2;
    o->seed = seed;
}

/* Samples one scripted launch on fermi with plan o (two copies of the source: the sampled run and
 * its functional warming). */
static inline gpuest_err sample_script_run(const gpuest_sample_opts_t *o, const char *name, uint32_t ctas,
                                           uint32_t warps, uint32_t iters,
                                           gpuest_err (*warp_next)(void *, void *, gpuest_inst_t *, gpuest_error_t *),
                                           gpuest_sample_result_t *r, gpuest_error_t *err)
{
    gpuest_config_t cfg;
    gpuest_err rc = gpuest_config_preset(&cfg, "fermi", err);
    if (rc != GPUEST_OK)
        return rc;
    sample_script_t a, b;
    gpuest_sim_source_t sa, sb;
    sample_script_one(&sa, &a, name, ctas, warps, iters, warp_next);
    sample_script_one(&sb, &b, name, ctas, warps, iters, warp_next);
    return gpuest_sim_sample(&cfg, &sa, &sb, o, r, err);
}

/* IPC of the middle (non-census) units: their thread instructions over their cycles. */
static inline double sample_script_middle_ipc(const gpuest_sample_result_t *r)
{
    uint64_t c = 0, t = 0;
    for (size_t i = 0; i < r->num_units; i++)
        if (!r->units[i].census) {
            c += r->units[i].cycles;
            t += r->units[i].thread_insts;
        }
    return c ? (double)t / (double)c : 0.0;
}

#endif
