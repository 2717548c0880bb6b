/* router.c: input-queued VC router pipeline (route, VC allocation, switch allocation, crossbar) with BookSim 2 stage timing.
 *
 * Each stage owns a FIFO of items. In a cycle every stage first *evaluates*
 * (stamps new items ready = now + delay - 1 and runs its allocator), then every
 * stage *updates* (retires items whose time has come and hands them to the
 * next stage's queue, where they are evaluated the following cycle). This is
 * the ordering of BookSim's iq_router, so with delays of 1 a head flit spends
 * one cycle per stage: RC, VA, SA, ST, and the link adds its latency + 1.
 *
 * Routes come from the shared network description (src/net): the topology's destination tag on a
 * crossbar, the class's registered routing function on a mesh. Multicast (coalescing paper section
 * 4): route computation splits the destination set by output port; with two or more branches the
 * input VC becomes a replication point. Every replica gets its own packet record, is VC-allocated
 * and switch-allocated like a normal flit, and the input VC keeps each flit until every branch has
 * copied it (asynchronous replication). The crossbar is mux-based: once a replica wins the switch,
 * the other replicas of the same flit whose outputs nobody won this cycle leave in the same cycle. */
#include <string.h>

#include "alloc_inl.h"
#include "noc_int.h"

static inline noc_flit_t *vc_front(noc_router_t *r, const gpuest_noc_t *noc, int iv)
{
    return &r->buf[(size_t)iv * noc->bstride + r->ivc[iv].head];
}

/* Grows the packet pool so that n records can be taken without reallocation failing midway. */
static int reserve_pkts(gpuest_noc_t *noc, int n, uint32_t *out)
{
    for (int i = 0; i < n; i++) {
        out[i] = noc_pkt_alloc(noc);
        if (out[i] == NOC_NONE) {
            while (i-- > 0)
                noc_pkt_release(noc, out[i]);
            noc->failed = 1;
            return 0;
        }
    }
    return 1;
}

/* Route computation for the head at the front of input VC iv: one output port (a unicast packet, or a
 * multicast whose whole set leaves through one port), or a replication point with one branch per port
 * (look-ahead multicast RC: every replica's port and destination subset is decided here). */
static void compute_route(gpuest_noc_t *noc, noc_router_t *r, int iv)
{
    noc_ivc_t *ivc = &r->ivc[iv];
    noc_flit_t f = *vc_front(r, noc, iv);
    int choice = (f.flags & NOC_FLIT_YX) != 0;
    const gpuest_net_routing_t *rf = noc->rf[f.cls];
    ivc->nbr = 0;
    if (!(f.flags & NOC_FLIT_MCAST)) {
        const int16_t *tab = noc->rtab[f.cls];
        if (tab) {
            int e = tab[((size_t)r->tr * rf->choices + choice) * noc->nodes + f.dst];
            ivc->out_port = (int8_t)(e & 0xff);
            ivc->out_set = (int8_t)((e >> 8) - 1);
        } else {
            gpuest_net_hop_t h = gpuest_net_route(&noc->topo, rf, r->tr, f.dst, choice);
            ivc->out_port = (int8_t)h.port;
            ivc->out_set = (int8_t)h.vc_set;
        }
        return;
    }
    gpuest_net_branch_t b[GPUEST_NET_MCAST_MAX_NODES];
    int n = gpuest_net_mcast_split(&noc->topo, rf, r->tr, noc->pkts[f.pkt].dests, choice, b);
    assert(n >= 1);
    if (n == 1) { /* the whole set continues through one link: nothing to replicate here */
        assert(gpuest_net_eject_node(&noc->topo, r->tr, b[0].port) < 0);
        ivc->out_port = (int8_t)b[0].port;
        ivc->out_set = (int8_t)b[0].vc_set;
        return;
    }
    uint32_t kids[GPUEST_NET_MCAST_MAX_NODES];
    if (!reserve_pkts(noc, n, kids)) { /* out of memory: the packet stays here; check() reports it */
        ivc->out_port = -1;
        return;
    }
    noc_branch_t *br = &r->br[(size_t)iv * noc->brmax];
    for (int i = 0; i < n; i++) {
        noc_pkt_t *kid = &noc->pkts[kids[i]];
        *kid = noc->pkts[f.pkt];
        kid->dst = __builtin_ctzll(b[i].dests);
        kid->dests = (b[i].dests & (b[i].dests - 1)) ? b[i].dests : 0; /* one node left: a unicast replica */
        br[i] = (noc_branch_t){.port = (int8_t)b[i].port, .vc_set = (int8_t)b[i].vc_set, .out_vc = -1, .sent = 0,
                               .pkt = kids[i]};
    }
    ivc->nbr = (uint8_t)n;
    ivc->popped = 0;
    ivc->pkt = f.pkt;
    ivc->out_port = -1;
}

/* Head at the front of an idle VC: route now (look-ahead, routing_delay 0) or
 * queue it for the routing stage. */
static void start_route(gpuest_noc_t *noc, noc_router_t *r, int port, int vc)
{
    int iv = port * noc->vcs + vc;
    noc_ivc_t *ivc = &r->ivc[iv];
    assert(ivc->count > 0 && (vc_front(r, noc, iv)->flags & NOC_FLIT_HEAD));
    if (noc->cfg.routing_delay > 0) {
        ivc->state = NOC_VC_ROUTING;
        noc_q_push(&r->route_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = (int16_t)vc, .out = -1});
    } else {
        compute_route(noc, r, iv);
        ivc->state = NOC_VC_VCALLOC;
        noc_q_push(&r->va_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = (int16_t)vc, .out = -1});
    }
}

/* Input queuing: a flit arriving on input port `port`. */
static void accept_flit(gpuest_noc_t *noc, noc_router_t *r, int port, noc_flit_t f)
{
    int iv = port * noc->vcs + f.vc;
    noc_ivc_t *ivc = &r->ivc[iv];
    assert(f.vc < noc->vcs);
    assert(ivc->count < noc->bufsz); /* credits guarantee room */
    r->buf[(size_t)iv * noc->bstride + ((ivc->head + ivc->count) & noc->bmask)] = f;
    ivc->count++;
    r->buffered++;
    if (ivc->state == NOC_VC_IDLE) {
        assert(ivc->count == 1 && (f.flags & NOC_FLIT_HEAD));
        start_route(noc, r, port, f.vc);
    } else if (ivc->nbr) { /* replicas that hold a VC may copy it at once */
        if (!ivc->in_sa && (ivc->state == NOC_VC_ACTIVE || ivc->state == NOC_VC_VCALLOC)) {
            ivc->in_sa = 1;
            noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = f.vc, .out = -1});
        }
    } else if (ivc->state == NOC_VC_ACTIVE && ivc->count == 1) {
        noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = f.vc, .out = -1});
    }
}

static void receive(gpuest_noc_t *noc, noc_router_t *r)
{
    for (uint64_t m = r->fmask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        int li = r->in_link[p];
        noc_flit_t f;
        if (noc_link_recv_flit(noc, li, &f))
            accept_flit(noc, r, p, f);
        if (noc->links[li].fcount == 0)
            r->fmask &= ~(UINT64_C(1) << p);
    }
    for (uint64_t m = r->cmask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        int lo = r->out_link[p];
        uint64_t c = noc_link_recv_credit(noc, lo);
        for (int v = 0; c; v++, c >>= 1)
            if (c & 1)
                noc_ovc_credit(noc, &r->ovc[p * noc->vcs + v]);
        if (noc->links[lo].ccount == 0)
            r->cmask &= ~(UINT64_C(1) << p);
    }
}

/* ---------------------------------------------------------------- routing */
static void route_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    for (uint32_t i = 0; i < r->route_q.count; i++) {
        noc_item_t *it = noc_q_at(&r->route_q, i);
        if (it->ready >= 0)
            break;
        it->ready = noc->now + noc->cfg.routing_delay - 1;
    }
}

static void route_update(gpuest_noc_t *noc, noc_router_t *r)
{
    while (r->route_q.count) {
        noc_item_t it = *noc_q_at(&r->route_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        int iv = it.port * noc->vcs + it.vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        assert(ivc->state == NOC_VC_ROUTING);
        compute_route(noc, r, iv);
        ivc->state = NOC_VC_VCALLOC;
        noc_q_push(&r->va_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        noc_q_pop(&r->route_q);
    }
}

/* ---------------------------------------------------------------- VC allocation */
/* Requests every free VC of output port op in the routing function's slice of the class range. */
static inline void request_vcs(gpuest_noc_t *noc, noc_router_t *r, int iv, int cls, int op, int set)
{
    int V = noc->vcs, first, n = gpuest_net_vc_slice(noc->rf[cls], noc->vc_lo[cls], noc->vc_hi[cls], set, &first);
    for (int ov = first; ov < first + n; ov++)
        if (r->ovc[op * V + ov].owner < 0)
            noc_alloc_request(&r->va, iv, op * V + ov);
}

/* After this cycle's grants: replicas still without a VC take any free VC of their slice (lowest
 * first), so a fork does not serialise VC allocation when the outputs are free. Returns 1 when every
 * branch of input VC iv holds a VC. A replica that holds a VC starts copying at once, without waiting
 * for its siblings: a replica never holds a VC idle while another waits (that hold-and-wait across
 * output ports would deadlock). */
static int fill_branch_vcs(gpuest_noc_t *noc, noc_router_t *r, int iv)
{
    int V = noc->vcs, cls = vc_front(r, noc, iv)->cls, done = 1;
    noc_branch_t *br = &r->br[(size_t)iv * noc->brmax];
    for (int b = 0; b < r->ivc[iv].nbr; b++) {
        if (br[b].out_vc >= 0)
            continue;
        int first, n = gpuest_net_vc_slice(noc->rf[cls], noc->vc_lo[cls], noc->vc_hi[cls], br[b].vc_set, &first);
        for (int ov = first; ov < first + n && br[b].out_vc < 0; ov++) {
            noc_ovc_t *o = &r->ovc[br[b].port * V + ov];
            if (o->owner < 0) {
                o->owner = (int16_t)iv;
                o->tail_sent = 0;
                br[b].out_vc = (int16_t)ov;
            }
        }
        done &= br[b].out_vc >= 0;
    }
    return done;
}
static void va_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs;
    noc_alloc_clear(&r->va);
    uint32_t n = 0;
    for (; n < r->va_q.count; n++) {
        noc_item_t *it = noc_q_at(&r->va_q, n);
        if (it->ready >= 0)
            break;
        int iv = it->port * V + it->vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        assert(ivc->state == NOC_VC_VCALLOC);
        int cls = vc_front(r, noc, iv)->cls;
        if (ivc->nbr) { /* every replica still without a VC asks at its own port */
            const noc_branch_t *br = &r->br[(size_t)iv * noc->brmax];
            for (int b = 0; b < ivc->nbr; b++)
                if (br[b].out_vc < 0)
                    request_vcs(noc, r, iv, cls, br[b].port, br[b].vc_set);
            continue;
        }
        if (ivc->out_port >= 0)
            request_vcs(noc, r, iv, cls, ivc->out_port, ivc->out_set);
    }
    if (n == 0)
        return;
    noc_alloc_run(&r->va);
    for (uint32_t i = 0; i < n; i++) {
        noc_item_t *it = noc_q_at(&r->va_q, i);
        it->ready = noc->now + noc->cfg.vc_alloc_delay - 1;
        it->out = r->va.inmatch[it->port * V + it->vc];
    }
}

static void va_update(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs;
    int nmc = 0; /* replication points met, their input VCs in r->scratch */
    while (r->va_q.count) {
        noc_item_t it = *noc_q_at(&r->va_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        int iv = it.port * V + it.vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        assert(ivc->state == NOC_VC_VCALLOC);
        if (ivc->nbr) { /* replication point: the grant goes to the branch at the granted port */
            if (it.out >= 0) {
                noc_branch_t *br = &r->br[(size_t)iv * noc->brmax];
                for (int b = 0; b < ivc->nbr; b++)
                    if (br[b].port == it.out / V) {
                        assert(br[b].out_vc < 0 && r->ovc[it.out].owner < 0);
                        r->ovc[it.out].owner = (int16_t)iv;
                        r->ovc[it.out].tail_sent = 0;
                        br[b].out_vc = (int16_t)(it.out % V);
                    }
            }
            r->scratch[nmc++] = iv;
            noc_q_pop(&r->va_q);
            continue;
        }
        if (ivc->out_port < 0) { /* no route (out of memory replicating): stay */
            noc_q_push(&r->va_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
            noc_q_pop(&r->va_q);
            continue;
        }
        if (it.out >= 0) {
            noc_ovc_t *o = &r->ovc[it.out];
            assert(o->owner < 0 && it.out / V == ivc->out_port);
            o->owner = (int16_t)iv;
            o->tail_sent = 0;
            ivc->out_vc = (int16_t)(it.out % V);
            ivc->state = NOC_VC_ACTIVE;
            noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        } else {
            noc_q_push(&r->va_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        }
        noc_q_pop(&r->va_q);
    }
    for (int i = 0; i < nmc; i++) { /* after every grant of the cycle is applied */
        int iv = r->scratch[i];
        noc_ivc_t *ivc = &r->ivc[iv];
        noc_item_t next = {.ready = -1, .port = (int16_t)(iv / V), .vc = (int16_t)(iv % V), .out = -1};
        if (fill_branch_vcs(noc, r, iv))
            ivc->state = NOC_VC_ACTIVE;
        else
            noc_q_push(&r->va_q, next);
        if (!ivc->in_sa) {
            ivc->in_sa = 1;
            noc_q_push(&r->sa_q, next);
        }
    }
}

/* ---------------------------------------------------------------- switch allocation */
/* Among VCs of one input port asking for the same output, the one closest
 * after the port's round-robin offset wins the port's single request. */
static int supersedes(int vc, int other, int offset, int V)
{
    return ((vc - offset + V) % V) < ((other - offset + V) % V);
}

/* Input `port` asks for output op on behalf of its VC vc; among several VCs of one input asking
 * for the same output, the one first after the port's round-robin offset keeps the request. */
static inline void sa_request(noc_router_t *r, int port, int vc, int op, int V)
{
    int16_t *label = &r->sw_label[port * r->nports + op];
    if (noc_alloc_has(&r->sa, port, op)) {
        if (supersedes(vc, *label, r->sw_rr[port], V))
            *label = (int16_t)vc;
    } else {
        noc_alloc_request(&r->sa, port, op);
        *label = (int16_t)vc;
    }
}

/* Flit index in input VC iv's buffer that branch b copies next. */
static inline int branch_next(const noc_ivc_t *ivc, const noc_branch_t *b) { return b->sent - ivc->popped; }

/* Output ports of the replicas of input VC iv that can send now: a flit of the packet waiting for
 * them in the buffer and a credit downstream. */
static uint64_t ready_branches(const gpuest_noc_t *noc, const noc_router_t *r, int iv)
{
    const noc_ivc_t *ivc = &r->ivc[iv];
    const noc_branch_t *br = &r->br[(size_t)iv * noc->brmax];
    int flits = noc->pkts[ivc->pkt].flits;
    uint64_t ports = 0;
    for (int b = 0; b < ivc->nbr; b++)
        if (br[b].out_vc >= 0 && br[b].sent < flits && branch_next(ivc, &br[b]) < ivc->count &&
            r->ovc[br[b].port * noc->vcs + br[b].out_vc].credits > 0)
            ports |= UINT64_C(1) << br[b].port;
    return ports;
}

/* Mux-based crossbar: the replica of input VC iv that won output o, plus every other ready replica
 * of the same flit whose output no input won this cycle (and no earlier replica claimed). */
static uint64_t replicas_with(const gpuest_noc_t *noc, noc_router_t *r, int iv, int o, uint64_t *claimed)
{
    const noc_ivc_t *ivc = &r->ivc[iv];
    const noc_branch_t *br = &r->br[(size_t)iv * noc->brmax];
    uint64_t ready = ready_branches(noc, r, iv);
    if (!((ready >> o) & 1))
        return 0;
    int idx = -1;
    for (int b = 0; b < ivc->nbr; b++)
        if (br[b].port == o)
            idx = branch_next(ivc, &br[b]);
    uint64_t ports = UINT64_C(1) << o;
    for (int b = 0; b < ivc->nbr; b++) {
        int p = br[b].port;
        if (p != o && ((ready >> p) & 1) && branch_next(ivc, &br[b]) == idx && r->sa.outmatch[p] < 0 &&
            !((*claimed >> p) & 1))
            ports |= UINT64_C(1) << p;
    }
    *claimed |= ports;
    return ports;
}

static void sa_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs, P = r->nports;
    uint64_t claimed = 0; /* outputs taken by replicas riding along with a granted one */
    noc_alloc_clear(&r->sa);
    uint32_t n = 0;
    for (; n < r->sa_q.count; n++) {
        noc_item_t *it = noc_q_at(&r->sa_q, n);
        if (it->ready >= 0)
            break;
        int iv = it->port * V + it->vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        assert((ivc->state == NOC_VC_ACTIVE || (ivc->nbr && ivc->state == NOC_VC_VCALLOC)) && ivc->count > 0);
        if (ivc->nbr) {
            uint64_t ports = ready_branches(noc, r, iv);
            it->out = ports ? -1 : -2;
            for (; ports; ports &= ports - 1)
                sa_request(r, it->port, it->vc, __builtin_ctzll(ports), V);
            continue;
        }
        int op = ivc->out_port;
        if (r->ovc[op * V + ivc->out_vc].credits <= 0) {
            it->out = -2; /* no downstream space: stall this cycle */
            continue;
        }
        it->out = -1;
        sa_request(r, it->port, it->vc, op, V);
    }
    if (n == 0)
        return;
    noc_alloc_run(&r->sa);
    for (uint32_t i = 0; i < n; i++) {
        noc_item_t *it = noc_q_at(&r->sa_q, i);
        it->ready = noc->now + noc->cfg.sw_alloc_delay - 1;
        if (it->out < -1)
            continue;
        int o = r->sa.inmatch[it->port];
        noc_ivc_t *ivc = &r->ivc[it->port * V + it->vc];
        if (ivc->nbr) {
            it->out = -1;
            if (o >= 0 && r->sw_label[it->port * P + o] == it->vc &&
                ((r->sa_ports[it->port * V + it->vc] = replicas_with(noc, r, it->port * V + it->vc, o, &claimed)))) {
                it->out = o;
                r->sw_rr[it->port] = (it->vc + 1) % V;
            }
            continue;
        }
        if (o >= 0 && o == ivc->out_port && r->sw_label[it->port * P + o] == it->vc) {
            it->out = o;
            r->sw_rr[it->port] = (it->vc + 1) % V;
        } else {
            it->out = -1;
        }
    }
}

/* Switch traversal of the replicas granted this cycle (r->sa_ports), then removal of the flits every
 * branch has copied (at most one a cycle: each branch copies at most one). */
static void replicate(gpuest_noc_t *noc, noc_router_t *r, int port, int vc)
{
    int V = noc->vcs, iv = port * V + vc;
    noc_ivc_t *ivc = &r->ivc[iv];
    noc_branch_t *br = &r->br[(size_t)iv * noc->brmax];
    int flits = noc->pkts[ivc->pkt].flits;
    uint64_t ports = r->sa_ports[iv];
    r->sa_ports[iv] = 0;
    for (int b = 0; b < ivc->nbr; b++) {
        if (!((ports >> br[b].port) & 1))
            continue;
        int idx = branch_next(ivc, &br[b]);
        assert(idx >= 0 && idx < ivc->count);
        noc_flit_t f = r->buf[(size_t)iv * noc->bstride + ((ivc->head + idx) & noc->bmask)];
        const noc_pkt_t *kid = &noc->pkts[br[b].pkt];
        f.pkt = br[b].pkt;
        if (!kid->dests) { /* a single destination left: the replica travels as unicast */
            f.flags &= (uint8_t)~NOC_FLIT_MCAST;
            f.dst = (uint16_t)kid->dst;
        }
        if (f.flags & NOC_FLIT_HEAD)
            f.pad = (uint8_t)(f.pad < 255 ? f.pad + 1 : 255);
        noc_ovc_t *o = &r->ovc[br[b].port * V + br[b].out_vc];
        assert(o->owner == iv);
        noc_ovc_send(noc, o, (f.flags & NOC_FLIT_TAIL) != 0);
        f.vc = (uint8_t)br[b].out_vc;
        noc_q_push(&r->xbar_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = (int16_t)vc,
                                            .out = br[b].port, .flit = f});
        br[b].sent++;
    }
    noc->last_progress = noc->now;
    int min_sent = flits;
    for (int b = 0; b < ivc->nbr; b++)
        if (br[b].sent < min_sent)
            min_sent = br[b].sent;
    if (min_sent > ivc->popped) { /* the front flit has reached every output */
        assert(min_sent == ivc->popped + 1);
        ivc->head = (uint16_t)((ivc->head + 1) & noc->bmask);
        ivc->count--;
        ivc->popped++;
        r->buffered--;
        r->credit_out[port] |= UINT64_C(1) << vc;
        r->credit_mask |= UINT64_C(1) << port;
    }
    ivc->in_sa = 0;
    if (ivc->popped == flits) { /* every replica has its tail: the original record is no longer used */
        assert(ivc->state == NOC_VC_ACTIVE);
        noc_pkt_release(noc, ivc->pkt);
        ivc->pkt = NOC_NONE;
        ivc->nbr = 0;
        ivc->state = NOC_VC_IDLE;
        if (ivc->count > 0)
            start_route(noc, r, port, vc);
    } else if (ivc->count > 0) {
        ivc->in_sa = 1;
        noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = (int16_t)vc, .out = -1});
    }
}

static void sa_update(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs;
    while (r->sa_q.count) {
        noc_item_t it = *noc_q_at(&r->sa_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        noc_q_pop(&r->sa_q);
        int iv = it.port * V + it.vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        if (it.out < 0) { /* lost arbitration or no credit: try again next cycle */
            noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
            continue;
        }
        if (ivc->nbr) {
            replicate(noc, r, it.port, it.vc);
            continue;
        }
        assert(ivc->state == NOC_VC_ACTIVE && ivc->count > 0 && it.out == ivc->out_port);
        noc_flit_t f = *vc_front(r, noc, iv);
        ivc->head = (uint16_t)((ivc->head + 1) & noc->bmask);
        ivc->count--;
        r->buffered--;
        int tail = (f.flags & NOC_FLIT_TAIL) != 0;
        if (f.flags & NOC_FLIT_HEAD)
            f.pad = (uint8_t)(f.pad < 255 ? f.pad + 1 : 255); /* the head counts the routers it crosses */
        noc_ovc_t *o = &r->ovc[it.out * V + ivc->out_vc];
        assert(o->owner == iv);
        noc_ovc_send(noc, o, tail);
        f.vc = (uint8_t)ivc->out_vc;
        noc_q_push(&r->xbar_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = it.out, .flit = f});
        r->credit_out[it.port] |= UINT64_C(1) << it.vc;
        r->credit_mask |= UINT64_C(1) << it.port;
        noc->last_progress = noc->now;
        if (tail) {
            ivc->out_port = -1;
            ivc->out_vc = -1;
            ivc->state = NOC_VC_IDLE;
            if (ivc->count > 0)
                start_route(noc, r, it.port, it.vc);
        } else if (ivc->count > 0) {
            noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        }
    }
}

/* ---------------------------------------------------------------- switch traversal */
static void xbar_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    int delay = noc->cfg.st_prepare_delay + noc->cfg.st_final_delay;
    for (uint32_t i = 0; i < r->xbar_q.count; i++) {
        noc_item_t *it = noc_q_at(&r->xbar_q, i);
        if (it->ready >= 0)
            break;
        it->ready = noc->now + delay - 1;
    }
}

static void xbar_update(gpuest_noc_t *noc, noc_router_t *r)
{
    while (r->xbar_q.count) {
        noc_item_t it = *noc_q_at(&r->xbar_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        assert(!r->out_valid[it.out]); /* one flit per output per cycle */
        r->out_slot[it.out] = it.flit;
        r->out_valid[it.out] = 1;
        r->out_mask |= UINT64_C(1) << it.out;
        noc_q_pop(&r->xbar_q);
    }
}

/* Evaluate phase of one router for cycle noc->now. Reads only what links
 * delivered for this cycle; its outputs are held until noc_router_commit. */
void noc_router_step(gpuest_noc_t *noc, noc_router_t *r)
{
    receive(noc, r);
    if (r->route_q.count)
        route_evaluate(noc, r);
    if (r->va_q.count)
        va_evaluate(noc, r);
    if (r->sa_q.count)
        sa_evaluate(noc, r);
    if (r->xbar_q.count)
        xbar_evaluate(noc, r);
    if (r->route_q.count)
        route_update(noc, r);
    if (r->va_q.count)
        va_update(noc, r);
    if (r->sa_q.count)
        sa_update(noc, r);
    if (r->xbar_q.count)
        xbar_update(noc, r);
    r->active = r->route_q.count || r->va_q.count || r->sa_q.count || r->xbar_q.count;
}

/* Commit phase: puts this cycle's output flits and credits on the links. */
void noc_router_commit(gpuest_noc_t *noc, noc_router_t *r)
{
    for (uint64_t m = r->out_mask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        assert(r->out_valid[p] && r->out_link[p] >= 0);
        noc_link_send_flit(noc, r->out_link[p], r->out_slot[p]);
        r->out_valid[p] = 0;
    }
    for (uint64_t m = r->credit_mask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        assert(r->in_link[p] >= 0);
        noc_link_send_credit(noc, r->in_link[p], r->credit_out[p]);
        r->credit_out[p] = 0;
    }
    r->out_mask = r->credit_mask = 0;
}
