/* sm.c: a streaming multiprocessor: CTA slots, warp state, scoreboard, issue, LD/ST unit, miss queues towards the NI.
 *
 * Issue model (docs/sim.md): a warp issues in order, one instruction per
 * scheduler per cycle, when its next instruction is fetched (front.c) and no
 * register it reads or writes is pending on the warp's scoreboard (RAW and
 * WAW). A compute instruction's destinations are pending for its latency; a
 * load's (or atomic's) until every line request it made has returned, so a
 * warp has up to SIM_LOADS_PER_WARP loads in flight and runs ahead until an
 * instruction needs a loaded value. Stores do not block; a warp exits (and a
 * barrier is passed) only when its loads have returned and its writes are
 * back, and exits after its stores are acknowledged. */
#include "sim_int.h"

gpuest_err sim_sm_init(sim_gpu_t *g, sim_sm_t *sm, int id, int node, gpuest_error_t *err)
{
    const gpuest_config_t *c = g->cfg;
    memset(sm, 0, sizeof *sm);
    sm->id = id;
    sm->node = node;
    sm->nsched = c->core.schedulers_per_sm > 0 ? c->core.schedulers_per_sm : 1;
    if (sm->nsched > c->core.warps_per_sm)
        sm->nsched = c->core.warps_per_sm;
    sm->warps = calloc((size_t)c->core.warps_per_sm, sizeof *sm->warps);
    sm->ctas = calloc((size_t)c->core.ctas_per_sm, sizeof *sm->ctas);
    sm->sched = calloc((size_t)sm->nsched, sizeof *sm->sched);
    if (!sm->warps || !sm->ctas || !sm->sched)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for SM %d", id);
    for (int s = 0; s < sm->nsched; s++) {
        sm->sched[s].last = -1;
        sm->sched[s].nslots = (c->core.warps_per_sm - s + sm->nsched - 1) / sm->nsched;
    }
    GPUEST_TRY(sim_tags_init(&sm->l1, "l1", c->l1.size_bytes, c->l1.line_bytes, c->l1.assoc, err));
    if (g->opts->hooks.l1c_fill) /* a compressed L1D (LATTE-CC): 4x tags, 32-byte sub-blocks */
        GPUEST_TRY(sim_l1c_init(g, sm, err));
    GPUEST_TRY(sim_mshr_init(&sm->mshr, c->l1.mshrs, c->l1.mshr_merge, err));
    sm->regs = malloc((size_t)c->core.warps_per_sm * GPUEST_REG_COUNT * sizeof *sm->regs);
    if (!sm->regs)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the scoreboards of SM %d", id);
    for (int s = 0; s < c->core.warps_per_sm; s++)
        sm->warps[s].reg_ready = sm->regs + (size_t)s * GPUEST_REG_COUNT;
    GPUEST_TRY(sim_wp_init(g, sm, err));
    GPUEST_TRY(sim_l1s_init(g, sm, err));
    return sim_front_init(g, sm, err);
}

void sim_sm_free(sim_gpu_t *g, sim_sm_t *sm)
{
    (void)g;
    free(sm->warps);
    free(sm->ctas);
    free(sm->sched);
    sim_tags_free(&sm->l1);
    sim_l1c_free(sm);
    sim_mshr_free(&sm->mshr);
    sim_l1s_free(sm);
    sim_fifo_free(&sm->missq);
    free(sm->regs);
    sim_front_free(sm);
    sim_wp_free(sm);
}

int sim_sm_fits(const sim_gpu_t *g, const sim_sm_t *sm, const gpuest_launch_t *l)
{
    const gpuest_core_cfg_t *c = &g->cfg->core;
    return sm->ctas_used < c->ctas_per_sm && sm->warps_used + (int)l->warps_per_cta <= c->warps_per_sm &&
           sm->threads_used + (int)l->threads_per_cta <= c->threads_per_sm &&
           sm->regs_used + (int)l->regs_per_cta <= c->registers_per_sm &&
           sm->shmem_used + (int)l->shmem_bytes <= c->shmem_per_sm;
}

/* Takes the warp's next instruction from its stream and fetches it through the L1I. */
static gpuest_err fetch(sim_gpu_t *g, sim_sm_t *sm, int slot, gpuest_error_t *err)
{
    sim_warp_t *w = &sm->warps[slot];
    GPUEST_TRY(g->src->warp_next(g->src->ctx, w->stream, &w->inst, err));
    if (w->inst.kind != GPUEST_INST_END)
        sim_front_fetch(g, sm, slot);
    return GPUEST_OK;
}

gpuest_err sim_sm_assign_cta(sim_gpu_t *g, sim_sm_t *sm, uint32_t cta, gpuest_error_t *err)
{
    const gpuest_launch_t *l = &g->launch;
    int cs = 0;
    while (sm->ctas[cs].used)
        cs++;
    sm->sleep_until = 0;
    sm->ctas[cs] = (sim_cta_t){.used = 1, .cta_id = cta, .warps_live = (int)l->warps_per_cta,
                               .nwarps = (int)l->warps_per_cta};
    sm->ctas_used++;
    sm->warps_used += (int)l->warps_per_cta;
    sm->threads_used += (int)l->threads_per_cta;
    sm->regs_used += (int)l->regs_per_cta;
    sm->shmem_used += (int)l->shmem_bytes;
    int slot = 0;
    for (uint32_t k = 0; k < l->warps_per_cta; k++) {
        while (sm->warps[slot].state != WS_EMPTY)
            slot++;
        sim_warp_t *w = &sm->warps[slot];
        sim_time_t *regs = w->reg_ready;
        memset(w, 0, sizeof *w);
        memset(regs, 0, GPUEST_REG_COUNT * sizeof *regs);
        w->reg_ready = regs;
        w->iline = UINT64_MAX;
        w->state = WS_ACTIVE;
        w->cta_slot = cs;
        w->age = g->age++;
        GPUEST_TRY(g->src->warp_open(g->src->ctx, cta, k, &w->stream, err));
        GPUEST_TRY(fetch(g, sm, slot, err));
    }
    return GPUEST_OK;
}

static gpuest_err release_barrier(sim_gpu_t *g, sim_sm_t *sm, int cs, gpuest_error_t *err)
{
    sim_cta_t *c = &sm->ctas[cs];
    for (int s = 0; s < g->cfg->core.warps_per_sm; s++) {
        sim_warp_t *w = &sm->warps[s];
        if (w->state == WS_BARRIER && w->cta_slot == cs)
            w->state = WS_ACTIVE;
    }
    c->at_barrier = 0;
    (void)err;
    return GPUEST_OK;
}

static gpuest_err retire(sim_gpu_t *g, sim_sm_t *sm, int slot, gpuest_error_t *err)
{
    sim_warp_t *w = &sm->warps[slot];
    sim_cta_t *c = &sm->ctas[w->cta_slot];
    g->src->warp_close(g->src->ctx, w->stream);
    w->stream = NULL;
    w->state = WS_EMPTY;
    for (int s = 0; s < sm->nsched; s++)
        if (sm->sched[s].last == slot)
            sm->sched[s].last = -1;
    c->warps_live--;
    if (c->warps_live == 0) {
        const gpuest_launch_t *l = &g->launch;
        c->used = 0;
        sm->ctas_used--;
        sm->warps_used -= c->nwarps;
        sm->threads_used -= (int)l->threads_per_cta;
        sm->regs_used -= (int)l->regs_per_cta;
        sm->shmem_used -= (int)l->shmem_bytes;
        g->ctas_done++;
    } else if (c->at_barrier > 0 && c->at_barrier == c->warps_live) {
        GPUEST_TRY(release_barrier(g, sm, w->cta_slot, err));
    }
    sim_progress(g);
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- scoreboard */
int sim_load_slot_free(const sim_warp_t *w)
{
    for (int k = 0; k < SIM_LOADS_PER_WARP; k++)
        if (w->load[k].pending == 0)
            return k;
    return -1;
}

void sim_load_line_done(sim_gpu_t *g, sim_sm_t *sm, int warp, int load, sim_time_t done, int hit)
{
    sim_warp_t *w = &sm->warps[warp];
    sim_load_t *ld = &w->load[load];
    if (done > ld->done)
        ld->done = done;
    ld->hits += hit;
    ld->misses += !hit;
    if (--ld->pending > 0)
        return;
    for (int k = 0; k < ld->ndst; k++)
        w->reg_ready[ld->dst[k]] = ld->done;
    if (ld->done > w->last_write)
        w->last_write = ld->done;
    w->pending_loads--;
    sm->sleep_until = 0;
    if (g->opts->hooks.load_done) {
        sim_time_t p = g->period[GPUEST_CLK_CORE];
        g->opts->hooks.load_done(g->opts->hooks.ctx, sm->id, warp, ld->issue, (uint64_t)((ld->done + p - 1) / p),
                                 ld->hits, ld->misses);
    }
}

/* Latest write-back time of the registers in (INT64_MAX: a load is pending). */
static sim_time_t operands_ready(const sim_warp_t *w, const gpuest_inst_t *in)
{
    sim_time_t t = 0;
    for (int k = 0; k < in->nsrc; k++)
        if (w->reg_ready[in->src[k]] > t)
            t = w->reg_ready[in->src[k]];
    for (int k = 0; k < in->ndst; k++)
        if (w->reg_ready[in->dst[k]] > t)
            t = w->reg_ready[in->dst[k]];
    return t;
}

static int needs_load_slot(const gpuest_inst_t *in)
{
    return (in->kind == GPUEST_INST_MEM && in->op != GPUEST_MEM_STORE) ||
           (in->kind == GPUEST_INST_COMPUTE && in->lat == GPUEST_LAT_CONST && in->size > 0);
}

/* Earliest time a blocked warp can become ready by itself (INT64_MAX: only a
 * reply, a barrier release or another warp can wake it). */
static sim_time_t wake_time(const sim_gpu_t *g, const sim_warp_t *w)
{
    (void)g;
    if (w->state != WS_ACTIVE || w->ifetch_wait)
        return INT64_MAX;
    const gpuest_inst_t *in = &w->inst;
    if (in->kind == GPUEST_INST_END || in->kind == GPUEST_INST_BARRIER)
        return w->pending_loads > 0 || (in->kind == GPUEST_INST_END && w->pending_stores > 0) ? INT64_MAX
                                                                                              : w->last_write;
    if (needs_load_slot(in) && sim_load_slot_free(w) < 0)
        return INT64_MAX;
    return operands_ready(w, in);
}

/* Readiness of every slot for this cycle; retires warps that reached END. */
static gpuest_err scan_ready(sim_gpu_t *g, sim_sm_t *sm, uint8_t *ready, int *avail, gpuest_error_t *err)
{
    int n = 0;
    for (int s = 0; s < g->cfg->core.warps_per_sm; s++) {
        sim_warp_t *w = &sm->warps[s];
        ready[s] = 0;
        if (w->state != WS_ACTIVE || w->ifetch_wait)
            continue;
        const gpuest_inst_t *in = &w->inst;
        switch (in->kind) {
        case GPUEST_INST_COMPUTE:
        case GPUEST_INST_MEM:
            if (operands_ready(w, in) > g->now)
                break; /* scoreboard: a register it reads or writes is pending */
            ready[s] = (!needs_load_slot(in) || sim_load_slot_free(w) >= 0) &&
                       (in->kind == GPUEST_INST_COMPUTE || !sm->ldst.busy);
            break;
        case GPUEST_INST_BARRIER:
            ready[s] = w->pending_loads == 0 && g->now >= w->last_write;
            break;
        default: /* END */
            if (w->pending_loads == 0 && w->pending_stores == 0 && g->now >= w->last_write)
                GPUEST_TRY(retire(g, sm, s, err));
            break;
        }
        n += ready[s];
    }
    *avail = n;
    return GPUEST_OK;
}

static int inst_latency(const sim_gpu_t *g, const gpuest_inst_t *in)
{
    unsigned k = (unsigned)in->lat;
    return k < 5 ? g->lat_class[k] : g->lat_class[0];
}

/* Takes a load slot for in (the caller checked one is free); its
 * destinations become pending. */
static int begin_load(sim_gpu_t *g, sim_warp_t *w, const gpuest_inst_t *in, int32_t lines)
{
    int k = sim_load_slot_free(w);
    sim_load_t *ld = &w->load[k];
    *ld = (sim_load_t){.pending = lines, .done = g->now, .issue = sim_core_cycle(g), .ndst = in->ndst};
    for (int d = 0; d < in->ndst; d++) {
        ld->dst[d] = in->dst[d];
        w->reg_ready[in->dst[d]] = INT64_MAX;
    }
    w->pending_loads++;
    return k;
}

static void write_regs(sim_warp_t *w, const gpuest_inst_t *in, sim_time_t done)
{
    for (int d = 0; d < in->ndst; d++)
        w->reg_ready[in->dst[d]] = done;
    if (done > w->last_write)
        w->last_write = done;
}

static void issue_compute(sim_gpu_t *g, sim_sm_t *sm, int slot)
{
    sim_warp_t *w = &sm->warps[slot];
    const gpuest_inst_t *in = &w->inst;
    if (in->lat == GPUEST_LAT_CONST && in->size > 0) {
        sim_time_t done = sim_front_const(g, sm, slot, in);
        if (done != INT64_MAX)
            write_regs(w, in, done);
        return;
    }
    write_regs(w, in, g->now + (sim_time_t)inst_latency(g, in) * g->period[GPUEST_CLK_CORE]);
}

static void issue_mem(sim_gpu_t *g, sim_sm_t *sm, int slot)
{
    sim_warp_t *w = &sm->warps[slot];
    const gpuest_inst_t *in = &w->inst;
    sim_ldst_t *u = &sm->ldst;
    u->n = gpuest_coalesce(in, u->req);
    u->next = 0;
    u->warp = slot;
    u->op = (int)in->op;
    u->busy = u->n > 0;
    u->stalled = 0;
    u->load = -1;
    u->pc = in->pc;
    if (in->op == GPUEST_MEM_STORE)
        w->pending_stores += (int32_t)u->n;
    else if (u->n > 0)
        u->load = begin_load(g, w, in, (int32_t)u->n);
    else
        write_regs(w, in, g->now); /* no active lane: nothing to wait for */
}

static gpuest_err issue(sim_gpu_t *g, sim_sm_t *sm, int slot, gpuest_error_t *err)
{
    sim_warp_t *w = &sm->warps[slot];
    gpuest_inst_t *in = &w->inst;
    w->issued++;
    g->ctr.v[SC_warp_insts]++;
    g->ctr.v[SC_thread_insts] += (uint64_t)__builtin_popcount(in->active_mask);
    if (in->kind == GPUEST_INST_COMPUTE) {
        issue_compute(g, sm, slot);
    } else if (in->kind == GPUEST_INST_MEM) {
        issue_mem(g, sm, slot);
    } else if (in->kind == GPUEST_INST_BARRIER) {
        sim_cta_t *c = &sm->ctas[w->cta_slot];
        w->state = WS_BARRIER;
        c->at_barrier++;
        if (c->at_barrier == c->warps_live)
            GPUEST_TRY(release_barrier(g, sm, w->cta_slot, err));
    }
    sim_progress(g);
    return fetch(g, sm, slot, err);
}

static void ldst_stall(sim_gpu_t *g, sim_ldst_t *u, int ctr)
{
    g->ctr.v[ctr]++;
    u->stalled = 1;
    u->stall_ctr = ctr;
}

/* One line request of the LD/ST unit per cycle. A request that stalled (MSHRs or
 * miss queue full) stalls again, with the same outcome, until a fill reaches this
 * L1 or the miss queue drains: only then is the L1 access retried. A stalled try
 * changes no state (a stalled load never finds its line, so it touches no LRU
 * stamp), so skipping the repeats is exact and saves the tag and MSHR searches
 * while the MC back-pressure holds the miss queue full. */
static void ldst_step(sim_gpu_t *g, sim_sm_t *sm)
{
    sim_ldst_t *u = &sm->ldst;
    if (sm->wp) { /* WarpPool: the line requests go through the pool (warppool.c) */
        sim_wp_step(g, sm);
        return;
    }
    if (!u->busy)
        return;
    if (u->stalled) {
        g->ctr.v[u->stall_ctr]++;
        return;
    }
    const gpuest_line_req_t *r = &u->req[u->next];
    sm->l1_port_cycle = sim_core_cycle(g) + 1; /* the L1D port is taken: a remote probe waits (probe.c) */
    if (u->op == GPUEST_MEM_STORE) {
        if (sim_l1_store(g, sm, u->warp, r, u->op) != 0) {
            ldst_stall(g, u, SC_l1_missq_stalls);
            return;
        }
    } else {
        sim_l1_outcome_t o = sim_l1_load(g, sm, u->warp, r, u->op);
        if (o == L1_STALL_MSHR || o == L1_STALL_MISSQ) {
            ldst_stall(g, u, o == L1_STALL_MSHR ? SC_l1_mshr_stalls : SC_l1_missq_stalls);
            return;
        }
    }
    sim_progress(g);
    if (++u->next == u->n)
        u->busy = 0;
}

static int request_flits(const sim_gpu_t *g, const sim_req_t *q)
{
    if (q->op == GPUEST_MEM_LOAD)
        return g->read_req_flits;
    return gpuest_sim_packet_flits(&g->cfg->noc, gpuest_sector_count(q->sectors) * GPUEST_SECTOR_BYTES);
}

/* Instruction and constant misses go first: they are few, and a warp waiting
 * for its instruction stalls everything behind it. */
static int front_missq_step(sim_gpu_t *g, sim_sm_t *sm)
{
    if (sm->fmissq.len == 0)
        return 0;
    int32_t i = sim_fifo_peek(&sm->fmissq);
    sim_req_t *q = &g->pool.r[i];
    if (sim_inject(g, sm->node, g->mc[q->mc].node, GPUEST_NOC_REQUEST, g->read_req_flits, i) != 0)
        return 0;
    sim_fifo_pop(&sm->fmissq);
    q->state = RQ_REQ_NET;
    sim_progress(g);
    return 1;
}

static void missq_step(sim_gpu_t *g, sim_sm_t *sm)
{
    if (front_missq_step(g, sm) || sm->missq.len == 0)
        return;
    int32_t i = sim_fifo_peek(&sm->missq);
    sim_req_t *q = &g->pool.r[i];
    int dst = g->mc[q->mc].node;
    if (sim_inject(g, sm->node, dst, GPUEST_NOC_REQUEST, request_flits(g, q), i) == 0) {
        sim_fifo_pop(&sm->missq);
        sm->ldst.stalled = 0; /* miss-queue room: a stalled L1 access may go now */
        q->state = RQ_REQ_NET;
        sim_progress(g);
    }
}

int sim_sm_busy(const sim_sm_t *sm)
{
    return sm->warps_used > 0 || sm->missq.len > 0 || sm->ldst.busy || sm->mshr.used > 0 || !sim_front_idle(sm) ||
           sim_wp_len(sm) > 0;
}

/* Nothing can issue: sleep until the earliest self-wake time (replies and CTA
 * assignment wake the SM early). Saves the per-cycle warp scan. */
static void maybe_sleep(sim_gpu_t *g, sim_sm_t *sm)
{
    if (sm->ldst.busy || sm->missq.len > 0 || sm->fmissq.len > 0 || sim_wp_len(sm) > 0)
        return;
    sim_time_t t = INT64_MAX;
    for (int s = 0; s < g->cfg->core.warps_per_sm; s++) {
        sim_time_t w = wake_time(g, &sm->warps[s]);
        if (w < t)
            t = w;
    }
    sm->sleep_until = t;
}

gpuest_err sim_sm_cycle(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err)
{
    if (!sim_sm_busy(sm))
        return GPUEST_OK;
    if (g->now < sm->sleep_until) { /* asleep: no warp available this cycle */
        g->ctr.v[SC_sm_cycles]++;
        sm->iv_cycles++;
        sm->lt_cycles++;
        return GPUEST_OK;
    }
    uint8_t ready[256];
    uint8_t *rd = g->cfg->core.warps_per_sm <= 256 ? ready : malloc((size_t)g->cfg->core.warps_per_sm);
    if (!rd)
        return sim_oom(g, "warp readiness");
    int avail = 0;
    gpuest_err rc = scan_ready(g, sm, rd, &avail, err);
    if (rc == GPUEST_OK && sm->warps_used > 0) {
        g->ctr.v[SC_avail_sum] += (uint64_t)avail;
        g->ctr.v[SC_sm_cycles]++;
        sm->iv_avail += (uint64_t)avail;
        sm->iv_cycles++;
        sm->lt_avail += (uint64_t)avail;
        sm->lt_cycles++;
    }
    for (int s = 0; rc == GPUEST_OK && s < sm->nsched && avail > 0 && !g->hold_issue; s++) {
        int slot = sim_sched_pick(g, sm, s, rd);
        if (slot < 0)
            continue;
        if (sm->warps[slot].inst.kind == GPUEST_INST_MEM && sm->ldst.busy)
            continue; /* another scheduler took the LD/ST unit this cycle */
        uint64_t runs0 = sm->sched[s].runs;
        sim_sched_issued(sm, s, slot);
        g->ctr.v[SC_sched_issue]++;
        sm->iv_issue++;
        sm->lt_issue++;
        if (sm->sched[s].runs != runs0) {
            g->ctr.v[SC_sched_runs]++;
            sm->iv_runs++;
            sm->lt_runs++;
        }
        rd[slot] = 0;
        rc = issue(g, sm, slot, err);
    }
    if (rd != ready)
        free(rd);
    if (rc != GPUEST_OK)
        return rc;
    ldst_step(g, sm);
    missq_step(g, sm);
    if (avail == 0 && sm->warps_used > 0)
        maybe_sleep(g, sm);
    return g->failed ? sim_oom(g, "memory requests") : GPUEST_OK;
}

/* A copy of multicast reply c (a carrier, mc.c) reached this SM: unlinks and returns this SM's
 * member request (-1 when the SM is not, or no longer, a member); the carrier is released with
 * its last copy. */
static int32_t take_copy(sim_gpu_t *g, sim_sm_t *sm, int32_t c)
{
    int32_t *link = &g->pool.r[c].group_next;
    while (*link >= 0 && g->pool.r[*link].sm != sm->id)
        link = &g->pool.r[*link].group_next;
    int32_t i = *link;
    if (i < 0)
        return -1;
    *link = g->pool.r[i].group_next;
    g->pool.r[i].group_next = -1;
    if (--g->pool.r[c].copies_left == 0)
        sim_pool_release(&g->pool, c);
    return i;
}

gpuest_err sim_sm_receive(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err)
{
    gpuest_noc_packet_t pkt;
    if (!gpuest_noc_eject(g->noc, sm->node, &pkt))
        return GPUEST_OK;
    if (g->probe && sim_probe_is_msg(&pkt))
        return sim_probe_receive(g, sm, &pkt, err);
    int32_t i = (int32_t)((intptr_t)pkt.payload - 1);
    if (i == -1 && pkt.cls == GPUEST_NOC_REPLY) { /* a technique's control packet: consumed by the NI */
        g->ctr.v[SC_ctrl_received]++;
        sim_progress(g);
        return GPUEST_OK;
    }
    if (i >= 0 && i < g->pool.cap && g->pool.r[i].carrier && g->pool.r[i].state == RQ_REPLY_NET)
        i = take_copy(g, sm, i);
    if (i < 0 || i >= g->pool.cap || g->pool.r[i].state != RQ_REPLY_NET || g->pool.r[i].sm != sm->id)
        return gpuest_fail(err, GPUEST_ECORRUPT, "SM %d received a reply for request %ld that is not outstanding",
                           sm->id, (long)i);
    sim_req_t *q = &g->pool.r[i];
    sim_progress(g);
    sm->sleep_until = 0;
    g->ctr.v[SC_replies]++;
    if (q->op == GPUEST_MEM_LOAD && q->cache != RC_DATA) {
        sim_front_fill(g, sm, i);
        return GPUEST_OK;
    }
    if (q->op == GPUEST_MEM_LOAD) {
        g->ctr.v[SC_read_done]++;
        g->ctr.v[SC_miss_fs] += (uint64_t)(g->now - q->t_created);
        if (g->lat_ring)
            g->lat_ring[g->lat_pos++ % g->lat_cap] = /* the top bit: the L2 missed it */
                (uint32_t)((g->now - q->t_created) / g->period[GPUEST_CLK_CORE]) | (uint32_t)q->l2_miss << 31;
        g->ctr.v[SC_req_fs] += (uint64_t)(q->t_accept - q->t_created);
        g->ctr.v[SC_mem_fs] += (uint64_t)(q->t_reply - q->t_accept);
        g->ctr.v[SC_reply_fs] += (uint64_t)(g->now - q->t_reply);
        sim_l1_fill(g, sm, i);
        return GPUEST_OK;
    }
    sim_warp_t *w = &sm->warps[q->warp];
    if (q->op == GPUEST_MEM_STORE)
        w->pending_stores--;
    else /* atomic: the warp waits for its data */
        sim_load_line_done(g, sm, q->warp, q->load, g->now + sim_fill_delay_fs(g, q), 0);
    sim_pool_release(&g->pool, i);
    return GPUEST_OK;
}

void sim_sm_abort(sim_gpu_t *g, sim_sm_t *sm)
{
    for (int s = 0; s < g->cfg->core.warps_per_sm; s++) {
        sim_warp_t *w = &sm->warps[s];
        if (w->state != WS_EMPTY && w->stream)
            g->src->warp_close(g->src->ctx, w->stream);
        w->stream = NULL;
        w->state = WS_EMPTY;
    }
}

/* ---------------------------------------------------------------- run control (sample.c) */
gpuest_err sim_sm_retire_warp(sim_gpu_t *g, sim_sm_t *sm, int slot, gpuest_error_t *err)
{
    return retire(g, sm, slot, err);
}

gpuest_err sim_sm_barrier_arrive(sim_gpu_t *g, sim_sm_t *sm, int slot, gpuest_error_t *err)
{
    sim_warp_t *w = &sm->warps[slot];
    sim_cta_t *c = &sm->ctas[w->cta_slot];
    w->state = WS_BARRIER;
    c->at_barrier++;
    return c->at_barrier == c->warps_live ? release_barrier(g, sm, w->cta_slot, err) : GPUEST_OK;
}
