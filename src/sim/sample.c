/* sample.c: sampled simulation: whole-GPU units (SMARTS, Wunderlich et al. ISCA'03, on a GPU:
 * every SM runs in each unit because contention is global), stratified per kernel with census
 * head and tail units, drain plus functional fast-forward between units (L1/L2 tags, DRAM rows),
 * and a detailed warming of fixed length whose settling is checked afterwards (MSER-5).
 *
 * Fast-forward keeps the machine's architectural progress exact (every instruction of every warp
 * is consumed in order, barriers and CTA scheduling as in detailed mode) but the machine's clock
 * stands still, so fast-forwarded work costs a tag lookup per line request. Warps are scheduled
 * on a virtual clock with latencies measured in the last detailed unit (ff_timing_t), so they
 * leave fast-forward where a detailed run would have them, and an L2 fill stays pending for the
 * memory latency in fast-forwarded instructions (ff_pending_t).
 * docs/estimator.md ("Sampled simulation") gives the measurements behind each choice. */
#include <math.h>
#include <time.h>

#include "sample_gather.h"
#include "sample_pool.h"
#include "sample_tail.h"
#include "sample_walk.h"
#include "sim_int.h"

void gpuest_sample_opts_default(gpuest_sample_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->units = 30;
    o->warm_cycles = 3000;
    o->warm_amats = 8.0;
    o->seed = 1;
    /* Fast-forward with the memory system's back-pressure, the LD/ST stalls charged to misses and
     * the L2-split latency draws: the plain schedule moves the CTAs in lock step and was -37 to -39 %
     * on wordcount (pooled development mean |error| 9.82 % against 2.25 %; docs/estimator.md,
     * "Sampled simulation: the default fast-forward switched?"). Clear the three for the plain one. */
    o->ff_backpressure = 1;
    o->ff_miss_stalls = 1;
    o->ff_l2_split = 1;
}

void gpuest_sample_result_free(gpuest_sample_result_t *r)
{
    if (!r)
        return;
    free(r->units);
    free(r->kernel_warp_insts);
    free(r->kernel_thread_insts);
    free(r->kernel_tail_warp_insts);
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
static gpuest_err count_kernels(const gpuest_sim_source_t *s, int slow, const gpuest_config_t *tail_cfg,
                                int tail_mode, gpuest_sample_result_t *out, gpuest_error_t *err)
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
            if (tail_cfg) { /* gpuest_sample_opts_t.tail_stratum */
                uint64_t *t = realloc(out->kernel_tail_warp_insts, nc * sizeof *t);
                if (t)
                    out->kernel_tail_warp_insts = t;
                else
                    a = NULL;
            }
            if (!a || !b)
                return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for kernel counts");
            cap = nc;
        }
        uint64_t wi = 0, ti = 0, wi_before_tail = 0;
        /* the last wave (or the last CTA an SM): CTAs are issued in index order, so the launch's last ones */
        uint32_t tail_from = tail_cfg ? l.num_ctas - gpuest_tail_ctas(&tail_cfg->core, tail_cfg->core.num_sms, &l,
                                                                      tail_mode)
                                      : 0;
        for (uint32_t c = 0; c < l.num_ctas; c++) {
            if (c == tail_from)
                wi_before_tail = wi;
            for (uint32_t w = 0; w < l.warps_per_cta; w++) {
                void *h = NULL;
                GPUEST_TRY(s->warp_open(s->ctx, c, w, &h, err));
                int counted = 0; /* a workload's warp is counted in its buffers (no per-instruction copy) */
                gpuest_err rc = slow ? GPUEST_OK : sim_source_count_warp(s, h, &wi, &ti, &counted, err);
                gpuest_inst_t in;
                while (!counted && (rc = s->warp_next(s->ctx, h, &in, err)) == GPUEST_OK &&
                       in.kind != GPUEST_INST_END) {
                    wi++;
                    ti += (uint64_t)__builtin_popcount(in.active_mask);
                }
                s->warp_close(s->ctx, h);
                if (rc != GPUEST_OK)
                    return rc;
            }
        }
        if (tail_cfg)
            out->kernel_tail_warp_insts[out->num_kernels] = tail_from < l.num_ctas ? wi - wi_before_tail : 0;
        out->kernel_warp_insts[out->num_kernels] = wi;
        out->kernel_thread_insts[out->num_kernels] = ti;
        out->num_kernels++;
        GPUEST_TRY(s->end_launch(s->ctx, err));
    }
}

/* ---------------------------------------------------------------- functional warming */
/* Opens line's DRAM row in its channel (the mapping of dram.c). A bank that is serving a
 * request keeps its state: the command state machine relies on its open row. */
static void ff_dram_row_at(sim_gpu_t *g, int chan, uint64_t local)
{
    sim_dram_t *d = &g->chan[chan];
    uint64_t rb = (uint64_t)g->cfg->dram.row_bytes, nb = (uint64_t)g->cfg->dram.banks;
    sim_bank_t *b = &d->banks[sim_umod(sim_udiv(local, rb), nb)];
    if (b->has_cur)
        return;
    b->active = 1;
    b->row = (int64_t)sim_udiv(local, rb * nb);
}

/* Where a line lives, each part computed once (sim_mc_of, sim_sub_local and ff_dram_row each
 * recompute the channel and the channel-local address with 64-bit divisions). */
typedef struct {
    int chan;          /* DRAM channel (gpuest_config_mc_of_address) */
    int mc;            /* L2 sub-partition (sim_mc_of) */
    uint64_t local;    /* address inside the channel (sim_mc_local) */
    uint64_t sub;      /* address inside the sub-partition (sim_sub_local) */
} ff_where_t;

static ff_where_t ff_where(const sim_gpu_t *g, uint64_t line)
{
    ff_where_t w;
    uint64_t lb = (uint64_t)g->line_bytes, ns = (uint64_t)g->nsub, il = (uint64_t)g->cfg->mc.interleave_bytes;
    uint64_t chunk = sim_udiv(line, il), nm = (uint64_t)g->cfg->mc.num_mcs, nc = (uint64_t)g->nchan;
    /* gpuest_config_mc_of_address and sim_mc_local: chunk % num_mcs and chunk / nchan, one division
     * for both when the two counts are the same */
    uint64_t q = sim_udiv(chunk, nc);
    w.chan = (int)(nm == nc ? chunk - q * nc : sim_umod(chunk, nm));
    w.local = q * il + sim_umod(line, il);
    w.mc = g->nsub == 1 ? w.chan : w.chan * g->nsub + (int)sim_umod(sim_udiv(w.local, lb), ns);
    w.sub = sim_udiv(w.local, lb * ns) * lb + sim_umod(w.local, lb);
    return w;
}

static void ff_dram_row(sim_gpu_t *g, uint64_t line)
{
    ff_where_t at = ff_where(g, line);
    ff_dram_row_at(g, at.chan, at.local);
}

/* Lines in flight during fast-forward. The clock stands still in fast-forward, so without this
 * every miss filled its L2 way at once and a second write to the line (srad's rows: the two halves
 * of a 128-byte line are stored by two neighbouring CTAs a few cycles apart) hit the fresh line and
 * dirtied it, where in detailed mode it finds the way reserved, goes on to DRAM as a write miss
 * and the line fills clean. Measured on srad/fermi/default at the units' starts: 45-65 % of the
 * written arrays' L2 lines dirty after fast-forward against 5-15 % in the reference run, and
 * 20-40 % more DRAM writes in the units (docs/estimator.md). Fast-forward therefore keeps its own
 * clock in warp instructions, and a line it fills stays pending (a reserved way: no hit, no
 * victim, a write to it leaves it clean) for `window` instructions: the last detailed unit's mean
 * request lifetime in the memory system (Little's law) times its warp IPC. */
typedef struct {
    uint64_t clock;   /* warp instructions fast-forwarded, over the whole run */
    double window;    /* a fill's latency in fast-forwarded warp instructions (0: fills at once) */
    uint64_t *ready;  /* per L2 way (nmc x sets x assoc): clock at which its fill completes */
    size_t ways_per_mc;
    int lines, l1_misses; /* of the last fast-forwarded memory instruction (ff_timing_t's latencies) */
    int l2_hits;          /* ... its loads' lines that missed the L1 and hit a filled L2 line */
    int sent;             /* ... its requests that left the L1 (L1 misses, stores, atomics: ff_miss_stalls) */
    uint32_t pc;          /* ... its pc (remote-L1 probing's sharing predictor is indexed by it) */
} ff_pending_t;

static uint64_t *pending_ready(const sim_gpu_t *g, ff_pending_t *p, const sim_mc_t *mc, const sim_way_t *way)
{
    return &p->ready[(size_t)(mc - g->mc) * p->ways_per_mc + (size_t)(way - mc->l2.ways)];
}

/* The set of t that local (an address inside t's partition) maps to. */
static sim_way_t *ff_set(sim_tags_t *t, uint64_t local)
{
    return &t->ways[sim_umod(sim_udiv(local, (uint64_t)t->line_bytes), (uint64_t)t->sets) * (uint64_t)t->assoc];
}

/* The way of set s (of t) holding line (valid, filled or pending), or NULL. */
static sim_way_t *ff_find(const sim_tags_t *t, sim_way_t *s, uint64_t line)
{
    for (int i = 0; i < t->assoc; i++)
        if (s[i].valid && s[i].tag == line)
            return &s[i];
    return NULL;
}

/* sim_tags_victim, with ways still pending in fast-forward counted as reserved. */
static sim_way_t *ff_victim(const sim_gpu_t *g, ff_pending_t *p, sim_mc_t *mc, sim_way_t *s)
{
    sim_tags_t *t = &mc->l2;
    sim_way_t *v = NULL;
    for (int i = 0; i < t->assoc; i++) {
        if (s[i].reserved || (s[i].valid && *pending_ready(g, p, mc, &s[i]) > p->clock))
            continue;
        if (!s[i].valid)
            return &s[i];
        if (!v || s[i].lru < v->lru)
            v = &s[i];
    }
    return v;
}

/* The L2 bank of line's sub-partition, as l2.c: write-back, allocate on miss, fetch-on-write
 * (a write miss fills the line clean: its data went on to DRAM; an atomic's fill is dirtied by
 * the atomic). Every miss and every dirty victim's write-back touch the channel's rows; the last
 * one to touch a bank leaves its row open. A set whose ways are all reserved (by detailed misses
 * in flight or by fast-forward's pending fills) is left alone. */
static int ff_l2(sim_gpu_t *g, ff_pending_t *p, uint64_t line, int op)
{
    ff_where_t at = ff_where(g, line);
    sim_mc_t *mc = &g->mc[at.mc];
    sim_way_t *set = ff_set(&mc->l2, at.sub), *way = ff_find(&mc->l2, set, line);
    if (way && *pending_ready(g, p, mc, way) > p->clock) {
        if (op != GPUEST_MEM_LOAD)
            ff_dram_row_at(g, at.chan, at.local); /* a write miss merged into the pending fill: its data goes to DRAM */
        if (op == GPUEST_MEM_ATOMIC)
            way->dirty = 1;       /* applied when the fill answers it */
        return 0;
    }
    if (!way) {
        way = ff_victim(g, p, mc, set);
        if (!way)
            return 0;
        if (way->valid && way->dirty)
            ff_dram_row(g, way->tag);
        sim_tags_fill(&mc->l2, way, line, 0xF);
        *pending_ready(g, p, mc, way) = p->clock + (uint64_t)p->window;
        ff_dram_row_at(g, at.chan, at.local);
        way->dirty = op == GPUEST_MEM_ATOMIC; /* else clean (sim_tags_fill), also after a write miss */
        return 0;
    }
    way->lru = ++mc->l2.stamp;
    if (op != GPUEST_MEM_LOAD)
        way->dirty = 1;
    return 1;
}

/* A read fast-forward fetched from the L2 (mc: the g->mc index serving it): the reply the MC would
 * send warms a technique's state across replies (sim.h mc_reply_warm: C-Pack, SC2). */
static void ff_reply_warm(sim_gpu_t *g, const sim_sm_t *sm, uint64_t line, int mc)
{
    const gpuest_sim_hooks_t *h = &g->opts->hooks;
    uint8_t buf[GPUEST_LINE_BYTES];
    const uint8_t *data = g->src->read_line ? g->src->read_line(g->src->ctx, line, buf) : NULL;
    gpuest_sim_req_info_t info = {line, 0xF, GPUEST_MEM_LOAD, sm->id, mc, -1, 0};
    h->mc_reply_warm(h->ctx, &info, data);
}

/* A fast-forwarded L1D read miss beyond the L1: with remote-L1 probing another L1 may supply it
 * (probe.c: the technique plans and learns as in detailed mode), else the L2 answers, and LA-LLC's
 * last-reader table sees the read. Without probing (g->probe NULL) this is ff_l2. */
static void ff_read_miss(sim_gpu_t *g, ff_pending_t *p, sim_sm_t *sm, const gpuest_line_req_t *r)
{
    if (g->probe && sim_probe_functional_read(g, sm, r->line, r->sectors, p->pc))
        return;
    int hit = ff_l2(g, p, r->line, GPUEST_MEM_LOAD);
    p->l2_hits += hit;
    if (g->probe)
        sim_probe_functional_llc(g, &g->mc[ff_where(g, r->line).mc], sm, r->line, hit);
    if (g->opts->hooks.mc_reply_warm)
        ff_reply_warm(g, sm, r->line, ff_where(g, r->line).mc);
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

static void ff_access(sim_gpu_t *g, ff_pending_t *p, sim_sm_t *sm, const gpuest_line_req_t *r, int op)
{
    p->lines++;
    if (op == GPUEST_MEM_LOAD && sm->l1s) { /* data filtering: the request controller sizes the fill */
        if (!sim_l1s_load_functional(g, sm, r, p->clock, p->clock + (uint64_t)p->window)) {
            p->l1_misses++;
            p->sent++;
            ff_read_miss(g, p, sm, r);
        }
        return;
    }
    if (op == GPUEST_MEM_LOAD) {
        sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 1);
        if (way && (way->valid & r->sectors) == r->sectors) {
            if (sm->l1comp) /* compressed L1 (LATTE-CC): the policy counts the hit */
                sim_l1c_hit_functional(g, sm, way);
            return;
        }
        p->l1_misses++;
        p->sent++;
        if (sm->l1comp) { /* compressed L1: the line is stored as the policy sizes its bytes */
            if (sim_l1c_fill_functional(g, sm, way, r->line))
                ff_read_miss(g, p, sm, r);
            return;
        }
        /* ff_tags(&sm->l1, r->line) without its second lookup: the way found above (touched
         * again, as ff_tags's lookup would) is filled whole, else a victim is */
        if (way)
            way->lru = ++sm->l1.stamp;
        else if (!(way = sim_tags_victim(&sm->l1, r->line)))
            return;
        sim_tags_fill(&sm->l1, way, r->line, 0xF);
        ff_read_miss(g, p, sm, r);
        return;
    }
    p->l1_misses++;
    p->sent++;
    sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 0);
    if (way) /* write-evict (stores) and evict-then-bypass (atomics), as l1.c */
        way->valid = 0;
    ff_l2(g, p, r->line, op);
}

/* A constant read: the distinct L1C lines of its active lanes (front.c's addressing). */
static void ff_const(sim_gpu_t *g, ff_pending_t *p, sim_sm_t *sm, const gpuest_inst_t *in)
{
    if (g->cfg->core.perfect_inst_const_cache)
        return;
    uint64_t lb = (uint64_t)sm->l1c.line_bytes;
    for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++)
        if (in->active_mask >> lane & 1) {
            uint64_t line = (SIM_CONST_BASE + (in->addr[lane] & 0xFFFF)) & ~(lb - 1);
            if (!ff_tags(&sm->l1c, line)) {
                uint64_t l2_line = line & ~(uint64_t)(GPUEST_LINE_BYTES - 1);
                ff_l2(g, p, l2_line, GPUEST_MEM_LOAD);
                if (g->opts->hooks.mc_reply_warm)
                    ff_reply_warm(g, sm, l2_line, ff_where(g, l2_line).mc);
            }
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
static gpuest_err ff_step(sim_gpu_t *g, ff_pending_t *p, sim_sm_t *sm, int s, int warm, int *advanced,
                          gpuest_error_t *err)
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
        p->pc = in->pc;
        for (size_t i = 0; i < n; i++)
            ff_access(g, p, sm, &req[i], (int)in->op);
    } else if (in->kind == GPUEST_INST_COMPUTE && in->lat == GPUEST_LAT_CONST && in->size > 0 && warm) {
        ff_const(g, p, sm, in);
    } else if (in->kind == GPUEST_INST_BARRIER) {
        GPUEST_TRY(sim_sm_barrier_arrive(g, sm, s, err));
    }
    w->issued++;
    p->clock++;
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

/* The timed schedule of fast-forward: each SM keeps a virtual clock (core cycles) and issues, as
 * its schedulers would (sim_sched_pick: GTO or LRR, one instruction a scheduler a cycle, one
 * memory instruction at a time in the LD/ST unit), the warps whose operands are ready by that
 * clock, with latencies instead of a memory system: a compute result after its class's latency, a
 * load after the L1 hit latency when every line hit the (functionally warmed) L1 and after the
 * last detailed unit's mean L1 miss latency otherwise, a store's acknowledgement after the miss
 * latency. Barriers and exits wait for the loads (and stores) as in detailed mode. A CTA that
 * exits is replaced at once, and the SMs advance together cycle by cycle (skipping the cycles in
 * which none can issue): an earlier version ran each SM for 512 cycles in turn and srad_cuda_2's
 * L2 hit rate fell from 0.39 to 0.28 (the CTAs that share halo lines no longer ran together).
 *
 * Why: a warp's position after fast-forward should be where the detailed run would have it, and
 * in a memory-bound kernel a CTA spends most of its time at a few instructions (the uses of its
 * loads, the barrier after them, its exit waiting for store acknowledgements). Advancing CTAs by
 * instruction shares (our previous version: credit by CTA age rank) spread their progress evenly
 * over the instructions: measured on srad/fermi/default at the units' starts, srad_cuda_1's
 * resident CTAs had issued 0-400 instructions almost uniformly after fast-forward, where the
 * reference run had 86 % of them between 40 and 160 (waiting for their loads); so after the
 * restart too many CTAs ran their compute and store phases at once, then all waited for loads
 * together: the dip and overshoot of the warming (docs/estimator.md). */

/* A warp's wake-up: the cycle at which it may be ready (stale when seq is no longer the warp's). */
typedef struct {
    int64_t at;
    uint32_t seq;
    int32_t slot;
} vwake_t;

typedef struct {
    int64_t *vreg;      /* nsm x W x GPUEST_REG_COUNT: virtual cycle at which each register is written */
    int64_t *vnext;     /* nsm x W: earliest virtual cycle the warp's next instruction can issue */
    int64_t *vmem;      /* nsm x W: its loads' latest completion (a barrier and the exit wait for it) */
    int64_t *vstore;    /* nsm x W: its stores' latest acknowledgement (the exit waits for it) */
    uint64_t *vage;     /* nsm x W: age of the warp the slot's virtual state belongs to */
    uint32_t *vseq;     /* nsm x W: its current wake-up's sequence number */
    uint8_t *vact;      /* nsm x W: the warp is active (mirrors sim_warp_t.state) */
    uint8_t *vmemop;    /* nsm x W: its next instruction needs the LD/ST unit */
    uint8_t *ready;     /* nsm x W: ready at the SM's clock */
    int64_t *vclock;    /* nsm */
    int64_t *ldst_free; /* nsm */
    int *nready;        /* nsm: count of ready warps */
    vwake_t *heap;      /* nsm x hcap: wake-ups by cycle (a binary min-heap per SM) */
    int *hn;            /* nsm: wake-ups held */
    int hcap;
    double miss_lat;    /* core cycles: the last detailed unit's mean L1 miss latency (0: none yet) */
    double ldst_occ;    /* with back-pressure (ff_backpressure_t): core cycles the LD/ST unit is taken per
                         * line request in the last detailed unit (0: none yet) */
    /* Wake-ups of warps whose memory instruction waits for the busy LD/ST unit, kept beside the
     * heap in an unordered list (nsm x hcap; pn held, pmin the earliest): after each memory
     * instruction every other warp ready with one is placed again at the unit's free cycle, which
     * made most of the heap's traffic. The list and the heap together hold exactly the wake-ups
     * the heap alone held (hn + pn counts against hcap), and the wake-ups due by a cycle are the
     * same whichever holds them, so the schedule does not change. */
    vwake_t *park;
    int *pn;
    int64_t *pmin;
    uint64_t *rbits;    /* nsm x rw: ready[] as a bit set (the scheduler's pick visits only the ready warps) */
    int rw;             /* 64-bit words a SM */
    uint64_t *smask;    /* nsched x rw: the slots of each scheduler (slot % nsched), as a bit set */
    uint32_t *syncs;    /* nsm: vsync calls on the SM so far (fast_forward's reuse of vattention) */
    /* The parked wake-ups in bulk (sixth session): the warps the LD/ST hold pass parks all wait for
     * the same cycle (the unit's free cycle), so they are kept as a bit set of slots (pbits, nsm x
     * rw) with one cycle (pbat, INT64_MAX when empty) and each warp's sequence number (pbseq, nsm x
     * W), instead of one list entry each. pbn counts the entries the list would hold (a warp parked
     * twice at the cycle counts twice, its first entry stale), so hn + pn + pbn is the list form's
     * hn + pn and the capacity rebuilds come at the same placements. A park at another cycle (the
     * unit's free cycle moved while the bulk waits: a rebuild parked warps at the next cycle and
     * the other scheduler issued a memory instruction in the same cycle) goes to the list. Every
     * entry due by a cycle is the same in both forms, so the schedule is the list form's
     * (gpuest_sample_opts_t.slow_paths keeps the list alone; tests/study/test_sample_speed.c). */
    uint64_t *pbits;
    int64_t *pbat;
    int *pbn;
    uint32_t *pbseq;
    int bulk;           /* 1: park in bulk (not slow_paths) */
    uint64_t sched_hash; /* FNV-1a over (SM, slot, virtual cycle) of every fast-forwarded issue */
    uint64_t parks_bulk, parks_list; /* wake-ups parked in the bulk and in the list */
    /* vmemop[] as a bit set (nsm x rw), kept beside it (seventh session): the bulk hold pass takes
     * the ready warps with a memory instruction as one AND of two words a 64 slots, where it read
     * both byte arrays and visited every ready warp (gemm/default: that pass was 1.4 % of a
     * sampled run in libgcc's popcount alone). Not read on the slow path. */
    uint64_t *mbits;
    int bulk_lazy;      /* 1: the released bulk's sequence numbers read in place (vrelease_bulk; not slow_paths) */
} ff_timing_t;

/* The memory system's back-pressure in the timed schedule (gpuest_sample_opts_t.ff_backpressure).
 * Without it, a memory instruction holds the LD/ST unit for one cycle a line and a miss waits the
 * last unit's mean L1 miss latency: nothing limits how many requests the SMs have out, so in a
 * memory-bound kernel every warp advances at the same latency-bound pace. Measured on
 * gemm/fermi/default at the units' starts (docs/estimator.md, "Sampled simulation, fourth
 * session"): fast-forward then moves the resident CTAs in lock step, whole waves of 90 CTAs
 * starting and ending together (standard deviation of the CTAs' progress 50-300 instructions),
 * where the detailed run has them staggered (about 1,000: GTO lets the oldest warps take the
 * LD/ST unit whenever it frees, so young CTAs wait); the units after it saw an L2 hit rate of
 * 0.95 against the exact units' 0.82 and a quarter of their DRAM reads. With back-pressure each
 * line request holds the LD/ST unit for the unit's measured cycles per line request (one plus
 * its stall cycles on full MSHRs or a full miss queue), so the SMs issue memory requests at the
 * rate the memory system served them, and a load that misses waits a latency drawn from the
 * unit's own miss latencies (the slowest of its missing lines), so warps drift apart as they do
 * when their requests queue. The draws come from the sampler's seed (one stream of their own). */
typedef struct {
    gpuest_rng_t *rng; /* NULL: no back-pressure */
    uint32_t *lat;     /* the last unit's L1 miss latencies (core cycles), nlat of them */
    uint32_t nlat;
    /* gpuest_sample_opts_t.ff_l2_split: the same latencies split by the L2's outcome in detailed
     * mode (hits: nhit at lat_hit; misses, DRAM reads and L2 MSHR merges: nmiss at lat_miss), and
     * a line is drawn from the set its fast-forwarded L2 lookup falls in */
    int split;
    uint32_t *lat_hit, *lat_miss;
    uint32_t nhit, nmiss;
} ff_backpressure_t;

/* Fast-forward's state, kept from one fast-forward to the next. */
typedef struct {
    int cold;          /* gpuest_sample_opts_t.cold */
    double ff_seconds; /* CPU time spent fast-forwarding */
    ff_pending_t pend; /* L2 fills in flight during fast-forward */
    ff_timing_t tm;    /* the timed schedule of fast-forward */
    ff_backpressure_t bp;
    /* gpuest_sample_opts_t.ff_miss_stalls (with back-pressure): the LD/ST unit's stall cycles are
     * measured per request that left the L1 in the last unit and charged to those only; an L1 hit
     * holds the unit one cycle a line, as in detailed mode, where only a request that needs an MSHR
     * entry or a miss-queue slot waits for one. Charged per line request (back-pressure alone),
     * gemm's hits (A: 0.84 of its loads) held the unit 7.4 cycles each in fast-forward and the
     * warps whose loads hit were slowed like those that missed (docs/estimator.md, "Sampled
     * simulation: gemm"). */
    int miss_stalls;
    int slow;          /* gpuest_sample_opts_t.slow_paths */
    /* gpuest_sample_opts_t.ff_gather (without back-pressure, whose draws take the slowest line
     * already): a load that misses n lines waits gather_emax[n], the expected slowest of n of the
     * last unit's miss latencies (sample_gather.c), instead of their mean */
    int gather, gather_ok;
    uint32_t *gather_scratch;
    double gather_emax[GPUEST_GATHER_MAX_LINES + 1];
    /* gpuest_sample_opts_t.ff_pool (with back-pressure): the last K units' rates (k 0: off), and
     * room for their latencies together */
    gpuest_ff_pool_t pool;
    uint32_t *pool_buf;
    /* gpuest_sample_opts_t.ff_walk: each gap walked untimed but for its last `window` warp
     * instructions (sample_walk.h); walk_insts counts the walked ones */
    int walk;
    uint64_t window, walk_insts;
} ff_rates_t;

static gpuest_err ff_alloc(const sim_gpu_t *g, ff_rates_t *r)
{
    size_t W = (size_t)g->cfg->core.warps_per_sm, N = (size_t)g->nsm * W, S = (size_t)g->nsm;
    ff_timing_t *t = &r->tm;
    r->pend.ways_per_mc = (size_t)g->mc[0].l2.sets * (size_t)g->mc[0].l2.assoc;
    r->pend.ready = calloc((size_t)g->nmc * r->pend.ways_per_mc, sizeof(uint64_t));
    t->hcap = 8 * (int)W;
    t->vreg = calloc(N * GPUEST_REG_COUNT, sizeof *t->vreg);
    t->vnext = calloc(N, sizeof *t->vnext);
    t->vmem = calloc(N, sizeof *t->vmem);
    t->vstore = calloc(N, sizeof *t->vstore);
    t->vage = calloc(N, sizeof *t->vage);
    t->vseq = calloc(N, sizeof *t->vseq);
    t->vact = calloc(N, 1);
    t->vmemop = calloc(N, 1);
    t->ready = calloc(N, 1);
    t->vclock = calloc(S, sizeof *t->vclock);
    t->ldst_free = calloc(S, sizeof *t->ldst_free);
    t->nready = calloc(S, sizeof *t->nready);
    t->heap = calloc(S * (size_t)t->hcap, sizeof *t->heap);
    t->hn = calloc(S, sizeof *t->hn);
    t->park = calloc(S * (size_t)t->hcap, sizeof *t->park);
    t->pn = calloc(S, sizeof *t->pn);
    t->pmin = malloc(S * sizeof *t->pmin);
    t->rw = (int)((W + 63) / 64);
    t->rbits = calloc(S * (size_t)t->rw, sizeof *t->rbits);
    int nsched = g->sm[0].nsched;
    t->smask = calloc((size_t)nsched * (size_t)t->rw, sizeof *t->smask);
    t->syncs = calloc(S, sizeof *t->syncs);
    t->pbits = calloc(S * (size_t)t->rw, sizeof *t->pbits);
    t->pbat = malloc(S * sizeof *t->pbat);
    t->pbn = calloc(S, sizeof *t->pbn);
    t->pbseq = calloc(N, sizeof *t->pbseq);
    t->mbits = calloc(S * (size_t)t->rw, sizeof *t->mbits);
    t->sched_hash = 14695981039346656037ull;
    for (int s = 0; t->smask && s < (int)W; s++)
        t->smask[(size_t)(s % nsched) * (size_t)t->rw + (size_t)(s / 64)] |= 1ull << (s % 64);
    for (size_t i = 0; t->pmin && i < S; i++)
        t->pmin[i] = INT64_MAX;
    for (size_t i = 0; t->pbat && i < S; i++)
        t->pbat[i] = INT64_MAX;
    return r->pend.ready && t->vreg && t->vnext && t->vmem && t->vstore && t->vage && t->vseq && t->vact &&
                   t->vmemop && t->ready && t->vclock && t->ldst_free && t->nready && t->heap && t->hn &&
                   t->park && t->pn && t->pmin && t->rbits && t->smask && t->syncs && t->pbits && t->pbat &&
                   t->pbn && t->pbseq && t->mbits
               ? GPUEST_OK
               : GPUEST_ENOMEM;
}

static void ff_free(ff_rates_t *r)
{
    ff_timing_t *t = &r->tm;
    free(r->pend.ready);
    free(t->vreg);
    free(t->vnext);
    free(t->vmem);
    free(t->vstore);
    free(t->vage);
    free(t->vseq);
    free(t->vact);
    free(t->vmemop);
    free(t->ready);
    free(t->vclock);
    free(t->ldst_free);
    free(t->nready);
    free(t->heap);
    free(t->hn);
    free(t->park);
    free(t->pn);
    free(t->pmin);
    free(t->rbits);
    free(t->smask);
    free(t->syncs);
    free(t->pbits);
    free(t->pbat);
    free(t->pbn);
    free(t->pbseq);
    free(t->mbits);
}

#define GPUEST_MAX_SMS_FF 1024 /* sim_gpu_build's limit on SMs */
#define GPUEST_MAX_WARP_WORDS_FF 4 /* 64-bit words of a ready bit set: the schema's 256 warps per SM */

static int64_t max_i64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The fields of a fast-forwarded instruction its virtual timing needs (the whole one is large). */
typedef struct {
    uint8_t kind, op, lat, ndst;
    uint8_t dst[GPUEST_INST_MAX_DST];
} vinst_t;

static int is_mem(const gpuest_inst_t *in) { return in->kind == GPUEST_INST_MEM; }

/* vmemop[k] of warp slot (flat index k) of SM i set to m, and its bit in mbits. */
static void set_memop(ff_timing_t *t, int i, size_t k, int slot, int m)
{
    t->vmemop[k] = (uint8_t)m;
    uint64_t *w = &t->mbits[(size_t)i * (size_t)t->rw + (size_t)(slot / 64)], bit = 1ull << (slot % 64);
    *w = m ? *w | bit : *w & ~bit;
}

/* Set bits of x (an inline SWAR count: the build targets no popcount instruction, and the
 * builtin's library call showed in the profile). */
static int pop64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* When warp k's fetched instruction in can issue: its operands, and for a barrier its loads, for
 * the exit its loads and stores. */
static int64_t vready_of(const ff_timing_t *t, size_t k, const gpuest_inst_t *in)
{
    if (in->kind == GPUEST_INST_END)
        return max_i64(t->vmem[k], t->vstore[k]);
    if (in->kind == GPUEST_INST_BARRIER)
        return t->vmem[k];
    const int64_t *v = &t->vreg[k * GPUEST_REG_COUNT];
    int64_t r = 0;
    for (int i = 0; i < in->nsrc; i++)
        r = max_i64(r, v[in->src[i]]);
    for (int i = 0; i < in->ndst; i++)
        r = max_i64(r, v[in->dst[i]]);
    return r;
}

/* A load's miss latency under back-pressure: the slowest of `misses` draws from the last unit's
 * L1 miss latencies (the load completes when its last line does). */
static double bp_latency(ff_backpressure_t *bp, int misses, int l2_hits)
{
    uint32_t m = 0;
    int split = bp->split && bp->nhit > 0 && bp->nmiss > 0;
    for (int j = 0; j < misses; j++) {
        uint32_t x;
        if (!split)
            x = bp->lat[gpuest_rng_below(bp->rng, bp->nlat)];
        else if (j < l2_hits)
            x = bp->lat_hit[gpuest_rng_below(bp->rng, bp->nhit)];
        else
            x = bp->lat_miss[gpuest_rng_below(bp->rng, bp->nmiss)];
        m = x > m ? x : m;
    }
    return (double)m;
}

/* The virtual timing of instruction in, just fast-forwarded by warp k of SM i at virtual cycle now. */
static void vissue(const sim_gpu_t *g, ff_rates_t *r, int i, size_t k, const vinst_t *in, int64_t now)
{
    ff_timing_t *t = &r->tm;
    int64_t *v = &t->vreg[k * GPUEST_REG_COUNT], done;
    if (in->kind == GPUEST_INST_MEM) {
        int64_t lines = r->pend.lines > 0 ? r->pend.lines : 1;
        if (r->bp.rng && t->ldst_occ > 1.0 && r->miss_stalls) /* stall cycles per request that leaves the L1 */
            lines += (int64_t)((double)r->pend.sent * (t->ldst_occ - 1.0) + 0.5);
        else if (r->bp.rng && t->ldst_occ > 1.0) /* the LD/ST unit's cycles a line, stalls included */
            lines = (int64_t)((double)lines * t->ldst_occ + 0.5);
        t->ldst_free[i] = now + lines;
        double lat = r->pend.l1_misses > 0 && t->miss_lat > 0 ? t->miss_lat : (double)g->cfg->l1.hit_latency;
        if (r->bp.rng && r->pend.l1_misses > 0 && r->bp.nlat > 0)
            lat = bp_latency(&r->bp, r->pend.l1_misses, r->pend.l2_hits);
        else if (r->gather_ok && r->pend.l1_misses > 0)
            lat = r->gather_emax[r->pend.l1_misses < GPUEST_GATHER_MAX_LINES ? r->pend.l1_misses
                                                                             : GPUEST_GATHER_MAX_LINES];
        done = now + lines + (int64_t)lat;
        if (in->op == GPUEST_MEM_STORE) {
            t->vstore[k] = max_i64(t->vstore[k], done);
            return;
        }
        t->vmem[k] = max_i64(t->vmem[k], done);
    } else if (in->kind == GPUEST_INST_COMPUTE) {
        unsigned c = (unsigned)in->lat;
        done = now + (c < 5 ? g->lat_class[c] : g->lat_class[0]);
    } else {
        return;
    }
    for (int d = 0; d < in->ndst; d++)
        v[in->dst[d]] = done;
}

/* ---- wake-ups: a binary min-heap per SM */
static void heap_push(ff_timing_t *t, int i, vwake_t e)
{
    vwake_t *h = &t->heap[(size_t)i * (size_t)t->hcap];
    int c = t->hn[i]++;
    while (c > 0 && h[(c - 1) / 2].at > e.at) {
        h[c] = h[(c - 1) / 2];
        c = (c - 1) / 2;
    }
    h[c] = e;
}

/* Restores the heap order of SM i's wake-ups below entry c. */
static void heap_sift_down(ff_timing_t *t, int i, int c)
{
    vwake_t *h = &t->heap[(size_t)i * (size_t)t->hcap], e = h[c];
    int n = t->hn[i];
    for (;;) {
        int m = 2 * c + 1;
        if (m >= n)
            break;
        if (m + 1 < n && h[m + 1].at < h[m].at)
            m++;
        if (h[m].at >= e.at)
            break;
        h[c] = h[m];
        c = m;
    }
    h[c] = e;
}

static vwake_t heap_pop(ff_timing_t *t, int i)
{
    vwake_t *h = &t->heap[(size_t)i * (size_t)t->hcap], top = h[0];
    int n = --t->hn[i];
    if (n > 0) { /* the last entry goes to the root and sinks */
        h[0] = h[n];
        heap_sift_down(t, i, 0);
    }
    return top;
}

static void vrebuild(const sim_gpu_t *g, ff_timing_t *t, int i);

/* Warp slot of SM i (flat index k) becomes ready / stops being ready: ready[], its bit, the count. */
static void ready_on(ff_timing_t *t, int i, size_t k, int slot)
{
    t->ready[k] = 1;
    t->rbits[(size_t)i * (size_t)t->rw + (size_t)(slot / 64)] |= 1ull << (slot % 64);
    t->nready[i]++;
}

static void ready_off(ff_timing_t *t, int i, size_t k, int slot)
{
    t->ready[k] = 0;
    t->rbits[(size_t)i * (size_t)t->rw + (size_t)(slot / 64)] &= ~(1ull << (slot % 64));
    t->nready[i]--;
}

/* SM i's wake-ups, appended unordered, made a heap in one pass (Floyd's bottom-up build). */
static void heap_build(ff_timing_t *t, int i)
{
    for (int c = t->hn[i] / 2 - 1; c >= 0; c--)
        heap_sift_down(t, i, c);
}

/* Warp slot (flat index k) of SM i parked in the bulk at cycle at (its sequence number taken). */
static void vpark_bulk(ff_timing_t *t, int i, size_t k, int slot, int64_t at)
{
    t->pbits[(size_t)i * (size_t)t->rw + (size_t)(slot / 64)] |= 1ull << (slot % 64);
    t->pbseq[k] = t->vseq[k];
    t->pbn[i]++;
    t->parks_bulk++;
    t->pbat[i] = at;
    if (at < t->pmin[i])
        t->pmin[i] = at;
}

/* A wake-up of warp slot (flat index k) of SM i at cycle at: the bulk or the list when it waits for the LD/ST
 * unit, else the heap (sifted into place, or appended when the caller builds the heap after).
 * The heap's layout does not change the schedule: the entries due by a cycle are the same in any
 * layout, and placing them is order-independent (each touches only its own warp). */
static void vqueue(ff_timing_t *t, int i, size_t k, int slot, int64_t at, int sift)
{
    vwake_t e = {at, ++t->vseq[k], slot};
    if (t->vmemop[k] && at == t->ldst_free[i] && t->bulk && (t->pbn[i] == 0 || t->pbat[i] == at)) {
        vpark_bulk(t, i, k, slot, at); /* waits for the LD/ST unit: the bulk */
        return;
    }
    if (t->vmemop[k] && at == t->ldst_free[i]) { /* waits for the LD/ST unit: the list */
        t->park[(size_t)i * (size_t)t->hcap + (size_t)t->pn[i]++] = e;
        t->parks_list++;
        if (at < t->pmin[i])
            t->pmin[i] = at;
        return;
    }
    if (sift)
        heap_push(t, i, e);
    else
        t->heap[(size_t)i * (size_t)t->hcap + (size_t)t->hn[i]++] = e;
}

/* Warp slot of SM i, not ready: ready now if its cycle has come (LD/ST unit included), else a
 * wake-up at that cycle. */
static void vplace(const sim_gpu_t *g, ff_timing_t *t, int i, int slot, int64_t now)
{
    size_t k = (size_t)i * (size_t)g->cfg->core.warps_per_sm + (size_t)slot;
    int64_t at = t->vnext[k];
    if (t->vmemop[k] && t->ldst_free[i] > at)
        at = t->ldst_free[i];
    if (at <= now) {
        ready_on(t, i, k, slot);
        return;
    }
    if (t->hn[i] + t->pn[i] + t->pbn[i] == t->hcap) { /* stale wake-ups filled it: start over from the warps themselves */
        vrebuild(g, t, i);
        if (t->ready[k])
            return;
    }
    vqueue(t, i, k, slot, at, 1);
}

/* Every wake-up of SM i dropped and its active warps placed again at its clock. */
static void vrebuild(const sim_gpu_t *g, ff_timing_t *t, int i)
{
    int W = g->cfg->core.warps_per_sm;
    size_t o = (size_t)i * (size_t)W;
    t->hn[i] = t->pn[i] = t->pbn[i] = 0;
    t->pmin[i] = t->pbat[i] = INT64_MAX;
    for (int w = 0; w < t->rw; w++)
        t->pbits[(size_t)i * (size_t)t->rw + (size_t)w] = 0;
    t->nready[i] = 0;
    for (int s = 0; s < W; s++)
        t->ready[o + (size_t)s] = 0;
    for (int w = 0; w < t->rw; w++)
        t->rbits[(size_t)i * (size_t)t->rw + (size_t)w] = 0;
    /* vplace without its capacity check (at most W entries go in) and with the heap built once */
    int64_t now = t->vclock[i];
    for (int s = 0; s < W; s++) {
        size_t k = o + (size_t)s;
        if (!t->vact[k])
            continue;
        int64_t at = t->vnext[k];
        if (t->vmemop[k] && t->ldst_free[i] > at)
            at = t->ldst_free[i];
        if (at <= now)
            ready_on(t, i, k, s);
        else
            vqueue(t, i, k, s, at, 0);
    }
    heap_build(t, i);
}

/* A wake-up of SM i taken from the heap or the list: the warp is placed if it is still its own. */
static void vwoken(const sim_gpu_t *g, ff_timing_t *t, int i, size_t o, vwake_t e)
{
    size_t k = o + (size_t)e.slot;
    if (e.seq == t->vseq[k] && t->vact[k] && !t->ready[k])
        vplace(g, t, i, e.slot, t->vclock[i]);
}

/* The sequence numbers of the due bulk's slots still to be placed (word w's bits in `rest`, and
 * every later word's) copied into seq[slot]. */
static void bulk_copy_seq(const ff_timing_t *t, size_t o, const uint64_t *due, int w, uint64_t rest, uint32_t *seq)
{
    for (int v = w; v < t->rw; v++)
        for (uint64_t x = v == w ? due[v] & rest : due[v]; x; x &= x - 1) {
            int s = v * 64 + __builtin_ctzll(x);
            seq[s] = t->pbseq[o + (size_t)s];
        }
}

/* The due bulk's warps of SM i placed at its clock, in slot order, as vwoken would place each one.
 * The sequence numbers are read in place until the first placement that is not a plain ready_on
 * (the common case: the unit freed, so the bulk's warps can go), and copied for the slots after
 * it just before it (vplace may rebuild or park, which rewrites them); `copied` 1: seq holds them
 * all already (the list's placements ran first). The ready bits and count of a word are gathered
 * and stored before any vplace and at the word's end: nothing between reads them. */
static void vrelease_bulk(const sim_gpu_t *g, ff_timing_t *t, int i, size_t o, const uint64_t *due, uint32_t *seq,
                          int copied)
{
    int64_t now = t->vclock[i];
    uint64_t *rb = &t->rbits[(size_t)i * (size_t)t->rw];
    for (int w = 0; w < t->rw; w++) {
        uint64_t on = 0;
        int cnt = 0;
        for (uint64_t x = due[w]; x; x &= x - 1) {
            int s = w * 64 + __builtin_ctzll(x);
            size_t k = o + (size_t)s;
            uint32_t sq = copied ? seq[s] : t->pbseq[k];
            if (sq != t->vseq[k] || !t->vact[k] || t->ready[k])
                continue; /* stale (vwoken's test) */
            int64_t at = t->vnext[k]; /* vplace's cycle */
            if (t->vmemop[k] && t->ldst_free[i] > at)
                at = t->ldst_free[i];
            if (at <= now) { /* vplace's ready_on */
                t->ready[k] = 1;
                on |= x & -x;
                cnt++;
                continue;
            }
            if (!copied) {
                bulk_copy_seq(t, o, due, w, x & (x - 1), seq);
                copied = 1;
            }
            rb[w] |= on;
            t->nready[i] += cnt;
            on = 0;
            cnt = 0;
            vplace(g, t, i, s, now);
        }
        rb[w] |= on;
        t->nready[i] += cnt;
    }
}

/* The list's wake-ups of SM i due by its clock: moved to the list's tail and taken out (the
 * count only falls, so no placement finds the wake-ups full, as with the heap's pop-then-place),
 * then placed one by one. A placement may append to the list: its j-th append lands on a due
 * slot already read (at most one append per wake-up placed). */
static void vwake_parked(const sim_gpu_t *g, ff_timing_t *t, int i, size_t o)
{
    vwake_t *p = &t->park[(size_t)i * (size_t)t->hcap];
    int lo = 0, hi = t->pn[i], end = t->pn[i];
    int64_t now = t->vclock[i], left = INT64_MAX;
    while (lo < hi) {
        if (p[lo].at <= now) {
            vwake_t e = p[lo];
            p[lo] = p[--hi];
            p[hi] = e;
        } else {
            if (p[lo].at < left)
                left = p[lo].at;
            lo++;
        }
    }
    t->pn[i] = hi;
    /* the bulk, when due, is taken out too (its sequence numbers copied before any placement: a
     * placement may park its warp in a new bulk, or rebuild, which parks the others again) */
    uint64_t due[GPUEST_MAX_WARP_WORDS_FF] = {0};
    uint32_t seq[GPUEST_MAX_WARP_WORDS_FF * 64];
    int bulk_due = t->pbn[i] > 0 && t->pbat[i] <= now;
    if (bulk_due) {
        uint64_t *b = &t->pbits[(size_t)i * (size_t)t->rw];
        for (int w = 0; w < t->rw; w++) {
            due[w] = b[w];
            b[w] = 0;
        }
        t->pbn[i] = 0;
        t->pbat[i] = INT64_MAX;
        if (hi < end || !t->bulk_lazy)
            bulk_copy_seq(t, o, due, 0, ~0ull, seq);
    }
    t->pmin[i] = left < t->pbat[i] ? left : t->pbat[i];
    for (int j = hi; j < end; j++)
        vwoken(g, t, i, o, p[j]);
    if (bulk_due)
        vrelease_bulk(g, t, i, o, due, seq, hi < end || !t->bulk_lazy);
}

/* The wake-ups of SM i due by its clock. */
static void vwake(const sim_gpu_t *g, ff_timing_t *t, int i)
{
    size_t o = (size_t)i * (size_t)g->cfg->core.warps_per_sm;
    if (t->pmin[i] <= t->vclock[i])
        vwake_parked(g, t, i, o);
    while (t->hn[i] > 0 && t->heap[(size_t)i * (size_t)t->hcap].at <= t->vclock[i]) {
        vwoken(g, t, i, o, heap_pop(t, i));
    }
}

/* When SM i next needs attention: its clock when a warp is ready, else its next wake-up. */
static int64_t vattention(const sim_gpu_t *g, ff_timing_t *t, int i)
{
    vwake(g, t, i);
    if (t->nready[i] > 0)
        return t->vclock[i];
    int64_t h = t->hn[i] > 0 ? t->heap[(size_t)i * (size_t)t->hcap].at : INT64_MAX;
    return h < t->pmin[i] ? h : t->pmin[i];
}

/* Mirrors SM i's warp states; a warp started since the last call gets a fresh virtual state
 * (ready at now, nothing pending). */
static void vmirror(const sim_gpu_t *g, ff_timing_t *t, int i, int64_t now)
{
    int W = g->cfg->core.warps_per_sm;
    for (int s = 0; s < W; s++) {
        const sim_warp_t *w = &g->sm[i].warps[s];
        size_t k = (size_t)i * (size_t)W + (size_t)s;
        t->vact[k] = w->state == WS_ACTIVE;
        if (w->state == WS_EMPTY || w->state == WS_DONE || t->vage[k] == w->age)
            continue;
        memset(&t->vreg[k * GPUEST_REG_COUNT], 0, GPUEST_REG_COUNT * sizeof *t->vreg);
        t->vnext[k] = t->vmem[k] = t->vstore[k] = now;
        t->vage[k] = w->age;
        set_memop(t, i, k, s, is_mem(&w->inst));
    }
}

/* vmirror, then every wake-up of SM i placed again. */
static void vsync(const sim_gpu_t *g, ff_timing_t *t, int i, int64_t now)
{
    t->syncs[i]++;
    vmirror(g, t, i, now);
    vrebuild(g, t, i);
}

/* New CTAs (after an exit anywhere) join the SMs that took them at the current cycle. */
static gpuest_err vassign(sim_gpu_t *g, ff_timing_t *t, int64_t now, gpuest_error_t *err)
{
    int before[GPUEST_MAX_SMS_FF];
    int n = g->nsm < GPUEST_MAX_SMS_FF ? g->nsm : GPUEST_MAX_SMS_FF;
    for (int i = 0; i < n; i++)
        before[i] = g->sm[i].ctas_used;
    uint32_t started = g->next_cta;
    GPUEST_TRY(sim_gpu_assign_ctas(g, err));
    if (g->next_cta == started)
        return GPUEST_OK;
    for (int i = 0; i < g->nsm; i++)
        if (i >= n || g->sm[i].ctas_used != before[i]) {
            if (t->vclock[i] < now)
                t->vclock[i] = now;
            vsync(g, t, i, t->vclock[i]);
        }
    return GPUEST_OK;
}

/* After warp slot's barrier arrival at cycle now: it waits (inactive), or the barrier released its
 * CTA, whose warps become ready at their own operands' cycles. */
static void vbarrier(const sim_gpu_t *g, ff_timing_t *t, int i, int slot, int64_t now)
{
    int W = g->cfg->core.warps_per_sm;
    size_t o = (size_t)i * (size_t)W;
    const sim_sm_t *sm = &g->sm[i];
    if (sm->warps[slot].state != WS_ACTIVE) {
        t->vact[o + (size_t)slot] = 0;
        return;
    }
    int cs = sm->warps[slot].cta_slot;
    for (int s = 0; s < W; s++) {
        const sim_warp_t *w = &sm->warps[s];
        size_t k = o + (size_t)s;
        if (w->state != WS_ACTIVE || w->cta_slot != cs || t->ready[k])
            continue;
        t->vact[k] = 1;
        vplace(g, t, i, s, now + 1);
    }
}

/* After a memory instruction issued on SM i at cycle now, every other warp ready with a memory
 * instruction waits for the LD/ST unit: placed again from now + 1, in slot order. The slots are
 * taken 8 at a time: the bytes set in both ready[] and vmemop[] (flags 0/1) are visited in
 * ascending order (the lowest set bit of their AND); each visited slot's flags are read again
 * when it is reached, so the order and the outcome are those of a plain scan. (A placement can
 * make only its own warp ready, and a rebuild inside vplace cannot make a memory instruction
 * ready at now: the LD/ST unit is busy until now + its lines; so no slot outside the AND of a
 * block becomes one to visit while the block is worked.) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FF_LITTLE_ENDIAN 1 /* slot b + j's flag is byte j of the 8 read: bits 8j.. of the word */
#else
#define FF_LITTLE_ENDIAN 0 /* the plain scan */
#endif
/* vhold_mem in bulk, when that is what the plain pass would do: every warp it visits is parked at
 * the LD/ST unit's free cycle (ldst_free > now + 1 is the caller's condition, and a ready warp's
 * next cycle is at most now + 1), none of the placements meets the capacity check (hn + pn + pbn
 * plus the warps parked stays within hcap, so no rebuild comes between them), and the bulk is
 * empty or waits for that cycle. Returns 0, having changed nothing, when the plain pass must run. */
static int vhold_bulk(const sim_gpu_t *g, ff_timing_t *t, int i, int64_t now)
{
    int W = g->cfg->core.warps_per_sm;
    size_t o = (size_t)i * (size_t)W;
    int64_t at = t->ldst_free[i];
    if (at <= now + 1 || (t->pbn[i] > 0 && t->pbat[i] != at))
        return 0;
    /* the ready warps with a memory instruction: ready[] and vmemop[] as their bit sets */
    uint64_t *rb = &t->rbits[(size_t)i * (size_t)t->rw], *pb = &t->pbits[(size_t)i * (size_t)t->rw];
    const uint64_t *mb = &t->mbits[(size_t)i * (size_t)t->rw];
    int m = 0;
    for (int w = 0; w < t->rw; w++)
        m += pop64(rb[w] & mb[w]);
    if (m == 0)
        return 1;
    if (t->hn[i] + t->pn[i] + t->pbn[i] + m > t->hcap)
        return 0;
    for (int w = 0; w < t->rw; w++) {
        uint64_t park = rb[w] & mb[w];
        for (uint64_t x = park; x; x &= x - 1) {
            size_t k = o + (size_t)(w * 64 + __builtin_ctzll(x));
            t->ready[k] = 0;
            t->pbseq[k] = ++t->vseq[k];
        }
        rb[w] &= ~park;
        pb[w] |= park;
    }
    t->nready[i] -= m;
    t->pbn[i] += m;
    t->parks_bulk += (uint64_t)m;
    t->pbat[i] = at;
    if (at < t->pmin[i])
        t->pmin[i] = at;
    return 1;
}

static void vhold_mem(const sim_gpu_t *g, ff_timing_t *t, int i, int64_t now)
{
    int W = g->cfg->core.warps_per_sm;
    size_t o = (size_t)i * (size_t)W;
    uint8_t *ready = &t->ready[o];
    const uint8_t *memop = &t->vmemop[o];
    if (t->bulk && FF_LITTLE_ENDIAN && vhold_bulk(g, t, i, now))
        return;
    for (int b = 0; b < W; b += 8) {
        int n = W - b < 8 ? W - b : 8;
        if (n == 8 && FF_LITTLE_ENDIAN) {
            uint64_t r8, m8;
            memcpy(&r8, ready + b, 8);
            memcpy(&m8, memop + b, 8);
            for (uint64_t x = r8 & m8; x; x &= x - 1) { /* one bit a set byte: bit 8j for slot b + j */
                int s = b + __builtin_ctzll(x) / 8;
                if (ready[s] && memop[s]) {
                    ready_off(t, i, o + (size_t)s, s);
                    vplace(g, t, i, s, now + 1);
                }
            }
            continue;
        }
        for (int s = b; s < b + n; s++)
            if (ready[s] && memop[s]) {
                ready_off(t, i, o + (size_t)s, s);
                vplace(g, t, i, s, now + 1);
            }
    }
}

/* One virtual cycle of SM i (some warp is ready at its clock): each scheduler issues its pick.
 * Readiness changes only for the warps that issued, the CTA a barrier released, and the warps the
 * LD/ST unit holds back; an exit refreshes the SM (a CTA may have started). */
static gpuest_err ff_sm_cycle(sim_gpu_t *g, ff_rates_t *r, int i, uint64_t budget, uint64_t *done, int *any,
                              gpuest_error_t *err)
{
    ff_timing_t *t = &r->tm;
    sim_sm_t *sm = &g->sm[i];
    int W = g->cfg->core.warps_per_sm;
    size_t o = (size_t)i * (size_t)W;
    uint8_t *ready = &t->ready[o];
    int64_t now = t->vclock[i];
    for (int sc = 0; sc < sm->nsched && *done < budget; sc++) {
        uint64_t bits[GPUEST_MAX_WARP_WORDS_FF];
        for (int w = 0; w < t->rw; w++)
            bits[w] = t->rbits[(size_t)i * (size_t)t->rw + (size_t)w] & t->smask[(size_t)sc * (size_t)t->rw + (size_t)w];
        int slot = sim_sched_pick_bits(g, sm, sc, ready, bits, t->rw, &t->vage[o]); /* vage: the ready warps' ages */
        if (slot < 0)
            continue;
        sim_warp_t *w = &sm->warps[slot];
        size_t k = o + (size_t)slot;
        vinst_t in = {(uint8_t)w->inst.kind, (uint8_t)w->inst.op, (uint8_t)w->inst.lat, w->inst.ndst, {0}};
        memcpy(in.dst, w->inst.dst, sizeof in.dst);
        int adv = 0;
        r->pend.lines = r->pend.l1_misses = r->pend.sent = r->pend.l2_hits = 0;
        GPUEST_TRY(ff_step(g, &r->pend, sm, slot, !r->cold, &adv, err));
        ready_off(t, i, k, slot);
        if (!adv) { /* held by the real machine (cannot happen after a drain): try again next cycle */
            heap_push(t, i, (vwake_t){now + 1, ++t->vseq[k], slot});
            continue;
        }
        sm->sched[sc].last = slot;
        *any = 1;
        t->sched_hash = (t->sched_hash ^ ((uint64_t)i << 48 ^ (uint64_t)slot << 40 ^ (uint64_t)now)) * 1099511628211ull;
        if (in.kind == GPUEST_INST_END) { /* retired: its slot (and maybe its CTA's) is free */
            /* vsync(i, now), then vassign; when vassign starts a CTA here it syncs SM i again at
             * the same clock (vclock[i] == now), and a rebuild depends only on the warps' virtual
             * state, which neither the assignment nor a rebuild changes (a rebuild drops every
             * wake-up, so the sequence numbers the first would have used matter to none): the
             * first rebuild is then skipped. */
            int ctas = sm->ctas_used;
            vmirror(g, t, i, now);
            GPUEST_TRY(vassign(g, t, now, err));
            if (sm->ctas_used == ctas)
                vrebuild(g, t, i);
            continue;
        }
        (*done)++;
        vissue(g, r, i, k, &in, now);
        t->vnext[k] = vready_of(t, k, &w->inst);
        set_memop(t, i, k, slot, is_mem(&w->inst));
        if (in.kind == GPUEST_INST_BARRIER) { /* it waits, or it released its CTA */
            vbarrier(g, t, i, slot, now);
            continue;
        }
        /* the LD/ST unit holds back the memory instructions ready now; not when it frees by now + 1
         * (one line without back-pressure): a warp placed from now + 1 is then ready again at once,
         * its ready_off and vplace undo each other (a ready warp's operands are ready by now, so its
         * cycle is the unit's) and no wake-up is queued, so the pass would change nothing */
        if (in.kind == GPUEST_INST_MEM && (r->slow || t->ldst_free[i] > now + 1))
            vhold_mem(g, t, i, now);
        vplace(g, t, i, slot, now + 1);
    }
    t->vclock[i] = now + 1;
    return GPUEST_OK;
}

/* At the end of a fast-forward: what is still pending on each warp's virtual clock (a load's
 * result, a barrier's or the exit's wait for loads and stores) becomes due that many cycles after
 * the real clock, through the scoreboard (the memory traffic itself is not replayed). Completing
 * everything at once restarted every CTA that waited for its loads together: on the scripted
 * load-barrier-chain kernel of tests/study/test_sample_ff.c the sampled units ran 1.67x the exact
 * units' IPC, against 1.14x with the waits carried over. */
static void vcarry(sim_gpu_t *g, const ff_timing_t *t)
{
    int W = g->cfg->core.warps_per_sm;
    sim_time_t pc = g->period[GPUEST_CLK_CORE];
    for (int i = 0; i < g->nsm; i++)
        for (int s = 0; s < W; s++) {
            sim_warp_t *w = &g->sm[i].warps[s];
            size_t k = (size_t)i * (size_t)W + (size_t)s;
            if (w->state == WS_EMPTY || w->state == WS_DONE || t->vage[k] != w->age)
                continue;
            int64_t now = t->vclock[i];
            const int64_t *v = &t->vreg[k * GPUEST_REG_COUNT];
            for (int r = 0; r < GPUEST_REG_COUNT; r++)
                if (v[r] > now && w->reg_ready[r] != INT64_MAX)
                    w->reg_ready[r] = g->now + (sim_time_t)(v[r] - now) * pc;
            int64_t mem = max_i64(t->vmem[k], t->vstore[k]);
            if (mem > now)
                w->last_write = max_i64(w->last_write, g->now + (sim_time_t)(mem - now) * pc);
        }
}

/* Fast-forward's run controls, shared by the timed schedule and the untimed walk: issue is not
 * held and the front end fetches functionally while it runs; on leaving, the sectored L1's
 * fast-forward fills complete, the SMs re-examine their warps (readiness changed behind their
 * backs) and the CPU time is charged to fast-forward. */
static int ff_enter(sim_gpu_t *g)
{
    int hold = g->hold_issue;
    g->hold_issue = 0;
    g->functional = 1; /* CTAs started here fetch their first instruction functionally too */
    return hold;
}

static void ff_leave(sim_gpu_t *g, ff_rates_t *r, int hold, double t0)
{
    for (int i = 0; i < g->nsm; i++)
        sim_l1s_ff_close(g, &g->sm[i]); /* data filtering: fast-forward's fills complete */
    g->functional = 0;
    g->hold_issue = hold;
    for (int i = 0; i < g->nsm; i++)
        g->sm[i].sleep_until = 0; /* readiness changed behind the SMs' backs */
    r->ff_seconds += cpu_now() - t0;
}

/* Fast-forwards up to budget warp instructions (or to the end of the launch) on the timed
 * schedule (ff_timing_t). The SMs advance together in windows of FF_WINDOW cycles from the
 * earliest cycle at which some SM can issue: each SM in turn issues through the window, skipping
 * the cycles in which it cannot issue. Lock step (a window of one cycle) costs a pass over the SMs
 * per cycle; 16 cycles is shorter than any load latency, so no warp sees another SM's later
 * cycles, and on srad/fermi/default it moved the result by less than the seeds do. */
#define FF_WINDOW 16
static gpuest_err fast_forward(sim_gpu_t *g, ff_rates_t *r, uint64_t budget, uint64_t *done, gpuest_error_t *err)
{
    *done = 0;
    double t0 = cpu_now();
    int hold = ff_enter(g), W = g->cfg->core.warps_per_sm;
    ff_timing_t *t = &r->tm;
    for (int i = 0; i < g->nsm; i++) {
        t->vclock[i] = t->ldst_free[i] = 0;
        for (int s = 0; s < W; s++)
            t->vage[(size_t)i * (size_t)W + (size_t)s] = UINT64_MAX; /* after the drain nothing is pending */
        vsync(g, t, i, 0);
    }
    gpuest_err rc = vassign(g, t, 0, err);
    /* SM i's attention as the pass over the SMs found it, reused by its turn in the window unless
     * a vsync touched it since (a CTA started there when another SM's warp exited): vattention has
     * taken every wake-up due by the SM's clock, so a second call would return the same cycle and
     * change nothing. */
    int64_t att[GPUEST_MAX_SMS_FF];
    uint32_t att_syncs[GPUEST_MAX_SMS_FF];
    while (rc == GPUEST_OK && *done < budget && g->ctas_done < g->launch.num_ctas) {
        int64_t T = INT64_MAX;
        for (int i = 0; i < g->nsm; i++) {
            int64_t a = vattention(g, t, i);
            if (i < GPUEST_MAX_SMS_FF) {
                att[i] = a;
                att_syncs[i] = t->syncs[i];
            }
            if (a < T)
                T = a;
        }
        if (T == INT64_MAX)
            break; /* no warp can move (every one waits for a barrier held by memory in flight) */
        int any = 0;
        for (int i = 0; i < g->nsm && *done < budget && rc == GPUEST_OK; i++)
            for (int64_t a = !r->slow && i < GPUEST_MAX_SMS_FF && att_syncs[i] == t->syncs[i] ? att[i]
                                                                                           : vattention(g, t, i);
                 a < T + FF_WINDOW && *done < budget && rc == GPUEST_OK; a = vattention(g, t, i)) {
                t->vclock[i] = a;
                if (t->nready[i] > 0)
                    rc = ff_sm_cycle(g, r, i, budget, done, &any, err);
            }
    }
    vcarry(g, t);
    ff_leave(g, r, hold, t0);
    return rc;
}

/* ---- the two-speed fast-forward (gpuest_sample_opts_t.ff_walk, sample_walk.h) */
/* The walk's step: ff_step with warming as fast-forward does it (not with --cold). */
static gpuest_err walk_step(void *ctx, sim_gpu_t *g, sim_sm_t *sm, int s, int *advanced, gpuest_error_t *err)
{
    ff_rates_t *r = ctx;
    r->pend.lines = r->pend.l1_misses = r->pend.sent = r->pend.l2_hits = 0;
    return ff_step(g, &r->pend, sm, s, !r->cold, advanced, err);
}

/* The untimed walk of up to budget warp instructions, with fast-forward's run controls around it;
 * its fills complete at its end, as a fast-forward's do, so the timed window starts drained. */
static gpuest_err ff_walk(sim_gpu_t *g, ff_rates_t *r, uint64_t budget, uint64_t *done, gpuest_error_t *err)
{
    double t0 = cpu_now();
    int hold = ff_enter(g);
    gpuest_err rc = sim_walk_untimed(g, budget, walk_step, r, done, err);
    ff_leave(g, r, hold, t0);
    r->walk_insts += *done;
    return rc;
}

/* A gap of budget warp instructions: fast_forward, or with ff_walk the untimed walk and then the
 * last `window` instructions on the timed schedule (from the walk's drained state). */
static gpuest_err ff_gap(sim_gpu_t *g, ff_rates_t *r, uint64_t budget, uint64_t *done, gpuest_error_t *err)
{
    if (!r->walk)
        return fast_forward(g, r, budget, done, err);
    uint64_t walked = 0, timed = 0;
    GPUEST_TRY(ff_walk(g, r, sim_walk_untimed_part(budget, r->window), &walked, err));
    gpuest_err rc = walked < budget && g->ctas_done < g->launch.num_ctas
                        ? fast_forward(g, r, budget - walked, &timed, err)
                        : GPUEST_OK;
    *done = walked + timed;
    return rc;
}

/* FNV-1a over every L2 bank's ways (line, valid sectors, dirty): the result's l2_tags_hash. */
static uint64_t l2_tags_hash(const sim_gpu_t *g)
{
    uint64_t h = 14695981039346656037ull;
    for (int m = 0; m < g->nmc; m++) {
        const sim_tags_t *t = &g->mc[m].l2;
        for (size_t k = 0; k < (size_t)t->sets * (size_t)t->assoc; k++) {
            const sim_way_t *w = &t->ways[k];
            uint64_t v[3] = {w->tag, w->valid, w->dirty};
            for (int j = 0; j < 3; j++)
                h = (h ^ v[j]) * 1099511628211ull;
        }
    }
    return h;
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

/* The flits the NoC's links carried (g->nlinks is the NoC's link count, gpu.c). */
static uint64_t link_flits(const sim_gpu_t *g) { return gpuest_noc_link_flits_total(g->noc); }

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

/* How far apart the resident CTAs stand: the standard deviation, over the CTAs resident on every
 * SM, of their live warps' mean instructions issued (0 with fewer than two). */
static double cta_spread(const sim_gpu_t *g)
{
    double s1 = 0, s2 = 0;
    int n = 0, C = g->cfg->core.ctas_per_sm, W = g->cfg->core.warps_per_sm;
    for (int i = 0; i < g->nsm; i++)
        for (int c = 0; c < C; c++) {
            if (!g->sm[i].ctas[c].used)
                continue;
            double sum = 0;
            int nw = 0;
            for (int w = 0; w < W; w++) {
                const sim_warp_t *x = &g->sm[i].warps[w];
                if (x->state != WS_EMPTY && x->state != WS_DONE && x->cta_slot == c) {
                    sum += (double)x->issued;
                    nw++;
                }
            }
            if (nw == 0)
                continue;
            double m = sum / nw;
            s1 += m;
            s2 += m * m;
            n++;
        }
    if (n < 2)
        return 0.0;
    double mean = s1 / n, var = (s2 - n * mean * mean) / (n - 1);
    return var > 0 ? sqrt(var) : 0.0;
}

/* The last unit's miss latencies for back-pressure's draws (ff_backpressure_t): all of them, and
 * with split by the L2's outcome (the ring's top bit, sm.c). */
static void bp_take_latencies(const uint32_t *ring, uint32_t n, ff_backpressure_t *bp)
{
    bp->nlat = n;
    bp->nhit = bp->nmiss = 0;
    for (uint32_t j = 0; j < bp->nlat; j++) {
        uint32_t x = ring[j] & 0x7FFFFFFFu;
        bp->lat[j] = x;
        if (bp->split && ring[j] >> 31)
            bp->lat_miss[bp->nmiss++] = x;
        else if (bp->split)
            bp->lat_hit[bp->nhit++] = x;
    }
}

/* The standard deviation of the warps' instructions issued within each resident CTA, root mean
 * square over the CTAs (gpuest_sample_unit_t.warp_spread). */
static double warp_spread(const sim_gpu_t *g)
{
    double ss = 0;
    int n = 0, C = g->cfg->core.ctas_per_sm, W = g->cfg->core.warps_per_sm;
    for (int i = 0; i < g->nsm; i++)
        for (int c = 0; c < C; c++) {
            if (!g->sm[i].ctas[c].used)
                continue;
            double s1 = 0, s2 = 0;
            int nw = 0;
            for (int w = 0; w < W; w++) {
                const sim_warp_t *x = &g->sm[i].warps[w];
                if (x->state != WS_EMPTY && x->state != WS_DONE && x->cta_slot == c) {
                    s1 += (double)x->issued;
                    s2 += (double)x->issued * (double)x->issued;
                    nw++;
                }
            }
            if (nw < 2)
                continue;
            double m = s1 / nw, var = (s2 - nw * m * m) / (nw - 1);
            ss += var > 0 ? var : 0;
            n++;
        }
    return n ? sqrt(ss / n) : 0.0;
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
    u->cta_spread = cta_spread(g);
    u->warp_spread = warp_spread(g);
    g->lat_pos = 0; /* the miss latencies of this unit only (ff_backpressure_t) */
    double inflight = 0;
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
    /* the fill window of the next fast-forward (ff_pending_t): a request's mean time in the memory
     * system by Little's law (requests in flight over requests sent a cycle; loads and stores
     * alike, so a kernel that only stores has one too), in warp instructions at the unit's pace */
    double reqs = (double)(b.v[SC_read_reqs] - a.v[SC_read_reqs] + b.v[SC_write_reqs] - a.v[SC_write_reqs]);
    if (reqs > 0 && c1 > c0)
        r->pend.window = inflight / reqs * (double)(b.v[SC_warp_insts] - a.v[SC_warp_insts]) / (double)(c1 - c0);
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
    if (u->miss_n > 0)
        r->tm.miss_lat = u->miss_sum / u->miss_n; /* the next fast-forward's load latency (ff_timing_t) */
    if (r->bp.rng) { /* the next fast-forward's back-pressure (ff_backpressure_t) */
        double lines = (double)(b.v[SC_l1_accesses] - a.v[SC_l1_accesses] + b.v[SC_write_reqs] - a.v[SC_write_reqs]);
        double stalls = (double)(b.v[SC_l1_mshr_stalls] - a.v[SC_l1_mshr_stalls] + b.v[SC_l1_missq_stalls] -
                                 a.v[SC_l1_missq_stalls]);
        double sent = (double)(b.v[SC_read_reqs] - a.v[SC_read_reqs] + b.v[SC_write_reqs] - a.v[SC_write_reqs]);
        uint32_t nring = (uint32_t)(g->lat_pos < g->lat_cap ? g->lat_pos : g->lat_cap);
        if (r->pool.k > 0) { /* gpuest_sample_opts_t.ff_pool: the rates of the last K units together */
            gpuest_ff_pool_push(&r->pool, stalls, r->miss_stalls ? sent : lines, g->lat_ring, nring);
            double occ = gpuest_ff_pool_occ(&r->pool);
            if (occ > 0)
                r->tm.ldst_occ = occ;
            uint32_t m = gpuest_ff_pool_latencies(&r->pool, r->pool_buf);
            if (m > 0)
                bp_take_latencies(r->pool_buf, m, &r->bp);
        } else {
            if (r->miss_stalls) { /* stall cycles per request that left the L1 */
                if (sent > 0)
                    r->tm.ldst_occ = 1.0 + stalls / sent;
            } else if (lines > 0)
                r->tm.ldst_occ = 1.0 + stalls / lines;
            if (g->lat_pos > 0)
                bp_take_latencies(g->lat_ring, nring, &r->bp);
        }
    }
    if (r->gather && g->lat_pos > 0) /* the next fast-forward's load latencies by lines missed */
        r->gather_ok = gpuest_gather_table(g->lat_ring, (uint32_t)(g->lat_pos < g->lat_cap ? g->lat_pos : g->lat_cap),
                                           r->gather_scratch, r->gather_emax);
    u->l1_accesses = b.v[SC_l1_accesses] - a.v[SC_l1_accesses];
    u->l1_hits = b.v[SC_l1_hits] - a.v[SC_l1_hits];
    u->l2_accesses = b.v[SC_l2_accesses] - a.v[SC_l2_accesses];
    u->l2_hits = b.v[SC_l2_hits] - a.v[SC_l2_hits];
    u->dram_reads = b.v[SC_dram_reads] - a.v[SC_dram_reads];
    u->dram_writes = b.v[SC_dram_writes] - a.v[SC_dram_writes];
    u->dram_row_hits = b.v[SC_dram_row_hits] - a.v[SC_dram_row_hits];
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
    /* tail_stratum: the tail census covers the last wave's drain (sample_tail.h); else one unit */
    uint64_t tl = o->tail_stratum ? gpuest_tail_census_len(kinsts, out->kernel_tail_warp_insts[k], unit) : unit;
    int whole = kinsts <= 2 * unit + tl, nplan = whole ? 1 : nunits + 2;
    uint64_t lo = unit, period = whole ? 1 : (kinsts - unit - tl) / (uint64_t)nunits;
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
            target = kinsts - tl;
            len = tl; /* to the launch's end, its drain included */
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
                    rc = ff_gap(g, r, target - lead - pos, &done, err);
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
        /* with ff_walk walked whole: it only warms the caches for the next launch */
        GPUEST_TRY(r->walk ? ff_walk(g, r, UINT64_MAX, &done, err) : fast_forward(g, r, UINT64_MAX, &done, err));
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

#define FF_LAT_RING (1u << 14) /* miss latencies kept of a unit: 16 Ki, the most recent when it has more */

/* Back-pressure's state: its own generator stream (seeded from the sampler's seed, so the units'
 * positions are the same with and without it) and the simulator's ring of miss latencies. */
static gpuest_err bp_alloc(sim_gpu_t *g, ff_backpressure_t *bp, uint64_t seed, int units)
{
    size_t room = (size_t)FF_LAT_RING * (size_t)(units > 1 ? units : 1); /* the pooled units' latencies */
    gpuest_rng_t *root = NULL;
    if (gpuest_rng_create(seed, &root) != GPUEST_OK)
        return GPUEST_ENOMEM;
    gpuest_err rc = gpuest_rng_fork(root, 0xFF, &bp->rng);
    gpuest_rng_destroy(root);
    g->lat_cap = FF_LAT_RING;
    g->lat_pos = 0;
    g->lat_ring = calloc(FF_LAT_RING, sizeof *g->lat_ring);
    bp->lat = calloc(room, sizeof *bp->lat);
    bp->lat_hit = calloc(room, sizeof *bp->lat_hit);
    bp->lat_miss = calloc(room, sizeof *bp->lat_miss);
    return rc == GPUEST_OK && g->lat_ring && bp->lat && bp->lat_hit && bp->lat_miss ? GPUEST_OK : GPUEST_ENOMEM;
}

static void bp_free(sim_gpu_t *g, ff_backpressure_t *bp)
{
    gpuest_rng_destroy(bp->rng);
    free(bp->lat);
    free(bp->lat_hit);
    free(bp->lat_miss);
    free(g->lat_ring);
    g->lat_ring = NULL;
    memset(bp, 0, sizeof *bp);
}

/* gpuest_sample_opts_t.ff_gather: the detailed units' miss latencies go into the ring as for
 * back-pressure (bp_free frees it), with no random stream. */
static gpuest_err gather_alloc(sim_gpu_t *g, ff_rates_t *r)
{
    r->gather = 1;
    g->lat_cap = FF_LAT_RING;
    g->lat_pos = 0;
    g->lat_ring = calloc(FF_LAT_RING, sizeof *g->lat_ring);
    r->gather_scratch = calloc(FF_LAT_RING, sizeof *r->gather_scratch);
    return g->lat_ring && r->gather_scratch ? GPUEST_OK : GPUEST_ENOMEM;
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
    ff_rates_t r;
    memset(&r, 0, sizeof r);
    r.cold = o->cold;
    r.walk = o->ff_walk;
    r.window = sim_walk_window(o->ff_window_units, o->unit_insts ? o->unit_insts : 1000u * (uint64_t)g->nsm);
    gpuest_err rc = ff_alloc(g, &r);
    if (rc == GPUEST_OK && o->ff_backpressure && !o->reference)
        rc = bp_alloc(g, &r.bp, o->seed, o->ff_pool);
    if (rc == GPUEST_OK && o->ff_backpressure && !o->reference && o->ff_pool > 0) {
        rc = gpuest_ff_pool_init(&r.pool, o->ff_pool, FF_LAT_RING);
        r.pool_buf = rc == GPUEST_OK ? calloc((size_t)o->ff_pool * FF_LAT_RING, sizeof *r.pool_buf) : NULL;
        rc = r.pool_buf ? rc : GPUEST_ENOMEM;
    }
    if (rc == GPUEST_OK && o->ff_gather && !o->ff_backpressure && !o->reference)
        rc = gather_alloc(g, &r);
    r.bp.split = o->ff_l2_split;
    r.miss_stalls = o->ff_miss_stalls;
    r.slow = o->slow_paths;
    r.tm.bulk = !o->slow_paths;
    r.tm.bulk_lazy = !o->slow_paths;
    rc = rc == GPUEST_OK ? sample_launches(g, o, &r, total, out, err)
                         : gpuest_fail(err, GPUEST_ENOMEM, "out of memory for fast-forward");
    out->ff_seconds = r.ff_seconds;
    out->ff_schedule_hash = r.tm.sched_hash;
    out->ff_parks_bulk = r.tm.parks_bulk;
    out->ff_parks_list = r.tm.parks_list;
    out->ff_walk_warp_insts = r.walk_insts;
    out->l2_tags_hash = l2_tags_hash(g);
    ff_free(&r);
    free(r.gather_scratch);
    bp_free(g, &r.bp);
    gpuest_ff_pool_free(&r.pool);
    free(r.pool_buf);
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
    if (o.tail_stratum < 0 || o.tail_stratum > 2)
        return gpuest_fail(err, GPUEST_EINVAL, "sampling: tail_stratum %d: expected 0 (one unit), 1 (the last wave) "
                                               "or 2 (the last CTA of every SM)", o.tail_stratum);
    if (o.ff_walk && !(o.ff_window_units >= 0 && o.ff_window_units <= 1e6))
        return gpuest_fail(err, GPUEST_EINVAL, "sampling: ff_window_units %g: expected 0 to 1e6 unit lengths",
                           o.ff_window_units);
    double t0 = wall_now(), c0 = cpu_now();
    GPUEST_TRY(count_kernels(count_src, o.slow_paths, o.tail_stratum ? cfg : NULL, o.tail_stratum, out, err));
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

