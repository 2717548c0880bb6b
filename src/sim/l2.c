/* l2.c: the L2 bank of a memory sub-partition, with GPGPU-Sim 3.x's GTX480 policy
 * (`-gpgpu_cache:dl2 64:128:8,L:B:m:W:L,A:32:4,4`):
 *   B  write-back: a write hit dirties the line; a dirty victim becomes a DRAM write;
 *   m  allocate on miss: a miss reserves its way at once (the victim is evicted
 *      then); a miss whose set has every way reserved fails reservation;
 *   W  write-allocate, which in GPGPU-Sim 3.x is fetch-on-write
 *      (data_cache::wr_miss_wa): the write itself goes on to DRAM, and a read of
 *      the whole line is issued to fill the reserved way (clean: DRAM already has
 *      the written data). The write is acknowledged when its DRAM write is done;
 *   A:32:4  32 MSHRs, each merging at most 4 requests (bounded merging: a fifth
 *      read of a pending line stalls the L2 until the fill).
 * Every lookup, hit or miss, needs room in the reply queue (GPGPU-Sim checks the
 * L2->icnt queue before the access); a miss also needs room on the DRAM path
 * (dram.queue_size requests of the channel between the L2 and their completion;
 * a write miss needs two). Else the lookup stalls and the icnt->L2 queue backs up
 * into the network (coalescing paper, 2.1). Write-backs of dirty victims go
 * straight into the channel queue. */
#include "sim_int.h"

static int dram_room(const sim_gpu_t *g, const sim_mc_t *mc, int need)
{
    return g->chan[mc->chan].inflight + need <= g->cfg->dram.queue_size;
}

/* Reserves a way for line (allocate on miss); a dirty victim is written back. */
static int reserve(sim_gpu_t *g, sim_mc_t *mc, uint64_t line)
{
    sim_way_t old;
    if (!sim_tags_reserve(&mc->l2, sim_sub_local(g, line), line, &old))
        return -1;
    if (old.valid && old.dirty && sim_dram_push(g, mc, -1, old.tag, 1) != 0)
        g->failed = 1;
    return 0;
}

/* Can a miss to line get its MSHR (or merge slot) and its way now? */
static int miss_ok(const sim_gpu_t *g, sim_mc_t *mc, uint64_t line, int e)
{
    if (e >= 0)
        return mc->mshr.e[e].count < mc->mshr.merge;
    if (mc->mshr.used == mc->mshr.entries)
        return 0;
    return sim_tags_victim(&mc->l2, sim_sub_local(g, line)) != NULL;
}

/* A read of line by request i (a load, an atomic or a fetch-on-write): merge into
 * the line's MSHR entry, or reserve a way and an MSHR and head for DRAM. */
static int start_read(sim_gpu_t *g, sim_mc_t *mc, int32_t i, int e)
{
    uint64_t line = g->pool.r[i].line;
    if (e >= 0) {
        sim_mshr_add(&mc->mshr, e, &g->pool, i);
        g->ctr.v[SC_l2_merges]++;
        return 0;
    }
    if (reserve(g, mc, line) != 0)
        return -1;
    sim_mshr_alloc(&mc->mshr, line, &g->pool, i);
    g->chan[mc->chan].inflight++;
    return sim_tfifo_push(&mc->topipe, g->now + g->dram_fixed_fs, i);
}

static int write_miss(sim_gpu_t *g, sim_mc_t *mc, int32_t i, int e)
{
    const sim_req_t q = g->pool.r[i];
    int32_t f = sim_pool_alloc(&g->pool); /* the fetch: answered by nobody */
    if (f < 0)
        return -1;
    sim_req_t *fr = &g->pool.r[f];
    fr->line = q.line;
    fr->sectors = 0xF;
    fr->op = GPUEST_MEM_LOAD;
    fr->fetch = 1;
    fr->state = RQ_AT_MC;
    fr->sm = q.sm;
    fr->mc = q.mc;
    fr->warp = -1;
    if (start_read(g, mc, f, e) != 0)
        return -1;
    g->chan[mc->chan].inflight++; /* the write's data */
    return sim_tfifo_push(&mc->topipe, g->now + g->dram_fixed_fs, i);
}

int sim_l2_access(sim_gpu_t *g, sim_mc_t *mc, int32_t i)
{
    if (!sim_mc_reply_room(g, mc))
        return 0;
    sim_req_t *q = &g->pool.r[i];
    uint64_t line = q->line, local = sim_sub_local(g, line);
    int write = q->op == GPUEST_MEM_STORE, atomic = q->op == GPUEST_MEM_ATOMIC;
    sim_way_t *way = sim_tags_find(&mc->l2, local, line, 0);
    if (g->probe && sim_probe_llc(g, mc, i, way != NULL))
        return 1; /* LA-LLC: a sharer's L1 answers this hit (probe.c) */
    if (way) {
        sim_tags_find(&mc->l2, local, line, 1);
        if (write || atomic)
            way->dirty = 1;
        g->ctr.v[SC_l2_accesses]++;
        g->ctr.v[SC_l2_hits]++;
        if (sim_mc_make_reply(g, mc, i) != 0)
            g->failed = 1;
        return 1;
    }
    int e = sim_mshr_find(&mc->mshr, line);
    if (!miss_ok(g, mc, line, e) || !dram_room(g, mc, write ? 2 : 1))
        return 0; /* reservation fail: the lookup is retried next L2 cycle */
    int rc = write ? write_miss(g, mc, i, e) : start_read(g, mc, i, e);
    if (rc != 0) {
        g->failed = 1;
        return 0;
    }
    g->pool.r[i].l2_miss = 1; /* (write_miss may have moved the pool) */
    g->ctr.v[SC_l2_accesses]++;
    g->ctr.v[SC_l2_misses]++;
    return 1;
}

/* The head of the DRAM return queue: a line read fills its reserved way and its
 * MSHR chain is answered (fetches are dropped); a write miss's data reached DRAM
 * and its ack is made. */
static int take_return(sim_gpu_t *g, sim_mc_t *mc)
{
    if (mc->fills.len == 0 || sim_tfifo_peek(&mc->fills)->ready > g->now)
        return 0;
    int32_t i = sim_tfifo_peek(&mc->fills)->req;
    if (g->pool.r[i].op == GPUEST_MEM_STORE) {
        if (!sim_mc_reply_room(g, mc))
            return 0;
        sim_tfifo_pop(&mc->fills);
        if (sim_mc_make_reply(g, mc, i) != 0)
            g->failed = 1;
        sim_progress(g);
        return 1;
    }
    sim_tfifo_pop(&mc->fills);
    uint64_t line = g->pool.r[i].line, local = sim_sub_local(g, line);
    sim_way_t *w = sim_tags_find_reserved(&mc->l2, local, line);
    if (w)
        sim_tags_fill(&mc->l2, w, line, 0xF);
    int e = sim_mshr_find(&mc->mshr, line);
    mc->fill_pending = e >= 0 ? sim_mshr_release(&mc->mshr, e) : i;
    sim_progress(g);
    return 1;
}

int sim_l2_fill_step(sim_gpu_t *g, sim_mc_t *mc)
{
    if (mc->fill_pending < 0 && !take_return(g, mc))
        return 0;
    if (mc->fill_pending < 0)
        return 1; /* an ack went out */
    /* answer the requests that waited on the line, as reply-queue room allows */
    int moved = 0;
    while (mc->fill_pending >= 0) {
        int32_t i = mc->fill_pending;
        sim_req_t *q = &g->pool.r[i];
        if (q->fetch) {
            mc->fill_pending = q->next2;
            sim_pool_release(&g->pool, i);
            moved = 1;
            continue;
        }
        if (!sim_mc_reply_room(g, mc))
            break;
        mc->fill_pending = q->next2;
        q->next2 = -1;
        if (q->op == GPUEST_MEM_ATOMIC) {
            sim_way_t *w = sim_tags_find(&mc->l2, sim_sub_local(g, q->line), q->line, 0);
            if (w)
                w->dirty = 1;
        }
        if (sim_mc_make_reply(g, mc, i) != 0) {
            g->failed = 1;
            return 0;
        }
        moved = 1;
    }
    return moved && mc->fill_pending < 0;
}
