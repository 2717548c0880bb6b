/* probe.c: remote-L1 probing messages (remote-core paper, sections II-A and III-F): probes, forwarded
 * probes, NACKs and probe data between SMs, the probe handler at a remote L1, the timeout of the
 * held L2 request, and LA-LLC's forward of an L2 hit to the line's last sharer. What to probe is
 * the technique's choice (hooks probe_plan / probe_done / probe_event / llc_read, sim.h).
 *
 * Networks (deadlock freedom, docs/probing.md). A probe, a forwarded probe, a probe coming back to
 * its requester without data (the NACK) and an LA-LLC forward travel on the REQUEST network (class
 * GPUEST_NOC_REQUEST: on mesh28 its own physical network with 1 VC); the line a remote L1 sends
 * travels on the REPLY network (GPUEST_NOC_REPLY), as the paper does. Routing is dimension order,
 * so neither network has a routing cycle; the only possible deadlock is a protocol one, a message
 * class waiting for room in the network it arrived on. We rule it out by making every endpoint a
 * sink that never waits on the network it drains:
 *  - an SM ejects every packet at once (one per cycle). A probe goes into the incoming probe queue
 *    (probe_queue entries); when that is full it is deflected at once to its next target (or its
 *    requester) through the forward queue (forward_queue entries); when that is full too, the probe
 *    is dropped and its miss is recovered by the 2048-cycle timeout (the held L2 request leaves).
 *    So ejecting a probe never waits for the request network;
 *  - the probe handler takes the head of the incoming queue only when its output queue (data:
 *    reply queue; miss: forward queue) has room, so it waits for room in a queue, never in the
 *    network ejecting into it;
 *  - data and NACKs back at the requester are consumed unconditionally (late ones discarded);
 *  - an MC forwards an L2 hit (LA-LLC) only when its request-network NI takes the packet at once;
 *    else the L2 answers as usual, so an MC never waits on the request network it drains.
 * The request network therefore always drains into sinks that depend only on queues and on the
 * reply network, and the reply network drains into SMs that always consume: no cycle of waits.
 *
 * Probe groups: one per probed miss, holding its L1 request record (the "selective L2 request")
 * until the line comes from a remote L1 (the group closes and the record fills the L1), every
 * probe has come back without it (the record enters the miss queue at once), or the timeout
 * fires (it enters the miss queue then). A closed group's generation changes, so its messages
 * still in flight are recognised as stale when they arrive and discarded. */
#include "sim_int.h"

#define PROBE_TAG ((intptr_t)1 << 40) /* payload bit of a probe message (request payloads are < 2^31) */
#define PROBE_WORDS (GPUEST_SIM_PROBE_MAX_SMS / 64)
/* choices (the paper gives no sizes): 8 incoming probes, 8 forwarded probes and 4 data replies per
 * SM; the timeout is the paper's 2048 cycles, counted in core cycles */
#define PROBE_IN_QUEUE 8
#define PROBE_FWD_QUEUE 8
#define PROBE_DATA_QUEUE 4
#define PROBE_TIMEOUT_CYCLES 2048

enum { PM_PROBE = 0, PM_DATA = 1, PM_LLC = 2, PM_LLC_BACK = 3 };

typedef struct {
    int32_t group;    /* requester's group (-1: LA-LLC) */
    uint32_t gen;     /* the group's generation when sent */
    int32_t req;      /* LA-LLC: the read request record */
    int16_t requester;
    int16_t supplier; /* PM_DATA: the SM that sent it */
    uint8_t kind;
    uint8_t leader;   /* 1 leader (returns with data), 0 scout */
    int16_t ntargets, next; /* targets[next] is the current destination; next == ntargets: back home */
    int16_t targets[GPUEST_SIM_PROBE_MAX_SMS];
    uint64_t cand[PROBE_WORDS]; /* scout: SMs that had the line */
    uint64_t line;
    uint8_t sectors;
    int32_t free_next;
} probe_msg_t;

typedef struct {
    int32_t req;
    uint32_t gen;
    uint8_t live, level, two_level;
    int16_t out; /* probes of this group not yet back */
    int16_t sm;
    uint32_t pc;
    sim_time_t deadline;
    uint64_t cand[PROBE_WORDS];
    int32_t free_next;
} probe_group_t;

typedef struct {
    sim_fifo_t inq;    /* incoming probes (message ids) */
    sim_fifo_t fwdq;   /* forwarded probes, NACKs home and LA-LLC returns: request network */
    sim_fifo_t outq;   /* this SM's own new probes: request network, lowest priority */
    sim_tfifo_t dataq; /* lines found: reply network, ready after the L1 access */
    sim_tfifo_t timeq; /* groups by deadline (constant timeout: FIFO order is deadline order) */
    sim_fifo_t oracleq; /* perfect probing: read records to fill this cycle */
} probe_sm_t;

struct sim_probe_s {
    probe_msg_t *msg;
    int32_t nmsg, msg_free;
    probe_group_t *grp;
    int32_t ngrp, grp_free;
    probe_sm_t *sm;
    int16_t *sm_of_node; /* node -> SM, -1 */
    int nnodes;
};

static void event(sim_gpu_t *g, int ev, int sm)
{
    if (g->opts->hooks.probe_event)
        g->opts->hooks.probe_event(g->opts->hooks.ctx, ev, sm);
}

/* ---------------------------------------------------------------- pools */
static int32_t msg_alloc(sim_gpu_t *g)
{
    sim_probe_t *p = g->probe;
    if (p->msg_free < 0) {
        int32_t n = p->nmsg ? p->nmsg * 2 : 256;
        probe_msg_t *m = realloc(p->msg, (size_t)n * sizeof *m);
        if (!m)
            return -1;
        for (int32_t k = p->nmsg; k < n; k++)
            m[k].free_next = k + 1 < n ? k + 1 : -1;
        p->msg = m;
        p->msg_free = p->nmsg;
        p->nmsg = n;
    }
    int32_t i = p->msg_free;
    p->msg_free = p->msg[i].free_next;
    memset(&p->msg[i], 0, sizeof p->msg[i]);
    p->msg[i].group = -1;
    p->msg[i].req = -1;
    return i;
}

static void msg_release(sim_probe_t *p, int32_t i)
{
    p->msg[i].free_next = p->msg_free;
    p->msg_free = i;
}

static int32_t group_alloc(sim_gpu_t *g)
{
    sim_probe_t *p = g->probe;
    if (p->grp_free < 0) {
        int32_t n = p->ngrp ? p->ngrp * 2 : 256;
        probe_group_t *q = realloc(p->grp, (size_t)n * sizeof *q);
        if (!q)
            return -1;
        for (int32_t k = p->ngrp; k < n; k++) {
            memset(&q[k], 0, sizeof q[k]);
            q[k].free_next = k + 1 < n ? k + 1 : -1;
        }
        p->grp = q;
        p->grp_free = p->ngrp;
        p->ngrp = n;
    }
    int32_t i = p->grp_free;
    p->grp_free = p->grp[i].free_next;
    return i;
}

/* Closes group k (its record filled or released): later messages of it are stale. */
static void group_close(sim_probe_t *p, int32_t k)
{
    probe_group_t *gr = &p->grp[k];
    gr->live = 0;
    gr->gen++;
    gr->free_next = p->grp_free;
    p->grp_free = k;
}

static probe_group_t *group_of(sim_probe_t *p, const probe_msg_t *m)
{
    if (m->group < 0 || m->group >= p->ngrp)
        return NULL;
    probe_group_t *gr = &p->grp[m->group];
    return gr->live && gr->gen == m->gen ? gr : NULL;
}

/* ---------------------------------------------------------------- setup */
gpuest_err sim_probe_init(sim_gpu_t *g, gpuest_error_t *err)
{
    const gpuest_sim_hooks_t *h = &g->opts->hooks;
    if (!h->probe_plan && !h->llc_read)
        return GPUEST_OK;
    if (g->nsm > GPUEST_SIM_PROBE_MAX_SMS)
        return gpuest_fail(err, GPUEST_EINVAL, "remote-L1 probing supports at most %d SMs (core.num_sms = %d)",
                           GPUEST_SIM_PROBE_MAX_SMS, g->nsm);
    sim_probe_t *p = calloc(1, sizeof *p);
    if (!p)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for remote-L1 probing");
    g->probe = p;
    p->msg_free = p->grp_free = -1;
    p->nnodes = gpuest_noc_num_nodes(g->noc);
    p->sm = calloc((size_t)g->nsm, sizeof *p->sm);
    p->sm_of_node = malloc((size_t)p->nnodes * sizeof *p->sm_of_node);
    if (!p->sm || !p->sm_of_node)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for remote-L1 probing");
    for (int n = 0; n < p->nnodes; n++)
        p->sm_of_node[n] = -1;
    for (int s = 0; s < g->nsm; s++)
        if (g->sm[s].node >= 0 && g->sm[s].node < p->nnodes)
            p->sm_of_node[g->sm[s].node] = (int16_t)s;
    return GPUEST_OK;
}

void sim_probe_free(sim_gpu_t *g)
{
    sim_probe_t *p = g->probe;
    if (!p)
        return;
    for (int s = 0; p->sm && s < g->nsm; s++) {
        probe_sm_t *ps = &p->sm[s];
        sim_fifo_free(&ps->inq);
        sim_fifo_free(&ps->fwdq);
        sim_fifo_free(&ps->outq);
        sim_fifo_free(&ps->oracleq);
        sim_tfifo_free(&ps->dataq);
        sim_tfifo_free(&ps->timeq);
    }
    free(p->sm);
    free(p->sm_of_node);
    free(p->msg);
    free(p->grp);
    free(p);
    g->probe = NULL;
}

/* ---------------------------------------------------------------- helpers */
int sim_probe_is_msg(const gpuest_noc_packet_t *pkt) { return ((intptr_t)pkt->payload & PROBE_TAG) != 0; }

static int msg_of(const gpuest_noc_packet_t *pkt) { return (int)((intptr_t)pkt->payload & (PROBE_TAG - 1)); }

static int inject_msg(sim_gpu_t *g, int src_node, int dst_node, int cls, int flits, int32_t m)
{
    return sim_inject_payload(g, src_node, &dst_node, 1, cls, flits, (void *)(PROBE_TAG + (intptr_t)m));
}

static int hops(const sim_gpu_t *g, int a, int b)
{
    const gpuest_noc_cfg_t *n = &g->cfg->noc;
    if (n->topology != GPUEST_TOPO_MESH || n->k <= 0)
        return 1;
    int ra = a / n->k, ca = a % n->k, rb = b / n->k, cb = b % n->k;
    return abs(ra - rb) + abs(ca - cb);
}

static int l1_has(sim_sm_t *sm, uint64_t line, uint8_t sectors)
{
    sim_way_t *w = sim_tags_find(&sm->l1, line, line, 0); /* a remote read leaves the LRU order alone */
    return w && (w->valid & sectors) == sectors;
}

/* The oracle the PP, DP and IP scenarios assume: which other L1s hold the line now. */
static void oracle(sim_gpu_t *g, int self, uint64_t line, uint8_t sectors, gpuest_sim_probe_query_t *q)
{
    memset(q->sharers, 0, sizeof q->sharers);
    q->nearest = -1;
    int best = 1 << 30;
    for (int s = 0; s < g->nsm; s++) {
        if (s == self || !l1_has(&g->sm[s], line, sectors))
            continue;
        q->sharers[s / 64] |= UINT64_C(1) << (s % 64);
        int h = hops(g, g->sm[self].node, g->sm[s].node);
        if (h < best) {
            best = h;
            q->nearest = s;
        }
    }
}

/* ---------------------------------------------------------------- requester side */
static void release_l2(sim_gpu_t *g, int32_t k, int ev)
{
    sim_probe_t *p = g->probe;
    probe_group_t *gr = &p->grp[k];
    sim_sm_t *sm = &g->sm[gr->sm];
    if (sim_fifo_push(&sm->missq, gr->req) != 0)
        g->failed = 1;
    sm->sleep_until = 0; /* an SM asleep would not drain its miss queue */
    event(g, ev, gr->sm);
    if (g->opts->hooks.probe_done)
        g->opts->hooks.probe_done(g->opts->hooks.ctx, gr->sm, gr->pc, -1, sim_core_cycle(g));
    group_close(p, k);
    sim_progress(g);
}

/* A new probe of group k over targets[0..n), pushed on its requester's outgoing queue. */
static int new_probe(sim_gpu_t *g, int32_t k, const int16_t *targets, int n, int leader)
{
    int32_t m = msg_alloc(g);
    if (m < 0)
        return -1;
    sim_probe_t *p = g->probe;
    probe_group_t *gr = &p->grp[k];
    probe_msg_t *x = &p->msg[m];
    sim_req_t *q = &g->pool.r[gr->req];
    x->kind = PM_PROBE;
    x->group = k;
    x->gen = gr->gen;
    x->requester = gr->sm;
    x->leader = (uint8_t)leader;
    x->ntargets = (int16_t)n;
    memcpy(x->targets, targets, (size_t)n * sizeof *targets);
    x->line = q->line;
    x->sectors = q->sectors;
    gr->out++;
    return sim_fifo_push(&p->sm[gr->sm].outq, m);
}

static int start_group(sim_gpu_t *g, sim_sm_t *sm, int32_t i, const gpuest_sim_probe_plan_t *pl, uint32_t pc)
{
    sim_probe_t *p = g->probe;
    int32_t k = group_alloc(g);
    if (k < 0)
        return -1;
    probe_group_t *gr = &p->grp[k];
    gr->req = i;
    gr->live = 1;
    gr->level = 1;
    gr->out = 0;
    gr->sm = (int16_t)sm->id;
    gr->pc = pc;
    gr->two_level = (uint8_t)(pl->two_level && pl->nprobes > 1);
    memset(gr->cand, 0, sizeof gr->cand);
    gr->deadline = g->now + (sim_time_t)PROBE_TIMEOUT_CYCLES * g->period[GPUEST_CLK_CORE];
    int n = pl->ntargets, s = pl->nprobes < n ? pl->nprobes : n, at = 0;
    for (int j = 0; j < s; j++) { /* disjoint chunks, as equal as possible, the first ones longer */
        int len = n / s + (j < n % s);
        if (new_probe(g, k, pl->targets + at, len, j == 0 || !gr->two_level) != 0)
            return -1;
        at += len;
    }
    return sim_tfifo_push(&p->sm[sm->id].timeq, gr->deadline, k);
}

static int plan_ok(const sim_gpu_t *g, int self, const gpuest_sim_probe_plan_t *pl)
{
    if (pl->nprobes < 1 || pl->nprobes > GPUEST_SIM_PROBE_MAX_PROBES || pl->ntargets < 1 || pl->ntargets >= g->nsm)
        return 0;
    uint64_t seen[PROBE_WORDS] = {0};
    for (int t = 0; t < pl->ntargets; t++) {
        int s = pl->targets[t];
        if (s < 0 || s >= g->nsm || s == self || (seen[s / 64] >> (s % 64) & 1))
            return 0;
        seen[s / 64] |= UINT64_C(1) << (s % 64);
    }
    return 1;
}

int sim_probe_take(sim_gpu_t *g, sim_sm_t *sm, int32_t i)
{
    sim_req_t *q = &g->pool.r[i];
    if (g->functional || !g->opts->hooks.probe_plan || q->op != GPUEST_MEM_LOAD || q->cache != RC_DATA)
        return 0;
    gpuest_sim_probe_query_t qu = {.line = q->line, .sectors = q->sectors, .sm = sm->id, .pc = sm->ldst.pc};
    oracle(g, sm->id, q->line, q->sectors, &qu);
    gpuest_sim_probe_plan_t pl;
    pl.action = GPUEST_SIM_PROBE_L2;
    pl.nprobes = pl.two_level = pl.ntargets = 0;
    g->opts->hooks.probe_plan(g->opts->hooks.ctx, &qu, sim_core_cycle(g), &pl);
    if (pl.action == GPUEST_SIM_PROBE_ORACLE && qu.nearest >= 0) {
        if (sim_fifo_push(&g->probe->sm[sm->id].oracleq, i) != 0)
            g->failed = 1;
        return 1;
    }
    if (pl.action != GPUEST_SIM_PROBE_SEND || !plan_ok(g, sm->id, &pl))
        return 0;
    if (start_group(g, sm, i, &pl, sm->ldst.pc) != 0)
        g->failed = 1;
    return 1;
}

/* Fast-forward (sample.c): an L1D read miss with the machine functional. The technique plans as in
 * detailed mode (the oracle's sharers are the L1s' warmed tags); the PP oracle supplies a shared
 * line at once; probes find the line when any of their targets holds it (the first in the plan's
 * order supplies), and the technique learns the outcome through probe_done as in detailed mode.
 * Timeouts, NACKs and deflections are not modelled: nothing is in flight. Why: without this the
 * sharing predictors and the supplier selector came out of fast-forward as the last detailed unit
 * left them. Returns 1 when a remote L1 supplied the line (no L2 access), 0 when it goes to the L2. */
int sim_probe_functional_read(sim_gpu_t *g, sim_sm_t *sm, uint64_t line, uint8_t sectors, uint32_t pc)
{
    const gpuest_sim_hooks_t *h = &g->opts->hooks;
    if (!h->probe_plan)
        return 0;
    gpuest_sim_probe_query_t qu = {.line = line, .sectors = sectors, .sm = sm->id, .pc = pc};
    oracle(g, sm->id, line, sectors, &qu);
    gpuest_sim_probe_plan_t pl;
    pl.action = GPUEST_SIM_PROBE_L2;
    pl.nprobes = pl.two_level = pl.ntargets = 0;
    h->probe_plan(h->ctx, &qu, sim_core_cycle(g), &pl);
    if (pl.action == GPUEST_SIM_PROBE_ORACLE)
        return qu.nearest >= 0; /* detailed mode does not report the oracle's fills either */
    if (pl.action != GPUEST_SIM_PROBE_SEND || !plan_ok(g, sm->id, &pl))
        return 0;
    int supplier = -1;
    for (int j = 0; j < pl.ntargets && supplier < 0; j++) {
        int s = pl.targets[j];
        if (qu.sharers[s / 64] >> (s % 64) & 1)
            supplier = s;
    }
    if (h->probe_done)
        h->probe_done(h->ctx, sm->id, pc, supplier, sim_core_cycle(g));
    return supplier >= 0;
}

/* Fast-forward: a read of the data L1's line at the L2 (hit: a filled line) updates LA-LLC's
 * last-reader table as in detailed mode; the L2 answers (nothing is forwarded). */
void sim_probe_functional_llc(sim_gpu_t *g, const sim_mc_t *mc, const sim_sm_t *sm, uint64_t line, int hit)
{
    const gpuest_sim_hooks_t *h = &g->opts->hooks;
    if (h->llc_read)
        (void)h->llc_read(h->ctx, mc->id, sm->id, line, hit);
}

/* The line of read record i came from remote L1 `supplier` (or the PP oracle): fill the L1. */
static void remote_fill(sim_gpu_t *g, sim_sm_t *sm, int32_t i, int supplier, uint32_t pc, int notify, int extra)
{
    sim_req_t *q = &g->pool.r[i];
    q->state = RQ_REPLY_NET;
    q->extra_core = extra;
    g->ctr.v[SC_replies]++; /* the read's one reply: it left the SM once and came back once */
    event(g, GPUEST_SIM_PEV_REMOTE_HIT, sm->id);
    if (notify && g->opts->hooks.probe_done)
        g->opts->hooks.probe_done(g->opts->hooks.ctx, sm->id, pc, supplier, sim_core_cycle(g));
    sm->sleep_until = 0;
    sim_l1_fill(g, sm, i);
    sim_progress(g);
}

/* A probe of a live group is back home without data. */
static void probe_home(sim_gpu_t *g, int32_t m)
{
    sim_probe_t *p = g->probe;
    probe_msg_t *x = &p->msg[m];
    probe_group_t *gr = group_of(p, x);
    event(g, gr ? GPUEST_SIM_PEV_NACK : GPUEST_SIM_PEV_LATE, x->requester);
    if (!gr) {
        msg_release(p, m);
        return;
    }
    for (int w = 0; w < PROBE_WORDS; w++)
        gr->cand[w] |= x->cand[w];
    int32_t k = x->group;
    msg_release(p, m);
    if (--gr->out > 0)
        return;
    int16_t cand[GPUEST_SIM_PROBE_MAX_SMS];
    int n = 0;
    for (int s = 0; s < g->nsm; s++)
        if (gr->cand[s / 64] >> (s % 64) & 1)
            cand[n++] = (int16_t)s;
    if (gr->two_level && gr->level == 1 && n > 0) { /* second level: one leader over the candidates */
        gr->level = 2;
        event(g, GPUEST_SIM_PEV_SECOND_LEVEL, gr->sm);
        if (new_probe(g, k, cand, n, 1) != 0)
            g->failed = 1;
        return;
    }
    release_l2(g, k, GPUEST_SIM_PEV_ALL_NACK);
}

static void data_home(sim_gpu_t *g, sim_sm_t *sm, int32_t m)
{
    sim_probe_t *p = g->probe;
    probe_msg_t *x = &p->msg[m];
    if (x->kind == PM_LLC) { /* LA-LLC: the read record travelled with the forward */
        int32_t i = x->req;
        int sup = x->supplier;
        msg_release(p, m);
        remote_fill(g, sm, i, sup, 0, 0, 0);
        return;
    }
    probe_group_t *gr = group_of(p, x);
    if (!gr) {
        event(g, GPUEST_SIM_PEV_LATE, sm->id);
        msg_release(p, m);
        return;
    }
    int32_t k = x->group, i = gr->req;
    uint32_t pc = gr->pc;
    int sup = x->supplier;
    msg_release(p, m);
    group_close(p, k);
    remote_fill(g, sm, i, sup, pc, 1, 0);
}

/* ---------------------------------------------------------------- remote side */
/* Moves probe m on after this SM (its next target, or home); dropped when the forward queue is full. */
static void forward(sim_gpu_t *g, int s, int32_t m)
{
    sim_probe_t *p = g->probe;
    probe_msg_t *x = &p->msg[m];
    x->next++;
    if (p->sm[s].fwdq.len >= PROBE_FWD_QUEUE && x->kind == PM_PROBE) {
        event(g, GPUEST_SIM_PEV_DROP, s); /* its requester's timeout recovers the miss */
        msg_release(p, m);
        return;
    }
    /* an LA-LLC read is never dropped (nothing times out at the L2); it may pass the bound by the
     * reads in flight from the L2s, which the MCs' request queues bound */
    if (sim_fifo_push(&p->sm[s].fwdq, m) != 0)
        g->failed = 1;
}

gpuest_err sim_probe_receive(sim_gpu_t *g, sim_sm_t *sm, const gpuest_noc_packet_t *pkt, gpuest_error_t *err)
{
    sim_probe_t *p = g->probe;
    int32_t m = msg_of(pkt);
    if (m < 0 || m >= p->nmsg)
        return gpuest_fail(err, GPUEST_ECORRUPT, "SM %d received probe message %ld that does not exist", sm->id,
                           (long)m);
    probe_msg_t *x = &p->msg[m];
    sim_progress(g);
    if (x->kind == PM_DATA || (x->kind == PM_LLC && pkt->cls == GPUEST_NOC_REPLY)) {
        data_home(g, sm, m);
        return GPUEST_OK;
    }
    if (x->next >= x->ntargets) {
        if (x->requester != sm->id)
            return gpuest_fail(err, GPUEST_ECORRUPT, "probe %ld came home to SM %d, its requester is SM %d", (long)m,
                               sm->id, x->requester);
        probe_home(g, m);
        return GPUEST_OK;
    }
    if (x->targets[x->next] != sm->id)
        return gpuest_fail(err, GPUEST_ECORRUPT, "probe %ld reached SM %d, its target is SM %d", (long)m, sm->id,
                           x->targets[x->next]);
    probe_sm_t *ps = &p->sm[sm->id];
    if (ps->inq.len >= PROBE_IN_QUEUE) { /* deflection: the incoming probe queue is full */
        event(g, GPUEST_SIM_PEV_DEFLECT, sm->id);
        if (x->kind == PM_LLC) /* LA-LLC's single target: the read goes back to its L2 */
            x->kind = PM_LLC_BACK;
        forward(g, sm->id, m);
        return GPUEST_OK;
    }
    if (sim_fifo_push(&ps->inq, m) != 0)
        return sim_oom(g, "incoming probes");
    return GPUEST_OK;
}

/* The probe handler: the head of the incoming queue looks the L1 up when the local LD/ST unit
 * left the port free this cycle and the queue its outcome goes to has room. */
static void handle_probe(sim_gpu_t *g, int s)
{
    sim_probe_t *p = g->probe;
    probe_sm_t *ps = &p->sm[s];
    sim_sm_t *sm = &g->sm[s];
    if (ps->inq.len == 0)
        return;
    if (sm->l1_port_cycle == sim_core_cycle(g) + 1) {
        event(g, GPUEST_SIM_PEV_LOCAL_WAIT, s);
        return;
    }
    int32_t m = sim_fifo_peek(&ps->inq);
    probe_msg_t *x = &p->msg[m];
    int hit = l1_has(sm, x->line, x->sectors);
    int answer = hit && (x->leader || x->kind == PM_LLC);
    if (answer ? ps->dataq.len >= PROBE_DATA_QUEUE : ps->fwdq.len >= PROBE_FWD_QUEUE)
        return; /* head-of-line wait for queue room; later probes deflect meanwhile */
    sim_fifo_pop(&ps->inq);
    sm->l1_port_cycle = sim_core_cycle(g) + 1;
    sim_progress(g);
    if (answer) {
        x->supplier = (int16_t)s;
        if (x->kind != PM_LLC)
            x->kind = PM_DATA;
        if (sim_tfifo_push(&ps->dataq, g->now + g->l1_hit_fs, m) != 0)
            g->failed = 1;
        return;
    }
    if (hit) /* a scout notes the candidate and searches on */
        x->cand[s / 64] |= UINT64_C(1) << (s % 64);
    if (x->kind == PM_LLC)
        x->kind = PM_LLC_BACK;
    forward(g, s, m);
}

/* Destination node of a message leaving SM s on the request network. */
static int fwd_dst(const sim_gpu_t *g, const probe_msg_t *x)
{
    if (x->next < x->ntargets)
        return g->sm[x->targets[x->next]].node;
    return g->sm[x->requester].node;
}

/* An LA-LLC read whose sharer missed goes back to its L2 as an ordinary request (payload: the record). */
static int llc_back(sim_gpu_t *g, int s, int32_t m)
{
    sim_probe_t *p = g->probe;
    int32_t i = p->msg[m].req;
    sim_req_t *q = &g->pool.r[i];
    if (sim_inject(g, g->sm[s].node, g->mc[q->mc].node, GPUEST_NOC_REQUEST, g->read_req_flits, i) != 0)
        return -1;
    q->state = RQ_REQ_NET;
    q->llc_back = 1;
    event(g, GPUEST_SIM_PEV_LLC_BACK, s);
    msg_release(p, m);
    return 0;
}

/* Request-network injection of the probe side, one packet per cycle after the miss queue (which
 * carries the non-shared and the released selective L2 requests, the paper's two highest
 * priorities): forwarded probes and NACKs home first, then this SM's own new probes. */
static void inject_requests(sim_gpu_t *g, int s)
{
    sim_probe_t *p = g->probe;
    probe_sm_t *ps = &p->sm[s];
    int node = g->sm[s].node;
    if (ps->fwdq.len > 0) {
        int32_t m = sim_fifo_peek(&ps->fwdq);
        probe_msg_t *x = &p->msg[m];
        int ok = x->kind == PM_LLC_BACK
                     ? llc_back(g, s, m) == 0
                     : inject_msg(g, node, fwd_dst(g, x), GPUEST_NOC_REQUEST, g->read_req_flits, m) == 0;
        if (ok) {
            sim_fifo_pop(&ps->fwdq);
            if (x->kind != PM_LLC_BACK)
                event(g, GPUEST_SIM_PEV_FORWARD, s);
            sim_progress(g);
            return;
        }
        return; /* the NI is full: nothing else goes this cycle */
    }
    if (ps->outq.len > 0) {
        int32_t m = sim_fifo_peek(&ps->outq);
        probe_msg_t *x = &p->msg[m];
        if (!group_of(p, x)) { /* its miss was served meanwhile (data from another probe) */
            sim_fifo_pop(&ps->outq);
            msg_release(p, m);
            return;
        }
        if (inject_msg(g, node, fwd_dst(g, x), GPUEST_NOC_REQUEST, g->read_req_flits, m) == 0) {
            sim_fifo_pop(&ps->outq);
            event(g, GPUEST_SIM_PEV_PROBE_SENT, s);
            sim_progress(g);
        }
    }
}

static void inject_data(sim_gpu_t *g, int s)
{
    sim_probe_t *p = g->probe;
    probe_sm_t *ps = &p->sm[s];
    if (ps->dataq.len == 0 || sim_tfifo_peek(&ps->dataq)->ready > g->now)
        return;
    int32_t m = sim_tfifo_peek(&ps->dataq)->req;
    probe_msg_t *x = &p->msg[m];
    if (inject_msg(g, g->sm[s].node, g->sm[x->requester].node, GPUEST_NOC_REPLY, g->read_reply_flits, m) != 0)
        return;
    sim_tfifo_pop(&ps->dataq);
    event(g, GPUEST_SIM_PEV_DATA_SENT, s);
    sim_progress(g);
}

static void check_timeouts(sim_gpu_t *g, int s)
{
    sim_probe_t *p = g->probe;
    probe_sm_t *ps = &p->sm[s];
    while (ps->timeq.len > 0) {
        const sim_timed_t *t = sim_tfifo_peek(&ps->timeq);
        probe_group_t *gr = &p->grp[t->req];
        if (gr->live && gr->deadline == t->ready && gr->sm == s) {
            if (t->ready > g->now)
                return;
            int32_t k = t->req;
            sim_tfifo_pop(&ps->timeq);
            release_l2(g, k, GPUEST_SIM_PEV_TIMEOUT);
            continue;
        }
        sim_tfifo_pop(&ps->timeq); /* the group closed earlier */
    }
}

void sim_probe_cycle(sim_gpu_t *g)
{
    sim_probe_t *p = g->probe;
    for (int s = 0; s < g->nsm; s++) {
        probe_sm_t *ps = &p->sm[s];
        sim_sm_t *sm = &g->sm[s];
        while (ps->oracleq.len > 0) { /* PP: the line arrives after the remote L1's access, no network */
            int32_t i = sim_fifo_pop(&ps->oracleq);
            remote_fill(g, sm, i, -1, 0, 0, g->cfg->l1.hit_latency);
        }
        check_timeouts(g, s);
        handle_probe(g, s);
        inject_data(g, s);
        inject_requests(g, s);
    }
}

/* ---------------------------------------------------------------- LA-LLC at the L2 */
int sim_probe_llc(sim_gpu_t *g, sim_mc_t *mc, int32_t i, int hit)
{
    sim_req_t *q = &g->pool.r[i];
    if (!g->opts->hooks.llc_read || q->op != GPUEST_MEM_LOAD || q->cache != RC_DATA || q->fetch)
        return 0;
    int sharer = g->opts->hooks.llc_read(g->opts->hooks.ctx, mc->id, q->sm, q->line, hit);
    if (!hit || q->llc_back || sharer < 0 || sharer >= g->nsm || sharer == q->sm || g->opts->hooks.mc_front_reply)
        return 0;
    int32_t m = msg_alloc(g);
    if (m < 0) {
        g->failed = 1;
        return 0;
    }
    probe_msg_t *x = &g->probe->msg[m];
    x->kind = PM_LLC;
    x->req = i;
    x->requester = q->sm;
    x->leader = 1;
    x->ntargets = 1;
    x->targets[0] = (int16_t)sharer;
    x->line = q->line;
    x->sectors = q->sectors;
    if (inject_msg(g, mc->node, g->sm[sharer].node, GPUEST_NOC_REQUEST, g->read_req_flits, m) != 0) {
        msg_release(g->probe, m); /* the NI is full: the L2 answers (an MC never waits on this network) */
        return 0;
    }
    q->state = RQ_REQ_NET;
    g->ctr.v[SC_l2_accesses]++;
    g->ctr.v[SC_l2_hits]++;
    event(g, GPUEST_SIM_PEV_LLC_FORWARD, sharer);
    sim_progress(g);
    return 1;
}
