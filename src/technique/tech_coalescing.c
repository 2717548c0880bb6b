/* tech_coalescing.c: packet coalescing units (PCUs) in front of the L2 (coalescing paper section 3).
 *
 * One PCU per MC network port: per memory sub-partition where the machine has them (fermi: 12),
 * because each sub-partition has its own L2 bank, request queue, reply queue and network node;
 * a PCU must sit where one request stream meets one reply stream (docs/technique.md).
 *
 * A PCU holds technique.pcu_rgrs request grouping registers (RGR: valid, block address, one
 * destination bit per SM, plus the token of the read that stands for the group), a pointer ring
 * buffer in RGR allocation order, and a write queue.
 *  - Stage 1 (mc_front_accept, one request per L2 cycle, also while the MC request queue is
 *    full): a read whose block matches an open RGR sets the SM's bit and joins that group's reply;
 *    else it allocates an RGR and its pointer enters the ring. No free RGR: the read is refused
 *    and stays in the NI (back-pressure, as a full request queue does without PCUs); we stall
 *    rather than bypass because a bypassing read would overtake the ring and break the order
 *    stage 2 keeps for writes. Writes and atomics go to the write queue (refused when it is full).
 *  - Stage 2 (mc_front_release, one request per L2 cycle when the request queue has room): the
 *    oldest unsent RGR (ring head) or the oldest write, round robin between reads and writes.
 *  - Reply merging (mc_front_reply): when the L2 makes the reply of a group's read, the RGR is
 *    freed and the simulator sends one reply to every SM whose bit is set (a multicast packet
 *    replicated by the routers when there are several).
 * A write to a grouped block: it closes the block's open RGR (later reads of the block open a new
 * one), and stage 2 never lets a read or a write overtake an older access to the same block
 * (a queue head waits while the other queue holds an older access to its block). So a read is
 * answered by an L2 access that happens after every write that reached the PCU before it, and
 * before every write that reached it later: the order of one block's accesses at the L2 is the
 * order they reached the PCU, as without PCUs. Of the two heads the globally older one is never
 * held back, so stage 2 always makes progress.
 * A second read from an SM already in an open group (possible only for different caches of the SM
 * reading the same block) closes the group and opens a new one: one destination bit per SM. */
#include <stdlib.h>
#include <string.h>

#include "technique_int.h"

typedef struct {
    uint8_t valid, closed, sent;
    uint64_t line;
    uint64_t sms;   /* destination bits, one per SM (num_sms <= 64) */
    int32_t leader; /* the read whose L2 access and reply serve the group */
    uint64_t seq;   /* allocation order */
} rgr_t;

typedef struct {
    int32_t req;
    uint64_t line, seq;
} pcu_write_t;

typedef struct {
    rgr_t *rgr;
    int nrgr, used;
    int *ring; /* RGR indices, allocation order, unsent ones */
    int ring_head, ring_len;
    pcu_write_t *wq;
    int wq_cap, wq_head, wq_len;
    int last_write; /* stage 2's round robin: 1 when the last request sent was a write */
    uint64_t seq;
} pcu_t;

typedef struct {
    int npcu, nsm;
    pcu_t *pcu;
    /* statistics */
    uint64_t reads, joined, groups_done, grouped_reads, multicast, writes, write_closes, refusals, self_closes;
    uint64_t occ_sum, occ_cycles, occ_max, replies;
} coal_t;

static const char *const coal_keys[] = {"coalescing", "pcu_rgrs", "warppool_queues", "warppool_depth",
                                        "warppool_latency", NULL};

/* warppool and pcu+warppool: the WarpPool itself lives in the simulator's SM (src/sim/warppool.c,
 * between the LD/ST unit and the L1D, switched on by the same key); this entry owns the key, its
 * checks and the PCUs. */
static int coal_active(const gpuest_config_t *cfg) { return cfg->technique.coalescing != GPUEST_COALESCE_NONE; }

static int pcu_on(const gpuest_config_t *cfg)
{
    return cfg->technique.coalescing == GPUEST_COALESCE_PCU || cfg->technique.coalescing == GPUEST_COALESCE_PCU_WARPPOOL;
}

static const char *coal_value(const gpuest_config_t *cfg)
{
    static const char *const names[] = {"none", "pcu", "warppool", "pcu+warppool"};
    unsigned v = (unsigned)cfg->technique.coalescing;
    return v < 4 ? names[v] : "?";
}

static int reply_flits(const gpuest_config_t *cfg)
{
    return gpuest_packet_flits(8 * GPUEST_LINE_BYTES, cfg->noc.flit_bytes, cfg->noc.header_bytes);
}

static gpuest_err coal_validate(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    char at[256];
    if (!coal_active(cfg))
        return GPUEST_OK;
    const char *where = gpuest_config_key_origin(cfg, "technique", "coalescing", at, sizeof at);
    if (strcmp(cfg->technique.compression, "none") != 0)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.coalescing = %s with technique.compression = %s: a compressed reply's "
                           "size depends on its destination's dictionary (C-Pack) and the two techniques do not "
                           "share the simulator's hooks yet; set one of them to none",
                           where, coal_value(cfg), cfg->technique.compression);
    if (!pcu_on(cfg))
        return GPUEST_OK; /* WarpPool alone sends no multicast and keeps no per-SM bits */
    if (cfg->core.num_sms > 64 || gpuest_config_num_nodes(cfg) > 64)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.coalescing needs at most 64 SMs and 64 network nodes (one destination "
                           "bit per SM; the head flit's 8-byte destination list), this machine has %d SMs and %d "
                           "nodes", where, cfg->core.num_sms, gpuest_config_num_nodes(cfg));
    /* The network refuses a multicast packet longer than one VC buffer (its deadlock-freedom
     * argument, docs/noc.md); a merged read reply must fit. The crossbar has no such limit. */
    int flits = reply_flits(cfg);
    if (cfg->noc.topology == GPUEST_TOPO_MESH && flits > cfg->noc.buffer_flits)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.coalescing = %s sends a read reply of %d flits as one multicast packet, "
                           "which must fit one VC buffer, but noc.buffer_flits = %d; set noc.buffer_flits = %d (or "
                           "larger flits)", where, coal_value(cfg), flits, cfg->noc.buffer_flits, flits);
    return GPUEST_OK;
}

static void coal_destroy(void *state)
{
    coal_t *c = state;
    if (!c)
        return;
    for (int m = 0; c->pcu && m < c->npcu; m++) {
        free(c->pcu[m].rgr);
        free(c->pcu[m].ring);
        free(c->pcu[m].wq);
    }
    free(c->pcu);
    free(c);
}

static gpuest_err coal_create(const gpuest_technique_env_t *env, void **state, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    coal_t *c = calloc(1, sizeof *c);
    if (!c)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the coalescing units");
    *state = c;
    c->nsm = cfg->core.num_sms;
    c->npcu = pcu_on(cfg) ? cfg->mc.num_mcs * (cfg->mc.sub_partitions > 0 ? cfg->mc.sub_partitions : 1) : 0;
    if (c->npcu == 0)
        return GPUEST_OK;
    c->pcu = calloc((size_t)c->npcu, sizeof *c->pcu);
    if (!c->pcu)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the coalescing units");
    for (int m = 0; m < c->npcu; m++) {
        pcu_t *p = &c->pcu[m];
        p->nrgr = cfg->technique.pcu_rgrs;
        p->wq_cap = cfg->mc.request_queue; /* a write buffer as deep as the MC request queue */
        p->rgr = calloc((size_t)p->nrgr, sizeof *p->rgr);
        p->ring = calloc((size_t)p->nrgr, sizeof *p->ring);
        p->wq = calloc((size_t)p->wq_cap, sizeof *p->wq);
        if (!p->rgr || !p->ring || !p->wq)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the request grouping registers");
    }
    return GPUEST_OK;
}

/* The open RGR of line, or NULL. */
static rgr_t *open_rgr(pcu_t *p, uint64_t line)
{
    for (int k = 0; k < p->nrgr; k++)
        if (p->rgr[k].valid && !p->rgr[k].closed && p->rgr[k].line == line)
            return &p->rgr[k];
    return NULL;
}

static int accept_write(coal_t *c, pcu_t *p, int32_t req, const gpuest_sim_req_info_t *info)
{
    if (p->wq_len == p->wq_cap) {
        c->refusals++;
        return GPUEST_SIM_FRONT_REFUSE;
    }
    rgr_t *r = open_rgr(p, info->line);
    if (r) { /* later reads must not be answered by a read that may reach the L2 before this write */
        r->closed = 1;
        c->write_closes++;
    }
    pcu_write_t *w = &p->wq[(p->wq_head + p->wq_len++) % p->wq_cap];
    w->req = req;
    w->line = info->line;
    w->seq = ++p->seq;
    c->writes++;
    return GPUEST_SIM_FRONT_HOLD;
}

static int accept_read(coal_t *c, pcu_t *p, int32_t req, const gpuest_sim_req_info_t *info, int32_t *leader)
{
    uint64_t bit = UINT64_C(1) << info->sm;
    rgr_t *r = open_rgr(p, info->line);
    if (r && !(r->sms & bit)) {
        r->sms |= bit;
        *leader = r->leader;
        c->reads++;
        c->joined++;
        return GPUEST_SIM_FRONT_JOIN;
    }
    if (p->used == p->nrgr) {
        c->refusals++;
        return GPUEST_SIM_FRONT_REFUSE;
    }
    if (r) { /* this SM's bit is taken: the group closes, the read opens a new one */
        r->closed = 1;
        c->self_closes++;
    }
    int k = 0;
    while (p->rgr[k].valid)
        k++;
    p->rgr[k] = (rgr_t){.valid = 1, .line = info->line, .sms = bit, .leader = req, .seq = ++p->seq};
    p->used++;
    p->ring[(p->ring_head + p->ring_len++) % p->nrgr] = k;
    c->reads++;
    return GPUEST_SIM_FRONT_HOLD;
}

static int coal_accept(void *ctx, int mc, int32_t req, const gpuest_sim_req_info_t *info, uint64_t l2_cycle,
                       int32_t *leader)
{
    (void)l2_cycle;
    coal_t *c = ctx;
    pcu_t *p = &c->pcu[mc];
    if (info->op == GPUEST_MEM_LOAD)
        return accept_read(c, p, req, info, leader);
    return accept_write(c, p, req, info);
}

/* Is an access to line older than seq waiting in the write queue / among the unsent RGRs? */
static int older_write(const pcu_t *p, uint64_t line, uint64_t seq)
{
    for (int k = 0; k < p->wq_len; k++) {
        const pcu_write_t *w = &p->wq[(p->wq_head + k) % p->wq_cap];
        if (w->line == line && w->seq < seq)
            return 1;
    }
    return 0;
}

static int older_read(const pcu_t *p, uint64_t line, uint64_t seq)
{
    for (int k = 0; k < p->ring_len; k++) {
        const rgr_t *r = &p->rgr[p->ring[(p->ring_head + k) % p->nrgr]];
        if (r->line == line && r->seq < seq)
            return 1;
    }
    return 0;
}

static int32_t coal_release(void *ctx, int mc, int room, uint64_t l2_cycle)
{
    (void)l2_cycle;
    coal_t *c = ctx;
    pcu_t *p = &c->pcu[mc];
    c->occ_sum += (uint64_t)p->used;
    c->occ_cycles++;
    if ((uint64_t)p->used > c->occ_max)
        c->occ_max = (uint64_t)p->used;
    if (!room)
        return -1;
    rgr_t *r = p->ring_len ? &p->rgr[p->ring[p->ring_head]] : NULL;
    const pcu_write_t *w = p->wq_len ? &p->wq[p->wq_head] : NULL;
    int read_ok = r && !older_write(p, r->line, r->seq);
    int write_ok = w && !older_read(p, w->line, w->seq);
    if (write_ok && (!read_ok || !p->last_write)) {
        p->wq_head = (p->wq_head + 1) % p->wq_cap;
        p->wq_len--;
        p->last_write = 1;
        return w->req;
    }
    if (!read_ok)
        return -1;
    p->ring_head = (p->ring_head + 1) % p->nrgr;
    p->ring_len--;
    r->sent = 1;
    p->last_write = 0;
    return r->leader;
}

static int popcount64(uint64_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static void coal_reply(void *ctx, int mc, int32_t req)
{
    coal_t *c = ctx;
    pcu_t *p = &c->pcu[mc];
    c->replies++;
    for (int k = 0; k < p->nrgr; k++) {
        rgr_t *r = &p->rgr[k];
        if (!r->valid || r->leader != req || !r->sent)
            continue;
        int n = popcount64(r->sms);
        c->groups_done++;
        c->grouped_reads += (uint64_t)n;
        c->multicast += n > 1;
        r->valid = 0;
        p->used--;
        return;
    }
}

static void coal_install(void *state, gpuest_sim_hooks_t *hooks)
{
    const coal_t *c = state;
    if (c->npcu == 0) /* warppool alone: nothing at the MCs */
        return;
    hooks->mc_front_accept = coal_accept;
    hooks->mc_front_release = coal_release;
    hooks->mc_front_reply = coal_reply;
}

static size_t coal_stats(void *state, gpuest_technique_stat_t *out, size_t max)
{
    const coal_t *c = state;
    size_t n = 0;
    if (c->npcu == 0) /* warppool alone: its counters are the simulator's (warppool_* columns) */
        return 0;
    n = tech_stat(out, n, max, "coalescing.read_requests", (double)c->reads);
    n = tech_stat(out, n, max, "coalescing.joined_requests", (double)c->joined);
    /* actual inter-core locality ratio: reads answered by another SM's reply packet, over the
     * read reply packets there would be without PCUs (one per read) */
    n = tech_stat(out, n, max, "coalescing.actual_locality", c->reads ? (double)c->joined / (double)c->reads : 0);
    n = tech_stat(out, n, max, "coalescing.read_reply_packets", (double)c->groups_done);
    n = tech_stat(out, n, max, "coalescing.multicast_replies", (double)c->multicast);
    n = tech_stat(out, n, max, "coalescing.reply_packets", (double)c->replies);
    n = tech_stat(out, n, max, "coalescing.grouped_per_reply",
                  c->groups_done ? (double)c->grouped_reads / (double)c->groups_done : 0);
    n = tech_stat(out, n, max, "coalescing.rgr_occupancy", c->occ_cycles ? (double)c->occ_sum / (double)c->occ_cycles
                                                                         : 0);
    n = tech_stat(out, n, max, "coalescing.rgr_max", (double)c->occ_max);
    n = tech_stat(out, n, max, "coalescing.refusals", (double)c->refusals);
    n = tech_stat(out, n, max, "coalescing.writes", (double)c->writes);
    n = tech_stat(out, n, max, "coalescing.write_closes", (double)c->write_closes);
    n = tech_stat(out, n, max, "coalescing.rgrs", c->npcu ? c->pcu[0].nrgr : 0);
    return n;
}

const gpuest_technique_t gpuest_tech_coalescing = {
    .name = "coalescing",
    .desc = "packet coalescing units in front of the L2 with multicast replies (coalescing paper section 3)",
    .keys = coal_keys,
    .modes = GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL, /* model: coalescing_model.c, warppool_model.c */
    .active = coal_active,
    .validate = coal_validate,
    .create = coal_create,
    .install = coal_install,
    .stats = coal_stats,
    .destroy = coal_destroy,
    .transform = tech_coal_transform,
};
