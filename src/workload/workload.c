/* workload.c: the workload object: launch protocol, lazy warp streams, scale names. */
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

struct gpuest_workload_s {
    char name[GPUEST_WL_NAME_MAX];
    const gpuest_generator_t *gen;   /* NULL for traces */
    const gpuest_gen_ops_t *ops;
    void *ctx;
    gpuest_memimg_t *img;
    char warning[256];
    gpuest_launch_t launch;          /* current launch */
    int in_launch;
    int done;
    uint32_t launches;               /* launches begun */
    int open_warps;
    gpuest_warp_t *free_warps;       /* recycled warp objects, linked through ->wl */
    gpuest_scale_t scale;            /* generated workloads: how they were made */
    uint64_t seed;
};

static const char *const scale_names[] = {"tiny", "small", "default"};

const char *gpuest_scale_name(gpuest_scale_t s) { return (unsigned)s < 3 ? scale_names[s] : "?"; }

gpuest_err gpuest_scale_parse(const char *s, gpuest_scale_t *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, scale_names[i]) == 0) {
            *out = (gpuest_scale_t)i;
            return GPUEST_OK;
        }
    return GPUEST_EPARSE;
}

const char *gpuest_mem_op_name(gpuest_mem_op_t op)
{
    return op == GPUEST_MEM_LOAD ? "load" : op == GPUEST_MEM_STORE ? "store" : op == GPUEST_MEM_ATOMIC ? "atomic" : "?";
}

gpuest_err wl_create_from_ops(const char *name, const gpuest_generator_t *gen, const gpuest_gen_ops_t *ops,
                              gpuest_memimg_t *img, void *ctx, gpuest_workload_t **out, gpuest_error_t *err)
{
    gpuest_workload_t *wl = calloc(1, sizeof *wl);
    if (!wl) {
        ops->destroy(ctx);
        gpuest_memimg_destroy(img);
        return gpuest_fail(err, GPUEST_ENOMEM, "workload: out of memory");
    }
    snprintf(wl->name, sizeof wl->name, "%s", name);
    wl->gen = gen;
    wl->ops = ops;
    wl->ctx = ctx;
    wl->img = img;
    *out = wl;
    return GPUEST_OK;
}

void wl_set_warning(gpuest_workload_t *wl, const char *text)
{
    snprintf(wl->warning, sizeof wl->warning, "%s", text);
}

gpuest_err gpuest_workload_create(const char *name, gpuest_scale_t scale, uint64_t seed, gpuest_workload_t **out,
                                  gpuest_error_t *err)
{
    const gpuest_generator_t *gen = gpuest_generator_find(name);
    if (!gen) {
        char list[512] = "";
        size_t used = 0;
        for (size_t i = 0; gpuest_generators[i] && used + 32 < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     gpuest_generators[i]->name);
        return gpuest_fail(err, GPUEST_ENOKEY, "unknown workload '%s' (expected one of: %s)", name, list);
    }
    gpuest_memimg_t *img = NULL;
    gpuest_rng_t *rng = NULL;
    void *ctx = NULL;
    GPUEST_TRY(gpuest_memimg_create(&img, err));
    gpuest_err rc = gpuest_rng_create(seed, &rng);
    if (rc != GPUEST_OK) {
        gpuest_memimg_destroy(img);
        return gpuest_fail(err, rc, "workload %s: cannot create the random generator", name);
    }
    rc = gen->ops->create(img, scale, rng, &ctx, err);
    gpuest_rng_destroy(rng);
    if (rc != GPUEST_OK) {
        if (ctx)
            gen->ops->destroy(ctx);
        gpuest_memimg_destroy(img);
        return rc;
    }
    GPUEST_TRY(wl_create_from_ops(name, gen, gen->ops, img, ctx, out, err));
    (*out)->scale = scale;
    (*out)->seed = seed;
    return GPUEST_OK;
}

gpuest_err gpuest_workload_count_insts(const gpuest_workload_t *wl, uint64_t *total, gpuest_error_t *err)
{
    *total = 0;
    if (!wl->gen) { /* a trace: every instruction is stored */
        const tr_trace_t *t = wl->ctx;
        for (size_t k = 0; k < t->nk; k++) {
            const tr_kernel_t *kk = &t->k[k];
            size_t nw = (size_t)kk->l.num_ctas * kk->l.warps_per_cta;
            for (size_t w = 0; w < nw; w++)
                *total += kk->warps[w].n;
        }
        return GPUEST_OK;
    }
    /* a generator: run a fresh copy's front end (launches depend on the results) */
    gpuest_workload_t *copy = NULL;
    GPUEST_TRY(gpuest_workload_create(wl->gen->name, wl->scale, wl->seed, &copy, err));
    gpuest_workload_speed_t sp;
    gpuest_err rc = gpuest_workload_measure(copy, UINT64_MAX, &sp, err);
    gpuest_workload_destroy(copy);
    if (rc == GPUEST_OK)
        *total = sp.insts;
    return rc;
}

void gpuest_workload_destroy(gpuest_workload_t *wl)
{
    if (!wl)
        return;
    while (wl->free_warps) {
        gpuest_warp_t *w = wl->free_warps;
        wl->free_warps = (gpuest_warp_t *)(void *)w->wl;
        free(w);
    }
    if (wl->ops)
        wl->ops->destroy(wl->ctx);
    gpuest_memimg_destroy(wl->img);
    free(wl);
}

const char *gpuest_workload_name(const gpuest_workload_t *wl) { return wl->name; }
const gpuest_generator_t *gpuest_workload_generator(const gpuest_workload_t *wl) { return wl->gen; }
gpuest_memimg_t *gpuest_workload_image(gpuest_workload_t *wl) { return wl->img; }
const char *gpuest_workload_warning(const gpuest_workload_t *wl) { return wl->warning[0] ? wl->warning : NULL; }

gpuest_err gpuest_workload_end_launch(gpuest_workload_t *wl, gpuest_error_t *err)
{
    if (!wl->in_launch)
        return GPUEST_OK;
    if (wl->open_warps > 0)
        return gpuest_fail(err, GPUEST_EINVAL, "workload %s: launch %u ended with %d warps still open", wl->name,
                           wl->launch.index, wl->open_warps);
    wl->in_launch = 0;
    return wl->ops->end_launch(wl->ctx, wl->img, &wl->launch, err);
}

gpuest_err gpuest_workload_next_launch(gpuest_workload_t *wl, gpuest_launch_t *launch, int *done,
                                       gpuest_error_t *err)
{
    GPUEST_TRY(gpuest_workload_end_launch(wl, err));
    *done = 0;
    if (wl->done) {
        *done = 1;
        return GPUEST_OK;
    }
    gpuest_launch_t l;
    memset(&l, 0, sizeof l);
    int fin = 0;
    GPUEST_TRY(wl->ops->next_launch(wl->ctx, wl->img, &l, &fin, err));
    if (fin) {
        wl->done = 1;
        *done = 1;
        return GPUEST_OK;
    }
    for (int d = 0; d < 3; d++)
        if (l.grid[d] == 0 || l.block[d] == 0)
            return gpuest_fail(err, GPUEST_EINVAL, "workload %s: kernel %s has an empty grid or block", wl->name,
                               l.name);
    l.index = wl->launches++;
    l.num_ctas = l.grid[0] * l.grid[1] * l.grid[2];
    l.threads_per_cta = l.block[0] * l.block[1] * l.block[2];
    l.warps_per_cta = (l.threads_per_cta + GPUEST_WARP_SIZE - 1) / GPUEST_WARP_SIZE;
    l.regs_per_cta = l.regs_per_thread * l.threads_per_cta;
    wl->launch = l;
    wl->in_launch = 1;
    *launch = l;
    return GPUEST_OK;
}

gpuest_err gpuest_warp_open(gpuest_workload_t *wl, uint32_t cta, uint32_t warp, gpuest_warp_t **out,
                            gpuest_error_t *err)
{
    const gpuest_launch_t *l = &wl->launch;
    if (!wl->in_launch)
        return gpuest_fail(err, GPUEST_EINVAL, "workload %s: warp opened outside a launch", wl->name);
    if (cta >= l->num_ctas || warp >= l->warps_per_cta)
        return gpuest_fail(err, GPUEST_ERANGE, "workload %s kernel %s: warp %u of CTA %u does not exist (%u CTAs, %u warps each)",
                           wl->name, l->name, warp, cta, l->num_ctas, l->warps_per_cta);
    gpuest_warp_t *w = wl->free_warps;
    if (w) {
        wl->free_warps = (gpuest_warp_t *)(void *)w->wl;
    } else {
        w = malloc(sizeof *w);
        if (!w)
            return gpuest_fail(err, GPUEST_ENOMEM, "workload %s: out of memory for a warp", wl->name);
    }
    /* Clear the header only: buf is written before it is read. */
    memset(w, 0, offsetof(gpuest_warp_t, buf));
    w->wl = wl;
    w->cta = cta;
    w->warp = warp;
    w->ctaid[0] = cta % l->grid[0];
    w->ctaid[1] = (cta / l->grid[0]) % l->grid[1];
    w->ctaid[2] = cta / (l->grid[0] * l->grid[1]);
    w->tid0 = warp * GPUEST_WARP_SIZE;
    uint32_t left = l->threads_per_cta - w->tid0;
    w->live = left >= GPUEST_WARP_SIZE ? 0xffffffffu : ((1u << left) - 1u);
    wl->ops->warp_init(wl->ctx, wl->img, l, w);
    wl->open_warps++;
    *out = w;
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- default register pattern
 * Generators emit their kernels' instructions in the order of the kernel's
 * code: address arithmetic, then the loads it addresses, then the arithmetic
 * on the loaded values, then the stores of the results. Registers follow that
 * order (docs/workload.md, "Registers"):
 *  - ALU temporaries rotate through R1..R4; an ALU instruction reads the
 *    temporary written two ALU instructions earlier (dependence distance 2: the
 *    index and address chains of the kernels interleave two streams) and every
 *    loaded value no ALU instruction has read yet (a loaded value is used by
 *    the next arithmetic instruction);
 *  - loads, atomics and constant reads write R8..R15 in turn (eight loads of a
 *    warp can be in flight without a write-after-write stall) and read the
 *    latest ALU temporary (address arithmetic feeds the load);
 *  - stores read the latest ALU temporary and the loaded values not yet read
 *    (a copy stores what it loaded); a branch reads the same (its predicate
 *    comes from them) and writes nothing; barriers carry no register;
 *  - a load or store the generator marked with gen_addr_from_load() also reads
 *    the named earlier load's destination (pointer chasing). */
enum { RP_ALU0 = 1, RP_NALU = 4, RP_LD0 = 8, RP_NLD = 8 };

static uint8_t rp_alu_reg(uint8_t k) { return (uint8_t)(RP_ALU0 + k % RP_NALU); }

static void rp_read_latest_alu(const gpuest_warp_t *w, gpuest_inst_t *inst)
{
    if (w->rp_alu > 0)
        inst->src[inst->nsrc++] = rp_alu_reg((uint8_t)(w->rp_alu - 1));
}

static void rp_read_fresh(gpuest_warp_t *w, gpuest_inst_t *inst)
{
    for (int k = 0; k < w->rp_nfresh && inst->nsrc < GPUEST_INST_MAX_SRC; k++)
        inst->src[inst->nsrc++] = w->rp_fresh[k];
    w->rp_nfresh = 0;
}

/* The load `back` loads before the next one (1: the latest), if there was one. */
static void rp_read_load(const gpuest_warp_t *w, int back, gpuest_inst_t *inst)
{
    if (back > 0 && back <= w->rp_nld && back <= RP_NLD)
        inst->src[inst->nsrc++] = (uint8_t)(RP_LD0 + (uint8_t)(w->rp_ld - back) % RP_NLD);
}

static void default_registers(gpuest_warp_t *w, gpuest_inst_t *inst, int addr_dep)
{
    int loadlike = (inst->kind == GPUEST_INST_MEM && inst->op != GPUEST_MEM_STORE) ||
                   (inst->kind == GPUEST_INST_COMPUTE && inst->lat == GPUEST_LAT_CONST);
    if (loadlike) {
        rp_read_latest_alu(w, inst);
        rp_read_load(w, addr_dep, inst);
        uint8_t r = (uint8_t)(RP_LD0 + w->rp_ld++ % RP_NLD);
        if (w->rp_nld < 255)
            w->rp_nld++;
        inst->dst[inst->ndst++] = r;
        if (w->rp_nfresh == GPUEST_INST_MAX_SRC - 1) /* the oldest fresh value is taken as read */
            memmove(w->rp_fresh, w->rp_fresh + 1, (size_t)--w->rp_nfresh);
        w->rp_fresh[w->rp_nfresh++] = r;
    } else if (inst->kind == GPUEST_INST_MEM) { /* store */
        rp_read_latest_alu(w, inst);
        rp_read_load(w, addr_dep, inst);
        rp_read_fresh(w, inst);
    } else if (inst->kind == GPUEST_INST_COMPUTE && inst->lat == GPUEST_LAT_BRANCH) {
        /* a branch tests a predicate computed from the latest values: if (g_graph_mask[tid]) */
        rp_read_latest_alu(w, inst);
        rp_read_fresh(w, inst);
    } else if (inst->kind == GPUEST_INST_COMPUTE) {
        if (w->rp_alu >= 2)
            inst->src[inst->nsrc++] = rp_alu_reg((uint8_t)(w->rp_alu - 2));
        rp_read_fresh(w, inst);
        inst->dst[inst->ndst++] = rp_alu_reg(w->rp_alu++);
    }
}

gpuest_err gpuest_warp_next(gpuest_warp_t *w, gpuest_inst_t *inst, gpuest_error_t *err)
{
    while (w->pos >= w->n) {
        if (w->finished) {
            inst->kind = GPUEST_INST_END;
            inst->active_mask = 0;
            return GPUEST_OK;
        }
        w->n = w->pos = 0;
        gpuest_workload_t *wl = w->wl;
        GPUEST_TRY(wl->ops->fill(wl->ctx, wl->img, &wl->launch, w, err));
        if (w->n == 0 && !w->finished)
            return gpuest_fail(err, GPUEST_EINVAL, "workload %s: generator produced no instruction", wl->name);
    }
    const gpuest_inst_t *src = &w->buf[w->pos++];
    /* The simulators interleave hundreds of warps, so a warp's next buffered instruction has
     * usually left the caches by the time it is asked for (a miss per instruction, the largest
     * single cost of sampled simulation's fast-forward): start bringing it back now, addresses
     * included (its kind is not known before it arrives). */
    if (w->pos < w->n) {
        const char *next = (const char *)&w->buf[w->pos];
        for (size_t b = 0; b < sizeof(gpuest_inst_t); b += 64)
            __builtin_prefetch(next + b);
    }
    if (gpuest_inst_has_addr(src)) {
        *inst = *src;
    } else { /* skip the address array */
        memcpy(inst, src, offsetof(gpuest_inst_t, addr));
    }
    if (w->wl->gen && inst->ndst == 0 && inst->nsrc == 0)
        default_registers(w, inst, w->addr_dep[w->pos - 1]);
    return GPUEST_OK;
}

/* Set bits of x (an inline SWAR count: the build targets no popcount instruction, and the
 * builtin's library call was a visible part of the sampler's counting pass). */
static int pop32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

gpuest_err gpuest_warp_count(gpuest_warp_t *w, uint64_t *warp_insts, uint64_t *thread_insts, gpuest_error_t *err)
{
    uint64_t wi = 0, ti = 0;
    w->count_only = 1; /* the refills below skip the addresses (counting walks the warp to its end) */
    for (;;) {
        for (int i = w->pos; i < w->n; i++) { /* the buffered instructions, as gpuest_warp_next hands them out */
            if (w->buf[i].kind == GPUEST_INST_END) { /* a counting loop stops at the first END */
                w->pos = w->n;
                w->finished = 1;
                *warp_insts += wi;
                *thread_insts += ti;
                return GPUEST_OK;
            }
            wi++;
            ti += (uint64_t)pop32(w->buf[i].active_mask);
        }
        w->pos = w->n;
        if (w->finished)
            break;
        /* gpuest_warp_next's refill */
        w->n = w->pos = 0;
        gpuest_workload_t *wl = w->wl;
        gpuest_err rc = wl->ops->fill(wl->ctx, wl->img, &wl->launch, w, err);
        if (rc == GPUEST_OK && w->n == 0 && !w->finished)
            rc = gpuest_fail(err, GPUEST_EINVAL, "workload %s: generator produced no instruction", wl->name);
        if (rc != GPUEST_OK) {
            *warp_insts += wi;
            *thread_insts += ti;
            return rc;
        }
    }
    *warp_insts += wi;
    *thread_insts += ti;
    return GPUEST_OK;
}

void gpuest_warp_close(gpuest_warp_t *w)
{
    if (!w)
        return;
    gpuest_workload_t *wl = w->wl;
    wl->open_warps--;
    w->wl = (gpuest_workload_t *)(void *)wl->free_warps;
    wl->free_warps = w;
}
