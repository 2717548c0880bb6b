/* front.c: the SM's instruction cache (L1I) and constant cache (L1C), both missing to the L2 as read requests.
 *
 * Addresses (docs/sim.md, "Instruction and constant caches"): a kernel's code
 * lives in a code segment above the memory image's reach, as in GPGPU-Sim
 * (PROGRAM_MEM_START 0xF0000000): each distinct kernel name gets 64 KB at
 * SIM_CODE_BASE + k x 64 KB in the order kernels are first launched, and an
 * instruction's fetch address is that base plus its pc (a byte offset). The
 * constant space is 64 KB at SIM_CONST_BASE. Both map to MCs and L2 sets like
 * any other address.
 *
 * Fetch: a warp holds the L1I line of its last fetch in a one-line fetch
 * buffer; an instruction in the same line is fetched without an L1I access,
 * one in another line looks the L1I up (LRU touch). A miss stalls the warp's
 * fetch: one read request per missing line and SM (warps missing the same
 * line wait on the first request), sent ahead of the L1D's miss queue. The
 * fill writes the line and the waiting warps issue from the next cycle on.
 *
 * Constant reads: each distinct L1C line the active lanes read is looked up;
 * all hit -> the destination is ready after core.const_latency plus one cycle
 * per extra distinct line (GPGPU-Sim serializes divergent constant reads).
 * Any miss -> the read takes a load slot, its destination stays pending, and
 * each missing line completes const_latency after its fill. Neither cache is
 * flushed between launches (code and constants do not change during a run). */
#include "sim_int.h"

gpuest_err sim_front_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err)
{
    const gpuest_core_cfg_t *c = &g->cfg->core;
    GPUEST_TRY(sim_tags_init(&sm->l1i, "core.l1i", c->l1i_size_bytes, c->l1i_line_bytes, c->l1i_assoc, err));
    GPUEST_TRY(sim_tags_init(&sm->l1c, "core.l1c", c->l1c_size_bytes, c->l1c_line_bytes, c->l1c_assoc, err));
    if (c->l1i_line_bytes > GPUEST_LINE_BYTES || c->l1c_line_bytes > GPUEST_LINE_BYTES ||
        GPUEST_LINE_BYTES % c->l1i_line_bytes || GPUEST_LINE_BYTES % c->l1c_line_bytes)
        return gpuest_fail(err, GPUEST_EINVAL, "core.l1i_line_bytes = %d, core.l1c_line_bytes = %d: expected divisors of "
                                               "the %d-byte memory request",
                           c->l1i_line_bytes, c->l1c_line_bytes, GPUEST_LINE_BYTES);
    return GPUEST_OK;
}

void sim_front_free(sim_sm_t *sm)
{
    sim_tags_free(&sm->l1i);
    sim_tags_free(&sm->l1c);
    sim_fifo_free(&sm->fmissq);
    free(sm->fwait);
    sm->fwait = NULL;
}

int sim_front_idle(const sim_sm_t *sm) { return sm->fmissq.len == 0 && sm->nfwait == 0; }

gpuest_err sim_front_launch(sim_gpu_t *g, gpuest_error_t *err)
{
    int k = 0;
    while (k < g->nkernel_names && strcmp(g->kernel_names[k], g->launch.name) != 0)
        k++;
    if (k == g->nkernel_names) {
        void *p = realloc(g->kernel_names, (size_t)(k + 1) * sizeof *g->kernel_names);
        if (!p)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the code segments");
        g->kernel_names = p;
        snprintf(g->kernel_names[k], sizeof g->kernel_names[k], "%s", g->launch.name);
        g->nkernel_names++;
    }
    /* 224 segments fit below the constant space; more kernels share segments */
    g->code_base = SIM_CODE_BASE + (uint64_t)(k % 224) * SIM_CODE_BYTES_PER_KERNEL;
    return GPUEST_OK;
}

/* 1 when some warp of the SM already waits on line of cache (its request is out). */
static int line_requested(const sim_sm_t *sm, uint64_t line, int cache)
{
    for (int k = 0; k < sm->nfwait; k++)
        if (sm->fwait[k].line == line && sm->fwait[k].cache == cache)
            return 1;
    return 0;
}

static int add_waiter(sim_gpu_t *g, sim_sm_t *sm, uint64_t line, int warp, int slot, int cache)
{
    if (sm->nfwait == sm->capfwait) {
        int cap = sm->capfwait ? sm->capfwait * 2 : 16;
        sim_fwait_t *p = realloc(sm->fwait, (size_t)cap * sizeof *p);
        if (!p)
            return g->failed = 1, -1;
        sm->fwait = p;
        sm->capfwait = cap;
    }
    sm->fwait[sm->nfwait++] = (sim_fwait_t){line, warp, (int8_t)slot, (uint8_t)cache};
    return 0;
}

/* A read request for cache line `line` (line_bytes long) of cache, into the front miss queue. */
static void send_read(sim_gpu_t *g, sim_sm_t *sm, uint64_t line, int line_bytes, int warp, int cache)
{
    int32_t i = sim_pool_alloc(&g->pool);
    if (i < 0) {
        g->failed = 1;
        return;
    }
    sim_req_t *q = &g->pool.r[i];
    uint64_t req_line = line & ~(uint64_t)(GPUEST_LINE_BYTES - 1);
    int first = (int)(line - req_line) / GPUEST_SECTOR_BYTES;
    int n = line_bytes < GPUEST_SECTOR_BYTES ? 1 : line_bytes / GPUEST_SECTOR_BYTES;
    q->line = req_line;
    q->sectors = (uint8_t)(((1u << n) - 1u) << first);
    q->op = GPUEST_MEM_LOAD;
    q->cache = (uint8_t)cache;
    q->load = -1;
    q->sm = (int16_t)sm->id;
    q->mc = (int16_t)sim_mc_of(g, req_line);
    q->warp = warp;
    q->state = RQ_MISSQ;
    q->t_access = q->t_created = g->now;
    if (sim_fifo_push(&sm->fmissq, i) != 0)
        g->failed = 1;
    g->ctr.v[SC_front_reqs]++;
}

void sim_front_fetch(sim_gpu_t *g, sim_sm_t *sm, int warp)
{
    sim_warp_t *w = &sm->warps[warp];
    if (g->cfg->core.perfect_inst_const_cache)
        return;
    uint64_t addr = g->code_base + w->inst.pc;
    uint64_t line = addr & ~(uint64_t)(sm->l1i.line_bytes - 1);
    if (line == w->iline)
        return; /* same line as the previous instruction: in the fetch buffer */
    w->iline = line;
    g->ctr.v[SC_l1i_accesses]++;
    if (sim_tags_find(&sm->l1i, line, line, 1))
        return;
    g->ctr.v[SC_l1i_misses]++;
    if (g->functional) { /* fast-forward (sample.c): the clock stands still, the line arrives at once */
        sim_way_t *v = sim_tags_victim(&sm->l1i, line);
        if (v)
            sim_tags_fill(&sm->l1i, v, line, 0xF);
        return;
    }
    w->ifetch_wait = 1;
    int out = line_requested(sm, line, RC_INST);
    if (add_waiter(g, sm, line, warp, -1, RC_INST) == 0 && !out)
        send_read(g, sm, line, sm->l1i.line_bytes, warp, RC_INST);
}

sim_time_t sim_front_const(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_inst_t *in)
{
    sim_time_t pc = g->period[GPUEST_CLK_CORE], hit = (sim_time_t)g->cfg->core.const_latency * pc;
    if (g->cfg->core.perfect_inst_const_cache)
        return g->now + hit;
    uint64_t lines[GPUEST_WARP_SIZE];
    int n = 0, missing = 0;
    uint64_t lb = (uint64_t)sm->l1c.line_bytes;
    for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++) {
        if (!(in->active_mask >> lane & 1))
            continue;
        uint64_t line = (SIM_CONST_BASE + (in->addr[lane] & 0xFFFF)) & ~(lb - 1);
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
            seen = lines[k] == line;
        if (!seen)
            lines[n++] = line;
    }
    sim_warp_t *w = &sm->warps[warp];
    int slot = -1;
    for (int k = 0; k < n; k++) {
        g->ctr.v[SC_l1c_accesses]++;
        if (sim_tags_find(&sm->l1c, lines[k], lines[k], 1))
            continue;
        g->ctr.v[SC_l1c_misses]++;
        if (slot < 0) { /* the read becomes a load in flight */
            slot = sim_load_slot_free(w);
            sim_load_t *ld = &w->load[slot];
            *ld = (sim_load_t){.done = g->now + hit, .issue = sim_core_cycle(g), .ndst = in->ndst};
            for (int d = 0; d < in->ndst; d++) {
                ld->dst[d] = in->dst[d];
                w->reg_ready[in->dst[d]] = INT64_MAX;
            }
            w->pending_loads++;
        }
        w->load[slot].pending++;
        missing++;
        int out = line_requested(sm, lines[k], RC_CONST);
        if (add_waiter(g, sm, lines[k], warp, slot, RC_CONST) == 0 && !out)
            send_read(g, sm, lines[k], (int)lb, warp, RC_CONST);
    }
    if (missing)
        return INT64_MAX;
    return g->now + hit + (sim_time_t)(n > 1 ? n - 1 : 0) * pc;
}

void sim_front_fill(sim_gpu_t *g, sim_sm_t *sm, int32_t req)
{
    sim_req_t *q = &g->pool.r[req];
    int cache = q->cache;
    sim_tags_t *t = cache == RC_INST ? &sm->l1i : &sm->l1c;
    uint64_t line = q->line + (uint64_t)__builtin_ctz(q->sectors) * GPUEST_SECTOR_BYTES;
    line &= ~(uint64_t)(t->line_bytes - 1);
    sim_pool_release(&g->pool, req);
    if (!sim_tags_find(t, line, line, 1))
        sim_tags_fill(t, sim_tags_victim(t, line), line, 0xF);
    sim_time_t ready = g->now + (sim_time_t)g->cfg->core.const_latency * g->period[GPUEST_CLK_CORE];
    int keep = 0;
    for (int k = 0; k < sm->nfwait; k++) {
        sim_fwait_t f = sm->fwait[k];
        if (f.line != line || f.cache != cache) {
            sm->fwait[keep++] = f;
            continue;
        }
        if (cache == RC_INST)
            sm->warps[f.warp].ifetch_wait = 0;
        else
            sim_load_line_done(g, sm, f.warp, f.slot, ready, 0);
    }
    sm->nfwait = keep;
}
