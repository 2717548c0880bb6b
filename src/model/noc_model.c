/* noc_model.c: per-port loads under deterministic routing and the coupled router / MC-reply queueing model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_int.h"

int gpuest_model_noc_hops(const gpuest_model_noc_t *m, int cls, int src, int dst)
{
    (void)cls; /* every registered routing function is minimal */
    return gpuest_net_hops(&m->topo, src, dst);
}

/* Calls visit(m, idx, arg) for every hop (router, input port, output port) of the route from src to dst
 * under routing choice ch, ejection hop included; idx = (r * P + in) * P + out. */
static void walk_route(gpuest_model_noc_t *m, int c, int src, int dst, int ch,
                       void (*visit)(gpuest_model_noc_t *m, size_t idx, void *arg), void *arg)
{
    const gpuest_net_topo_t *t = &m->topo;
    int r = gpuest_net_router_of(t, src), in = gpuest_net_local_port(t, src);
    for (;;) {
        gpuest_net_hop_t h = gpuest_net_route(t, m->rf[c], r, dst, ch);
        visit(m, ((size_t)r * m->ports + in) * m->ports + h.port, arg);
        int nb = gpuest_net_next(t, r, h.port, &in);
        if (nb < 0)
            break;
        r = nb;
    }
}

static int router_delay(const gpuest_noc_cfg_t *noc)
{
    return noc->routing_delay + noc->vc_alloc_delay + noc->sw_alloc_delay + noc->st_prepare_delay +
           noc->st_final_delay + noc->output_delay;
}

static int link_delay(const gpuest_noc_cfg_t *noc)
{
    return noc->link_latency > 0 ? noc->link_latency : 1;
}

static int port_width(const gpuest_noc_cfg_t *noc)
{
    return gpuest_net_port_flits(noc->topology, noc->xbar_port_flits);
}

/* Zero-load latency: every router on the path (hops + 1 of them) costs its pipeline, every
 * router-to-router link its latency; the NI adds one cycle to reach the injection channel plus
 * the injection and ejection channel latencies; the tail follows the head by L - 1 cycles. With
 * BookSim's defaults (4-stage router, 1-cycle links) this is 7 + 5 D + (L - 1). Those are switch
 * cycles: a crossbar with w flits per port runs w of them per interconnect cycle (pipeline and
 * serialization alike), so the result, in interconnect cycles, is divided by w. */
double gpuest_model_zero_load(const gpuest_noc_cfg_t *noc, int hops, int flits)
{
    int tl = link_delay(noc), w = port_width(noc);
    int ser = flits - 1;
    return ((double)(hops + 1) * router_delay(noc) + (double)hops * tl + (1.0 + tl) + tl + ser) / w;
}

void gpuest_model_noc_destroy(gpuest_model_noc_t *m)
{
    if (!m)
        return;
    free(m->pk);
    free(m->pkd);
    free(m->cnt);
    free(m->touched);
    free(m->inj);
    free(m->arr);
    free(m->mc);
    free(m->w_out);
    free(m->w_vc);
    free(m->w_down);
    free(m->w_bp);
    free(m->w_src);
    free(m->w_mcq);
    free(m->util_in);
    free(m->util_out);
    free(m->k_out);
    free(m->k_vc);
    free(m->k_down);
    free(m->k_bp);
    free(m->k_src);
    free(m->k_mcq);
    free(m->istr);
    free(m->used);
    free(m->ent);
    free(m->ord_out);
    free(m->ord_in);
    free(m->mdk);
    free(m->sw_out);
    free(m->sw_in);
    free(m->inj_j);
    free(m->kind_ent);
    free(m->ogroups);
    free(m->shape_memo);
    free(m->igroups);
    free(m->in_memo);
    free(m->hx_lam);
    free(m->hx_ser);
    free(m->hx_sv);
    free(m->hx_occ);
    free(m->hx_svc);
    free(m->inj_base);
    free(m);
}

static gpuest_err alloc_arrays(gpuest_model_noc_t *m, gpuest_error_t *err)
{
    size_t rp = (size_t)m->routers * m->ports, n = (size_t)m->nodes;
    m->pk = calloc(rp * m->ports * m->ncls, sizeof(double));
    m->pkd = calloc(rp * m->ports * m->ncls, sizeof(double));
    m->cnt = calloc(rp * m->ports, sizeof(int));
    m->touched = calloc(rp * m->ports, sizeof(size_t));
    m->inj = calloc(n * m->ncls, sizeof(double));
    m->arr = calloc(n * m->ncls, sizeof(double));
    m->mc = calloc(n, sizeof(int));
    m->w_out = calloc(rp * m->planes, sizeof(double));
    m->w_vc = calloc(rp * m->nparts, sizeof(double));
    m->w_down = calloc(rp * m->nparts, sizeof(double));
    m->util_in = calloc(rp * m->planes, sizeof(double));
    m->w_bp = calloc(n, sizeof(double));
    m->w_mcq = calloc(n, sizeof(double));
    m->util_out = calloc(rp * m->planes, sizeof(double));
    m->w_src = calloc(n * m->planes, sizeof(double));
    m->k_out = calloc(rp * m->planes, sizeof(double));
    m->k_vc = calloc(rp * m->nparts, sizeof(double));
    m->k_down = calloc(rp * m->nparts, sizeof(double));
    m->k_bp = calloc(n, sizeof(double));
    m->k_mcq = calloc(n, sizeof(double));
    m->k_src = calloc(n * m->planes, sizeof(double));
    m->istr = calloc(rp * m->planes, sizeof(double));
    m->used = calloc(rp * m->ports, 1);
    m->mdk = calloc(n * 5, sizeof(double));
    if (!m->istr || !m->used || !m->mdk)
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    if (!m->k_out || !m->k_vc || !m->k_down || !m->k_bp || !m->k_mcq || !m->k_src)
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    if (!m->pk || !m->pkd || !m->cnt || !m->touched || !m->inj || !m->arr || !m->mc || !m->w_out || !m->w_vc || !m->w_down || !m->util_in || !m->w_bp ||
        !m->w_mcq || !m->util_out || !m->w_src)
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    return GPUEST_OK;
}

/* A delivery of rate packets/cycle from s to d: arrivals and the per-class latency weights. */
static void add_delivery(gpuest_model_noc_t *m, int c, int s, int d, double rate)
{
    m->arr[(size_t)d * m->ncls + c] += rate;
    m->cls_pk[c] += rate;
    int hops = gpuest_model_noc_hops(m, c, s, d);
    m->cls_hops[c] += rate * hops;
    m->cls_t0[c] += rate * (gpuest_model_zero_load(&m->noc, hops, 1)); /* serialization kept apart */
}

typedef struct {
    int c;
    double rate;
} flow_arg_t;

static void visit_unicast(gpuest_model_noc_t *m, size_t idx, void *arg)
{
    const flow_arg_t *a = arg;
    m->pk[idx * m->ncls + a->c] += a->rate;
    m->pkd[idx * m->ncls + a->c] += a->rate;
}

/* Adds one unicast flow (rate packets/cycle) along its route to the per-port loads; a routing
 * function with several orders (O1TURN) spreads it evenly over them. */
static void add_flow(gpuest_model_noc_t *m, int c, int s, int d, double rate)
{
    m->inj[(size_t)s * m->ncls + c] += rate;
    m->cls_inj[c] += rate;
    add_delivery(m, c, s, d, rate);
    int nch = m->rf[c]->choices;
    flow_arg_t a = {.c = c, .rate = rate / nch};
    for (int ch = 0; ch < nch; ch++)
        walk_route(m, c, s, d, ch, visit_unicast, &a);
}

/* ---------------------------------------------------------------- multicast link loads */
typedef struct {
    size_t *touched;
    int n;
} count_arg_t;

static void visit_count(gpuest_model_noc_t *m, size_t idx, void *arg)
{
    count_arg_t *a = arg;
    if (m->cnt[idx]++ == 0)
        a->touched[a->n++] = idx;
}

/* Probability that a set of s members drawn uniformly without replacement from n candidates
 * contains at least one of the `hit` candidates: 1 - C(n - hit, s) / C(n, s). */
static double p_any(int n, int hit, int s)
{
    double none = 1.0;
    for (int i = 0; i < s; i++)
        none *= n - hit - i > 0 ? (double)(n - hit - i) / (double)(n - i) : 0.0;
    return 1.0 - none;
}

/* One multicast flow: the replication tree carries one copy per link, so a hop is loaded by the
 * flow's rate times the probability that the set contains a destination routed through it (1 for a
 * fixed set: the union of the unicast paths). Latency weights (pkd) count one delivery per member. */
static gpuest_err add_mcast_flow(gpuest_model_noc_t *m, const gpuest_model_mcast_t *f, gpuest_error_t *err)
{
    int c = f->cls, s = f->src, cand[GPUEST_NET_MCAST_MAX_NODES], n = 0;
    if (c < 0 || c >= m->ncls || s < 0 || s >= m->nodes || !(f->rate >= 0.0) || !isfinite(f->rate))
        return gpuest_fail(err, GPUEST_ERANGE, "NoC model: multicast flow class %d from node %d at rate %g", c, s,
                           f->rate);
    for (gpuest_net_dests_t d = f->dests; d; d &= d - 1)
        cand[n++] = __builtin_ctzll(d);
    if (n < 1 || cand[n - 1] >= m->nodes || f->size_min < 0 || f->size_max > n ||
        (f->size_min > 0 && f->size_max < f->size_min))
        return gpuest_fail(err, GPUEST_EINVAL,
                           "NoC model: multicast flow from node %d: %d candidates (up to node %d) for set sizes %d..%d",
                           s, n, n ? cand[n - 1] : -1, f->size_min, f->size_max);
    int lo = f->size_min > 0 ? f->size_min : n, hi = f->size_min > 0 ? f->size_max : n;
    double mean = 0.5 * (lo + hi), q = mean / n; /* each candidate's chance to be in the set */
    m->inj[(size_t)s * m->ncls + c] += f->rate;
    m->cls_inj[c] += f->rate;
    for (int i = 0; i < n; i++)
        add_delivery(m, c, s, cand[i], f->rate * q);
    int nch = m->rf[c]->choices;
    for (int ch = 0; ch < nch; ch++) {
        count_arg_t a = {.touched = m->touched, .n = 0};
        for (int i = 0; i < n; i++)
            walk_route(m, c, s, cand[i], ch, visit_count, &a);
        for (int j = 0; j < a.n; j++) {
            size_t idx = a.touched[j];
            double used = 0.0;
            for (int size = lo; size <= hi; size++)
                used += p_any(n, m->cnt[idx], size);
            used /= hi - lo + 1;
            m->pk[idx * m->ncls + c] += f->rate * used / nch;
            m->pkd[idx * m->ncls + c] += f->rate * q * m->cnt[idx] / nch;
            m->cnt[idx] = 0;
        }
    }
    return GPUEST_OK;
}

gpuest_err gpuest_model_noc_create(const gpuest_config_t *cfg, const gpuest_model_traffic_t *t,
                                   gpuest_model_noc_t **out, gpuest_error_t *err)
{
    const gpuest_noc_cfg_t *noc = &cfg->noc;
    *out = NULL;
    gpuest_net_topo_t topo;
    GPUEST_TRY(gpuest_net_topo_init(&topo, noc->topology, noc->k, t->num_nodes, err));
    int nodes = topo.nodes;
    if (t->num_nodes != nodes)
        return gpuest_fail(err, GPUEST_EMISMATCH, "NoC model: traffic has %d nodes, the network %d", t->num_nodes,
                           nodes);
    if (noc->vcs < 1 || noc->buffer_flits < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "NoC model: need vcs >= 1 and buffer_flits >= 1 (got %d, %d)",
                           noc->vcs, noc->buffer_flits);
    gpuest_model_noc_t *m = calloc(1, sizeof *m);
    if (!m)
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    m->noc = *noc;
    m->topo = topo;
    m->nodes = nodes;
    m->k = topo.k;
    m->routers = topo.routers;
    m->ports = topo.ports;
    m->ncls = t->num_classes;
    for (int c = 0; c < m->ncls; c++) {
        m->rf[c] = gpuest_net_routing(t->routing[c]);
        if (!m->rf[c]) {
            free(m);
            return gpuest_fail(err, GPUEST_EINVAL, "NoC model: class %d has no registered routing function (%d)", c,
                               t->routing[c]);
        }
    }
    m->clock = port_width(noc);
    m->mc_slots = cfg->mc.reply_queue > 0 ? cfg->mc.reply_queue : 8;
    m->ni_slots = noc->inject_queue > 0 ? noc->inject_queue : 8;
    /* Classes answered by another class are requests; their answers are replies. Requests and
     * replies get separate VC partitions (protocol deadlock avoidance), or separate networks. */
    int any_reply = 0;
    for (int c = 0; c < m->ncls; c++)
        if (t->reply_class[c] >= 0)
            any_reply = 1;
    m->nparts = any_reply ? 2 : 1;
    for (int c = 0; c < m->ncls; c++) {
        int is_reply = 0;
        for (int q = 0; q < m->ncls; q++)
            if (t->reply_class[q] == c)
                is_reply = 1;
        m->len[c] = t->packet_flits[c] > 0 ? t->packet_flits[c] : 1;
        m->part[c] = is_reply;
        m->is_request[c] = t->reply_class[c] >= 0;
    }
    int physical = noc->class_split == GPUEST_SPLIT_PHYSICAL && m->nparts > 1;
    m->planes = physical ? m->nparts : 1;
    for (int c = 0; c < m->ncls; c++)
        m->plane[c] = physical ? m->part[c] : 0;
    m->vcs_part = physical ? noc->vcs : noc->vcs / m->nparts;
    if (m->vcs_part < 1)
        m->vcs_part = 1;
    gpuest_err rc = alloc_arrays(m, err);
    if (rc != GPUEST_OK) {
        gpuest_model_noc_destroy(m);
        return rc;
    }
    for (int c = 0; c < m->ncls; c++)
        for (int s = 0; s < nodes; s++)
            for (int d = 0; d < nodes; d++) {
                double r = t->rate[((size_t)c * nodes + s) * nodes + d];
                if (r < 0.0 || !isfinite(r)) {
                    gpuest_model_noc_destroy(m);
                    return gpuest_fail(err, GPUEST_ERANGE, "NoC model: rate of class %d from %d to %d is %g", c, s, d,
                                       r);
                }
                if (r > 0.0)
                    add_flow(m, c, s, d, r);
            }
    for (int i = 0; i < t->num_mcast; i++) {
        rc = add_mcast_flow(m, &t->mcast[i], err);
        if (rc != GPUEST_OK) {
            gpuest_model_noc_destroy(m);
            return rc;
        }
    }
    for (size_t h = 0; h < (size_t)m->routers * m->ports * m->ports; h++)
        for (int c = 0; c < m->ncls; c++)
            if (m->pk[h * m->ncls + c] > 0.0 || m->pkd[h * m->ncls + c] > 0.0)
                m->used[h] = 1;
    for (int n = 0; n < nodes; n++) {
        int any = 0;
        for (int c = 0; c < m->ncls; c++) {
            if (m->inj[(size_t)n * m->ncls + c] > 0.0)
                any = 1;
            if (m->part[c] == 1 && m->inj[(size_t)n * m->ncls + c] > 0.0)
                m->mc[n] = 1;
        }
        m->injecting += any;
    }
    rc = gpuest_model_noc_prepare(m, err);
    if (rc != GPUEST_OK) {
        gpuest_model_noc_destroy(m);
        return rc;
    }
    *out = m;
    return GPUEST_OK;
}

double gpuest_model_noc_port_load(const gpuest_model_noc_t *m, int router, int port, int cls)
{
    double s = 0.0;
    if (router < 0 || router >= m->routers || port < 0 || port >= m->ports)
        return 0.0;
    for (int i = 0; i < m->ports; i++)
        for (int c = 0; c < m->ncls; c++)
            if (cls < 0 || cls == c)
                s += m->pk[noc_pk_idx(m, router, i, port, c)] * m->len[c];
    return s;
}

int gpuest_model_noc_num_routers(const gpuest_model_noc_t *m) { return m->routers; }
int gpuest_model_noc_num_ports(const gpuest_model_noc_t *m) { return m->ports; }

void gpuest_model_params_default(gpuest_model_params_t *p)
{
    p->kappa = 1.5;
    p->conflict = 0.5;
    p->ca2 = 0.5;
    p->vc_hold = 0.5;
    p->max_iter = 200;
    p->tol = 1e-9;
}
