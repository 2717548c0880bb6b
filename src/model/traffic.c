/* traffic.c: traffic matrices (rate per class, source and destination) and the synthetic patterns. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

gpuest_err gpuest_model_traffic_init(gpuest_model_traffic_t *t, int num_nodes, int num_classes,
                                     gpuest_error_t *err)
{
    memset(t, 0, sizeof *t);
    if (num_nodes < 1 || num_nodes > 4096)
        return gpuest_fail(err, GPUEST_EINVAL, "traffic: node count %d outside 1..4096", num_nodes);
    if (num_classes < 1 || num_classes > GPUEST_MODEL_MAX_CLASSES)
        return gpuest_fail(err, GPUEST_EINVAL, "traffic: class count %d outside 1..%d", num_classes,
                           GPUEST_MODEL_MAX_CLASSES);
    t->rate = calloc((size_t)num_classes * num_nodes * num_nodes, sizeof *t->rate);
    if (!t->rate)
        return gpuest_fail(err, GPUEST_ENOMEM, "traffic: out of memory for %d nodes", num_nodes);
    t->num_nodes = num_nodes;
    t->num_classes = num_classes;
    for (int c = 0; c < num_classes; c++) {
        t->packet_flits[c] = 1;
        t->routing[c] = GPUEST_ROUTE_XY;
        t->reply_class[c] = -1;
        snprintf(t->class_name[c], sizeof t->class_name[c], "class%d", c & 0xff);
    }
    return GPUEST_OK;
}

void gpuest_model_traffic_free(gpuest_model_traffic_t *t)
{
    if (!t)
        return;
    free(t->rate);
    t->rate = NULL;
    free(t->mcast);
    t->mcast = NULL;
    t->num_mcast = t->cap_mcast = 0;
}

double *gpuest_model_traffic_at(gpuest_model_traffic_t *t, int cls, int src, int dst)
{
    size_t n = (size_t)t->num_nodes;
    return &t->rate[((size_t)cls * n + (size_t)src) * n + (size_t)dst];
}

gpuest_err gpuest_model_traffic_add_mcast(gpuest_model_traffic_t *t, const gpuest_model_mcast_t *f,
                                          gpuest_error_t *err)
{
    if (t->num_mcast == t->cap_mcast) {
        int cap = t->cap_mcast ? 2 * t->cap_mcast : 16;
        gpuest_model_mcast_t *v = realloc(t->mcast, (size_t)cap * sizeof *v);
        if (!v)
            return gpuest_fail(err, GPUEST_ENOMEM, "traffic: out of memory for multicast flows");
        t->mcast = v;
        t->cap_mcast = cap;
    }
    t->mcast[t->num_mcast++] = *f;
    return GPUEST_OK;
}

double gpuest_model_traffic_flits(const gpuest_model_traffic_t *t, int cls)
{
    size_t n = (size_t)t->num_nodes, base = (size_t)cls * n * n;
    double s = 0.0;
    for (size_t i = 0; i < n * n; i++)
        s += t->rate[base + i];
    for (int i = 0; i < t->num_mcast; i++)
        if (t->mcast[i].cls == cls)
            s += t->mcast[i].rate;
    return s * t->packet_flits[cls];
}

static const char *const pattern_names[] = {"uniform", "transpose", "hotspot", "gpu", NULL};

gpuest_err gpuest_model_pattern_init(gpuest_model_pattern_t *p, const char *name, gpuest_error_t *err)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; pattern_names[i]; i++) {
        if (strcmp(name, pattern_names[i]) == 0) {
            snprintf(p->name, sizeof p->name, "%s", name);
            p->packet_flits = 1;
            return GPUEST_OK;
        }
    }
    return gpuest_fail(err, GPUEST_ENOKEY, "unknown traffic pattern '%s' (expected uniform, transpose, hotspot or gpu)",
                       name);
}

gpuest_err gpuest_model_pattern_from_traffic(gpuest_model_pattern_t *p, const gpuest_net_traffic_t *tr,
                                             gpuest_error_t *err)
{
    GPUEST_TRY(gpuest_model_pattern_init(p, gpuest_net_pattern_name(tr->pattern), err));
    p->packet_flits = tr->packet_flits;
    if (tr->pattern == GPUEST_NET_TRAFFIC_GPU) {
        p->reply_flits = tr->packet_flits;
        p->request_flits = tr->request_flits;
    }
    if (tr->num_hot > GPUEST_MODEL_MAX_HOTSPOTS)
        return gpuest_fail(err, GPUEST_ERANGE, "traffic: %d hot nodes (the model takes up to %d)", tr->num_hot,
                           GPUEST_MODEL_MAX_HOTSPOTS);
    p->num_hotspots = tr->num_hot;
    for (int i = 0; i < tr->num_hot; i++) {
        p->hotspot_nodes[i] = tr->hot_nodes[i];
        p->hotspot_rates[i] = tr->hot_weights[i];
    }
    p->mcast_fraction = tr->mcast_fraction;
    p->mcast_min = tr->mcast_min;
    p->mcast_max = tr->mcast_max;
    return GPUEST_OK;
}

void gpuest_model_gpu_packet_flits(const gpuest_config_t *cfg, int *request_flits, int *reply_flits)
{
    int line = cfg->l2.line_bytes > 0 ? cfg->l2.line_bytes : 128;
    /* the same sizing as the simulator's (src/net) */
    *request_flits = gpuest_net_packet_flits(cfg->noc.flit_bytes, cfg->noc.header_bytes, 0);
    *reply_flits = gpuest_net_packet_flits(cfg->noc.flit_bytes, cfg->noc.header_bytes, line);
}

double gpuest_model_write_flits(const gpuest_config_t *cfg, double bytes)
{
    int req, rep;
    gpuest_model_gpu_packet_flits(cfg, &req, &rep);
    int line = cfg->l2.line_bytes > 0 ? cfg->l2.line_bytes : 128;
    if (!(bytes > 0) || bytes >= line)
        return rep;
    double fb = cfg->noc.flit_bytes > 0 ? cfg->noc.flit_bytes : 16;
    /* gpuest_packet_flits: a separate head flit when header_bytes <= 0, else the header shares the
     * flits; the ceiling is left out (a mean over packets of whole sectors) */
    double f = cfg->noc.header_bytes <= 0 ? 1.0 + bytes / fb : (cfg->noc.header_bytes + bytes) / fb;
    return f < req ? req : (f > rep ? rep : f);
}

/* Uniform, transpose and hotspot: one class, every node injects rate flits per cycle. */
static gpuest_err build_synthetic(gpuest_model_traffic_t *t, const gpuest_model_pattern_t *p,
                                  const gpuest_config_t *cfg, double rate, gpuest_error_t *err)
{
    int n = gpuest_config_num_nodes(cfg);
    if (p->packet_flits < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "pattern %s: packet_flits must be >= 1 (got %d)", p->name,
                           p->packet_flits);
    if (p->mcast_fraction != 0.0 && strcmp(p->name, "uniform") != 0)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED, "pattern %s: multicast traffic is defined for uniform only",
                           p->name);
    if (p->mcast_fraction < 0.0 || p->mcast_fraction > 1.0 ||
        (p->mcast_fraction > 0.0 && (p->mcast_min < 2 || p->mcast_max < p->mcast_min || p->mcast_max > n ||
                                     n > GPUEST_NET_MCAST_MAX_NODES)))
        return gpuest_fail(err, GPUEST_ERANGE,
                           "pattern uniform: multicast share %g with set sizes %d..%d (expected a share in [0, 1], "
                           "2 <= min <= max <= %d nodes, at most %d nodes)",
                           p->mcast_fraction, p->mcast_min, p->mcast_max, n, GPUEST_NET_MCAST_MAX_NODES);
    GPUEST_TRY(gpuest_model_traffic_init(t, n, 1, err));
    t->packet_flits[0] = p->packet_flits;
    t->routing[0] = cfg->noc.routing_request;
    snprintf(t->class_name[0], sizeof t->class_name[0], "%.24s", p->name);
    double pk = rate / p->packet_flits; /* packets per node per cycle */
    if (strcmp(p->name, "uniform") == 0) {
        double f = p->mcast_fraction;
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++)
                *gpuest_model_traffic_at(t, 0, s, d) = (1.0 - f) * pk / n;
        for (int s = 0; f > 0.0 && s < n; s++) {
            gpuest_model_mcast_t mf = {.cls = 0, .src = s, .dests = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1,
                                       .size_min = p->mcast_min, .size_max = p->mcast_max, .rate = f * pk};
            gpuest_err rc = gpuest_model_traffic_add_mcast(t, &mf, err);
            if (rc != GPUEST_OK) {
                gpuest_model_traffic_free(t);
                return rc;
            }
        }
    } else if (strcmp(p->name, "transpose") == 0) {
        int k = cfg->noc.k;
        if (cfg->noc.topology != GPUEST_TOPO_MESH) {
            gpuest_model_traffic_free(t);
            return gpuest_fail(err, GPUEST_EUNSUPPORTED, "pattern transpose needs a mesh topology");
        }
        for (int s = 0; s < n; s++)
            *gpuest_model_traffic_at(t, 0, s, (s % k) * k + s / k) = pk;
    } else { /* hotspot */
        double wsum = 0.0;
        if (p->num_hotspots < 1 || p->num_hotspots > GPUEST_MODEL_MAX_HOTSPOTS) {
            gpuest_model_traffic_free(t);
            return gpuest_fail(err, GPUEST_EINVAL, "pattern hotspot: need 1..%d hotspot nodes (got %d)",
                               GPUEST_MODEL_MAX_HOTSPOTS, p->num_hotspots);
        }
        for (int h = 0; h < p->num_hotspots; h++) {
            if (p->hotspot_nodes[h] < 0 || p->hotspot_nodes[h] >= n || p->hotspot_rates[h] < 0.0) {
                gpuest_model_traffic_free(t);
                return gpuest_fail(err, GPUEST_ERANGE, "pattern hotspot: node %d (weight %g) outside 0..%d or negative",
                                   p->hotspot_nodes[h], p->hotspot_rates[h], n - 1);
            }
            wsum += p->hotspot_rates[h];
        }
        for (int h = 0; h < p->num_hotspots; h++) {
            double w = wsum > 0.0 ? p->hotspot_rates[h] / wsum : 1.0 / p->num_hotspots;
            for (int s = 0; s < n; s++)
                *gpuest_model_traffic_at(t, 0, s, p->hotspot_nodes[h]) += pk * w;
        }
    }
    return GPUEST_OK;
}

/* GPU many-to-few-to-many: SMs -> MCs (uniform), each request answered by its MC. */
static gpuest_err build_gpu(gpuest_model_traffic_t *t, const gpuest_model_pattern_t *p, const gpuest_config_t *cfg,
                            double rate, gpuest_error_t *err)
{
    int n = gpuest_config_num_nodes(cfg);
    int nsm = cfg->core.num_sms, nmc = cfg->mc.num_mcs;
    int req, rep;
    gpuest_model_gpu_packet_flits(cfg, &req, &rep);
    if (p->request_flits > 0)
        req = p->request_flits;
    if (p->reply_flits > 0)
        rep = p->reply_flits;
    if (nsm < 1 || nmc < 1 || nsm + nmc > n)
        return gpuest_fail(err, GPUEST_EINVAL, "pattern gpu: %d SMs and %d MCs do not fit %d nodes", nsm, nmc, n);
    if (p->write_fraction < 0.0 || p->write_fraction > 1.0)
        return gpuest_fail(err, GPUEST_ERANGE, "pattern gpu: write_fraction %g outside [0, 1]", p->write_fraction);
    int *mcs = malloc(sizeof(int) * (size_t)(nmc + nsm));
    if (!mcs)
        return gpuest_fail(err, GPUEST_ENOMEM, "pattern gpu: out of memory");
    int *sms = mcs + nmc;
    gpuest_err rc = gpuest_config_mc_nodes(cfg, mcs, err);
    if (rc == GPUEST_OK)
        rc = gpuest_config_sm_nodes(cfg, sms, err);
    int ncls = p->write_fraction > 0.0 ? 4 : 2;
    if (rc == GPUEST_OK)
        rc = gpuest_model_traffic_init(t, n, ncls, err);
    if (rc != GPUEST_OK) {
        free(mcs);
        return rc;
    }
    static const char *const names[4] = {"request", "reply", "write", "write_ack"};
    int flits[4] = {req, rep, p->write_flits > 0 ? p->write_flits : rep, req};
    for (int c = 0; c < ncls; c++) {
        snprintf(t->class_name[c], sizeof t->class_name[c], "%s", names[c]);
        t->packet_flits[c] = flits[c];
        t->routing[c] = (c % 2 == 0) ? cfg->noc.routing_request : cfg->noc.routing_reply;
        t->reply_class[c] = (c % 2 == 0) ? c + 1 : -1;
    }
    /* rate is in request flits per SM per cycle (as the NoC simulator's gpu traffic) */
    double per_sm = rate / req;
    double rd = per_sm * (1.0 - p->write_fraction) / nmc, wr = per_sm * p->write_fraction / nmc;
    for (int i = 0; i < nsm; i++) {
        for (int j = 0; j < nmc; j++) {
            *gpuest_model_traffic_at(t, 0, sms[i], mcs[j]) += rd;
            *gpuest_model_traffic_at(t, 1, mcs[j], sms[i]) += rd;
            if (ncls == 4) {
                *gpuest_model_traffic_at(t, 2, sms[i], mcs[j]) += wr;
                *gpuest_model_traffic_at(t, 3, mcs[j], sms[i]) += wr;
            }
        }
    }
    free(mcs);
    return GPUEST_OK;
}

gpuest_err gpuest_model_traffic_build(gpuest_model_traffic_t *t, const gpuest_model_pattern_t *p,
                                      const gpuest_config_t *cfg, double rate, gpuest_error_t *err)
{
    memset(t, 0, sizeof *t);
    if (!(rate >= 0.0))
        return gpuest_fail(err, GPUEST_ERANGE, "traffic rate must be >= 0 (got %g)", rate);
    if (strcmp(p->name, "gpu") == 0)
        return build_gpu(t, p, cfg, rate, err);
    for (int i = 0; pattern_names[i]; i++)
        if (strcmp(p->name, pattern_names[i]) == 0)
            return build_synthetic(t, p, cfg, rate, err);
    return gpuest_fail(err, GPUEST_ENOKEY, "unknown traffic pattern '%s' (expected uniform, transpose, hotspot or gpu)",
                       p->name);
}
