/* mc.c: a memory-controller node, structured as GPGPU-Sim 3.x's memory sub-partition:
 * NI ejection -> ROP delay line -> icnt->L2 queue -> L2 slice / DRAM -> L2->icnt queue -> NI.
 *
 * Runs on the L2 clock. Phase 1 (before the network step) injects replies, moves
 * DRAM returns, L2 lookups and the ROP delay line; phase 2 (after the step)
 * accepts one request from the NI, but only while the icnt->L2 queue
 * (mc.request_queue) has room: the ROP delay line in front of it is not counted,
 * as GPGPU-Sim's memory_sub_partition::full() looks only at m_icnt_L2_queue.
 * The L2 looks a request up only while the L2->icnt queue (mc.reply_queue) has
 * room, so a full reply path stops the L2, the icnt->L2 queue fills behind it,
 * and acceptance stops: requests then wait in the request network.
 * Memory latency runs from the request's acceptance to the reply's entry into
 * the NI, so time in the reply queue is memory latency and reply latency is
 * purely network-side. An MC stall is an L2 cycle in which the head of the
 * reply queue is ready but the NI input (injection) queue is full (coalescing
 * paper, 2.1; GPGPU-Sim's gpu_stall_icnt2sh). */
#include "sim_int.h"

gpuest_err sim_mc_init(sim_gpu_t *g, sim_mc_t *mc, int id, int node, gpuest_error_t *err)
{
    const gpuest_config_t *c = g->cfg;
    memset(mc, 0, sizeof *mc);
    mc->id = id;
    mc->node = node;
    mc->chan = id / g->nsub;
    mc->sub = id % g->nsub;
    mc->fill_pending = -1;
    mc->front_wait = -1;
    /* the channel's L2 slice is split evenly over its sub-partitions */
    GPUEST_TRY(sim_tags_init(&mc->l2, "l2", c->l2.size_per_mc_bytes / g->nsub, c->l2.line_bytes, c->l2.assoc, err));
    GPUEST_TRY(sim_mshr_init(&mc->mshr, c->l2.mshrs, c->l2.mshr_merge, err));
    mc->mshr.l2 = 1;
    return GPUEST_OK;
}

void sim_mc_free(sim_mc_t *mc)
{
    sim_tfifo_free(&mc->rop);
    sim_fifo_free(&mc->reqq);
    sim_fifo_free(&mc->replyq);
    sim_tfifo_free(&mc->pipe);
    sim_tfifo_free(&mc->topipe);
    sim_tfifo_free(&mc->fills);
    sim_tags_free(&mc->l2);
    sim_mshr_free(&mc->mshr);
}

uint64_t sim_mc_local(const sim_gpu_t *g, uint64_t addr)
{
    uint64_t il = (uint64_t)g->cfg->mc.interleave_bytes, chunk = sim_udiv(addr, il);
    return sim_udiv(chunk, (uint64_t)g->nchan) * il + sim_umod(addr, il);
}

int sim_mc_of(const sim_gpu_t *g, uint64_t addr)
{
    int chan = gpuest_config_mc_of_address(g->cfg, addr);
    if (g->nsub == 1)
        return chan;
    uint64_t lb = (uint64_t)g->line_bytes;
    return chan * g->nsub + (int)sim_umod(sim_udiv(sim_mc_local(g, addr), lb), (uint64_t)g->nsub);
}

uint64_t sim_sub_local(const sim_gpu_t *g, uint64_t addr)
{
    uint64_t local = sim_mc_local(g, addr), lb = (uint64_t)g->line_bytes, ns = (uint64_t)g->nsub;
    return sim_udiv(local, lb * ns) * lb + sim_umod(local, lb);
}

int sim_mc_reply_room(const sim_gpu_t *g, const sim_mc_t *mc)
{
    /* the reply pipe is the queue's output stage: its replies count against mc.reply_queue */
    return (int)(mc->replyq.len + mc->pipe.len) < g->cfg->mc.reply_queue;
}

static int clamp0(int v) { return v > 0 ? v : 0; }

static void call_reply_hook(sim_gpu_t *g, sim_req_t *q)
{
    gpuest_sim_req_info_t info = {q->line, q->sectors, q->op, q->sm, q->mc, (int32_t)(q - g->pool.r), q->pdr};
    uint8_t buf[GPUEST_LINE_BYTES];
    /* instruction lines are not in the program's memory image: no data for them */
    const uint8_t *data =
        g->src->read_line && q->cache != RC_INST ? g->src->read_line(g->src->ctx, q->line, buf) : NULL;
    gpuest_sim_reply_t r = {.flits = q->flits};
    g->opts->hooks.mc_reply(g->opts->hooks.ctx, &info, data, &r);
    q->flits = r.flits >= 1 ? r.flits : 1;
    q->inject_delay = clamp0(r.inject_delay);
    q->overlap = r.overlap_queue != 0;
    q->extra_core = clamp0(r.fill_delay);
    q->ctrl_flits = clamp0(r.ctrl_flits);
    q->bcast_flits = clamp0(r.bcast_flits);
    q->reply_sectors = r.sectors & 0x1F;
}

int sim_mc_make_reply(sim_gpu_t *g, sim_mc_t *mc, int32_t i)
{
    sim_req_t *q = &g->pool.r[i];
    q->t_reply = g->now;
    q->t_inject_ok = g->now;
    q->inject_delay = q->ctrl_flits = q->bcast_flits = q->extra_core = 0;
    q->bcast_next = 0;
    q->overlap = 0;
    if (g->opts->hooks.mc_front_reply)
        g->opts->hooks.mc_front_reply(g->opts->hooks.ctx, mc->id, i);
    if (q->op == GPUEST_MEM_STORE) {
        q->flits = g->write_ack_flits;
    } else {
        q->flits = g->read_reply_flits;
        if (g->opts->hooks.mc_reply)
            call_reply_hook(g, q);
    }
    return sim_fifo_push(&mc->replyq, i);
}

/* Injects the reply of request i: to its SM, or, when reads joined it (mc_front_accept), one
 * multicast packet to every member's SM, carried by a record of its own (the carrier) whose
 * member chain lets each SM find its request (sim_sm_receive). 0 sent, -1 NI full (or failed). */
static int send_reply(sim_gpu_t *g, sim_mc_t *mc, int32_t i)
{
    sim_req_t *q = &g->pool.r[i];
    if (q->group_next < 0)
        return sim_inject(g, mc->node, g->sm[q->sm].node, GPUEST_NOC_REPLY, q->flits, i);
    int dests[64], n = 0;
    for (int32_t j = i; j >= 0; j = g->pool.r[j].group_next) {
        if (n == 64) { /* the network's destination list holds 64 nodes (checked by the technique) */
            g->failed = 1;
            return -1;
        }
        dests[n++] = g->sm[g->pool.r[j].sm].node;
    }
    int32_t c = sim_pool_alloc(&g->pool);
    if (c < 0) {
        g->failed = 1;
        return -1;
    }
    q = &g->pool.r[i]; /* the pool may have moved */
    if (sim_inject_multicast(g, mc->node, dests, n, GPUEST_NOC_REPLY, q->flits, c) != 0) {
        sim_pool_release(&g->pool, c);
        return -1;
    }
    sim_req_t *cr = &g->pool.r[c];
    cr->carrier = 1;
    cr->state = RQ_REPLY_NET;
    cr->sm = -1;
    cr->mc = (int16_t)mc->id;
    cr->group_next = i;
    cr->copies_left = n;
    for (int32_t j = q->group_next; j >= 0; j = g->pool.r[j].group_next) {
        g->pool.r[j].state = RQ_REPLY_NET;
        g->pool.r[j].t_reply = g->now;
        g->pool.r[j].flits = q->flits;
    }
    return 0;
}

/* Sends the next control packet of the reply at the head of the pipe;
 * 1 sent or nothing pending, 0 the NI is full, -1 still pending (sent one). */
static int send_ctrl(sim_gpu_t *g, sim_mc_t *mc, sim_req_t *q)
{
    int flits, dst;
    if (q->bcast_flits > 0) {
        flits = q->bcast_flits;
        dst = q->bcast_next;
    } else if (q->ctrl_flits > 0) {
        flits = q->ctrl_flits;
        dst = q->sm;
    } else {
        return 1;
    }
    if (sim_inject(g, mc->node, g->sm[dst].node, GPUEST_NOC_REPLY, flits, -1) != 0)
        return 0;
    g->ctr.v[SC_ctrl_packets]++;
    g->ctr.v[SC_ctrl_flits] += (uint64_t)flits;
    if (q->bcast_flits > 0) {
        if (++q->bcast_next >= g->nsm)
            q->bcast_flits = 0;
    } else {
        q->ctrl_flits = 0;
    }
    sim_progress(g);
    return -1;
}

/* The reply pipe (only with an mc_reply hook): the head of the L2->icnt queue
 * enters it, spends its inject_delay there (pipelined: one entry per L2
 * cycle), then its control packets and the reply go to the NI, one packet per
 * L2 cycle. Without a hook the queue head injects directly, as before. */
static void inject_reply(sim_gpu_t *g, sim_mc_t *mc)
{
    g->ctr.v[SC_mc_cycles]++;
    int piped = g->opts->hooks.mc_reply != NULL;
    /* a unit of latency L holds at most L + 1 replies (L in flight + one at its output) */
    if (piped && mc->replyq.len > 0 &&
        mc->pipe.len <= (uint32_t)g->pool.r[sim_fifo_peek(&mc->replyq)].inject_delay) {
        int32_t i = sim_fifo_peek(&mc->replyq);
        sim_req_t *q = &g->pool.r[i];
        sim_time_t d = (sim_time_t)q->inject_delay * g->period[GPUEST_CLK_L2];
        sim_time_t ready = q->overlap ? q->t_inject_ok + d : g->now + d;
        if (sim_tfifo_push(&mc->pipe, ready > g->now ? ready : g->now, i) != 0) {
            g->failed = 1;
            return;
        }
        sim_fifo_pop(&mc->replyq);
        sim_progress(g);
    }
    int32_t i;
    if (piped) {
        if (mc->pipe.len == 0 || sim_tfifo_peek(&mc->pipe)->ready > g->now)
            return;
        i = sim_tfifo_peek(&mc->pipe)->req;
    } else {
        if (mc->replyq.len == 0)
            return;
        i = sim_fifo_peek(&mc->replyq);
        if (g->now < g->pool.r[i].t_inject_ok)
            return;
    }
    sim_req_t *q = &g->pool.r[i];
    int c = piped ? send_ctrl(g, mc, q) : 1;
    if (c < 0)
        return; /* one packet per cycle: the reply follows its control packets */
    if (c == 0 || send_reply(g, mc, i) != 0) {
        g->ctr.v[SC_mc_stalls]++;
        return;
    }
    if (piped)
        sim_tfifo_pop(&mc->pipe);
    else
        sim_fifo_pop(&mc->replyq);
    q = &g->pool.r[i]; /* send_reply may have grown the pool */
    q->t_reply = g->now; /* the reply packet is created when it enters the NI (coalescing paper, Fig. 1a) */
    q->state = RQ_REPLY_NET;
    sim_progress(g);
}

/* A request enters the L2 path: the ROP delay line. The lookup happens l2.hit_latency after
 * this: ready here means "moves into the icnt->L2 queue", one L2 cycle before the lookup. */
static gpuest_err enter_l2_path(sim_gpu_t *g, sim_mc_t *mc, int32_t i)
{
    sim_time_t ready = g->now + g->l2_hit_fs - g->period[GPUEST_CLK_L2];
    if (sim_tfifo_push(&mc->rop, ready > g->now ? ready : g->now, i) != 0)
        return sim_oom(g, "ROP delay line");
    return GPUEST_OK;
}

/* Stage 2 of a request front end: it may hand one held request to the L2 path per L2 cycle,
 * when the icnt->L2 queue has room (the condition under which the NI is drained without one). */
static gpuest_err front_release(sim_gpu_t *g, sim_mc_t *mc, gpuest_error_t *err)
{
    int room = (int)mc->reqq.len < g->cfg->mc.request_queue;
    int32_t i = g->opts->hooks.mc_front_release(g->opts->hooks.ctx, mc->id, room, g->ticks[GPUEST_CLK_L2]);
    if (i < 0)
        return GPUEST_OK;
    if (!room || i >= g->pool.cap || g->pool.r[i].state != RQ_AT_MC || g->pool.r[i].mc != mc->id)
        return gpuest_fail(err, GPUEST_ECORRUPT, "MC %d: the request front end released request %ld that it does "
                                                 "not hold (or the L2 path had no room)", mc->id, (long)i);
    sim_progress(g);
    return enter_l2_path(g, mc, i);
}

gpuest_err sim_mc_cycle(sim_gpu_t *g, sim_mc_t *mc, gpuest_error_t *err)
{
    while (sim_l2_fill_step(g, mc))
        ;
    /* L2 misses reach the DRAM queue after the fixed part of the DRAM latency */
    while (mc->topipe.len > 0 && sim_tfifo_peek(&mc->topipe)->ready <= g->now) {
        int32_t i = sim_tfifo_peek(&mc->topipe)->req;
        if (sim_dram_push(g, mc, i, g->pool.r[i].line, g->pool.r[i].op == GPUEST_MEM_STORE) != 0)
            return sim_oom(g, "DRAM queue");
        sim_tfifo_pop(&mc->topipe);
    }
    /* L2 lookups from the head of the icnt->L2 queue, one per bank; a lookup
     * that cannot proceed (reply queue full, DRAM path full, no MSHR) stops the
     * queue in order, as GPGPU-Sim's L2 does */
    int banks = g->cfg->l2.banks_per_mc / g->nsub; /* L2 banks of this sub-partition */
    if (banks < 1)
        banks = 1;
    for (int b = 0; b < banks && mc->reqq.len > 0; b++) {
        if (!sim_l2_access(g, mc, sim_fifo_peek(&mc->reqq)))
            break;
        sim_fifo_pop(&mc->reqq);
        sim_progress(g);
    }
    if (g->opts->hooks.mc_front_release)
        GPUEST_TRY(front_release(g, mc, err));
    /* ROP delay line -> icnt->L2 queue, after the lookups (GPGPU-Sim order), so a
     * request leaving the delay line is looked up on the next L2 cycle */
    for (int b = 0; b < banks && mc->rop.len > 0 && (int)mc->reqq.len < g->cfg->mc.request_queue; b++) {
        const sim_timed_t *h = sim_tfifo_peek(&mc->rop);
        if (h->ready > g->now)
            break;
        if (sim_fifo_push(&mc->reqq, h->req) != 0)
            return sim_oom(g, "MC request queue");
        sim_tfifo_pop(&mc->rop);
    }
    inject_reply(g, mc); /* last, so a reply made this cycle leaves this cycle */
    return g->failed ? sim_oom(g, "MC") : GPUEST_OK;
}

static gpuest_err track_locality(sim_gpu_t *g, const sim_req_t *q)
{
    g->ctr.v[SC_loc_reads]++;
    for (int w = 0; w < GPUEST_SIM_LOCALITY_WINDOWS; w++) {
        sim_loc_expire(&g->loc[w], g->now);
        if (sim_loc_access(&g->loc[w], q->line, q->sm, g->now) != 0)
            return sim_oom(g, "locality table");
    }
    return GPUEST_OK;
}

/* A request just ejected: checks, locality tracking, the observation hook. */
static gpuest_err take_from_ni(sim_gpu_t *g, sim_mc_t *mc, int32_t *out, gpuest_error_t *err)
{
    gpuest_noc_packet_t pkt;
    *out = -1;
    if (!gpuest_noc_eject(g->noc, mc->node, &pkt))
        return GPUEST_OK;
    int32_t i = (int32_t)((intptr_t)pkt.payload - 1);
    if (i < 0 || i >= g->pool.cap || g->pool.r[i].state != RQ_REQ_NET || g->pool.r[i].mc != mc->id)
        return gpuest_fail(err, GPUEST_ECORRUPT, "MC %d received request %ld that is not travelling to it", mc->id,
                           (long)i);
    sim_req_t *q = &g->pool.r[i];
    q->state = RQ_AT_MC;
    q->t_accept = g->now;
    sim_progress(g);
    if (q->op == GPUEST_MEM_LOAD) {
        GPUEST_TRY(track_locality(g, q));
        if (g->opts->hooks.mc_accept) {
            gpuest_sim_req_info_t info = {q->line, q->sectors, q->op, q->sm, q->mc, i, q->pdr};
            g->opts->hooks.mc_accept(g->opts->hooks.ctx, &info, g->ticks[GPUEST_CLK_L2]);
        }
    }
    *out = i;
    return GPUEST_OK;
}

/* Links read i into the reply of `leader` (GPUEST_SIM_FRONT_JOIN), after checking the front end's word. */
static gpuest_err join(sim_gpu_t *g, sim_mc_t *mc, int32_t i, int32_t leader, gpuest_error_t *err)
{
    sim_req_t *q = &g->pool.r[i];
    if (leader < 0 || leader >= g->pool.cap || leader == i || g->pool.r[leader].state != RQ_AT_MC ||
        g->pool.r[leader].mc != mc->id || g->pool.r[leader].line != q->line ||
        g->pool.r[leader].op != GPUEST_MEM_LOAD || q->op != GPUEST_MEM_LOAD)
        return gpuest_fail(err, GPUEST_ECORRUPT, "MC %d: request %ld joined %ld, which is not a pending read of the "
                                                 "same line", mc->id, (long)i, (long)leader);
    for (int32_t j = leader; j >= 0; j = g->pool.r[j].group_next)
        if (g->pool.r[j].sm == q->sm)
            return gpuest_fail(err, GPUEST_ECORRUPT, "MC %d: request %ld joined a reply that already goes to SM %d",
                               mc->id, (long)i, q->sm);
    q->group_next = g->pool.r[leader].group_next;
    g->pool.r[leader].group_next = i;
    return GPUEST_OK;
}

gpuest_err sim_mc_receive(sim_gpu_t *g, sim_mc_t *mc, gpuest_error_t *err)
{
    const gpuest_sim_hooks_t *h = &g->opts->hooks;
    int full = (int)mc->reqq.len >= g->cfg->mc.request_queue;
    if (!h->mc_front_accept) {
        if (full)
            return GPUEST_OK; /* icnt->L2 queue full: back-pressure into the request network */
        int32_t i;
        GPUEST_TRY(take_from_ni(g, mc, &i, err));
        return i < 0 ? GPUEST_OK : enter_l2_path(g, mc, i);
    }
    /* stage 1 of a request front end: it sees requests even while the icnt->L2 queue is full */
    int32_t i = mc->front_wait;
    if (i < 0)
        GPUEST_TRY(take_from_ni(g, mc, &i, err));
    if (i < 0)
        return GPUEST_OK;
    sim_req_t *q = &g->pool.r[i];
    gpuest_sim_req_info_t info = {q->line, q->sectors, q->op, q->sm, q->mc, i, q->pdr};
    int32_t leader = -1;
    int d = h->mc_front_accept(h->ctx, mc->id, i, &info, g->ticks[GPUEST_CLK_L2], &leader);
    if (d == GPUEST_SIM_FRONT_REFUSE || (d == GPUEST_SIM_FRONT_PASS && full)) {
        mc->front_wait = i;
        return GPUEST_OK;
    }
    mc->front_wait = -1;
    q->t_accept = g->now;
    sim_progress(g);
    if (d == GPUEST_SIM_FRONT_HOLD)
        return GPUEST_OK;
    if (d == GPUEST_SIM_FRONT_JOIN)
        return join(g, mc, i, leader, err);
    if (d != GPUEST_SIM_FRONT_PASS)
        return gpuest_fail(err, GPUEST_ECORRUPT, "MC %d: the request front end answered %d", mc->id, d);
    return enter_l2_path(g, mc, i);
}
