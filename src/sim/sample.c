/* sample.c: sampled simulation: whole-GPU units (SMARTS, Wunderlich et al. ISCA'03, on a GPU:
 * every SM runs in each unit because contention is global), stratified per kernel with census
 * head and tail units, drain plus functional fast-forward between units (L1/L2 tags, DRAM rows),
 * and a detailed warming of fixed length whose settling is checked afterwards (MSER-5).
 *
 * Fast-forward keeps the machine's architectural progress exact (every instruction of every warp
 * is consumed in order, barriers and CTA scheduling as in detailed mode) but takes no time: the
 * clock stands still, so fast-forwarded work costs a tag lookup per line request. Warps advance
 * in proportion to their age rank's issue share in the last detailed unit, which keeps the
 * progress skew of the detailed schedule in distribution (not warp by warp).
 * docs/estimator.md ("Sampled simulation") gives the measurements behind each choice. */
#include <math.h>
#include <time.h>

#include "sim_int.h"

void gpuest_sample_opts_default(gpuest_sample_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->units = 30;
    o->warm_cycles = 3000;
    o->warm_amats = 8.0;
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

/* Process CPU time: the phase split of a run on a shared machine (wall time counts other jobs). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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
static gpuest_err ff_step(sim_gpu_t *g, sim_sm_t *sm, int s, int warm, int *advanced, gpuest_error_t *err)
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
    if (in->kind == GPUEST_INST_MEM && warm) { /* cold (an experiment): no cache or row state is touched */
        gpuest_line_req_t req[GPUEST_COALESCE_MAX];
        size_t n = gpuest_coalesce(in, req);
        for (size_t i = 0; i < n; i++)
            ff_access(g, sm, &req[i], (int)in->op);
    } else if (in->kind == GPUEST_INST_COMPUTE && in->lat == GPUEST_LAT_CONST && in->size > 0 && warm) {
        ff_const(g, sm, in);
    } else if (in->kind == GPUEST_INST_BARRIER) {
        GPUEST_TRY(sim_sm_barrier_arrive(g, sm, s, err));
    }
    w->issued++;
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

/* Issue shares by CTA age rank (rank 0: the SM's oldest resident CTA), pooled over the SMs and
 * measured over the last detailed unit. Fast-forward gives each CTA credit in proportion to its
 * rank's share and spends it on the CTA's warps in turn, so CTAs leave fast-forward as spread out
 * in progress as a GTO (or LRR) schedule keeps them. With one instruction per warp in turn every
 * resident CTA moved in lock step, and after fast-forward all of them reached their load and store
 * phases together: on srad/fermi the first ~6,000 detailed cycles then ran at a third of the
 * steady IPC. Shares per warp (our first version) starved the young warps of a CTA at its
 * barriers, where in detailed mode they take the issue slots the waiting old ones leave: hotspot/
 * fermi/default then came out 25 % fast with 8 units (round robin: +1 %). */
typedef struct {
    double *share;    /* ctas_per_sm entries; sums to 1 over the first n */
    int n;            /* CTA ranks measured (0: none yet, every CTA alike) */
    uint64_t *age0;   /* nsm x warps_per_sm: age and issued count at the window's start */
    uint64_t *iss0;
    double *credit;   /* nsm x ctas_per_sm */
    int *order;       /* scratch: CTA slots by age (ctas_per_sm) */
    int *members;     /* scratch: warp slots by CTA slot (warps_per_sm) */
    int *first, *count, *next; /* scratch per CTA slot: its run in members, and its round robin */
    int cold;         /* gpuest_sample_opts_t.cold */
    double ff_seconds; /* CPU time spent fast-forwarding */
} ff_rates_t;

/* The SM's resident CTAs by age (their oldest warp's), and each one's warp slots. */
static int cta_order(const sim_gpu_t *g, const sim_sm_t *sm, ff_rates_t *r)
{
    int W = g->cfg->core.warps_per_sm, C = g->cfg->core.ctas_per_sm, m = 0;
    uint64_t age[64];
    for (int c = 0; c < C; c++) {
        r->count[c] = 0;
        age[c % 64] = UINT64_MAX;
    }
    for (int s = 0; s < W; s++)
        if (sm->warps[s].state != WS_EMPTY) {
            int c = sm->warps[s].cta_slot;
            r->count[c]++;
            if (sm->warps[s].age < age[c % 64])
                age[c % 64] = sm->warps[s].age;
        }
    int pos = 0;
    for (int c = 0; c < C; c++) {
        r->first[c] = pos;
        pos += r->count[c];
        r->count[c] = 0;
    }
    for (int s = 0; s < W; s++)
        if (sm->warps[s].state != WS_EMPTY) {
            int c = sm->warps[s].cta_slot;
            r->members[r->first[c] + r->count[c]++] = s;
        }
    for (int c = 0; c < C; c++)
        if (r->count[c] > 0) {
            int k = m++;
            while (k > 0 && age[r->order[k - 1] % 64] > age[c % 64]) {
                r->order[k] = r->order[k - 1];
                k--;
            }
            r->order[k] = c;
        }
    return m;
}

static void rates_start(const sim_gpu_t *g, ff_rates_t *r)
{
    int W = g->cfg->core.warps_per_sm;
    for (int i = 0; i < g->nsm; i++)
        for (int s = 0; s < W; s++) {
            const sim_warp_t *w = &g->sm[i].warps[s];
            r->age0[i * W + s] = w->state != WS_EMPTY ? w->age : UINT64_MAX;
            r->iss0[i * W + s] = w->issued;
        }
}

/* Shares by CTA rank over the window since rates_start (warps that started inside it count from 0). */
static void rates_end(const sim_gpu_t *g, ff_rates_t *r)
{
    int W = g->cfg->core.warps_per_sm, C = g->cfg->core.ctas_per_sm, nmax = 0, pooled = 0;
    for (int k = 0; k < C; k++)
        r->share[k] = 0;
    for (int i = 0; i < g->nsm; i++) {
        int n = cta_order(g, &g->sm[i], r);
        double by[64] = {0}, tot = 0;
        for (int k = 0; k < n && k < 64; k++) {
            int c = r->order[k];
            for (int j = 0; j < r->count[c]; j++) {
                int s = r->members[r->first[c] + j];
                const sim_warp_t *w = &g->sm[i].warps[s];
                by[k] += (double)(w->issued - (r->age0[i * W + s] == w->age ? r->iss0[i * W + s] : 0));
            }
            tot += by[k];
        }
        if (tot <= 0)
            continue;
        for (int k = 0; k < n && k < 64; k++)
            r->share[k] += by[k] / tot;
        pooled++;
        if (n > nmax)
            nmax = n;
    }
    r->n = pooled > 0 ? nmax : 0;
    double sum = 0;
    for (int k = 0; k < r->n; k++)
        sum += r->share[k];
    for (int k = 0; k < r->n; k++)
        r->share[k] = sum > 0 ? r->share[k] / sum : 1.0 / r->n;
}

/* Spends up to whole instructions of credit c on CTA slot cs's warps in turn; 1 if any advanced. */
static gpuest_err ff_cta(sim_gpu_t *g, sim_sm_t *sm, ff_rates_t *r, int cs, double *c, uint64_t budget,
                         uint64_t *done, int *any, gpuest_error_t *err)
{
    int n = r->count[cs], idle = 0;
    while (*c >= 1.0 && *done < budget && idle < n) {
        int s = r->members[r->first[cs] + r->next[cs] % n];
        r->next[cs] = (r->next[cs] + 1) % n;
        int adv = 0, end = sm->warps[s].state == WS_ACTIVE && sm->warps[s].inst.kind == GPUEST_INST_END;
        if (sm->warps[s].state == WS_EMPTY) {
            idle++;
            continue;
        }
        GPUEST_TRY(ff_step(g, sm, s, !r->cold, &adv, err));
        if (!adv) {
            idle++;
            continue;
        }
        idle = 0;
        *any = 1;
        *c -= 1.0;
        if (!end)
            (*done)++;
    }
    return GPUEST_OK;
}

/* Fast-forwards up to budget warp instructions (or to the end of the launch). Each round gives
 * every resident CTA credit in proportion to its rank's share (x the SM's resident warps, so one
 * instruction a warp a round on average), spent on its warps in turn. */
static gpuest_err fast_forward(sim_gpu_t *g, ff_rates_t *r, uint64_t budget, uint64_t *done, gpuest_error_t *err)
{
    *done = 0;
    double t0 = cpu_now();
    int hold = g->hold_issue, W = g->cfg->core.warps_per_sm, C = g->cfg->core.ctas_per_sm;
    g->hold_issue = 0;
    g->functional = 1; /* CTAs started here fetch their first instruction functionally too */
    for (size_t i = 0; i < (size_t)g->nsm * (size_t)C; i++)
        r->credit[i] = 0;
    while (*done < budget && g->ctas_done < g->launch.num_ctas) {
        int any = 0;
        for (int i = 0; i < g->nsm && *done < budget; i++) {
            sim_sm_t *sm = &g->sm[i];
            int n = cta_order(g, sm, r), nw = 0;
            for (int k = 0; k < n; k++)
                nw += r->count[r->order[k]];
            for (int k = 0; k < n && *done < budget; k++) {
                int cs = r->order[k];
                double *c = &r->credit[i * C + cs];
                double add = r->n > 0 ? (k < r->n ? r->share[k] : 1.0 / r->n) * nw : (double)r->count[cs];
                *c += add;
                if (*c > 64.0 + add)
                    *c = 64.0 + add; /* a CTA held at a barrier or by memory banks no more than a burst */
                GPUEST_TRY(ff_cta(g, sm, r, cs, c, budget, done, &any, err));
            }
        }
        GPUEST_TRY(sim_gpu_assign_ctas(g, err));
        if (!any) { /* no credit where a warp could move: one plain round robin round */
            for (int i = 0; i < g->nsm; i++)
                for (int s = 0; s < W && *done < budget; s++) {
                    int adv = 0;
                    int end = g->sm[i].warps[s].state == WS_ACTIVE && g->sm[i].warps[s].inst.kind == GPUEST_INST_END;
                    GPUEST_TRY(ff_step(g, &g->sm[i], s, !r->cold, &adv, err));
                    if (adv && !end)
                        (*done)++;
                    any |= adv;
                }
            GPUEST_TRY(sim_gpu_assign_ctas(g, err));
        }
        if (!any)
            break; /* every warp waits for memory (or a barrier held by one that does) */
    }
    g->functional = 0;
    g->hold_issue = hold;
    for (int i = 0; i < g->nsm; i++)
        g->sm[i].sleep_until = 0; /* readiness changed behind the SMs' backs */
    r->ff_seconds += cpu_now() - t0;
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

/* Where the kernel stands: its warp instructions, detailed and fast-forwarded. */
typedef struct {
    uint64_t start_insts, ff;
} kpos_t;

static uint64_t kpos(const sim_gpu_t *g, const kpos_t *p)
{
    return g->ctr.v[SC_warp_insts] - p->start_insts + p->ff;
}

/* Reference mode: runs in detail until the kernel stands at instruction `to`. */
static gpuest_err run_detailed_to(sim_gpu_t *g, const kpos_t *p, uint64_t to, uint64_t *cycles, gpuest_error_t *err)
{
    while (kpos(g, p) < to && g->ctas_done < g->launch.num_ctas) {
        GPUEST_TRY(core_cycle(g, err));
        (*cycles)++;
    }
    return GPUEST_OK;
}

/* MSER-5 (White 1997) on a series of requests in flight: batches of 5 cycles, and the truncation
 * point d (in batches) that minimises the variance of the mean of the batches after it,
 * s^2(d) / (n - d)^2, searched over the first half. Returns d x 5 cycles. */
static uint64_t mser5(const uint32_t *x, uint64_t n)
{
    uint64_t nb = n / 5;
    if (nb < 4)
        return 0;
    double s1 = 0, s2 = 0;
    for (uint64_t i = 0; i < nb; i++) { /* suffix sums built backwards from the totals */
        double m = (x[5 * i] + x[5 * i + 1] + x[5 * i + 2] + x[5 * i + 3] + x[5 * i + 4]) / 5.0;
        s1 += m;
        s2 += m * m;
    }
    double best = INFINITY;
    uint64_t bd = 0;
    for (uint64_t d = 0; d <= nb / 2; d++) {
        double k = (double)(nb - d), mean = s1 / k, var = s2 / k - mean * mean;
        double v = var / k; /* s^2 / (n - d) over (n - d): MSER's statistic up to a constant */
        if (v < best) {
            best = v;
            bd = d;
        }
        double m = (x[5 * d] + x[5 * d + 1] + x[5 * d + 2] + x[5 * d + 3] + x[5 * d + 4]) / 5.0;
        s1 -= m;
        s2 -= m * m;
    }
    return bd * 5;
}

/* Appends v to the growing trace (*cap entries allocated, *n used). */
static gpuest_err trace_push(uint32_t **trace, size_t *cap, size_t *n, uint32_t v, gpuest_error_t *err)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 8192;
        uint32_t *t = realloc(*trace, nc * sizeof *t);
        if (!t)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the warming trace");
        *trace = t;
        *cap = nc;
    }
    (*trace)[(*n)++] = v;
    return GPUEST_OK;
}

/* Detailed warming and one measured unit of `insts` warp instructions starting at the kernel's
 * instruction `target` (its systematic position, fixed before the run reaches it).
 *
 * The unit is the stretch of cycles from the cycle that issues instruction `target` to the cycle
 * that issues instruction `target + insts`, exclusive: units at instruction positions a, a + U,
 * ... tile the run's cycles, so with a uniformly random start the expected unit length is exactly
 * U x CPI. Ending the warming by a state-dependent rule (when the requests in flight settle, or at
 * the first issuing cycle after a fixed warming time) selects the unit's start by the machine's
 * state and biases it: measured on srad/fermi with every gap run in detail, such units gave an IPC
 * 9 % below the full run's. So the warming runs from wherever fast-forward left the kernel to
 * `target`, and whether it was long enough is checked afterwards, not used to place the unit: the
 * MSER-5 truncation point of the requests in flight over warming plus unit must fall inside the
 * warming (u->warm_steady). */
static gpuest_err run_unit(sim_gpu_t *g, const kpos_t *p, uint64_t target, uint64_t insts, gpuest_sample_unit_t *u,
                           ff_rates_t *r, uint32_t **trace, size_t *tcap, gpuest_error_t *err)
{
    size_t n = 0;
    sim_counters_t a = g->ctr, b;
    uint64_t w0 = g->ctr.v[SC_warp_insts];
    uint64_t c0 = g->ticks[GPUEST_CLK_CORE], f0 = link_flits(g), c1, f1;
    for (;;) { /* warming: up to the cycle that issues instruction `target` */
        a = g->ctr;
        c0 = g->ticks[GPUEST_CLK_CORE];
        f0 = link_flits(g);
        if (g->ctas_done >= g->launch.num_ctas)
            break;
        GPUEST_TRY(core_cycle(g, err));
        if (kpos(g, p) > target)
            break;
        u->warm_cycles++;
        GPUEST_TRY(trace_push(trace, tcap, &n, (uint32_t)g->pool.live, err));
    }
    size_t nwarm = n;
    u->warm_insts = a.v[SC_warp_insts] - w0;
    double inflight = 0;
    rates_start(g, r);
    for (;;) { /* the unit: up to, not including, the cycle that issues instruction target + insts */
        b = g->ctr;
        c1 = g->ticks[GPUEST_CLK_CORE];
        f1 = link_flits(g);
        if (g->ctas_done >= g->launch.num_ctas)
            break;
        GPUEST_TRY(core_cycle(g, err));
        if (kpos(g, p) > target + insts)
            break;
        inflight += (double)g->pool.live;
        GPUEST_TRY(trace_push(trace, tcap, &n, (uint32_t)g->pool.live, err));
    }
    rates_end(g, r);
    u->warm_steady = mser5(*trace, n) <= nwarm;
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
/* The warming's pace, carried from unit to unit (and kernel to kernel): warp instructions per
 * cycle of the detailed warmings so far that followed a fast-forward, which turns the warming's
 * cycles into the instructions it starts ahead of its unit (a drained machine restarts at its own
 * rate, not the unit's; pooled, because one warming's pace swings with the restart burst and a
 * lead from the last one alone gave warmings of 250 to 30,000 cycles), and the last unit's AMAT. */
typedef struct {
    double warm_ipc, amat;
    double insts, cycles; /* pooled over the warmings that followed a fast-forward */
} pace_t;

static gpuest_err sample_kernel(sim_gpu_t *g, const gpuest_sample_opts_t *o, ff_rates_t *r, pace_t *pace, int k,
                                int nunits,
                                uint64_t kinsts,
                                gpuest_rng_t *rng, gpuest_sample_result_t *out, size_t *cap, gpuest_error_t *err)
{
    GPUEST_TRY(sim_gpu_check_launch(g, err));
    GPUEST_TRY(sim_front_launch(g, err)); /* the launch's code segment (L1I addresses) */
    for (int i = 0; i < g->nsm; i++)
        sim_tags_invalidate_all(&g->sm[i].l1); /* as gpu.c: L1s start cold at each launch */
    g->next_cta = g->ctas_done = 0;
    g->rr_sm = 0;
    gpuest_noc_stats_reset(g->noc);
    sim_progress(g);
    uint64_t unit = o->unit_insts ? o->unit_insts : 1000u * (uint64_t)g->nsm;
    kpos_t p = {g->ctr.v[SC_warp_insts], 0};
    uint32_t *trace = NULL;
    size_t tcap = 0;
    gpuest_err rc = sim_gpu_assign_ctas(g, err);
    /* Strata: the kernel's first and last `unit` instructions are measured whole (census: the
     * ramp-up and the tail of a launch are unlike its middle, and rare enough that a few random
     * units miss them; tests/study/test_sample_bias.c saw their intervals cover the truth 55 % of
     * the time at 95 % without them), and the middle is sampled, one unit at a uniformly random
     * place in each of nunits periods (a common random start for every period can alias with
     * periodic behaviour). A kernel of at most 3 units is measured whole. */
    int whole = kinsts <= 3 * unit, nplan = whole ? 1 : nunits + 2;
    uint64_t lo = unit, period = whole ? 1 : (kinsts - 2 * unit) / (uint64_t)nunits;
    uint64_t umid = unit < period ? unit : (period > 0 ? period : 1), span = period > umid ? period - umid : 1;
    for (int j = 0; rc == GPUEST_OK && j < nplan && g->ctas_done < g->launch.num_ctas; j++) {
        uint64_t target, len;
        int census = whole || j == 0 || j == nplan - 1;
        if (whole) {
            target = 0;
            len = kinsts;
        } else if (j == 0) {
            target = 0;
            len = unit;
        } else if (j == nplan - 1) {
            target = kinsts - unit;
            len = unit; /* to the launch's end, its drain included */
        } else {
            target = lo + (uint64_t)(j - 1) * period + gpuest_rng_below(rng, span);
            len = umid;
        }
        /* detailed warming of max(warm_cycles, warm_amats x the last unit's AMAT) cycles (method
         * note 3 asks for 2 AMATs; after a drain and fast-forward srad/fermi needed about 8),
         * turned into instructions at the last warming's pace: the unit's position stays fixed */
        double wc = (double)o->warm_cycles > o->warm_amats * pace->amat ? (double)o->warm_cycles
                                                                          : o->warm_amats * pace->amat;
        uint64_t lead = (uint64_t)(pace->warm_ipc * wc);
        uint64_t pos = kpos(g, &p);
        int skipped = pos + lead < target;
        if (skipped) {
            uint64_t done = 0;
            if (o->reference)
                rc = run_detailed_to(g, &p, target - lead, &out->detailed_cycles, err);
            else {
                uint64_t dc = 0;
                rc = drain(g, &dc, err);
                out->drain_cycles += dc;
                out->detailed_cycles += dc;
                pos = kpos(g, &p);
                if (rc == GPUEST_OK && pos + lead < target)
                    rc = fast_forward(g, r, target - lead - pos, &done, err);
            }
            p.ff += done;
            if (rc != GPUEST_OK)
                break;
        }
        gpuest_sample_unit_t u;
        memset(&u, 0, sizeof u);
        u.kernel = k;
        u.census = census;
        uint64_t t0 = g->ticks[GPUEST_CLK_CORE];
        rc = run_unit(g, &p, target, len, &u, r, &trace, &tcap, err);
        out->detailed_cycles += g->ticks[GPUEST_CLK_CORE] - t0;
        if (rc != GPUEST_OK || u.warp_insts == 0)
            break; /* the launch ended before the unit (only at its very end) */
        if (skipped && u.warm_cycles > 0 && u.warm_insts > 0) { /* warmings after a fast-forward, pooled */
            pace->insts += (double)u.warm_insts;
            pace->cycles += (double)u.warm_cycles;
            pace->warm_ipc = pace->insts / pace->cycles;
        }
        pace->amat = u.amat_n > 0 ? u.amat_sum / u.amat_n : pace->amat;
        if (push_unit(out, cap, &u) != GPUEST_OK)
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory for sampling units");
        else if (o->progress)
            gpuest_progress_update(o->progress, out->num_units);
    }
    free(trace);
    GPUEST_TRY(rc);
    /* the rest of the launch: drain, then fast-forward to its end (warms the caches for the next) */
    if (o->reference && g->ctas_done < g->launch.num_ctas)
        GPUEST_TRY(run_detailed_to(g, &p, UINT64_MAX, &out->detailed_cycles, err));
    if (g->ctas_done < g->launch.num_ctas) {
        uint64_t dc = 0, done = 0;
        GPUEST_TRY(drain(g, &dc, err));
        out->drain_cycles += dc;
        out->detailed_cycles += dc;
        GPUEST_TRY(fast_forward(g, r, UINT64_MAX, &done, err));
        p.ff += done;
        if (g->ctas_done < g->launch.num_ctas)
            return gpuest_fail(err, GPUEST_EDEADLOCK, "sampling: kernel %s cannot finish in fast-forward (%u of %u "
                                                      "CTAs done)",
                               g->launch.name, g->ctas_done, g->launch.num_ctas);
    }
    out->ff_warp_insts += p.ff;
    out->detailed_warp_insts += g->ctr.v[SC_warp_insts] - p.start_insts;
    return GPUEST_OK;
}

static gpuest_err launches_loop(sim_gpu_t *g, const gpuest_sample_opts_t *o, ff_rates_t *r, uint64_t total,
                                gpuest_rng_t *rng, gpuest_sample_result_t *out, gpuest_error_t *err)
{
    size_t cap = 0;
    pace_t pace = {0.5 * g->nsm, 0.0, 0.0, 0.0}; /* a guess until the first warming is measured */
    for (size_t k = 0;; k++) {
        int done = 0;
        GPUEST_TRY(g->src->next_launch(g->src->ctx, &g->launch, &done, err));
        if (done)
            return GPUEST_OK;
        if (k >= out->num_kernels)
            return gpuest_fail(err, GPUEST_EMISMATCH, "sampling: the source has more launches than its counting "
                                                      "copy (is it deterministic?)");
        int n = (int)((double)o->units * (double)out->kernel_warp_insts[k] / (double)total + 0.5);
        GPUEST_TRY(sample_kernel(g, o, r, &pace, (int)k, n > 1 ? n : 1, out->kernel_warp_insts[k], rng, out, &cap,
                                 err));
        GPUEST_TRY(g->src->end_launch(g->src->ctx, err));
    }
}

static gpuest_err sample_launches(sim_gpu_t *g, const gpuest_sample_opts_t *o, ff_rates_t *r, uint64_t total,
                                  gpuest_sample_result_t *out, gpuest_error_t *err)
{
    gpuest_rng_t *rng = NULL;
    if (gpuest_rng_create(o->seed, &rng) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the sampling generator");
    gpuest_err rc = launches_loop(g, o, r, total, rng, out, err);
    gpuest_rng_destroy(rng);
    return rc;
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
    size_t W = (size_t)g->cfg->core.warps_per_sm, C = (size_t)g->cfg->core.ctas_per_sm, N = (size_t)g->nsm * W;
    if (C > 64)
        return gpuest_fail(err, GPUEST_EINVAL, "sampling: core.ctas_per_sm = %zu, at most 64 supported", C);
    ff_rates_t r = {calloc(C, sizeof(double)), 0, calloc(N, sizeof(uint64_t)), calloc(N, sizeof(uint64_t)),
                    calloc((size_t)g->nsm * C, sizeof(double)), calloc(C, sizeof(int)), calloc(W, sizeof(int)),
                    calloc(C, sizeof(int)), calloc(C, sizeof(int)), calloc(C, sizeof(int)), o->cold, 0.0};
    gpuest_err rc = r.share && r.age0 && r.iss0 && r.credit && r.order && r.members && r.first && r.count && r.next
                        ? sample_launches(g, o, &r, total, out, err)
                        : gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the fast-forward rates");
    out->ff_seconds = r.ff_seconds;
    free(r.share);
    free(r.age0);
    free(r.iss0);
    free(r.credit);
    free(r.order);
    free(r.members);
    free(r.first);
    free(r.count);
    free(r.next);
    return rc;
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
    if (o.units < 1 || !(o.warm_amats >= 0))
        return gpuest_fail(err, GPUEST_EINVAL, "sampling: units must be >= 1 and warm_amats >= 0");
    double t0 = wall_now(), c0 = cpu_now();
    GPUEST_TRY(count_kernels(count_src, out, err));
    out->count_seconds = cpu_now() - c0;
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
    out->cpu_seconds = cpu_now() - c0;
    return rc;
}
