/* l2.c: the L2 slice of an MC: set-associative, write-back with write-allocate, MSHRs towards the DRAM channel.
 *
 * Reads (loads, atomics) that hit answer at once into the MC reply queue; misses
 * take or join an MSHR and travel the fixed part of the DRAM latency to the DRAM
 * queue. Writes allocate without fetching (the write covers the sectors it
 * carries; partial-line merging is not modelled) and are acknowledged at once.
 * A dirty victim becomes a DRAM write-back. A lookup needs room in the reply
 * queue whatever its outcome (GPGPU-Sim 3.x), a miss also room on the DRAM
 * path; else it stalls and the icnt->L2 queue backs up into the network (coalescing paper, 2.1). */
#include "sim_int.h"

static int evict_into(sim_gpu_t *g, sim_mc_t *mc, uint64_t local, uint64_t line, uint8_t dirty)
{
    sim_way_t *v = sim_tags_victim(&mc->l2, local);
    if (v->valid && v->dirty && sim_dram_push(g, mc, -1, v->tag, 1) != 0)
        return -1;
    sim_tags_fill(&mc->l2, v, line, 0xF);
    v->dirty = dirty;
    return 0;
}

static int dram_room(const sim_gpu_t *g, const sim_mc_t *mc)
{
    return (int)mc->topipe.len + mc->dram.reads_queued < g->cfg->dram.queue_size;
}

int sim_l2_access(sim_gpu_t *g, sim_mc_t *mc, int32_t i)
{
    sim_req_t *q = &g->pool.r[i];
    uint64_t local = sim_mc_local(g, q->line);
    sim_way_t *way = sim_tags_find(&mc->l2, local, q->line, 0);
    int write = q->op == GPUEST_MEM_STORE, atomic = q->op == GPUEST_MEM_ATOMIC;
    /* GPGPU-Sim looks the L2 up only while the L2->icnt queue has room, hit or
     * miss alike: a full reply path stops the L2. (Its extra gate on a full
     * 8-entry L2->DRAM queue is covered here by the miss path's dram_room.) */
    if (!sim_mc_reply_room(g, mc))
        return 0;
    if (way || write) {
        int hit = way != NULL;
        if (!way && evict_into(g, mc, local, q->line, 1) != 0) {
            g->failed = 1;
            return 0;
        }
        way = sim_tags_find(&mc->l2, local, q->line, 1);
        if (write || atomic)
            way->dirty = 1;
        g->ctr.v[SC_l2_accesses]++;
        g->ctr.v[hit ? SC_l2_hits : SC_l2_misses]++;
        if (sim_mc_make_reply(g, mc, i) != 0)
            g->failed = 1;
        return 1;
    }
    int e = sim_mshr_find(&mc->mshr, q->line);
    if (e >= 0) {
        if (sim_mshr_add(&mc->mshr, e, &g->pool, i) != 0)
            return 0;
        g->ctr.v[SC_l2_merges]++;
    } else {
        if (mc->mshr.used == mc->mshr.entries || !dram_room(g, mc))
            return 0;
        sim_mshr_alloc(&mc->mshr, q->line, &g->pool, i);
        if (sim_tfifo_push(&mc->topipe, g->now + g->dram_fixed_fs, i) != 0) {
            g->failed = 1;
            return 0;
        }
    }
    g->ctr.v[SC_l2_accesses]++;
    g->ctr.v[SC_l2_misses]++;
    return 1;
}

int sim_l2_fill_step(sim_gpu_t *g, sim_mc_t *mc)
{
    if (mc->fill_pending < 0) {
        if (mc->fills.len == 0 || sim_tfifo_peek(&mc->fills)->ready > g->now)
            return 0;
        int32_t i = sim_tfifo_peek(&mc->fills)->req;
        sim_tfifo_pop(&mc->fills);
        uint64_t line = g->pool.r[i].line, local = sim_mc_local(g, line);
        if (!sim_tags_find(&mc->l2, local, line, 1) && evict_into(g, mc, local, line, 0) != 0) {
            g->failed = 1;
            return 0;
        }
        int e = sim_mshr_find(&mc->mshr, line);
        mc->fill_pending = e >= 0 ? sim_mshr_release(&mc->mshr, e) : i;
        sim_progress(g);
    }
    /* answer the requests that waited on the line, as reply-queue room allows */
    int moved = 0;
    while (mc->fill_pending >= 0 && sim_mc_reply_room(g, mc)) {
        int32_t i = mc->fill_pending;
        sim_req_t *q = &g->pool.r[i];
        mc->fill_pending = q->next2;
        q->next2 = -1;
        if (q->op == GPUEST_MEM_ATOMIC) {
            sim_way_t *w = sim_tags_find(&mc->l2, sim_mc_local(g, q->line), q->line, 0);
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
