/* warppool.c: WarpPool, inter-warp request merging in front of an SM's L1D (technique.coalescing =
 * warppool or pcu+warppool; the coalescing paper's comparison point, section 5.1).
 *
 * The LD/ST unit's intra-warp coalescer hands one line request per cycle to the pool instead of
 * the L1. The pool holds technique.warppool_queues queues; a queue is bound to one line while it
 * holds requests and keeps up to technique.warppool_depth of them, from any warps. A load joins
 * the open queue of its line (the inter-warp merge) or binds a free queue; a store or atomic
 * binds a queue of its own (never merged) and closes its line's open load queue, so a load that
 * arrives after a write to its line is never answered by an L1 access made before that write.
 * The selector is FIFO, as the coalescing paper implements it for a fair comparison (WarpPool's
 * own MRPB-style prioritization is not modelled): every cycle the queue whose oldest request
 * entered the pool first makes one L1 access, once that request has spent warppool_latency
 * cycles in the pool (the merge sits on the critical path of every access, hits included). The
 * access asks for the union of the queue's sectors; every request of the queue is answered by it:
 * on a hit all complete at the hit time; on a miss the followers join the leader's MSHR entry
 * and complete with its fill (they do not take MSHR merge slots: the pool, not the MSHR, holds
 * the warp list). A stalled access (MSHRs or miss queue full) holds the queue, and the FIFO order
 * keeps every younger queue behind it, as the in-order LD/ST unit does without the pool; the pool
 * keeps accepting requests meanwhile, which is where merging finds its partners. */
#include "sim_int.h"

typedef struct {
    int32_t warp;
    int8_t load;
    uint8_t sectors;
    uint64_t seq;     /* arrival order in the pool */
    sim_time_t ready; /* earliest L1 access */
} wp_entry_t;

typedef struct {
    uint64_t line;
    uint8_t op;     /* gpuest_mem_op_t of every entry: loads merge, stores and atomics stay alone */
    uint8_t closed; /* takes no more entries (a write to its line came after it, or it is full) */
    int n;
    wp_entry_t *e;  /* depth entries, arrival order */
} wp_queue_t;

struct sim_wp_s {
    int nq, depth;
    sim_time_t latency_fs;
    wp_queue_t *q;
    /* Bound queues in binding order. A queue's oldest request is the one that bound it and a
     * queue is emptied whole, so this order is the FIFO order of the queues' oldest requests. */
    int *ring, ring_head, ring_len;
    int entries; /* requests in the pool */
    uint64_t seq;
};

int sim_wp_enabled(const gpuest_config_t *cfg)
{
    return cfg->technique.coalescing == GPUEST_COALESCE_WARPPOOL ||
           cfg->technique.coalescing == GPUEST_COALESCE_PCU_WARPPOOL;
}

gpuest_err sim_wp_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err)
{
    const gpuest_technique_cfg_t *t = &g->cfg->technique;
    sm->wp = NULL;
    if (!sim_wp_enabled(g->cfg))
        return GPUEST_OK;
    if (t->warppool_queues < 1 || t->warppool_depth < 1 || t->warppool_latency < 1)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "technique.warppool_queues, warppool_depth and warppool_latency must be >= 1 (got %d, %d, "
                           "%d)", t->warppool_queues, t->warppool_depth, t->warppool_latency);
    sim_wp_t *p = calloc(1, sizeof *p);
    if (!p)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the WarpPool of SM %d", sm->id);
    sm->wp = p;
    p->nq = t->warppool_queues;
    p->depth = t->warppool_depth;
    p->latency_fs = (sim_time_t)t->warppool_latency * g->period[GPUEST_CLK_CORE];
    p->q = calloc((size_t)p->nq, sizeof *p->q);
    p->ring = calloc((size_t)p->nq, sizeof *p->ring);
    if (!p->q || !p->ring)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the WarpPool of SM %d", sm->id);
    for (int k = 0; k < p->nq; k++) {
        p->q[k].e = calloc((size_t)p->depth, sizeof *p->q[k].e);
        if (!p->q[k].e)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the WarpPool of SM %d", sm->id);
    }
    return GPUEST_OK;
}

void sim_wp_free(sim_sm_t *sm)
{
    sim_wp_t *p = sm->wp;
    if (!p)
        return;
    for (int k = 0; p->q && k < p->nq; k++)
        free(p->q[k].e);
    free(p->q);
    free(p->ring);
    free(p);
    sm->wp = NULL;
}

int sim_wp_len(const sim_sm_t *sm) { return sm->wp ? sm->wp->entries : 0; }

static wp_queue_t *free_queue(sim_wp_t *p)
{
    for (int k = 0; k < p->nq; k++)
        if (p->q[k].n == 0)
            return &p->q[k];
    return NULL;
}

static wp_queue_t *open_load_queue(sim_wp_t *p, uint64_t line)
{
    for (int k = 0; k < p->nq; k++) {
        wp_queue_t *q = &p->q[k];
        if (q->n > 0 && !q->closed && q->op == GPUEST_MEM_LOAD && q->line == line)
            return q;
    }
    return NULL;
}

int sim_wp_insert(sim_gpu_t *g, sim_sm_t *sm, int warp, int load, const gpuest_line_req_t *r, int op)
{
    sim_wp_t *p = sm->wp;
    wp_queue_t *q = open_load_queue(p, r->line);
    if (op == GPUEST_MEM_LOAD && q && q->n < p->depth) {
        g->ctr.v[SC_wp_merged]++; /* joins requests of other warps (or earlier loads of its own) */
    } else {
        wp_queue_t *f = free_queue(p);
        if (!f)
            return -1;
        if (q) /* full, or a write to its line follows it */
            q->closed = 1;
        *f = (wp_queue_t){.line = r->line, .op = (uint8_t)op, .closed = op != GPUEST_MEM_LOAD, .n = 0, .e = f->e};
        p->ring[(p->ring_head + p->ring_len++) % p->nq] = (int)(f - p->q);
        q = f;
    }
    q->e[q->n++] = (wp_entry_t){.warp = warp, .load = (int8_t)load, .sectors = r->sectors, .seq = ++p->seq,
                                .ready = g->now + p->latency_fs};
    p->entries++;
    g->ctr.v[SC_wp_requests]++;
    return 0;
}

/* The queue whose oldest request is the oldest of the pool, or NULL. */
static wp_queue_t *fifo_head(sim_wp_t *p) { return p->ring_len ? &p->q[p->ring[p->ring_head]] : NULL; }

/* A follower answered by the leader's L1 hit. */
static void ride_hit(sim_gpu_t *g, sim_sm_t *sm, const wp_entry_t *x, uint64_t line)
{
    sim_time_t t = sim_l1_hit_time(g, sm, line);
    sim_load_line_done(g, sm, x->warp, x->load, g->now + t, 1);
    g->ctr.v[SC_amat_fs] += (uint64_t)t;
    g->ctr.v[SC_amat_n]++;
}

/* A follower answered by the fill of the leader's miss: a record on the line's MSHR chain. */
static int ride_miss(sim_gpu_t *g, sim_sm_t *sm, const wp_entry_t *x, uint64_t line, uint8_t sectors)
{
    int e = sim_mshr_find(&sm->mshr, line);
    int32_t i = e >= 0 ? sim_pool_alloc(&g->pool) : -1;
    if (i < 0)
        return -1;
    sim_req_t *q = &g->pool.r[i];
    q->line = line;
    q->sectors = sectors;
    q->op = GPUEST_MEM_LOAD;
    q->state = RQ_MERGED;
    q->sm = (int16_t)sm->id;
    q->mc = (int16_t)sim_mc_of(g, line);
    q->warp = x->warp;
    q->load = x->load;
    q->cache = RC_DATA;
    q->t_access = g->now;
    sim_mshr_entry_t *m = &sm->mshr.e[e]; /* appended past the merge limit: the pool holds the warp list */
    g->pool.r[m->tail].next = i;
    m->tail = i;
    m->count++;
    return 0;
}

/* One L1 access for the FIFO head queue, when its oldest request is due; a stall leaves it in place. */
static void issue(sim_gpu_t *g, sim_sm_t *sm)
{
    sim_wp_t *p = sm->wp;
    sim_ldst_t *u = &sm->ldst;
    if (p->entries == 0)
        return;
    /* A stalled head stays the head (every later request is younger) and nothing it depends on
     * changed (see ldst_step in sm.c): count the stall without searching the queues. */
    if (u->stalled) {
        g->ctr.v[u->stall_ctr]++;
        return;
    }
    wp_queue_t *q = fifo_head(p);
    if (!q || q->e[0].ready > g->now)
        return;
    gpuest_line_req_t r = {.line = q->line, .sectors = 0};
    for (int k = 0; k < q->n; k++)
        r.sectors |= q->e[k].sectors;
    const wp_entry_t *lead = &q->e[0];
    if (q->op == GPUEST_MEM_STORE) {
        if (sim_l1_store(g, sm, lead->warp, &r, q->op) != 0) {
            g->ctr.v[SC_l1_missq_stalls]++;
            u->stalled = 1;
            u->stall_ctr = SC_l1_missq_stalls;
            return;
        }
    } else {
        int saved = u->load; /* the L1 reads the load slot from the LD/ST unit: lend it the leader's */
        u->load = lead->load;
        sim_l1_outcome_t o = sim_l1_load(g, sm, lead->warp, &r, q->op);
        u->load = saved;
        if (o == L1_STALL_MSHR || o == L1_STALL_MISSQ) {
            int ctr = o == L1_STALL_MSHR ? SC_l1_mshr_stalls : SC_l1_missq_stalls;
            g->ctr.v[ctr]++;
            u->stalled = 1;
            u->stall_ctr = ctr;
            return;
        }
        for (int k = 1; k < q->n; k++) {
            if (o == L1_HIT)
                ride_hit(g, sm, &q->e[k], q->line);
            else if (ride_miss(g, sm, &q->e[k], q->line, q->e[k].sectors) != 0)
                g->failed = 1;
        }
    }
    g->ctr.v[SC_wp_accesses]++;
    p->ring_head = (p->ring_head + 1) % p->nq; /* q is the ring's head */
    p->ring_len--;
    p->entries -= q->n;
    q->n = 0;
    q->closed = 0;
    sim_progress(g);
}

void sim_wp_step(sim_gpu_t *g, sim_sm_t *sm)
{
    sim_ldst_t *u = &sm->ldst;
    issue(g, sm); /* before the insert: a request spends at least one cycle in the pool */
    if (!u->busy)
        return;
    if (sim_wp_insert(g, sm, u->warp, u->load, &u->req[u->next], u->op) != 0) {
        g->ctr.v[SC_wp_full]++;
        return;
    }
    sim_progress(g);
    if (++u->next == u->n)
        u->busy = 0;
}
