/* noc_model.c: per-port loads under deterministic routing and the coupled router / MC-reply queueing model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_int.h"

/* Output port taken at router r towards dst under XY or YX dimension-order routing. */
static int mesh_route(const gpuest_model_noc_t *m, int r, int dst, gpuest_routing_t rt)
{
    int x = r % m->k, y = r / m->k, tx = dst % m->k, ty = dst / m->k;
    int xport = tx > x ? GPUEST_PORT_E : GPUEST_PORT_W, yport = ty > y ? GPUEST_PORT_N : GPUEST_PORT_S;
    if (rt == GPUEST_ROUTE_YX) {
        if (ty != y)
            return yport;
        return tx != x ? xport : GPUEST_PORT_LOCAL;
    }
    if (tx != x)
        return xport;
    return ty != y ? yport : GPUEST_PORT_LOCAL;
}

int gpuest_model_noc_hops(const gpuest_model_noc_t *m, int cls, int src, int dst)
{
    (void)cls; /* XY and YX have the same length */
    if (m->crossbar)
        return 0;
    return abs(src % m->k - dst % m->k) + abs(src / m->k - dst / m->k);
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
    return (noc->topology == GPUEST_TOPO_CROSSBAR && noc->xbar_port_flits > 1) ? noc->xbar_port_flits : 1;
}

/* Zero-load latency: every router on the path (hops + 1 of them) costs its pipeline, every
 * router-to-router link its latency; the NI adds one cycle to reach the injection channel plus
 * the injection and ejection channel latencies; the tail follows the head by ceil(L/w) - 1
 * cycles. With BookSim's defaults (4-stage router, 1-cycle links) this is 7 + 5 D + (L - 1). */
double gpuest_model_zero_load(const gpuest_noc_cfg_t *noc, int hops, int flits)
{
    int tl = link_delay(noc), w = port_width(noc);
    int ser = (flits + w - 1) / w - 1;
    return (double)(hops + 1) * router_delay(noc) + (double)hops * tl + (1.0 + tl) + tl + ser;
}

void gpuest_model_noc_destroy(gpuest_model_noc_t *m)
{
    if (!m)
        return;
    free(m->pk);
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
    free(m);
}

static gpuest_err alloc_arrays(gpuest_model_noc_t *m, gpuest_error_t *err)
{
    size_t rp = (size_t)m->routers * m->ports, n = (size_t)m->nodes;
    m->pk = calloc(rp * m->ports * m->ncls, sizeof(double));
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
    if (!m->pk || !m->inj || !m->arr || !m->mc || !m->w_out || !m->w_vc || !m->w_down || !m->util_in || !m->w_bp ||
        !m->w_mcq || !m->util_out || !m->w_src)
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    return GPUEST_OK;
}

/* Adds one flow (rate packets/cycle) along its route to the per-port loads. */
static void add_flow(gpuest_model_noc_t *m, const gpuest_model_traffic_t *t, int c, int s, int d, double rate)
{
    m->inj[(size_t)s * m->ncls + c] += rate;
    m->arr[(size_t)d * m->ncls + c] += rate;
    m->cls_pk[c] += rate;
    int hops = gpuest_model_noc_hops(m, c, s, d);
    m->cls_hops[c] += rate * hops;
    m->cls_t0[c] += rate * (gpuest_model_zero_load(&m->noc, hops, 1)); /* serialization kept apart */
    if (m->crossbar) {
        m->pk[noc_pk_idx(m, 0, s, d, c)] += rate;
        return;
    }
    int r = s, in = GPUEST_PORT_LOCAL;
    for (;;) {
        int o = mesh_route(m, r, d, t->routing[c]);
        m->pk[noc_pk_idx(m, r, in, o, c)] += rate;
        if (o == GPUEST_PORT_LOCAL)
            break;
        r = noc_mesh_next(m, r, o, &in);
    }
}

gpuest_err gpuest_model_noc_create(const gpuest_config_t *cfg, const gpuest_model_traffic_t *t,
                                   gpuest_model_noc_t **out, gpuest_error_t *err)
{
    const gpuest_noc_cfg_t *noc = &cfg->noc;
    *out = NULL;
    int crossbar = noc->topology == GPUEST_TOPO_CROSSBAR;
    int nodes = crossbar ? t->num_nodes : noc->k * noc->k;
    if (!crossbar && (noc->k < 1 || noc->k > 64))
        return gpuest_fail(err, GPUEST_EINVAL, "NoC model: mesh side k=%d outside 1..64", noc->k);
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
    m->crossbar = crossbar;
    m->nodes = nodes;
    m->k = noc->k;
    m->routers = crossbar ? 1 : nodes;
    m->ports = crossbar ? nodes : GPUEST_MODEL_MESH_PORTS;
    m->ncls = t->num_classes;
    m->width = port_width(noc);
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
                    add_flow(m, t, c, s, d, r);
            }
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
