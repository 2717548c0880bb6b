/* l1.c: the L1 data cache of an SM: sectored 128-byte lines, LRU, MSHR merging, write-evict, miss queue. */
#include "sim_int.h"

sim_time_t sim_l1_hit_time(sim_gpu_t *g, const sim_sm_t *sm, uint64_t line)
{
    sim_time_t t = g->l1_hit_fs;
    if (g->opts->hooks.l1_hit_extra)
        t += (sim_time_t)g->opts->hooks.l1_hit_extra(g->opts->hooks.ctx, sm->id, line) * g->period[GPUEST_CLK_CORE];
    return t;
}

void sim_l1_hit_done(sim_gpu_t *g, sim_sm_t *sm, int warp, sim_time_t done)
{
    sim_load_line_done(g, sm, warp, sm->ldst.load, done, 1);
    g->ctr.v[SC_l1_accesses]++;
    g->ctr.v[SC_l1_hits]++;
    g->ctr.v[SC_amat_fs] += (uint64_t)(done - g->now);
    g->ctr.v[SC_amat_n]++;
}

static int missq_full(const sim_gpu_t *g, const sim_sm_t *sm)
{
    return (int)sm->missq.len >= g->cfg->l1.miss_queue;
}

/* A new request record headed for the miss queue (the sector mode, l1_sector.c, makes its records here too). */
int32_t sim_l1_new_request(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, int op)
{
    int32_t i = sim_pool_alloc(&g->pool);
    if (i < 0)
        return -1;
    sim_req_t *q = &g->pool.r[i];
    q->line = r->line;
    q->sectors = r->sectors;
    q->op = (uint8_t)op;
    q->sm = (int16_t)sm->id;
    q->mc = (int16_t)sim_mc_of(g, r->line);
    q->warp = warp;
    q->load = (int8_t)sm->ldst.load;
    q->cache = RC_DATA;
    q->t_access = g->now;
    return i;
}

void sim_l1_mark_missq(sim_gpu_t *g, int32_t i)
{
    sim_req_t *q = &g->pool.r[i];
    q->state = RQ_MISSQ;
    q->t_created = g->now;
    if (g->opts->hooks.l1_miss) {
        gpuest_sim_req_info_t info = {q->line, q->sectors, q->op, q->sm, q->mc, -1, q->pdr};
        g->opts->hooks.l1_miss(g->opts->hooks.ctx, &info, sim_core_cycle(g));
    }
}

static int enqueue_miss(sim_gpu_t *g, sim_sm_t *sm, int32_t i)
{
    sim_l1_mark_missq(g, i);
    if (g->probe && sim_probe_take(g, sm, i))
        return 0; /* remote-L1 probing holds it (probe.c) */
    return sim_fifo_push(&sm->missq, i);
}

sim_l1_outcome_t sim_l1_load(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, int op)
{
    if (op == GPUEST_MEM_ATOMIC) { /* performed at the L2: bypass, evict a stale copy */
        if (missq_full(g, sm))
            return L1_STALL_MISSQ;
        sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 0);
        if (way)
            way->valid = 0;
        int32_t i = sim_l1_new_request(g, sm, warp, r, op);
        if (i < 0 || enqueue_miss(g, sm, i) != 0)
            return (sim_l1_outcome_t)(g->failed = 1, L1_STALL_MISSQ);
        g->ctr.v[SC_atomic_reqs]++;
        g->ctr.v[SC_write_reqs]++;
        g->ctr.v[SC_write_bytes] += (uint64_t)gpuest_sector_count(r->sectors) * GPUEST_SECTOR_BYTES;
        return L1_MISS_SENT;
    }
    if (sm->l1s) /* data filtering: the sector mode (l1_sector.c) */
        return sim_l1s_load(g, sm, warp, r);
    sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 1);
    if (way && (way->valid & r->sectors) == r->sectors) {
        sim_time_t done = g->now + sim_l1_hit_time(g, sm, r->line);
        if (sm->l1comp) /* compressed L1: decompression queue wait (eq. 3) */
            done += sim_l1c_hit(g, sm, way);
        sim_l1_hit_done(g, sm, warp, done);
        return L1_HIT;
    }
    /* A miss, with GPGPU-Sim 3.x's reservation semantics (data_cache::rd_miss_base,
     * send_read_request, tag_array::probe): the access fails reservation and the
     * LD/ST unit retries it when (a) the miss queue has fewer than 2 free slots
     * (rd_miss_base's miss_queue_full(1): a miss might need two requests), (b) the
     * line has an MSHR entry whose merge list is full, (c) it has none and every
     * MSHR is taken, or (d) the line is absent and every way of its set is reserved
     * by an earlier miss (lines are allocated at miss time, the 'm' policy). */
    int e = sim_mshr_find(&sm->mshr, r->line);
    if (e < 0 && !way && !sim_tags_find_reserved(&sm->l1, r->line, r->line) &&
        (!sim_tags_victim(&sm->l1, r->line) || (sm->l1comp && !sim_l1c_can_reserve(sm, r->line))))
        return L1_STALL_MSHR; /* (d); compressed L1: no room left for one more raw line */
    if ((int)sm->missq.len + 1 >= g->cfg->l1.miss_queue)
        return L1_STALL_MISSQ; /* (a) */
    if (e >= 0) {
        if (sm->mshr.e[e].count >= sm->mshr.merge)
            return L1_STALL_MSHR; /* (b) */
        int32_t i = sim_l1_new_request(g, sm, warp, r, op);
        if (i < 0)
            return (sim_l1_outcome_t)(g->failed = 1, L1_STALL_MSHR);
        g->pool.r[i].state = RQ_MERGED;
        sim_mshr_add(&sm->mshr, e, &g->pool, i);
        if (sm->l1comp)
            sim_l1c_miss(g, sm, r->line);
        g->ctr.v[SC_l1_accesses]++;
        g->ctr.v[SC_l1_misses]++;
        g->ctr.v[SC_l1_merges]++;
        return L1_MISS_MERGED;
    }
    if (sm->mshr.used == sm->mshr.entries)
        return L1_STALL_MSHR; /* (c) */
    if (!way && !sim_tags_find_reserved(&sm->l1, r->line, r->line)) {
        sim_way_t old;
        sim_way_t *rw = sim_tags_reserve(&sm->l1, r->line, r->line, &old); /* clean victim: the L1 writes through */
        if (sm->l1comp && rw)
            sim_l1c_reserved(sm, rw);
    }
    int32_t i = sim_l1_new_request(g, sm, warp, r, op);
    if (i < 0 || sim_mshr_alloc(&sm->mshr, r->line, &g->pool, i) < 0 || enqueue_miss(g, sm, i) != 0)
        return (sim_l1_outcome_t)(g->failed = 1, L1_STALL_MSHR);
    if (sm->l1comp)
        sim_l1c_miss(g, sm, r->line);
    g->ctr.v[SC_l1_accesses]++;
    g->ctr.v[SC_l1_misses]++;
    g->ctr.v[SC_read_reqs]++;
    return L1_MISS_SENT;
}

int sim_l1_store(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, int op)
{
    if (missq_full(g, sm))
        return -1;
    sim_way_t *way = sim_tags_find(&sm->l1, r->line, r->line, 0);
    if (way) /* write-evict */
        way->valid = 0;
    int32_t i = sim_l1_new_request(g, sm, warp, r, op);
    if (i < 0 || enqueue_miss(g, sm, i) != 0) {
        g->failed = 1;
        return -1;
    }
    g->ctr.v[SC_store_reqs]++;
    g->ctr.v[SC_write_reqs]++;
    g->ctr.v[SC_write_bytes] += (uint64_t)gpuest_sector_count(r->sectors) * GPUEST_SECTOR_BYTES;
    return 0;
}

/* The reply of primary request `req` arrived: fill the line and answer every
 * request waiting on its MSHR entry (the primary included); records are freed. */
void sim_l1_fill(sim_gpu_t *g, sim_sm_t *sm, int32_t req)
{
    if (sm->l1s) { /* data filtering: the sector mode (l1_sector.c) */
        sim_l1s_fill(g, sm, req);
        return;
    }
    sim_req_t *p = &g->pool.r[req];
    uint8_t sectors = 0xF; /* a read reply carries the whole 128-byte line */
    sm->ldst.stalled = 0;  /* tags and MSHRs change: a stalled L1 access may go now */
    sim_way_t *way = sim_tags_find(&sm->l1, p->line, p->line, 1);
    if (!way)
        way = sim_tags_find_reserved(&sm->l1, p->line, p->line); /* the way reserved at miss time */
    if (way) {
        way->valid |= sectors;
        way->reserved = 0;
        way->lru = ++sm->l1.stamp;
    } else { /* a sector miss whose line was evicted meanwhile */
        sim_way_t *v = sim_tags_victim(&sm->l1, p->line);
        if (v)
            sim_tags_fill(&sm->l1, v, p->line, sectors);
        way = v;
    }
    sim_time_t ready = g->now + sim_fill_delay_fs(g, p);
    if (sm->l1comp && way) /* compressed L1: size the line, make room in 32-byte sub-blocks */
        sim_l1c_filled(g, sm, way, (uint64_t)((ready - p->t_access) / g->period[GPUEST_CLK_CORE]));
    int e = sim_mshr_find(&sm->mshr, p->line);
    int32_t i = e >= 0 ? sim_mshr_release(&sm->mshr, e) : req;
    while (i >= 0) {
        sim_req_t *q = &g->pool.r[i];
        int32_t next = q->next;
        sim_load_line_done(g, sm, q->warp, q->load, ready, 0);
        g->ctr.v[SC_amat_fs] += (uint64_t)(ready - q->t_access);
        g->ctr.v[SC_amat_n]++;
        sim_pool_release(&g->pool, i);
        i = next;
    }
}
