/* l1_sector.c: the L1D's sector mode for critical-word data filtering (data-filtering thesis 3.2-3.5, 4.1).
 *
 * On when hooks.l1_sector_request is set (the data-filtering technique). The L1D line's valid
 * field is already a 4-bit sector map (the thesis' tag bitmap, the Critical Data Tracker); here
 * it really holds partial lines. Each MSHR entry gets the thesis' 4-bit bitmap (want: sectors
 * asked of the MC so far; pend: those not yet back). A load line request with need = its
 * coalescer sector mask (the Request Analyzer's critical-region map) is:
 *  - a hit when the line is cached and need is a subset of its valid sectors;
 *  - merged (as the baseline) when the line's MSHR entry already asks for every needed sector
 *    the line lacks;
 *  - SM (subsequent miss): pending, but some needed sector is neither valid nor asked for: a
 *    request for the missing sectors goes to the MC at once (the baseline would merge);
 *  - HI (hit but invalid): cached, no MSHR entry, some needed sector invalid: an MSHR entry and
 *    a request for the missing sectors, the line stays cached and serves hits on valid sectors;
 *  - FM (first miss): neither cached nor pending: the baseline miss (line reserved at miss time).
 * The sectors fetched are (the request controller's answer | need) & ~have, where have = valid
 * sectors | MSHR bitmap: never a sector already there or on its way.
 * A reply carries a sector map (sim_req_t.reply_sectors; 0 = the whole line, as for an FDR or a
 * request the MC's filter table could not hold; GPUEST_SIM_REPLY_NO_SECTORS = none, a merged
 * request whose sectors came with another reply). Its sectors leave the MSHR bitmap;
 * when the bitmap is empty every sector asked for has arrived and the line is filled and becomes
 * valid, and every waiting request is answered (thesis 3.5: "when an entry in an MSHR is
 * deallocated the corresponding cache block becomes valid"). With OR-merging in the MC's filter
 * table a reply can carry the sectors of a later sub-request of the same line, so the entry can
 * complete before that sub-request's own reply is back: that request is answered with the
 * others and its record waits for its reply (the warp cannot exit before it: the record counts
 * in the warp's pending_stores, the "replies I still wait for" counter that gates exit).
 * Windows manager inputs (thesis Fig. 4.4): each line and MSHR entry keeps the union of sectors
 * warps needed (used) and a consistency bit, set when an access needs a sector outside the
 * union so far (an inconsistent access: ICA). A completed MSHR entry and an evicted line are
 * reported to hooks.l1_sector_window. */
#include "sim_int.h"

typedef struct {
    uint8_t used, ica;
    /* fast-forward only (sim_l1s_load_functional): the line's fill counts as in flight until the
     * fast-forward clock reaches ff_until, and its entry's window (e_used, e_ica) is reported when
     * it completes (ff_open) */
    uint8_t ff_open, e_used, e_ica;
    uint64_t ff_until;
} l1s_way_t;

typedef struct {
    uint8_t want, pend, got, used, ica;
} l1s_mshr_t;

struct sim_l1s_s {
    l1s_way_t *way;   /* sets x assoc, as sm->l1.ways */
    l1s_mshr_t *mshr; /* sm->mshr.entries */
};

gpuest_err sim_l1s_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err)
{
    if (!g->opts->hooks.l1_sector_request)
        return GPUEST_OK;
    struct sim_l1s_s *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the sector state of SM %d", sm->id);
    sm->l1s = s;
    s->way = calloc((size_t)sm->l1.sets * (size_t)sm->l1.assoc, sizeof *s->way);
    s->mshr = calloc((size_t)sm->mshr.entries, sizeof *s->mshr);
    if (!s->way || !s->mshr)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the sector state of SM %d", sm->id);
    return GPUEST_OK;
}

void sim_l1s_free(sim_sm_t *sm)
{
    if (!sm->l1s)
        return;
    free(sm->l1s->way);
    free(sm->l1s->mshr);
    free(sm->l1s);
    sm->l1s = NULL;
}

static l1s_way_t *way_state(sim_sm_t *sm, const sim_way_t *w)
{
    return &sm->l1s->way[w - sm->l1.ways];
}

/* An access needing `need` joins a line's or an entry's history. */
static void note_use(uint8_t *used, uint8_t *ica, uint8_t need)
{
    if (*used && (need & ~*used))
        *ica = 1;
    *used |= need;
}

static void report_window(sim_gpu_t *g, sim_sm_t *sm, uint8_t used, uint8_t ica, int evicted)
{
    if (g->opts->hooks.l1_sector_window && used)
        g->opts->hooks.l1_sector_window(g->opts->hooks.ctx, sm->id, used, ica, evicted);
}

/* A way is about to hold a new line: its old line (if any) is an eviction. */
static void reset_way(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *w, const sim_way_t *old)
{
    l1s_way_t *ws = way_state(sm, w);
    if (old->valid)
        report_window(g, sm, ws->used, ws->ica, 1);
    ws->used = ws->ica = 0;
}

/* A new load record for the line (sectors: what it asks of the MC; 0 for a merged record). */
static int32_t new_record(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, uint8_t sectors)
{
    int32_t i = sim_l1_new_request(g, sm, warp, r, GPUEST_MEM_LOAD);
    if (i < 0)
        return -1;
    sim_req_t *q = &g->pool.r[i];
    q->sectors = sectors ? sectors : r->sectors;
    q->pdr = sectors != 0 && sectors != 0xF;
    return i;
}

static int send_record(sim_gpu_t *g, sim_sm_t *sm, int32_t i)
{
    sim_l1_mark_missq(g, i);
    g->ctr.v[SC_l1_accesses]++;
    g->ctr.v[SC_l1_misses]++;
    g->ctr.v[SC_read_reqs]++;
    return sim_fifo_push(&sm->missq, i);
}

/* The request controller's answer, made safe: every missing needed sector, nothing already there. */
static uint8_t fetch_mask(sim_gpu_t *g, sim_sm_t *sm, uint64_t line, int kind, uint8_t need, uint8_t have, uint8_t used)
{
    gpuest_sim_sector_miss_t m = {sm->id, line, kind, need, have, used, (uint8_t)(g->functional != 0)};
    unsigned a = g->opts->hooks.l1_sector_request(g->opts->hooks.ctx, &m);
    return (uint8_t)((a | need) & 0xFu & ~(unsigned)have);
}

static sim_l1_outcome_t fail(sim_gpu_t *g)
{
    g->failed = 1;
    return L1_STALL_MSHR;
}

/* The line's MSHR entry e exists: merge, or a subsequent miss. */
static sim_l1_outcome_t pending_line(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, int e,
                                     uint8_t valid)
{
    l1s_mshr_t *m = &sm->l1s->mshr[e];
    if (sm->mshr.e[e].count >= sm->mshr.merge)
        return L1_STALL_MSHR;
    uint8_t have = (uint8_t)(m->want | valid);
    uint8_t need = r->sectors;
    if (!(need & ~have)) { /* everything it needs is there or on its way */
        int32_t i = new_record(g, sm, warp, r, 0);
        if (i < 0)
            return fail(g);
        g->pool.r[i].state = RQ_MERGED;
        sim_mshr_add(&sm->mshr, e, &g->pool, i);
        note_use(&m->used, &m->ica, need);
        g->ctr.v[SC_l1_accesses]++;
        g->ctr.v[SC_l1_misses]++;
        g->ctr.v[SC_l1_merges]++;
        return L1_MISS_MERGED;
    }
    note_use(&m->used, &m->ica, need);
    uint8_t ask = fetch_mask(g, sm, r->line, GPUEST_SIM_MISS_SM, need, have, m->used);
    int32_t i = new_record(g, sm, warp, r, ask);
    if (i < 0)
        return fail(g);
    sim_mshr_add(&sm->mshr, e, &g->pool, i);
    m->want |= ask;
    m->pend |= ask;
    if (send_record(g, sm, i) != 0)
        return fail(g);
    return L1_MISS_SENT;
}

sim_l1_outcome_t sim_l1s_load(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r)
{
    uint8_t need = r->sectors;
    sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 1);
    if (way && (way->valid & need) == need) {
        l1s_way_t *ws = way_state(sm, way);
        note_use(&ws->used, &ws->ica, need);
        sim_time_t done = g->now + sim_l1_hit_time(g, sm, r->line);
        sim_l1_hit_done(g, sm, warp, done);
        return L1_HIT;
    }
    /* the baseline's reservation-failure rules (l1.c), in the same order */
    int e = sim_mshr_find(&sm->mshr, r->line);
    sim_way_t *resv = way ? NULL : sim_tags_find_reserved(&sm->l1, r->line, r->line);
    if (e < 0 && !way && !resv && !sim_tags_victim(&sm->l1, r->line))
        return L1_STALL_MSHR;
    if ((int)sm->missq.len + 1 >= g->cfg->l1.miss_queue)
        return L1_STALL_MISSQ;
    if (e >= 0)
        return pending_line(g, sm, warp, r, e, way ? way->valid : 0);
    if (sm->mshr.used == sm->mshr.entries)
        return L1_STALL_MSHR;
    int kind = way ? GPUEST_SIM_MISS_HI : GPUEST_SIM_MISS_FM;
    uint8_t used = need, ica = 0, have = 0;
    if (way) { /* HI: the line keeps its valid sectors and serves hits on them meanwhile */
        l1s_way_t *ws = way_state(sm, way);
        note_use(&ws->used, &ws->ica, need);
        used = ws->used;
        ica = 1; /* it needs a region the earlier accesses did not bring */
        have = way->valid;
    } else if (!resv) {
        sim_way_t old;
        sim_way_t *w = sim_tags_reserve(&sm->l1, r->line, r->line, &old);
        reset_way(g, sm, w, &old);
    }
    uint8_t ask = fetch_mask(g, sm, r->line, kind, need, have, used);
    int32_t i = new_record(g, sm, warp, r, ask);
    if (i < 0)
        return fail(g);
    e = sim_mshr_alloc(&sm->mshr, r->line, &g->pool, i);
    if (e < 0)
        return fail(g);
    sm->l1s->mshr[e] = (l1s_mshr_t){.want = ask, .pend = ask, .got = 0, .used = used, .ica = ica};
    if (send_record(g, sm, i) != 0)
        return fail(g);
    return L1_MISS_SENT;
}

/* Fast-forward's fill of way ws completes: its entry's window is reported and joins the line's
 * history, as complete() does. */
static void ff_complete(sim_gpu_t *g, sim_sm_t *sm, l1s_way_t *ws)
{
    if (!ws->ff_open)
        return;
    ws->ff_open = 0;
    ws->used |= ws->e_used;
    ws->ica |= ws->e_ica;
    report_window(g, sm, ws->e_used, ws->e_ica, 0);
}

/* A fast-forward fill opens its entry: in flight until the clock reaches until. */
static void ff_open(l1s_way_t *ws, uint8_t used, uint8_t ica, uint64_t until)
{
    ws->ff_open = 1;
    ws->e_used = used;
    ws->e_ica = ica;
    ws->ff_until = until;
}

/* Fast-forward (sample.c): a load line request on the functional L1, decided as sim_l1s_load
 * decides it, with the sectors a miss asks for valid at once but its entry kept open for a fill's
 * latency on fast-forward's clock (now .. until, in warp instructions, as the L2's pending fills).
 * While it is open, a request whose sectors were asked for merges and one that needs more is a
 * subsequent miss (SM), for which the request controller asks the whole line, as in detailed mode;
 * when it completes (the next access after it, an eviction, or the end of fast-forward:
 * sim_l1s_ff_close) its window is reported as a completed MSHR entry's. A hit notes its use; a hit
 * on an invalid sector (HI) and a first miss (FM) open an entry; an evicted line is reported as in
 * detailed mode. Why: filling whole lines (the baseline's fast-forward) left the L1 holding sectors
 * that the request controller would not have fetched, and its windows were those the last detailed
 * unit left; filling at once without the open entry turned detailed mode's subsequent misses into
 * partial HI fetches (spmv seed 21, df_truc: the middle units' IPC 2.6 % below the exact units',
 * all units' 6.2 %; docs/estimator.md, "technique state in fast-forward"). Returns 1 when
 * nothing goes to the L2 (a hit or a merge, also when every way of the set is reserved), 0 when a
 * request does. */
int sim_l1s_load_functional(sim_gpu_t *g, sim_sm_t *sm, const gpuest_line_req_t *r, uint64_t now, uint64_t until)
{
    uint8_t need = r->sectors;
    sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 1);
    if (way) {
        l1s_way_t *ws = way_state(sm, way);
        if (ws->ff_open && now >= ws->ff_until)
            ff_complete(g, sm, ws);
        if (ws->ff_open) { /* its fill is in flight: merge, or a subsequent miss */
            note_use(&ws->e_used, &ws->e_ica, need);
            if (!(need & ~way->valid))
                return 1;
            way->valid |= fetch_mask(g, sm, r->line, GPUEST_SIM_MISS_SM, need, way->valid, ws->e_used);
            return 0;
        }
        note_use(&ws->used, &ws->ica, need);
        if ((way->valid & need) == need)
            return 1;
        /* HI: the line keeps its sectors and takes the missing ones */
        way->valid |= fetch_mask(g, sm, r->line, GPUEST_SIM_MISS_HI, need, way->valid, ws->used);
        ff_open(ws, ws->used, 1, until);
        return 0;
    }
    way = sim_tags_victim(&sm->l1, r->line);
    if (!way)
        return 1;
    sim_way_t old = *way;
    l1s_way_t *ws = way_state(sm, way);
    if (old.valid)
        ff_complete(g, sm, ws);
    reset_way(g, sm, way, &old);
    sim_tags_fill(&sm->l1, way, r->line, fetch_mask(g, sm, r->line, GPUEST_SIM_MISS_FM, need, 0, need));
    ff_open(ws, need, 0, until);
    return 0;
}

/* The end of fast-forward: every fill it left open completes (detailed mode finds no entry). */
void sim_l1s_ff_close(sim_gpu_t *g, sim_sm_t *sm)
{
    if (!sm->l1s)
        return;
    size_t n = (size_t)sm->l1.sets * (size_t)sm->l1.assoc;
    for (size_t k = 0; k < n; k++)
        ff_complete(g, sm, &sm->l1s->way[k]);
}

/* Every sector asked for has arrived: the line becomes valid with them, waiting requests are answered. */
static void complete(sim_gpu_t *g, sim_sm_t *sm, int e, sim_time_t ready)
{
    l1s_mshr_t m = sm->l1s->mshr[e];
    uint64_t line = sm->mshr.e[e].line;
    sim_way_t *way = sim_tags_find(&sm->l1, line, line, 1);
    if (!way)
        way = sim_tags_find_reserved(&sm->l1, line, line);
    if (way) {
        way->valid |= m.got;
        way->reserved = 0;
        way->lru = ++sm->l1.stamp;
    } else { /* the line was evicted meanwhile (an HI's line): refill a victim */
        way = sim_tags_victim(&sm->l1, line);
        if (way) {
            sim_way_t old = *way;
            reset_way(g, sm, way, &old);
            sim_tags_fill(&sm->l1, way, line, m.got);
        }
    }
    if (way) {
        l1s_way_t *ws = way_state(sm, way);
        ws->used |= m.used;
        ws->ica |= m.ica;
    }
    report_window(g, sm, m.used, m.ica, 0);
    int32_t i = sim_mshr_release(&sm->mshr, e);
    while (i >= 0) {
        sim_req_t *q = &g->pool.r[i];
        int32_t next = q->next;
        sim_load_line_done(g, sm, q->warp, q->load, ready, 0);
        g->ctr.v[SC_amat_fs] += (uint64_t)(ready - q->t_access);
        g->ctr.v[SC_amat_n]++;
        if (q->state == RQ_MERGED) {
            sim_pool_release(&g->pool, i);
        } else { /* its own reply is still on the way: the warp waits for it before it exits */
            q->answered = 1;
            sm->warps[q->warp].pending_stores++;
        }
        i = next;
    }
}

void sim_l1s_fill(sim_gpu_t *g, sim_sm_t *sm, int32_t req)
{
    sim_req_t *p = &g->pool.r[req];
    sm->ldst.stalled = 0; /* tags and MSHRs change: a stalled L1 access may go now */
    uint8_t got = p->reply_sectors ? p->reply_sectors & 0xF : 0xF; /* NO_SECTORS: none */
    uint64_t line = p->line;
    sim_time_t ready = g->now + sim_fill_delay_fs(g, p);
    int answered = p->answered;
    if (answered) { /* its warp was answered already; its sectors may serve a newer entry of the line */
        sm->warps[p->warp].pending_stores--;
        sim_pool_release(&g->pool, req);
    }
    int e = sim_mshr_find(&sm->mshr, line);
    if (e < 0) {
        if (!answered) /* cannot happen: a sent record not yet answered always has its entry */
            g->failed = 1;
        return;
    }
    l1s_mshr_t *m = &sm->l1s->mshr[e];
    m->got |= got;
    m->pend &= (uint8_t)~got;
    if (!answered)
        p->state = RQ_MERGED; /* its reply is in: it now waits like a merged request */
    if (!m->pend)
        complete(g, sm, e, ready);
}
