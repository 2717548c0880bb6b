/* network.c: builds meshes and crossbars from the config, links as delay lines, network interfaces, the cycle loop and statistics. */
#include <stdlib.h>
#include <string.h>

#include "noc_int.h"

void gpuest_noc_opts_default(gpuest_noc_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->num_nodes = 0;
    o->num_classes = 2;
    o->routing[0] = o->routing[1] = o->routing[2] = GPUEST_ROUTE_XY;
    o->vc_allocator = GPUEST_NOC_ALLOC_ISLIP;
    o->sw_allocator = GPUEST_NOC_ALLOC_ISLIP;
    o->alloc_iters = 1;
    o->wait_for_tail_credit = 0;
    o->unbounded_eject = 0;
}

void gpuest_noc_opts_from_cfg(const gpuest_noc_cfg_t *cfg, gpuest_noc_opts_t *o)
{
    gpuest_noc_opts_default(o);
    o->vc_allocator = cfg->vc_allocator == GPUEST_ALLOC_SEPARABLE_IF ? GPUEST_NOC_ALLOC_SEPARABLE_IF : GPUEST_NOC_ALLOC_ISLIP;
    o->sw_allocator = cfg->sw_allocator == GPUEST_ALLOC_SEPARABLE_IF ? GPUEST_NOC_ALLOC_SEPARABLE_IF : GPUEST_NOC_ALLOC_ISLIP;
    o->alloc_iters = cfg->alloc_iters;
    o->wait_for_tail_credit = cfg->wait_for_tail_credit;
}

/* ---------------------------------------------------------------- construction */
static gpuest_err check_cfg(const gpuest_noc_cfg_t *c, const gpuest_noc_opts_t *o, gpuest_error_t *err)
{
    gpuest_net_topo_t topo;
    GPUEST_TRY(gpuest_net_topo_init(&topo, c->topology, c->k, o->num_nodes, err));
    if (topo.ports > 64) /* port sets of a router are one uint64_t */
        return gpuest_fail(err, GPUEST_ERANGE, "%s with %d-port routers (%d nodes): the simulator supports 2..64 ports",
                           gpuest_topology_name(topo.kind), topo.ports, topo.nodes);
    if (c->vcs < 1 || c->vcs > NOC_MAX_VCS)
        return gpuest_fail(err, GPUEST_ERANGE, "noc.vcs = %d: expected 1..%d", c->vcs, NOC_MAX_VCS);
    if (c->buffer_flits < 1 || c->buffer_flits > 4096)
        return gpuest_fail(err, GPUEST_ERANGE, "noc.buffer_flits = %d: expected 1..4096", c->buffer_flits);
    if (c->routing_delay < 0 || c->vc_alloc_delay < 1 || c->sw_alloc_delay < 1 || c->st_prepare_delay < 0 ||
        c->st_final_delay < 0 || c->st_prepare_delay + c->st_final_delay < 1 || c->credit_delay < 0 ||
        c->output_delay < 0 || c->link_latency < 1)
        return gpuest_fail(err, GPUEST_ERANGE,
                           "noc delays: expected routing_delay >= 0, vc_alloc_delay >= 1, sw_alloc_delay >= 1, "
                           "st_prepare_delay + st_final_delay >= 1, credit/output delay >= 0, link_latency >= 1");
    if (c->topology == GPUEST_TOPO_CROSSBAR && (c->xbar_port_flits < 1 || c->xbar_port_flits > 16))
        return gpuest_fail(err, GPUEST_ERANGE, "noc.xbar_port_flits = %d: expected 1..16 flits per port per cycle",
                           c->xbar_port_flits);
    if (c->inject_queue < 1)
        return gpuest_fail(err, GPUEST_ERANGE, "noc.inject_queue = %d: expected >= 1", c->inject_queue);
    if (c->eject_queue < 1 && !o->unbounded_eject)
        return gpuest_fail(err, GPUEST_ERANGE, "noc.eject_queue = %d: expected >= 1", c->eject_queue);
    if (o->num_classes < 1 || o->num_classes > GPUEST_NOC_MAX_CLASSES)
        return gpuest_fail(err, GPUEST_ERANGE, "message classes %d: expected 1..%d", o->num_classes,
                           GPUEST_NOC_MAX_CLASSES);
    if (c->class_split == GPUEST_SPLIT_VIRTUAL && c->vcs < o->num_classes)
        return gpuest_fail(err, GPUEST_ERANGE,
                           "noc.vcs = %d: VC partitioning needs at least one VC per message class (%d classes)",
                           c->vcs, o->num_classes);
    for (int i = 0; i < o->num_classes; i++) {
        const gpuest_net_routing_t *rf = gpuest_net_routing(o->routing[i]);
        if (!rf)
            return gpuest_fail(err, GPUEST_EINVAL, "routing of class %d: function %d is not registered", i,
                               o->routing[i]);
        if (rf->choices > 2) /* flits carry one choice bit (NOC_FLIT_YX) */
            return gpuest_fail(err, GPUEST_EUNSUPPORTED, "routing %s: %d per-packet choices (the simulator carries 2)",
                               rf->name, rf->choices);
        int per_class = c->class_split == GPUEST_SPLIT_VIRTUAL ? c->vcs / o->num_classes : c->vcs;
        if (topo.kind == GPUEST_TOPO_MESH && per_class < rf->vc_sets)
            return gpuest_fail(err, GPUEST_ERANGE,
                               "routing %s needs %d VCs per message class (noc.vcs = %d for %d classes)", rf->name,
                               rf->vc_sets, c->vcs, o->num_classes);
    }
    return GPUEST_OK;
}

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static gpuest_err queue_init(noc_queue_t *q, uint32_t cap)
{
    cap = pow2_at_least(cap);
    q->v = calloc(cap, sizeof *q->v);
    q->head = q->count = 0;
    q->mask = cap - 1;
    return q->v ? GPUEST_OK : GPUEST_ENOMEM;
}

static gpuest_err router_init(gpuest_noc_t *noc, noc_router_t *r, int net, int node, int P)
{
    int V = noc->vcs, B = noc->bufsz;
    r->net = net;
    r->node = node;
    r->nports = P;
    r->ivc = calloc((size_t)P * V, sizeof *r->ivc);
    r->ovc = calloc((size_t)P * V, sizeof *r->ovc);
    r->buf = calloc((size_t)P * V * noc->bstride, sizeof *r->buf);
    r->in_link = malloc((size_t)P * sizeof(int));
    r->out_link = malloc((size_t)P * sizeof(int));
    r->sw_rr = calloc((size_t)P, sizeof(int));
    r->sw_label = calloc((size_t)P * P, sizeof(int16_t));
    r->out_slot = calloc((size_t)P, sizeof *r->out_slot);
    r->out_valid = calloc((size_t)P, 1);
    r->credit_out = calloc((size_t)P, sizeof(uint64_t));
    r->br = calloc((size_t)P * V * noc->brmax, sizeof *r->br);
    r->sa_ports = calloc((size_t)P * V, sizeof *r->sa_ports);
    r->scratch = calloc((size_t)P * V, sizeof *r->scratch);
    if (!r->br || !r->sa_ports || !r->scratch)
        return GPUEST_ENOMEM;
    if (!r->ivc || !r->ovc || !r->buf || !r->in_link || !r->out_link || !r->sw_rr || !r->sw_label || !r->out_slot ||
        !r->out_valid || !r->credit_out)
        return GPUEST_ENOMEM;
    for (int p = 0; p < P; p++)
        r->in_link[p] = r->out_link[p] = -1;
    for (int i = 0; i < P * V; i++) {
        r->ivc[i].out_port = -1;
        r->ivc[i].out_vc = -1;
        r->ivc[i].out_set = -1;
        r->ivc[i].pkt = NOC_NONE;
        r->ovc[i].credits = (int16_t)B;
        r->ovc[i].owner = -1;
    }
    uint32_t qcap = (uint32_t)(P * V) + 1;
    uint32_t xcap = (uint32_t)P * (uint32_t)(noc->cfg.st_prepare_delay + noc->cfg.st_final_delay + 1) + 1;
    GPUEST_TRY(queue_init(&r->route_q, qcap));
    GPUEST_TRY(queue_init(&r->va_q, qcap));
    GPUEST_TRY(queue_init(&r->sa_q, qcap));
    GPUEST_TRY(queue_init(&r->xbar_q, xcap));
    GPUEST_TRY(noc_alloc_init(&r->va, P * V, P * V, noc->opts.vc_allocator, noc->opts.alloc_iters));
    GPUEST_TRY(noc_alloc_init(&r->sa, P, P, noc->opts.sw_allocator, noc->opts.alloc_iters));
    return GPUEST_OK;
}

static void router_free(noc_router_t *r)
{
    free(r->ivc);
    free(r->ovc);
    free(r->buf);
    free(r->in_link);
    free(r->out_link);
    free(r->sw_rr);
    free(r->sw_label);
    free(r->out_slot);
    free(r->out_valid);
    free(r->credit_out);
    free(r->br);
    free(r->sa_ports);
    free(r->scratch);
    free(r->route_q.v);
    free(r->va_q.v);
    free(r->sa_q.v);
    free(r->xbar_q.v);
    noc_alloc_free(&r->va);
    noc_alloc_free(&r->sa);
}

/* Adds a link; src/dst router -1 means the NI of node src_node / dst_node. */
static gpuest_err add_link(gpuest_noc_t *noc, int net, int kind, int sr, int sp, int dr, int dp, int snode, int dnode)
{
    noc_link_t *l = &noc->links[noc->nlinks];
    int L = noc->cfg.link_latency;
    l->kind = kind;
    l->net = net;
    l->src_router = sr;
    l->src_port = sp;
    l->dst_router = dr;
    l->dst_port = dp;
    l->src_node = snode;
    l->dst_node = dnode;
    /* BookSim: a channel of latency L delivers at send + L + 1 (read in the next
     * cycle's input phase). Routers add credit_delay to credits they receive;
     * output_delay is added to flits leaving a router. */
    l->flit_delay = L + 1 + (sr >= 0 ? noc->cfg.output_delay : 0);
    l->credit_delay = L + 1 + (sr >= 0 ? noc->cfg.credit_delay : 0);
    int maxd = l->flit_delay > l->credit_delay ? l->flit_delay : l->credit_delay;
    l->cap = pow2_at_least((uint32_t)maxd + 2);
    l->mask = l->cap - 1;
    l->fq = calloc(l->cap, sizeof *l->fq);
    l->cq = calloc(l->cap, sizeof *l->cq);
    if (!l->fq || !l->cq)
        return GPUEST_ENOMEM;
    int id = noc->nlinks++;
    if (sr >= 0)
        noc->routers[sr].out_link[sp] = id;
    if (dr >= 0)
        noc->routers[dr].in_link[dp] = id;
    return GPUEST_OK;
}

/* Routers of one physical network and the router-to-router links the topology describes. A router's
 * node is the node of its first local port (the crossbar's single router has none: -1). */
static gpuest_err build_net(gpuest_noc_t *noc, int net)
{
    const gpuest_net_topo_t *t = &noc->topo;
    int base = net * noc->routers_per_net;
    for (int r = 0; r < t->routers; r++) {
        GPUEST_TRY(router_init(noc, &noc->routers[base + r], net, r, t->ports));
        noc->routers[base + r].tr = r;
    }
    for (int r = 0; r < t->routers; r++)
        for (int p = 0; p < t->ports; p++) {
            int in, nb = gpuest_net_next(t, r, p, &in);
            if (nb >= 0)
                GPUEST_TRY(add_link(noc, net, 0, base + r, p, base + nb, in, r, nb));
        }
    return GPUEST_OK;
}

static gpuest_err ni_init(gpuest_noc_t *noc, noc_ni_t *ni, int net, int node)
{
    int V = noc->vcs, B = noc->bufsz;
    ni->node = node;
    ni->net = net;
    ni->ovc = calloc((size_t)V, sizeof *ni->ovc);
    ni->pend = calloc((size_t)V * noc->bstride, sizeof *ni->pend);
    ni->pend_head = calloc((size_t)V, sizeof *ni->pend_head);
    ni->pend_count = calloc((size_t)V, sizeof *ni->pend_count);
    ni->vc_accepting = calloc((size_t)V, 1);
    if (!ni->ovc || !ni->pend || !ni->pend_head || !ni->pend_count || !ni->vc_accepting)
        return GPUEST_ENOMEM;
    for (int v = 0; v < V; v++) {
        ni->ovc[v].credits = (int16_t)B;
        ni->ovc[v].owner = -1;
    }
    for (int c = 0; c < GPUEST_NOC_MAX_CLASSES; c++) {
        ni->cur[c] = NOC_NONE;
        ni->last_vc[c] = -1;
        ni->iq[c] = calloc((size_t)noc->cfg.inject_queue, sizeof(uint32_t));
        if (!ni->iq[c])
            return GPUEST_ENOMEM;
    }
    ni->last_class = 0;
    int rtr = net * noc->routers_per_net + gpuest_net_router_of(&noc->topo, node);
    int port = gpuest_net_local_port(&noc->topo, node);
    ni->link_in = noc->nlinks;
    GPUEST_TRY(add_link(noc, net, 1, -1, node, rtr, port, node, node));
    ni->link_out = noc->nlinks;
    GPUEST_TRY(add_link(noc, net, 2, rtr, port, -1, node, node, node));
    return GPUEST_OK;
}

/* Precomputes class c's unicast routes (noc_int.h, rtab) unless the table would pass 1 M entries. */
static gpuest_err build_route_table(gpuest_noc_t *noc, int c)
{
    const gpuest_net_topo_t *t = &noc->topo;
    const gpuest_net_routing_t *rf = noc->rf[c];
    size_t n = (size_t)t->routers * (size_t)rf->choices * (size_t)t->nodes;
    if (n > ((size_t)1 << 20))
        return GPUEST_OK;
    noc->rtab[c] = malloc(n * sizeof(int16_t));
    if (!noc->rtab[c])
        return GPUEST_ENOMEM;
    for (int r = 0; r < t->routers; r++)
        for (int ch = 0; ch < rf->choices; ch++)
            for (int d = 0; d < t->nodes; d++) {
                gpuest_net_hop_t h = gpuest_net_route(t, rf, r, d, ch);
                noc->rtab[c][((size_t)r * rf->choices + ch) * t->nodes + d] = (int16_t)(h.port | (h.vc_set + 1) << 8);
            }
    return GPUEST_OK;
}

gpuest_err gpuest_noc_create(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts, gpuest_noc_t **out,
                             gpuest_error_t *err)
{
    *out = NULL;
    gpuest_noc_opts_t o = *opts;
    if (!o.routing_override) {
        o.routing[GPUEST_NOC_REQUEST] = cfg->routing_request;
        o.routing[GPUEST_NOC_REPLY] = cfg->routing_reply;
        o.routing[GPUEST_NOC_PROBE] = cfg->routing_request;
    }
    GPUEST_TRY(check_cfg(cfg, &o, err));
    gpuest_noc_t *noc = calloc(1, sizeof *noc);
    if (!noc)
        return gpuest_fail(err, GPUEST_ENOMEM, "noc: out of memory");
    noc->cfg = *cfg;
    noc->opts = o;
    (void)gpuest_net_topo_init(&noc->topo, cfg->topology, cfg->k, o.num_nodes, err); /* check_cfg passed */
    for (int c = 0; c < GPUEST_NOC_MAX_CLASSES; c++)
        noc->rf[c] = gpuest_net_routing(c < o.num_classes ? o.routing[c] : GPUEST_ROUTE_XY);
    noc->brmax = noc->topo.ports;
    noc->vcs = cfg->vcs;
    noc->bufsz = cfg->buffer_flits;
    noc->sub = gpuest_net_port_flits(cfg->topology, cfg->xbar_port_flits);
    noc->bstride = (int)pow2_at_least((uint32_t)cfg->buffer_flits);
    noc->bmask = noc->bstride - 1;
    noc->k = cfg->k;
    noc->nodes = noc->topo.nodes;
    noc->nnets = cfg->class_split == GPUEST_SPLIT_PHYSICAL ? o.num_classes : 1;
    noc->nports = noc->topo.ports;
    noc->routers_per_net = noc->topo.routers;
    noc->nrouters = noc->routers_per_net * noc->nnets;
    for (int c = 0; c < GPUEST_NOC_MAX_CLASSES; c++) {
        if (noc->nnets > 1 || o.num_classes == 1 || c >= o.num_classes) {
            noc->vc_lo[c] = 0;
            noc->vc_hi[c] = noc->vcs - 1;
        } else { /* VC partitioning: class c owns an equal slice */
            noc->vc_lo[c] = c * noc->vcs / o.num_classes;
            noc->vc_hi[c] = (c + 1) * noc->vcs / o.num_classes - 1;
        }
    }
    int per_net_links = gpuest_net_num_links(&noc->topo) + 2 * noc->nodes;
    noc->routers = calloc((size_t)noc->nrouters, sizeof *noc->routers);
    noc->stepped = calloc((size_t)noc->nrouters, sizeof(int));
    noc->links = calloc((size_t)per_net_links * noc->nnets, sizeof *noc->links);
    noc->nis = calloc((size_t)noc->nnets * noc->nodes, sizeof *noc->nis);
    noc->ejq = calloc((size_t)noc->nodes * GPUEST_NOC_MAX_CLASSES, sizeof *noc->ejq);
    gpuest_err rc = (noc->routers && noc->stepped && noc->links && noc->nis && noc->ejq) ? GPUEST_OK : GPUEST_ENOMEM;
    for (int n = 0; rc == GPUEST_OK && n < noc->nnets; n++)
        rc = build_net(noc, n);
    for (int n = 0; rc == GPUEST_OK && n < noc->nnets; n++)
        for (int i = 0; rc == GPUEST_OK && i < noc->nodes; i++)
            rc = ni_init(noc, &noc->nis[n * noc->nodes + i], n, i);
    for (int i = 0; rc == GPUEST_OK && i < noc->nodes * GPUEST_NOC_MAX_CLASSES; i++) {
        noc->ejq[i].cap = o.unbounded_eject ? 16 : cfg->eject_queue;
        noc->ejq[i].v = malloc((size_t)noc->ejq[i].cap * sizeof(gpuest_noc_packet_t));
        if (!noc->ejq[i].v)
            rc = GPUEST_ENOMEM;
    }
    for (int c = 0; rc == GPUEST_OK && c < o.num_classes; c++)
        rc = build_route_table(noc, c);
    noc->free_pkt = NOC_NONE;
    if (rc != GPUEST_OK) {
        gpuest_noc_destroy(noc);
        return gpuest_fail(err, rc, "noc: out of memory building the network");
    }
    *out = noc;
    return GPUEST_OK;
}

void gpuest_noc_destroy(gpuest_noc_t *noc)
{
    if (!noc)
        return;
    if (noc->routers)
        for (int i = 0; i < noc->nrouters; i++)
            router_free(&noc->routers[i]);
    if (noc->links)
        for (int i = 0; i < noc->nlinks; i++) {
            free(noc->links[i].fq);
            free(noc->links[i].cq);
        }
    if (noc->nis)
        for (int i = 0; i < noc->nnets * noc->nodes; i++) {
            noc_ni_t *ni = &noc->nis[i];
            free(ni->ovc);
            free(ni->pend);
            free(ni->pend_head);
            free(ni->pend_count);
            free(ni->vc_accepting);
            for (int c = 0; c < GPUEST_NOC_MAX_CLASSES; c++)
                free(ni->iq[c]);
        }
    if (noc->ejq)
        for (int i = 0; i < noc->nodes * GPUEST_NOC_MAX_CLASSES; i++)
            free(noc->ejq[i].v);
    free(noc->routers);
    free(noc->stepped);
    free(noc->links);
    free(noc->nis);
    free(noc->ejq);
    free(noc->pkts);
    for (int c = 0; c < GPUEST_NOC_MAX_CLASSES; c++)
        free(noc->rtab[c]);
    free(noc);
}

int gpuest_noc_num_nodes(const gpuest_noc_t *noc) { return noc->nodes; }
int64_t gpuest_noc_now(const gpuest_noc_t *noc) { return noc->now / noc->sub; }
uint64_t gpuest_noc_in_flight(const gpuest_noc_t *noc) { return noc->in_flight; }
int64_t gpuest_noc_last_progress(const gpuest_noc_t *noc) { return noc->last_progress / noc->sub; }

void gpuest_noc_set_eject_callback(gpuest_noc_t *noc, gpuest_noc_eject_cb cb, void *ctx)
{
    noc->cb = cb;
    noc->cb_ctx = ctx;
}

/* ---------------------------------------------------------------- packets */
uint32_t noc_pkt_alloc(gpuest_noc_t *noc)
{
    if (noc->free_pkt == NOC_NONE) {
        uint32_t n = noc->npkts ? noc->npkts * 2 : 256;
        noc_pkt_t *p = realloc(noc->pkts, (size_t)n * sizeof *p);
        if (!p)
            return NOC_NONE;
        noc->pkts = p;
        for (uint32_t i = n; i-- > noc->npkts;) {
            p[i].next_free = noc->free_pkt;
            noc->free_pkt = i;
        }
        noc->npkts = n;
    }
    uint32_t i = noc->free_pkt;
    noc->free_pkt = noc->pkts[i].next_free;
    return i;
}

void noc_pkt_release(gpuest_noc_t *noc, uint32_t i)
{
    noc->pkts[i].next_free = noc->free_pkt;
    noc->free_pkt = i;
}

static inline int net_of(const gpuest_noc_t *noc, int cls) { return noc->nnets > 1 ? cls : 0; }

int gpuest_noc_can_inject(const gpuest_noc_t *noc, int node, int cls)
{
    return gpuest_noc_can_inject_flits(noc, node, cls, 1);
}

static int iq_room(const gpuest_noc_t *noc, const noc_ni_t *ni, int cls, int flits)
{
    if (ni->iq_count[cls] >= noc->cfg.inject_queue)
        return 0;
    int cap = noc->cfg.inject_queue_flits;
    return cap <= 0 || ni->iq_flits[cls] == 0 || ni->iq_flits[cls] + flits <= cap;
}

int gpuest_noc_can_inject_flits(const gpuest_noc_t *noc, int node, int cls, int flits)
{
    if (node < 0 || node >= noc->nodes || cls < 0 || cls >= noc->opts.num_classes)
        return 0;
    return iq_room(noc, &noc->nis[net_of(noc, cls) * noc->nodes + node], cls, flits);
}

gpuest_err gpuest_noc_inject(gpuest_noc_t *noc, const gpuest_noc_send_t *p, uint64_t *id_out, gpuest_error_t *err)
{
    if (p->src < 0 || p->src >= noc->nodes)
        return gpuest_fail(err, GPUEST_ERANGE, "noc inject: source node %d outside 0..%d", p->src, noc->nodes - 1);
    if (p->cls < 0 || p->cls >= noc->opts.num_classes)
        return gpuest_fail(err, GPUEST_ERANGE, "noc inject: class %d outside 0..%d", p->cls,
                           noc->opts.num_classes - 1);
    if (p->flits < 1 || p->flits > 65535)
        return gpuest_fail(err, GPUEST_ERANGE, "noc inject: packet of %d flits (expected 1..65535)", p->flits);
    int ndst = p->num_dests > 0 ? p->num_dests : 1;
    if (p->num_dests > noc->nodes || (p->num_dests > 0 && !p->dests))
        return gpuest_fail(err, GPUEST_EINVAL, "noc inject: bad multicast set (%d destinations)", p->num_dests);
    gpuest_net_dests_t set = 0;
    for (int i = 0; i < ndst; i++) {
        int d = p->num_dests > 0 ? p->dests[i] : p->dst;
        if (d < 0 || d >= noc->nodes)
            return gpuest_fail(err, GPUEST_ERANGE, "noc inject: destination node %d outside 0..%d", d,
                               noc->nodes - 1);
        if (p->num_dests > 1 && d >= GPUEST_NET_MCAST_MAX_NODES)
            return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                               "noc inject: multicast to node %d: the head flit's destination list holds nodes "
                               "0..%d", d, GPUEST_NET_MCAST_MAX_NODES - 1);
        if (p->num_dests > 1 && ((set >> d) & 1))
            return gpuest_fail(err, GPUEST_EINVAL, "noc inject: node %d appears twice in a multicast set", d);
        if (p->num_dests > 1)
            set |= UINT64_C(1) << d;
    }
    /* Deadlock freedom of the replication tree needs a whole multicast packet to fit one VC buffer
     * (docs/noc.md, "Multicast"): then no replica ever waits for a sibling. */
    if (p->num_dests > 1 && p->flits > noc->bufsz)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "noc inject: a multicast packet of %d flits does not fit a %d-flit VC buffer (needed for "
                           "deadlock-free replication)",
                           p->flits, noc->bufsz);
    if (noc->failed)
        return gpuest_fail(err, GPUEST_ENOMEM, "noc: out of memory replicating a multicast packet");
    noc_ni_t *ni = &noc->nis[net_of(noc, p->cls) * noc->nodes + p->src];
    if (!iq_room(noc, ni, p->cls, p->flits * ndst))
        return GPUEST_EBUSY; /* back-pressure: not an error message worth formatting */
    uint32_t k = noc_pkt_alloc(noc);
    if (k == NOC_NONE)
        return gpuest_fail(err, GPUEST_ENOMEM, "noc inject: out of memory");
    uint64_t id = noc->next_id++;
    noc_pkt_t *q = &noc->pkts[k];
    memset(q, 0, sizeof *q);
    q->id = id;
    q->created = p->created >= 0 ? p->created * noc->sub : noc->now;
    q->injected = -1;
    q->payload = p->payload;
    q->src = p->src;
    q->dst = p->num_dests > 0 ? p->dests[0] : p->dst;
    q->dests = set; /* 0: unicast (a one-node set is sent as unicast) */
    q->flits = p->flits;
    q->cls = (int16_t)p->cls;
    q->choice = gpuest_net_route_choice(noc->rf[p->cls], id);
    int c = p->cls;
    ni->iq[c][(ni->iq_head[c] + ni->iq_count[c]) % noc->cfg.inject_queue] = k;
    ni->iq_count[c]++;
    ni->iq_flits[c] += p->flits; /* a multicast leaves the NI once: the routers replicate it */
    noc->in_flight += (uint64_t)ndst;
    if (id_out)
        *id_out = id;
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- network interfaces */
static int ejq_push(noc_ejq_t *q, const gpuest_noc_packet_t *p, int grow)
{
    if (q->count == q->cap) {
        if (!grow)
            return 0;
        gpuest_noc_packet_t *v = malloc((size_t)q->cap * 2 * sizeof *v);
        if (!v)
            return 0;
        for (int i = 0; i < q->count; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap *= 2;
    }
    q->v[(q->head + q->count) % q->cap] = *p;
    q->count++;
    return 1;
}

static void deliver(gpuest_noc_t *noc, uint32_t k)
{
    noc_pkt_t *q = &noc->pkts[k];
    /* internal times are switch cycles (sub per interconnect cycle); the caller sees interconnect cycles */
    int64_t sub = noc->sub;
    gpuest_noc_packet_t out = {
        .id = q->id, .src = q->src, .dst = q->dst, .cls = q->cls, .flits = q->flits, .payload = q->payload,
        .created = q->created / sub, .injected = q->injected / sub, .ejected = noc->now / sub,
        .hops = q->hops > 0 ? q->hops - 1 : 0,
    };
    gpuest_noc_class_stats_t *s = &noc->st[q->cls];
    s->packets_ejected++;
    double lat = (double)(noc->now - q->created) / (double)sub;
    s->packet_latency_sum += lat;
    s->network_latency_sum += (double)(noc->now - q->injected) / (double)sub;
    s->hops_sum += out.hops;
    if (out.ejected - out.created > s->max_packet_latency)
        s->max_packet_latency = out.ejected - out.created;
    noc->in_flight--;
    noc_ejq_t *eq = &noc->ejq[out.dst * GPUEST_NOC_MAX_CLASSES + out.cls];
    if (q->resv)
        eq->reserved--;
    noc_pkt_release(noc, k);
    if (noc->cb) {
        noc->cb(noc->cb_ctx, &out);
        return;
    }
    int ok = ejq_push(eq, &out, 1);
    assert(ok);
    (void)ok;
}

/* Takes one flit off the ejection link into the NI; 0 when its packet has no
 * ejection-queue slot yet (the flit then waits and keeps its credit). */
static int ni_accept(gpuest_noc_t *noc, noc_ni_t *ni, noc_flit_t f)
{
    noc_pkt_t *q = &noc->pkts[f.pkt];
    if ((f.flags & NOC_FLIT_HEAD) && !noc->opts.unbounded_eject && !noc->cb) {
        noc_ejq_t *eq = &noc->ejq[ni->node * GPUEST_NOC_MAX_CLASSES + q->cls];
        if (eq->count + eq->reserved >= eq->cap)
            return 0;
        int fcap = noc->cfg.eject_queue_flits; /* GPGPU-Sim: ejection + boundary buffers, in flits */
        if (fcap > 0 && eq->flits > 0 && eq->flits + q->flits > fcap)
            return 0;
        eq->flits += q->flits;
        eq->reserved++;
        q->resv = 1;
    }
    assert(q->dst == ni->node);
    if (f.flags & NOC_FLIT_HEAD)
        q->hops = f.pad;
    if (f.seq != q->next_seq)
        noc->order_errors++;
    q->next_seq++;
    noc->st[q->cls].flits_ejected++;
    noc_link_send_credit(noc, ni->link_out, UINT64_C(1) << f.vc);
    if (f.flags & NOC_FLIT_TAIL) {
        if (q->next_seq != q->flits)
            noc->order_errors++;
        deliver(noc, f.pkt);
    }
    return 1;
}

/* The NI takes at most one flit per cycle off its ejection link (the link's
 * bandwidth), so at most one credit per cycle goes back: a flit that cannot be
 * taken yet waits in its VC's FIFO, and the VCs are served round robin. */
static void ni_eject(gpuest_noc_t *noc, noc_ni_t *ni)
{
    noc_flit_t f;
    int arrived = noc_link_recv_flit(noc, ni->link_out, &f);
    if (arrived && ni->pending_total == 0 && ni_accept(noc, ni, f))
        return;
    if (arrived) {
        assert(ni->pend_count[f.vc] < noc->bufsz);
        ni->pend[f.vc * noc->bstride + ((ni->pend_head[f.vc] + ni->pend_count[f.vc]) & noc->bmask)] = f;
        ni->pend_count[f.vc]++;
        ni->pending_total++;
    }
    if (ni->pending_total == 0)
        return;
    for (int i = 1; i <= noc->vcs; i++) {
        int v = (ni->last_eject_vc + i) % noc->vcs;
        if (ni->pend_count[v] == 0 || !ni_accept(noc, ni, ni->pend[v * noc->bstride + ni->pend_head[v]]))
            continue;
        ni->pend_head[v] = (uint16_t)((ni->pend_head[v] + 1) & noc->bmask);
        ni->pend_count[v]--;
        ni->pending_total--;
        ni->last_eject_vc = v;
        break;
    }
}

/* Picks a free VC of the class's range, round robin after the last one used
 * (BookSim's injection VC choice). -1 if none has an owner-free, credited VC. */
static int ni_pick_vc(gpuest_noc_t *noc, noc_ni_t *ni, int c)
{
    int lo = noc->vc_lo[c], hi = noc->vc_hi[c], n = hi - lo + 1;
    int lvc = ni->last_vc[c];
    for (int i = 1; i <= n; i++) {
        int vc = (lvc < lo || lvc > hi) ? lo : lo + (lvc - lo + i) % n;
        if (ni->ovc[vc].owner < 0 && ni->ovc[vc].credits > 0)
            return vc;
    }
    return -1;
}

static void ni_inject(gpuest_noc_t *noc, noc_ni_t *ni)
{
    uint64_t m = noc_link_recv_credit(noc, ni->link_in);
    for (int v = 0; m; v++, m >>= 1)
        if (m & 1)
            noc_ovc_credit(noc, &ni->ovc[v]);
    int C = noc->opts.num_classes;
    for (int i = 1; i <= C; i++) {
        int c = (ni->last_class + i) % C;
        if (net_of(noc, c) != ni->net)
            continue;
        if (ni->cur[c] == NOC_NONE) {
            if (ni->iq_count[c] == 0)
                continue;
            ni->cur[c] = ni->iq[c][ni->iq_head[c]];
            ni->iq_head[c] = (ni->iq_head[c] + 1) % noc->cfg.inject_queue;
            ni->iq_count[c]--;
            ni->cur_seq[c] = 0;
        }
        noc_pkt_t *q = &noc->pkts[ni->cur[c]];
        int vc;
        if (ni->cur_seq[c] == 0) {
            vc = ni_pick_vc(noc, ni, c);
            if (vc < 0)
                continue;
            ni->ovc[vc].owner = 0;
            ni->ovc[vc].tail_sent = 0;
            ni->last_vc[c] = vc;
            ni->cur_vc[c] = vc;
            q->injected = noc->now;
            noc->st[c].packets_injected++;
        } else {
            vc = ni->cur_vc[c];
            if (ni->ovc[vc].credits <= 0)
                continue;
        }
        int seq = ni->cur_seq[c]++;
        uint8_t flags = (uint8_t)((seq == 0 ? NOC_FLIT_HEAD : 0) | (seq == q->flits - 1 ? NOC_FLIT_TAIL : 0) |
                                  (q->choice ? NOC_FLIT_YX : 0) | (q->dests ? NOC_FLIT_MCAST : 0));
        noc_flit_t f = {.pkt = ni->cur[c], .seq = (uint16_t)seq, .dst = (uint16_t)q->dst, .flags = flags, .vc = (uint8_t)vc, .cls = (uint8_t)c};
        noc_ovc_send(noc, &ni->ovc[vc], (flags & NOC_FLIT_TAIL) != 0);
        noc_link_send_flit(noc, ni->link_in, f);
        ni->iq_flits[c]--;
        noc->st[c].flits_injected++;
        noc->last_progress = noc->now;
        if (flags & NOC_FLIT_TAIL) {
            ni->cur[c] = NOC_NONE;
            ni->cur_seq[c] = 0;
        }
        ni->last_class = c;
        break; /* one flit per cycle on the injection link */
    }
}

static int ni_busy(const gpuest_noc_t *noc, const noc_ni_t *ni)
{
    const noc_link_t *in = &noc->links[ni->link_in], *out = &noc->links[ni->link_out];
    if (out->fcount || in->ccount || ni->pending_total)
        return 1;
    for (int c = 0; c < noc->opts.num_classes; c++)
        if (ni->cur[c] != NOC_NONE || ni->iq_count[c])
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- the cycle */
/* One switch cycle: NIs, then evaluate every router with work, then commit. */
static void substep(gpuest_noc_t *noc)
{
    int nni = noc->nnets * noc->nodes;
    for (int i = 0; i < nni; i++) {
        noc_ni_t *ni = &noc->nis[i];
        if (!ni_busy(noc, ni))
            continue;
        ni_eject(noc, ni);
        ni_inject(noc, ni);
    }
    /* evaluate every router on the state latched so far ... */
    int nstepped = 0;
    for (int i = 0; i < noc->nrouters; i++) {
        noc_router_t *r = &noc->routers[i];
        if (r->active || r->fmask || r->cmask) { /* idle routers are skipped */
            noc_router_step(noc, r);
            noc->stepped[nstepped++] = i;
        }
    }
    /* ... then commit their outputs to the links (visible from now + 2). */
    for (int i = 0; i < nstepped; i++)
        noc_router_commit(noc, &noc->routers[noc->stepped[i]]);
    noc->now++;
}

/* One interconnect cycle: a crossbar with xbar_port_flits = w runs w switch
 * cycles, so every port moves up to w flits per interconnect cycle. */
void gpuest_noc_step(gpuest_noc_t *noc)
{
    for (int i = 0; i < noc->sub; i++)
        substep(noc);
}

int gpuest_noc_eject(gpuest_noc_t *noc, int node, gpuest_noc_packet_t *out)
{
    if (node < 0 || node >= noc->nodes)
        return 0;
    noc_ejq_t *best = NULL;
    for (int c = 0; c < noc->opts.num_classes; c++) {
        noc_ejq_t *q = &noc->ejq[node * GPUEST_NOC_MAX_CLASSES + c];
        if (q->count && (!best || q->v[q->head].ejected < best->v[best->head].ejected))
            best = q;
    }
    if (!best)
        return 0;
    *out = best->v[best->head];
    best->head = (best->head + 1) % best->cap;
    best->count--;
    if (best->flits >= out->flits)
        best->flits -= out->flits;
    else
        best->flits = 0;
    return 1;
}

/* ---------------------------------------------------------------- statistics */
void gpuest_noc_stats(const gpuest_noc_t *noc, gpuest_noc_stats_t *out)
{
    memset(out, 0, sizeof *out);
    out->cycles = (noc->now - noc->stats_start) / noc->sub;
    memcpy(out->cls, noc->st, sizeof noc->st);
}

void gpuest_noc_stats_reset(gpuest_noc_t *noc)
{
    memset(noc->st, 0, sizeof noc->st);
    for (int i = 0; i < noc->nlinks; i++)
        noc->links[i].flits = 0;
    noc->stats_start = noc->now;
}

int gpuest_noc_num_links(const gpuest_noc_t *noc) { return noc->nlinks; }

void gpuest_noc_link_info(const gpuest_noc_t *noc, int link, gpuest_noc_link_t *out)
{
    memset(out, 0, sizeof *out);
    if (link < 0 || link >= noc->nlinks)
        return;
    const noc_link_t *l = &noc->links[link];
    out->net = l->net;
    out->src_node = l->src_node;
    out->dst_node = l->dst_node;
    out->kind = l->kind;
    out->flits = l->flits;
}

uint64_t gpuest_noc_link_flits_total(const gpuest_noc_t *noc)
{
    uint64_t s = 0;
    for (int l = 0; l < noc->nlinks; l++)
        s += noc->links[l].flits;
    return s;
}

/* ---------------------------------------------------------------- invariants */
/* Flits on link l using VC v, and credits for v travelling back on it. */
static void link_vc_counts(const noc_link_t *l, int v, int *flits, int *credits)
{
    *flits = *credits = 0;
    for (uint32_t i = 0; i < l->fcount; i++)
        if (l->fq[(l->fhead + i) & l->mask].f.vc == v)
            (*flits)++;
    for (uint32_t i = 0; i < l->ccount; i++)
        if ((l->cq[(l->chead + i) & l->mask].vcs >> v) & 1)
            (*credits)++;
}

/* Flits already charged to output port p / VC v of router r but still in its crossbar stage. */
static int xbar_vc_count(noc_router_t *r, int p, int v)
{
    int n = 0;
    for (uint32_t i = 0; i < r->xbar_q.count; i++) {
        noc_item_t *it = noc_q_at(&r->xbar_q, i);
        if (it->out == p && it->flit.vc == v)
            n++;
    }
    return n;
}

gpuest_err gpuest_noc_check(const gpuest_noc_t *cnoc, gpuest_error_t *err)
{
    gpuest_noc_t *noc = (gpuest_noc_t *)cnoc; /* queues are only read */
    int V = noc->vcs, B = noc->bufsz;
    if (noc->failed)
        return gpuest_fail(err, GPUEST_ENOMEM, "noc: out of memory replicating a multicast packet");
    if (noc->order_errors)
        return gpuest_fail(err, GPUEST_ECORRUPT, "noc: %llu flits arrived out of order",
                           (unsigned long long)noc->order_errors);
    for (int ri = 0; ri < noc->nrouters; ri++) { /* VC states */
        noc_router_t *r = &noc->routers[ri];
        for (int iv = 0; iv < r->nports * V; iv++) {
            const noc_ivc_t *ivc = &r->ivc[iv];
            const noc_flit_t *front = &r->buf[(size_t)iv * noc->bstride + ivc->head];
            int bad = ivc->count > B || (ivc->state == NOC_VC_IDLE && ivc->count != 0) ||
                      ((ivc->state == NOC_VC_ROUTING || ivc->state == NOC_VC_VCALLOC) &&
                       (ivc->count == 0 || !(front->flags & NOC_FLIT_HEAD))) ||
                      (ivc->state == NOC_VC_ACTIVE && !ivc->nbr &&
                       (ivc->out_port < 0 || ivc->out_vc < 0 || r->ovc[ivc->out_port * V + ivc->out_vc].owner != iv));
            for (int b = 0; !bad && ivc->state == NOC_VC_ACTIVE && b < ivc->nbr; b++) {
                const noc_branch_t *br = &r->br[(size_t)iv * noc->brmax + b];
                int done = br->sent == noc->pkts[ivc->pkt].flits; /* its tail left: the VC is released */
                bad = br->out_vc < 0 || (!done && r->ovc[br->port * V + br->out_vc].owner != iv) ||
                      br->sent < ivc->popped || br->sent > ivc->popped + ivc->count;
            }
            if (bad)
                return gpuest_fail(err, GPUEST_ECORRUPT, "noc: router %d input VC %d: state %d with %d flits", ri, iv,
                                   ivc->state, ivc->count);
        }
    }
    for (int li = 0; li < noc->nlinks; li++) {
        noc_link_t *l = &noc->links[li];
        for (int v = 0; v < V; v++) {
            const noc_ovc_t *o = l->src_router >= 0 ? &noc->routers[l->src_router].ovc[l->src_port * V + v]
                                                    : &noc->nis[l->net * noc->nodes + l->src_port].ovc[v];
            if (o->credits < 0 || o->credits > B)
                return gpuest_fail(err, GPUEST_ECORRUPT, "noc: link %d VC %d has %d credits (buffer %d)", li, v,
                                   o->credits, B);
            int fl, cr, held, xb = 0;
            link_vc_counts(l, v, &fl, &cr);
            if (l->dst_router >= 0)
                held = noc->routers[l->dst_router].ivc[l->dst_port * V + v].count;
            else
                held = noc->nis[l->net * noc->nodes + l->dst_port].pend_count[v];
            if (l->src_router >= 0)
                xb = xbar_vc_count(&noc->routers[l->src_router], l->src_port, v);
            if (o->credits + fl + cr + held + xb != B)
                return gpuest_fail(err, GPUEST_ECORRUPT,
                                   "noc: link %d VC %d: credits %d + on link %d + credits back %d + buffered %d + "
                                   "in switch %d != buffer %d",
                                   li, v, o->credits, fl, cr, held, xb, B);
        }
    }
    return GPUEST_OK;
}
