/* sample.c: sampled simulation: systematic whole-GPU units with drain, functional fast-forward
 * (L1/L2 tags, DRAM rows) and checked detailed warming (SMARTS, Wunderlich et al. ISCA'03, on a
 * GPU: every SM runs in each unit because contention is global).
 *
 * Fast-forward keeps the machine's architectural progress exact (every instruction of every warp
 * is consumed in order, barriers and CTA scheduling as in detailed mode) but takes no time: the
 * clock stands still, so fast-forwarded work costs a tag lookup per line request. Warps advance
 * one instruction each in turn (round robin), which keeps their relative progress close to what
 * a loosely coupled GTO/LRR schedule gives; the exact skew of the detailed schedule is not kept. */
#include <math.h>
#include <time.h>

#include "sim_int.h"

void gpuest_sample_opts_default(gpuest_sample_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->units = 30;
    o->warm_cycles = 2000;
    o->seed = 1;
}

void gpuest_sample_result_free(gpuest_sample_result_t *r)
{
    if (!r)
        return;
    free(r->units);
    free(r->kernel_warp_insts);
    free(r->kernel_thread_insts);
    memset(r, 0, sizeof *r);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- counting pass */
static gpuest_err count_kernels(const gpuest_sim_source_t *s, gpuest_sample_result_t *out, gpuest_error_t *err)
{
    size_t cap = 0;
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        GPUEST_TRY(s->next_launch(s->ctx, &l, &done, err));
        if (done)
            return GPUEST_OK;
        if (out->num_kernels == cap) {
            size_t nc = cap ? cap * 2 : 16;
            uint64_t *a = realloc(out->kernel_warp_insts, nc * sizeof *a);
            if (a)
                out->kernel_warp_insts = a;
            uint64_t *b = realloc(out->kernel_thread_insts, nc * sizeof *b);
            if (b)
                out->kernel_thread_insts = b;
            if (!a || !b)
                return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for kernel counts");
            cap = nc;
        }
        uint64_t wi = 0, ti = 0;
        for (uint32_t c = 0; c < l.num_ctas; c++)
            for (uint32_t w = 0; w < l.warps_per_cta; w++) {
                void *h = NULL;
                GPUEST_TRY(s->warp_open(s->ctx, c, w, &h, err));
                gpuest_inst_t in;
                gpuest_err rc;
                while ((rc = s->warp_next(s->ctx, h, &in, err)) == GPUEST_OK && in.kind != GPUEST_INST_END) {
                    wi++;
                    ti += (uint64_t)__builtin_popcount(in.active_mask);
                }
                s->warp_close(s->ctx, h);
                if (rc != GPUEST_OK)
                    return rc;
            }
        out->kernel_warp_insts[out->num_kernels] = wi;
        out->kernel_thread_insts[out->num_kernels] = ti;
        out->num_kernels++;
        GPUEST_TRY(s->end_launch(s->ctx, err));
    }
}

/* ---------------------------------------------------------------- functional warming */
/* Opens line's DRAM row in its channel (the mapping of dram.c). A bank that is serving a
 * request keeps its state: the command state machine relies on its open row. */
static void ff_dram_row(sim_gpu_t *g, uint64_t line)
{
    sim_dram_t *d = &g->chan[gpuest_config_mc_of_address(g->cfg, line)];
    uint64_t local = sim_mc_local(g, line), rb = (uint64_t)g->cfg->dram.row_bytes, nb = (uint64_t)g->cfg->dram.banks;
    sim_bank_t *b = &d->banks[(local / rb) % nb];
    if (b->has_cur)
        return;
    b->active = 1;
    b->row = (int64_t)(local / (rb * nb));
}

/* The L2 bank of line's sub-partition, as l2.c: write-back, allocate on miss, fetch-on-write
 * (a write miss fills the line clean: its data went on to DRAM). Every miss and every dirty
 * victim's write-back touch the channel's rows; the last one to touch a bank leaves its row
 * open. A set whose ways are all reserved by detailed misses in flight is left alone. */
static void ff_l2(sim_gpu_t *g, uint64_t line, int write)
{
    sim_mc_t *mc = &g->mc[sim_mc_of(g, line)];
    uint64_t local = sim_sub_local(g, line);
    sim_way_t *way = sim_tags_find(&mc->l2, local, line, 1);
    if (!way) {
        way = sim_tags_victim(&mc->l2, local);
        if (!way)
            return;
        if (way->valid && way->dirty)
            ff_dram_row(g, way->tag);
        sim_tags_fill(&mc->l2, way, line, 0xF);
        ff_dram_row(g, line);
        return; /* filled clean (sim_tags_fill), also after a write miss */
    }
    if (write)
        way->dirty = 1;
}

/* A tag array of the SM (L1D, L1I, L1C): 1 hit, else the line is filled whole (as the v2 fills)
 * and 0 returned; also 1 when every way of the set is reserved (nothing to warm). */
static int ff_tags(sim_tags_t *t, uint64_t line)
{
    sim_way_t *way = sim_tags_find(t, line, line, 1);
    if (way && way->valid == 0xF)
        return 1;
    if (!way)
        way = sim_tags_victim(t, line);
    if (!way)
        return 1;
    sim_tags_fill(t, way, line, 0xF);
    return 0;
}

static void ff_access(sim_gpu_t *g, sim_sm_t *sm, const gpuest_line_req_t *r, int op)
{
    if (op == GPUEST_MEM_LOAD) {
        sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 1);
        if (way && (way->valid & r->sectors) == r->sectors)
            return;
        if (!ff_tags(&sm->l1, r->line))
            ff_l2(g, r->line, 0);
        return;
    }
    sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 0);
    if (way) /* write-evict (stores) and evict-then-bypass (atomics), as l1.c */
        way->valid = 0;
    ff_l2(g, r->line, 1);
}

/* A constant read: the distinct L1C lines of its active lanes (front.c's addressing). */
static void ff_const(sim_gpu_t *g, sim_sm_t *sm, const gpuest_inst_t *in)
{
    if (g->cfg->core.perfect_inst_const_cache)
        return;
    uint64_t lb = (uint64_t)sm->l1c.line_bytes;
    for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++)
        if (in->active_mask >> lane & 1) {
            uint64_t line = (SIM_CONST_BASE + (in->addr[lane] & 0xFFFF)) & ~(lb - 1);
            if (!ff_tags(&sm->l1c, line))
                ff_l2(g, line & ~(uint64_t)(GPUEST_LINE_BYTES - 1), 0);
        }
}

/* 1 when a register in reads or writes waits on a load in flight (the scoreboard's INT64_MAX). */
static int reg_pending(const sim_warp_t *w, const gpuest_inst_t *in)
{
    for (int k = 0; k < in->nsrc; k++)
        if (w->reg_ready[in->src[k]] == INT64_MAX)
            return 1;
    for (int k = 0; k < in->ndst; k++)
        if (w->reg_ready[in->dst[k]] == INT64_MAX)
            return 1;
    return 0;
}

/* One instruction of warp slot s, functionally. Returns 1 if it advanced.
 *
 * A warp advances only at a clean instruction boundary of the v2 pipeline: active, its next
 * instruction fetched (no L1I fill pending), the LD/ST unit not busy with its previous memory
 * instruction, and, as the scoreboard rules in detailed mode, no register the instruction reads
 * or writes pending on a load in flight; a barrier or the warp's exit also waits for all its
 * loads (and the exit for its stores). Loads in flight therefore do not stop a warp whose next
 * instructions do not use them: the v2 warp keeps issuing past its loads, and a fast-forward
 * that froze every warp with a load out would leave only a few warps to run far ahead. A
 * fast-forwarded instruction's destinations are written at once: the clock stands still. */
static gpuest_err ff_step(sim_gpu_t *g, sim_sm_t *sm, int s, int *advanced, gpuest_error_t *err)
{
    sim_warp_t *w = &sm->warps[s];
    *advanced = 0;
    if (w->state != WS_ACTIVE || w->ifetch_wait || (sm->ldst.busy && sm->ldst.warp == s))
        return GPUEST_OK; /* waits for the memory system, whose clock stands still */
    gpuest_inst_t *in = &w->inst;
    if (in->kind == GPUEST_INST_END || in->kind == GPUEST_INST_BARRIER) {
        if (w->pending_loads > 0 || (in->kind == GPUEST_INST_END && w->pending_stores > 0))
            return GPUEST_OK;
    } else if (reg_pending(w, in)) {
        return GPUEST_OK;
    }
    if (in->kind == GPUEST_INST_END) {
        *advanced = 1;
        return sim_sm_retire_warp(g, sm, s, err);
    }
    if (in->kind == GPUEST_INST_MEM) {
        gpuest_line_req_t req[GPUEST_COALESCE_MAX];
        size_t n = gpuest_coalesce(in, req);
        for (size_t i = 0; i < n; i++)
            ff_access(g, sm, &req[i], (int)in->op);
    } else if (in->kind == GPUEST_INST_COMPUTE && in->lat == GPUEST_LAT_CONST && in->size > 0) {
        ff_const(g, sm, in);
    } else if (in->kind == GPUEST_INST_BARRIER) {
        GPUEST_TRY(sim_sm_barrier_arrive(g, sm, s, err));
    }
    for (int d = 0; d < in->ndst; d++)
        w->reg_ready[in->dst[d]] = g->now;
    if (w->last_write > g->now)
        w->last_write = g->now;
    *advanced = 1;
    GPUEST_TRY(g->src->warp_next(g->src->ctx, w->stream, &w->inst, err));
    if (w->inst.kind != GPUEST_INST_END)
        sim_front_fetch(g, sm, s); /* functional while g->functional is set: no request */
    return GPUEST_OK;
}

/* Fast-forwards up to budget warp instructions (or to the end of the launch). */
static gpuest_err fast_forward(sim_gpu_t *g, uint64_t budget, uint64_t *done, gpuest_error_t *err)
{
    *done = 0;
    int hold = g->hold_issue;
    g->hold_issue = 0;
    g->functional = 1; /* CTAs started here fetch their first instruction functionally too */
    while (*done < budget && g->ctas_done < g->launch.num_ctas) {
        int any = 0;
        for (int i = 0; i < g->nsm; i++) {
            sim_sm_t *sm = &g->sm[i];
            for (int s = 0; s < g->cfg->core.warps_per_sm && *done < budget; s++) {
                int adv = 0;
                int end = sm->warps[s].state == WS_ACTIVE && sm->warps[s].inst.kind == GPUEST_INST_END;
                GPUEST_TRY(ff_step(g, sm, s, &adv, err));
                if (adv && !end)
                    (*done)++;
                any |= adv;
            }
        }
        GPUEST_TRY(sim_gpu_assign_ctas(g, err));
        if (!any)
            break; /* every warp waits for memory (or a barrier held by one that does) */
    }
    g->functional = 0;
    g->hold_issue = hold;
    for (int i = 0; i < g->nsm; i++)
        g->sm[i].sleep_until = 0; /* readiness changed behind the SMs' backs */
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- detailed phases */
static int drained(const sim_gpu_t *g)
{
    if (g->pool.live > 0)
        return 0;
    for (int i = 0; i < g->nsm; i++)
        if (g->sm[i].ldst.busy || g->sm[i].missq.len > 0 || !sim_front_idle(&g->sm[i]) || sim_wp_len(&g->sm[i]) > 0)
            return 0;
    for (int c = 0; c < g->nchan; c++)
        if (g->chan[c].work > 0)
            return 0; /* write-backs of dirty L2 victims (no request of the pool) */
    return 1;
}

/* Advances to the next core-clock edge (every domain due on the way ticks). */
static gpuest_err core_cycle(sim_gpu_t *g, gpuest_error_t *err)
{
    uint64_t c0 = g->ticks[GPUEST_CLK_CORE];
    while (g->ticks[GPUEST_CLK_CORE] == c0)
        GPUEST_TRY(sim_gpu_instant(g, err));
    return GPUEST_OK;
}

static gpuest_err drain(sim_gpu_t *g, uint64_t *cycles, gpuest_error_t *err)
{
    g->hold_issue = 1;
    uint64_t n = 0;
    while (!drained(g)) {
        GPUEST_TRY(core_cycle(g, err));
        if (++n > 2000000) {
            g->hold_issue = 0;
            return gpuest_fail(err, GPUEST_EDEADLOCK, "sampling: requests still in flight after 2e6 drain cycles");
        }
    }
    g->hold_issue = 0;
    /* loads that hit in L1 finish at hit_done; the clock stands still in fast-forward */
    *cycles += n;
    return GPUEST_OK;
}

static uint64_t kernel_insts(const sim_gpu_t *g, uint64_t start_insts, uint64_t ff)
{
    return g->ctr.v[SC_warp_insts] - start_insts + ff;
}

/* Detailed warming: at least min_cycles, then until the mean in-flight count of the last quarter
 * window is within 10 % of the one before (or 4x min_cycles). */
static gpuest_err warm(sim_gpu_t *g, uint64_t min_cycles, uint64_t *cycles, int *steady, gpuest_error_t *err)
{
    uint64_t q = min_cycles / 4 ? min_cycles / 4 : 1, n = 0;
    double prev = -1.0;
    *steady = 0;
    while (g->ctas_done < g->launch.num_ctas && n < 4 * min_cycles) {
        double sum = 0.0;
        for (uint64_t i = 0; i < q && g->ctas_done < g->launch.num_ctas; i++, n++) {
            GPUEST_TRY(core_cycle(g, err));
            sum += (double)g->pool.live;
        }
        double mean = sum / (double)q;
        if (n >= min_cycles && prev >= 0 && fabs(mean - prev) <= 0.1 * (prev > 1.0 ? prev : 1.0)) {
            *steady = 1;
            break;
        }
        prev = mean;
    }
    *cycles = n;
    return GPUEST_OK;
}

static uint64_t link_flits(const sim_gpu_t *g)
{
    uint64_t s = 0;
    for (int l = 0; l < g->nlinks; l++) {
        gpuest_noc_link_t li;
        gpuest_noc_link_info(g->noc, l, &li);
        s += li.flits;
    }
    return s;
}

static gpuest_err push_unit(gpuest_sample_result_t *out, size_t *cap, const gpuest_sample_unit_t *u)
{
    if (out->num_units == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        gpuest_sample_unit_t *nu = realloc(out->units, nc * sizeof *nu);
        if (!nu)
            return GPUEST_ENOMEM;
        out->units = nu;
        *cap = nc;
    }
    out->units[out->num_units++] = *u;
    return GPUEST_OK;
}

/* One measured unit of at least `insts` warp instructions (or to the end of the launch).
 *
 * A unit runs from a cycle in which an instruction issues to the cycle before the first issue
 * after its last instruction: it holds its instructions and the gap after each, as units that
 * tile the instruction stream do. Starting at the cycle the warming happens to end would start
 * inside a GPU-wide stall with a probability that grows with the stall's length (the inspection
 * paradox) and bias CPI upwards. The cycles spent waiting for that first issue count as warming. */
static gpuest_err measure(sim_gpu_t *g, uint64_t insts, gpuest_sample_unit_t *u, gpuest_error_t *err)
{
    sim_counters_t a = g->ctr, b;
    uint64_t c0 = g->ticks[GPUEST_CLK_CORE], f0 = link_flits(g), c1, f1;
    while (g->ctas_done < g->launch.num_ctas) { /* align the start with an issuing cycle */
        a = g->ctr;
        c0 = g->ticks[GPUEST_CLK_CORE];
        f0 = link_flits(g);
        GPUEST_TRY(core_cycle(g, err));
        if (g->ctr.v[SC_warp_insts] > a.v[SC_warp_insts])
            break;
        u->warm_cycles++;
    }
    double inflight = (double)g->pool.live;
    while (g->ctr.v[SC_warp_insts] - a.v[SC_warp_insts] < insts && g->ctas_done < g->launch.num_ctas) {
        GPUEST_TRY(core_cycle(g, err));
        inflight += (double)g->pool.live;
    }
    for (;;) { /* the gap after the last instruction: up to, not including, the next issuing cycle */
        b = g->ctr;
        c1 = g->ticks[GPUEST_CLK_CORE];
        f1 = link_flits(g);
        if (g->ctas_done >= g->launch.num_ctas)
            break;
        GPUEST_TRY(core_cycle(g, err));
        if (g->ctr.v[SC_warp_insts] > b.v[SC_warp_insts])
            break;
        inflight += (double)g->pool.live;
    }
    double pc = (double)g->period[GPUEST_CLK_CORE];
    u->cycles = c1 - c0;
    u->warp_insts = b.v[SC_warp_insts] - a.v[SC_warp_insts];
    u->thread_insts = b.v[SC_thread_insts] - a.v[SC_thread_insts];
    u->amat_sum = (double)(b.v[SC_amat_fs] - a.v[SC_amat_fs]) / pc;
    u->amat_n = (double)(b.v[SC_amat_n] - a.v[SC_amat_n]);
    u->miss_sum = (double)(b.v[SC_miss_fs] - a.v[SC_miss_fs]) / pc;
    u->miss_n = (double)(b.v[SC_read_done] - a.v[SC_read_done]);
    u->mc_cycles = b.v[SC_mc_cycles] - a.v[SC_mc_cycles];
    u->mc_stalls = b.v[SC_mc_stalls] - a.v[SC_mc_stalls];
    u->link_flits = f1 - f0;
    u->inflight = u->cycles ? inflight / (double)u->cycles : 0.0;
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- one kernel */
static gpuest_err sample_kernel(sim_gpu_t *g, const gpuest_sample_opts_t *o, int k, int nunits, uint64_t kinsts,
                                uint64_t *rng, gpuest_sample_result_t *out, size_t *cap, gpuest_error_t *err)
{
    GPUEST_TRY(sim_gpu_check_launch(g, err));
    GPUEST_TRY(sim_front_launch(g, err)); /* the launch's code segment (L1I addresses) */
    for (int i = 0; i < g->nsm; i++)
        sim_tags_invalidate_all(&g->sm[i].l1); /* as gpu.c: L1s start cold at each launch */
    g->next_cta = g->ctas_done = 0;
    g->rr_sm = 0;
    gpuest_noc_stats_reset(g->noc);
    sim_progress(g);
    uint64_t unit = o->unit_insts ? o->unit_insts : 100u * (uint64_t)g->nsm;
    uint64_t period = kinsts / (uint64_t)(nunits > 0 ? nunits : 1);
    if (unit > period / 2)
        unit = period / 2 > 0 ? period / 2 : 1;
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL; /* LCG: one random start per kernel */
    uint64_t span = period > unit ? period - unit : 1;
    uint64_t offset = (*rng >> 33) % span;
    uint64_t start_insts = g->ctr.v[SC_warp_insts], ff = 0;
    double warp_ipc = 0.5 * g->nsm; /* guess until the first unit is measured */
    double last_amat = 0.0;
    GPUEST_TRY(sim_gpu_assign_ctas(g, err));
    for (int j = 0; j < nunits && g->ctas_done < g->launch.num_ctas; j++) {
        uint64_t target = offset + (uint64_t)j * period;
        double wc = (double)o->warm_cycles > 2.0 * last_amat ? (double)o->warm_cycles : 2.0 * last_amat;
        uint64_t lead = (uint64_t)(warp_ipc * wc); /* the warming's instructions */
        uint64_t pos = kernel_insts(g, start_insts, ff);
        if (pos + lead < target) {
            uint64_t done = 0;
            GPUEST_TRY(fast_forward(g, target - lead - pos, &done, err));
            ff += done;
        }
        gpuest_sample_unit_t u;
        memset(&u, 0, sizeof u);
        u.kernel = k;
        /* detailed warming: at least warm_cycles and twice the loaded AMAT of the last unit (method
         * note 3: the queues need about two loaded round trips to refill after fast-forward) */
        uint64_t wmin = o->warm_cycles > (uint64_t)(2.0 * last_amat) ? o->warm_cycles : (uint64_t)(2.0 * last_amat);
        uint64_t t0 = g->ticks[GPUEST_CLK_CORE];
        GPUEST_TRY(warm(g, wmin, &u.warm_cycles, &u.warm_steady, err));
        if (g->ctas_done < g->launch.num_ctas)
            GPUEST_TRY(measure(g, unit, &u, err));
        out->detailed_cycles += g->ticks[GPUEST_CLK_CORE] - t0;
        if (g->ctas_done >= g->launch.num_ctas && u.warp_insts == 0)
            break;
        if (u.warp_insts < unit)
            break; /* the launch ended inside the unit: its tail is not a full unit */
        warp_ipc = u.cycles ? (double)u.warp_insts / (double)u.cycles : warp_ipc;
        last_amat = u.amat_n > 0 ? u.amat_sum / u.amat_n : last_amat;
        if (push_unit(out, cap, &u) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for sampling units");
        if (o->progress)
            gpuest_progress_update(o->progress, out->num_units);
    }
    /* the rest of the launch: drain, then fast-forward to its end (warms the caches for the next) */
    if (g->ctas_done < g->launch.num_ctas) {
        uint64_t dc = 0, done = 0;
        GPUEST_TRY(drain(g, &dc, err));
        out->drain_cycles += dc;
        out->detailed_cycles += dc;
        GPUEST_TRY(fast_forward(g, UINT64_MAX, &done, err));
        ff += done;
        if (g->ctas_done < g->launch.num_ctas)
            return gpuest_fail(err, GPUEST_EDEADLOCK, "sampling: kernel %s cannot finish in fast-forward (%u of %u "
                                                      "CTAs done)",
                               g->launch.name, g->ctas_done, g->launch.num_ctas);
    }
    out->ff_warp_insts += ff;
    out->detailed_warp_insts += g->ctr.v[SC_warp_insts] - start_insts;
    return GPUEST_OK;
}

static gpuest_err sample_all(sim_gpu_t *g, const gpuest_sample_opts_t *o, gpuest_sample_result_t *out,
                             gpuest_error_t *err)
{
    uint64_t total = 0;
    for (size_t k = 0; k < out->num_kernels; k++)
        total += out->kernel_warp_insts[k];
    if (total == 0)
        return gpuest_fail(err, GPUEST_EINVAL, "sampling: the workload executes no instruction");
    GPUEST_TRY(sim_gpu_build(g, err));
    uint64_t rng = o->seed ^ 0x9E3779B97F4A7C15ULL;
    size_t cap = 0;
    for (size_t k = 0;; k++) {
        int done = 0;
        GPUEST_TRY(g->src->next_launch(g->src->ctx, &g->launch, &done, err));
        if (done)
            break;
        if (k >= out->num_kernels)
            return gpuest_fail(err, GPUEST_EMISMATCH, "sampling: the source has more launches than its counting "
                                                      "copy (is it deterministic?)");
        int n = (int)((double)o->units * (double)out->kernel_warp_insts[k] / (double)total + 0.5);
        GPUEST_TRY(sample_kernel(g, o, (int)k, n > 1 ? n : 1, out->kernel_warp_insts[k], &rng, out, &cap, err));
        GPUEST_TRY(g->src->end_launch(g->src->ctx, err));
    }
    return GPUEST_OK;
}

gpuest_err gpuest_sim_sample(const gpuest_config_t *cfg, const gpuest_sim_source_t *src,
                             const gpuest_sim_source_t *count_src, const gpuest_sample_opts_t *opts,
                             gpuest_sample_result_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    gpuest_sample_opts_t o;
    if (opts)
        o = *opts;
    else
        gpuest_sample_opts_default(&o);
    if (o.units < 1 || o.warm_cycles < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "sampling: units and warm cycles must be >= 1");
    double t0 = wall_now();
    GPUEST_TRY(count_kernels(count_src, out, err));
    sim_gpu_t *g = calloc(1, sizeof *g);
    if (!g)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the simulator");
    gpuest_sim_opts_t so;
    gpuest_sim_opts_default(&so);
    so.sample_interval = 0;
    so.hooks = o.hooks;
    g->cfg = cfg;
    g->src = src;
    g->opts = &so;
    g->pool.free_head = -1;
    g->noc_progress = -1;
    g->err = err;
    gpuest_err rc = sample_all(g, &o, out, err);
    sim_gpu_teardown(g);
    free(g);
    out->wall_seconds = wall_now() - t0;
    return rc;
}
