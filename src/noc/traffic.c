/* traffic.c: synthetic traffic sources and BookSim-style latency / throughput measurement on a gpuest_noc_t. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "noc_int.h"

static const char *const pattern_names[] = {"uniform", "transpose", "hotspot", "gpu"};

const char *gpuest_noc_pattern_name(gpuest_noc_pattern_t p)
{
    return (unsigned)p < 4 ? pattern_names[p] : "?";
}

gpuest_err gpuest_noc_pattern_parse(const char *name, gpuest_noc_pattern_t *out, gpuest_error_t *err)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, pattern_names[i]) == 0) {
            *out = (gpuest_noc_pattern_t)i;
            return GPUEST_OK;
        }
    return gpuest_fail(err, GPUEST_ENOKEY, "unknown traffic '%s': expected uniform, transpose, hotspot or gpu", name);
}

void gpuest_noc_traffic_default(gpuest_noc_traffic_t *t)
{
    memset(t, 0, sizeof *t);
    t->pattern = GPUEST_NOC_TRAFFIC_UNIFORM;
    t->rate = 0.1;
    t->packet_flits = 1;
    t->request_flits = 1;
    t->seed = 1;
}

void gpuest_noc_measure_default(gpuest_noc_measure_cfg_t *m)
{
    m->warmup_periods = 3;
    m->sample_period = 10000;
    m->max_samples = 10;
    m->latency_thres = 500.0;
    m->warmup_thres = 0.05;
    m->acc_thres = 0.05;
    m->drain_limit = 0;
}

int64_t gpuest_noc_zero_load_latency(const gpuest_noc_cfg_t *c, int hops, int flits)
{
    /* a crossbar of w flits per port runs w switch cycles per interconnect cycle */
    int64_t w = c->topology == GPUEST_TOPO_CROSSBAR && c->xbar_port_flits > 1 ? c->xbar_port_flits : 1;
    int64_t link = c->link_latency + 1;
    /* per router: RC + VA + SA + ST (the crossbar item is evaluated the cycle after SA retires) */
    int64_t router = c->routing_delay + c->vc_alloc_delay + c->sw_alloc_delay + c->st_prepare_delay +
                     c->st_final_delay - 1;
    return (link + (int64_t)(hops + 1) * (router + link + c->output_delay) + (flits - 1)) / w;
}

/* ---------------------------------------------------------------- driver */
enum { ST_WARMUP = 0, ST_RUNNING = 1, ST_DRAINING = 2 };

typedef struct {
    int dst;
    int64_t created;
} reply_t;

typedef struct {
    reply_t *v;
    int head, count, cap;
} reply_q_t;

typedef struct {
    gpuest_noc_t *noc;
    const gpuest_noc_traffic_t *t;
    gpuest_rng_t *rng;
    int nodes, k, nclasses;
    uint8_t *is_mc;
    int64_t *next_pkt;        /* per node: cycle of the next Bernoulli success (creation time of its next packet) */
    double p;                 /* packet probability per node per cycle */
    double hot_total;
    reply_q_t *replies;       /* gpu: per MC node */
    int state;
    char rec_mark;            /* payload marker: packet created while measuring */
    int failed;               /* allocation failure inside a callback */
    /* statistics since the last clear (BookSim _ClearStats) */
    int64_t reset_time;
    double lat_sum[GPUEST_NOC_MAX_CLASSES], nlat_sum[GPUEST_NOC_MAX_CLASSES], hops_sum;
    uint64_t lat_n[GPUEST_NOC_MAX_CLASSES];
    uint64_t acc_flits[GPUEST_NOC_MAX_CLASSES];
    /* flits in flight, per class, and the sum of their creation times */
    uint64_t fly_flits[GPUEST_NOC_MAX_CLASSES];
    double fly_created[GPUEST_NOC_MAX_CLASSES];
    uint64_t outstanding;     /* measured packets not yet delivered */
} drv_t;

static int source_class(const drv_t *d) { return d->t->pattern == GPUEST_NOC_TRAFFIC_GPU ? GPUEST_NOC_REQUEST : 0; }

static int pick_dest(drv_t *d, int src)
{
    const gpuest_noc_traffic_t *t = d->t;
    switch (t->pattern) {
    case GPUEST_NOC_TRAFFIC_TRANSPOSE:
        if (d->k > 0)
            return (src % d->k) * d->k + src / d->k;
        return d->nodes - 1 - src;
    case GPUEST_NOC_TRAFFIC_HOTSPOT: {
        double x = gpuest_rng_uniform(d->rng) * d->hot_total;
        for (int i = 0; i < t->num_hot; i++) {
            double w = t->hot_weights[i] > 0 ? t->hot_weights[i] : 1.0;
            if (x < w)
                return t->hot_nodes[i];
            x -= w;
        }
        return t->hot_nodes[t->num_hot - 1];
    }
    case GPUEST_NOC_TRAFFIC_GPU:
        return t->mc_nodes[gpuest_rng_below(d->rng, (uint64_t)t->num_mcs)];
    case GPUEST_NOC_TRAFFIC_UNIFORM:
    default:
        return (int)gpuest_rng_below(d->rng, (uint64_t)d->nodes);
    }
}

static gpuest_err send(drv_t *d, int src, int dst, int cls, int flits, int64_t created, gpuest_error_t *err)
{
    gpuest_noc_send_t s = {.src = src, .dst = dst, .cls = cls, .flits = flits, .created = created,
                           .payload = d->state == ST_RUNNING ? &d->rec_mark : NULL};
    GPUEST_TRY(gpuest_noc_inject(d->noc, &s, NULL, err));
    if (d->state == ST_RUNNING)
        d->outstanding++;
    d->fly_flits[cls] += (uint64_t)flits;
    d->fly_created[cls] += (double)flits * (double)created;
    return GPUEST_OK;
}

static int reply_push(reply_q_t *q, reply_t r)
{
    if (q->count == q->cap) {
        int cap = q->cap ? q->cap * 2 : 16;
        reply_t *v = malloc((size_t)cap * sizeof *v);
        if (!v)
            return 0;
        for (int i = 0; i < q->count; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->count) % q->cap] = r;
    q->count++;
    return 1;
}

static void on_deliver(void *ctx, const gpuest_noc_packet_t *p)
{
    drv_t *d = ctx;
    int c = p->cls;
    d->fly_flits[c] -= (uint64_t)p->flits;
    d->fly_created[c] -= (double)p->flits * (double)p->created;
    int recorded = p->payload == &d->rec_mark;
    if (d->state != ST_DRAINING)
        d->acc_flits[c] += (uint64_t)p->flits;
    if (d->state == ST_WARMUP || recorded) {
        d->lat_sum[c] += (double)(p->ejected - p->created);
        d->nlat_sum[c] += (double)(p->ejected - p->injected);
        d->hops_sum += p->hops;
        d->lat_n[c]++;
    }
    if (recorded)
        d->outstanding--;
    if (d->t->pattern == GPUEST_NOC_TRAFFIC_GPU && c == GPUEST_NOC_REQUEST)
        if (!reply_push(&d->replies[p->dst], (reply_t){.dst = p->src, .created = p->ejected}))
            d->failed = 1;
}

/* Draws the gap to the next success of a per-cycle Bernoulli(p) process
 * (geometric, >= 1): the same process as one draw per cycle, with far fewer draws. */
static int64_t next_gap(drv_t *d)
{
    if (d->p >= 1.0)
        return 1;
    if (d->p <= 0.0)
        return INT64_MAX / 4;
    return (int64_t)gsl_ran_geometric((const gsl_rng *)gpuest_rng_gsl(d->rng), d->p);
}

/* Offers this cycle's traffic. Each source is a Bernoulli process; a packet is
 * created at its success cycle and waits in an unbounded source queue while
 * the NI queue is full, keeping its creation time (BookSim's include_queuing). */
static gpuest_err generate(drv_t *d, gpuest_error_t *err)
{
    int64_t now = gpuest_noc_now(d->noc);
    const gpuest_noc_traffic_t *t = d->t;
    int cls = source_class(d);
    int flits = t->pattern == GPUEST_NOC_TRAFFIC_GPU ? t->request_flits : t->packet_flits;
    for (int n = 0; n < d->nodes; n++) {
        if (d->is_mc[n]) {
            reply_q_t *q = &d->replies[n];
            while (q->count && gpuest_noc_can_inject_flits(d->noc, n, GPUEST_NOC_REPLY, t->packet_flits)) {
                reply_t r = q->v[q->head];
                q->head = (q->head + 1) % q->cap;
                q->count--;
                GPUEST_TRY(send(d, n, r.dst, GPUEST_NOC_REPLY, t->packet_flits, r.created, err));
            }
            continue;
        }
        while (d->next_pkt[n] <= now && gpuest_noc_can_inject_flits(d->noc, n, cls, flits)) {
            GPUEST_TRY(send(d, n, pick_dest(d, n), cls, flits, d->next_pkt[n], err));
            d->next_pkt[n] += next_gap(d);
        }
    }
    if (d->failed)
        return gpuest_fail(err, GPUEST_ENOMEM, "noc traffic: out of memory");
    return GPUEST_OK;
}

static void drv_free(drv_t *d)
{
    if (d->replies)
        for (int i = 0; i < d->nodes; i++)
            free(d->replies[i].v);
    free(d->replies);
    free(d->is_mc);
    free(d->next_pkt);
    gpuest_noc_destroy(d->noc);
    gpuest_rng_destroy(d->rng);
}

static gpuest_err drv_init(drv_t *d, const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                           const gpuest_noc_traffic_t *t, gpuest_error_t *err)
{
    memset(d, 0, sizeof *d);
    d->t = t;
    gpuest_noc_opts_t o = *opts;
    o.num_classes = t->pattern == GPUEST_NOC_TRAFFIC_GPU ? 2 : (o.num_classes < 1 ? 1 : o.num_classes);
    o.unbounded_eject = 1;
    if (t->packet_flits < 1 || t->request_flits < 1)
        return gpuest_fail(err, GPUEST_ERANGE, "packet size: expected >= 1 flit");
    int src_flits = t->pattern == GPUEST_NOC_TRAFFIC_GPU ? t->request_flits : t->packet_flits;
    if (t->rate < 0 || t->rate > (double)src_flits)
        return gpuest_fail(err, GPUEST_ERANGE,
                           "injection rate %g: expected 0..%d flits per node per cycle (at most one packet a cycle)",
                           t->rate, src_flits);
    GPUEST_TRY(gpuest_noc_create(cfg, &o, &d->noc, err));
    gpuest_noc_set_eject_callback(d->noc, on_deliver, d);
    d->nodes = gpuest_noc_num_nodes(d->noc);
    d->k = cfg->topology == GPUEST_TOPO_MESH ? cfg->k : 0;
    d->nclasses = o.num_classes;
    d->is_mc = calloc((size_t)d->nodes, 1);
    d->next_pkt = calloc((size_t)d->nodes, sizeof *d->next_pkt);
    d->replies = calloc((size_t)d->nodes, sizeof *d->replies);
    gpuest_err rc = gpuest_rng_create(t->seed, &d->rng);
    if (rc != GPUEST_OK || !d->is_mc || !d->next_pkt || !d->replies) {
        drv_free(d);
        return gpuest_fail(err, GPUEST_ENOMEM, "noc traffic: out of memory");
    }
    if (t->pattern == GPUEST_NOC_TRAFFIC_GPU) {
        if (t->num_mcs < 1 || t->num_mcs >= d->nodes) {
            drv_free(d);
            return gpuest_fail(err, GPUEST_EINVAL, "gpu traffic: %d MC nodes for %d nodes (expected 1..%d)",
                               t->num_mcs, d->nodes, d->nodes - 1);
        }
        for (int i = 0; i < t->num_mcs; i++) {
            if (t->mc_nodes[i] < 0 || t->mc_nodes[i] >= d->nodes) {
                drv_free(d);
                return gpuest_fail(err, GPUEST_ERANGE, "gpu traffic: MC node %d outside 0..%d", t->mc_nodes[i],
                                   d->nodes - 1);
            }
            d->is_mc[t->mc_nodes[i]] = 1;
        }
    }
    if (t->pattern == GPUEST_NOC_TRAFFIC_HOTSPOT) {
        if (t->num_hot < 1 || t->num_hot > GPUEST_NOC_MAX_HOT) {
            drv_free(d);
            return gpuest_fail(err, GPUEST_EINVAL, "hotspot traffic: expected 1..%d hot nodes", GPUEST_NOC_MAX_HOT);
        }
        for (int i = 0; i < t->num_hot; i++) {
            if (t->hot_nodes[i] < 0 || t->hot_nodes[i] >= d->nodes) {
                drv_free(d);
                return gpuest_fail(err, GPUEST_ERANGE, "hotspot node %d outside 0..%d", t->hot_nodes[i],
                                   d->nodes - 1);
            }
            d->hot_total += t->hot_weights[i] > 0 ? t->hot_weights[i] : 1.0;
        }
    }
    if (t->pattern == GPUEST_NOC_TRAFFIC_TRANSPOSE && d->k == 0 && d->nodes < 2) {
        drv_free(d);
        return gpuest_fail(err, GPUEST_EINVAL, "transpose traffic needs at least 2 nodes");
    }
    d->p = t->rate / src_flits; /* Bernoulli probability of a new packet per cycle */
    for (int n = 0; n < d->nodes; n++)
        d->next_pkt[n] = next_gap(d) - 1; /* first success at trial k: cycle k - 1 */
    return GPUEST_OK;
}

static gpuest_err drv_step(drv_t *d, gpuest_error_t *err)
{
    GPUEST_TRY(generate(d, err));
    gpuest_noc_step(d->noc);
    return GPUEST_OK;
}

static void drv_clear(drv_t *d)
{
    memset(d->lat_sum, 0, sizeof d->lat_sum);
    memset(d->nlat_sum, 0, sizeof d->nlat_sum);
    memset(d->lat_n, 0, sizeof d->lat_n);
    memset(d->acc_flits, 0, sizeof d->acc_flits);
    d->hops_sum = 0;
    d->reset_time = gpuest_noc_now(d->noc);
}

/* Average latency of class c with in-flight flits counted at their current age
 * (BookSim's test against latency_thres). */
static double latency_with_inflight(const drv_t *d, int c)
{
    double now = (double)gpuest_noc_now(d->noc);
    double sum = d->lat_sum[c] + (double)d->fly_flits[c] * now - d->fly_created[c];
    double n = (double)d->lat_n[c] + (double)d->fly_flits[c];
    return n > 0 ? sum / n : 0.0;
}

static double rel_change(double cur, double prev)
{
    if (cur == 0.0)
        return prev == 0.0 ? 0.0 : 1.0;
    return fabs((cur - prev) / cur);
}

static void fill_result(const drv_t *d, gpuest_noc_result_t *out, int64_t window)
{
    double lat = 0, nlat = 0;
    uint64_t n = 0, acc = 0;
    for (int c = 0; c < d->nclasses; c++) {
        lat += d->lat_sum[c];
        nlat += d->nlat_sum[c];
        n += d->lat_n[c];
        acc += d->acc_flits[c];
        out->cls_packet_latency[c] = d->lat_n[c] ? d->lat_sum[c] / (double)d->lat_n[c] : 0.0;
        out->cls_network_latency[c] = d->lat_n[c] ? d->nlat_sum[c] / (double)d->lat_n[c] : 0.0;
    }
    out->packets = n;
    out->avg_packet_latency = n ? lat / (double)n : 0.0;
    out->avg_network_latency = n ? nlat / (double)n : 0.0;
    out->avg_hops = n ? d->hops_sum / (double)n : 0.0;
    out->accepted_rate = window > 0 ? (double)acc / ((double)d->nodes * (double)window) : 0.0;
}

static gpuest_err run_periods(drv_t *d, const gpuest_noc_measure_cfg_t *m, gpuest_progress_t *progress,
                              gpuest_noc_result_t *out, gpuest_error_t *err)
{
    double prev_lat[GPUEST_NOC_MAX_CLASSES] = {0}, prev_acc[GPUEST_NOC_MAX_CLASSES] = {0};
    int total = 0, converged = 0, clear_last = 0, saturated = 0;
    int64_t run_start = 0, run_end = 0;
    d->state = ST_WARMUP;
    while (total < m->max_samples && (d->state != ST_RUNNING || converged < 3)) {
        if (clear_last || (d->state == ST_WARMUP && total % 2 == 0)) {
            clear_last = 0;
            drv_clear(d);
        }
        for (int i = 0; i < m->sample_period; i++)
            GPUEST_TRY(drv_step(d, err));
        gpuest_progress_update(progress, (uint64_t)(total + 1));
        int lat_exc = 0, chg_exc = 0;
        int64_t span = gpuest_noc_now(d->noc) - d->reset_time;
        for (int c = 0; c < d->nclasses; c++) {
            double cur_lat = d->lat_n[c] ? d->lat_sum[c] / (double)d->lat_n[c] : 0.0;
            double cur_acc = span > 0 ? (double)d->acc_flits[c] / ((double)d->nodes * (double)span) : 0.0;
            double lchg = rel_change(cur_lat, prev_lat[c]), achg = rel_change(cur_acc, prev_acc[c]);
            prev_lat[c] = cur_lat;
            prev_acc[c] = cur_acc;
            if (m->latency_thres >= 0 && latency_with_inflight(d, c) > m->latency_thres)
                lat_exc = 1;
            if (d->state == ST_WARMUP && (lchg > m->warmup_thres || achg > m->acc_thres))
                chg_exc = 1;
        }
        if (lat_exc) {
            saturated = 1;
            fill_result(d, out, span);
            break;
        }
        if (d->state == ST_WARMUP) {
            if (m->warmup_periods > 0 ? total + 1 >= m->warmup_periods : !chg_exc) {
                clear_last = 1;
                d->state = ST_RUNNING;
                run_start = gpuest_noc_now(d->noc);
            }
        } else {
            converged++; /* BookSim tests the change thresholds only while warming up */
        }
        total++;
    }
    if (!saturated && d->state != ST_RUNNING)
        saturated = 1; /* never warmed up within max_samples */
    if (saturated) {
        if (d->state != ST_RUNNING || out->accepted_rate == 0.0)
            fill_result(d, out, gpuest_noc_now(d->noc) - d->reset_time);
        out->saturated = 1;
        out->avg_packet_latency = out->avg_network_latency = 0.0;
        return GPUEST_OK;
    }
    /* drain the packets created while measuring; traffic keeps flowing */
    run_end = gpuest_noc_now(d->noc);
    uint64_t acc[GPUEST_NOC_MAX_CLASSES];
    memcpy(acc, d->acc_flits, sizeof acc);
    d->state = ST_DRAINING;
    int64_t limit = m->drain_limit > 0 ? m->drain_limit : 20 * (int64_t)m->sample_period;
    int64_t steps = 0;
    while (d->outstanding > 0) {
        GPUEST_TRY(drv_step(d, err));
        steps++;
        if (steps % 1000 == 0) {
            for (int c = 0; c < d->nclasses; c++)
                if (m->latency_thres >= 0 && latency_with_inflight(d, c) > m->latency_thres)
                    saturated = 1;
            if (steps >= limit)
                saturated = 1;
            if (saturated)
                break;
        }
    }
    memcpy(d->acc_flits, acc, sizeof acc);
    fill_result(d, out, run_end - run_start);
    if (saturated) {
        out->saturated = 1;
        out->avg_packet_latency = out->avg_network_latency = 0.0;
    }
    return GPUEST_OK;
}

gpuest_err gpuest_noc_measure(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                              const gpuest_noc_traffic_t *traffic, const gpuest_noc_measure_cfg_t *m,
                              gpuest_progress_t *progress, gpuest_noc_result_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    out->offered_rate = traffic->rate;
    if (m->sample_period < 1 || m->max_samples < 1 || m->warmup_periods < 0)
        return gpuest_fail(err, GPUEST_ERANGE, "measurement: expected sample_period >= 1, max_samples >= 1");
    drv_t d;
    GPUEST_TRY(drv_init(&d, cfg, opts, traffic, err));
    gpuest_err rc = run_periods(&d, m, progress, out, err);
    out->sim_cycles = gpuest_noc_now(d.noc);
    drv_free(&d);
    return rc;
}

gpuest_err gpuest_noc_throughput(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                                 const gpuest_noc_traffic_t *traffic, int64_t warm, int64_t window,
                                 gpuest_noc_result_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    out->offered_rate = traffic->rate;
    if (warm < 0 || window < 1)
        return gpuest_fail(err, GPUEST_ERANGE, "throughput: expected warm >= 0 and window >= 1 cycles");
    drv_t d;
    GPUEST_TRY(drv_init(&d, cfg, opts, traffic, err));
    d.state = ST_WARMUP;
    gpuest_err rc = GPUEST_OK;
    for (int64_t i = 0; rc == GPUEST_OK && i < warm; i++)
        rc = drv_step(&d, err);
    drv_clear(&d);
    d.state = ST_RUNNING;
    for (int64_t i = 0; rc == GPUEST_OK && i < window; i++)
        rc = drv_step(&d, err);
    if (rc == GPUEST_OK) {
        fill_result(&d, out, window);
        out->sim_cycles = gpuest_noc_now(d.noc);
    }
    drv_free(&d);
    return rc;
}

/* ---------------------------------------------------------------- sweep */
static gpuest_err sweep_point(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                              const gpuest_noc_traffic_t *traffic, const gpuest_noc_measure_cfg_t *m, double rate,
                              gpuest_noc_result_t *res, gpuest_error_t *err)
{
    gpuest_noc_traffic_t t = *traffic;
    t.rate = rate;
    return gpuest_noc_measure(cfg, opts, &t, m, NULL, res, err);
}

static void insert_sorted(gpuest_noc_result_t *out, int *n, const gpuest_noc_result_t *r)
{
    int i = *n;
    while (i > 0 && out[i - 1].offered_rate > r->offered_rate) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = *r;
    (*n)++;
}

gpuest_err gpuest_noc_sweep(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                            const gpuest_noc_traffic_t *traffic, const gpuest_noc_measure_cfg_t *m, double step,
                            double max_rate, int refine, gpuest_noc_result_t *out, int cap, int *n,
                            gpuest_progress_t *progress, gpuest_error_t *err)
{
    *n = 0;
    if (step <= 0 || max_rate < step || cap < 1)
        return gpuest_fail(err, GPUEST_ERANGE, "sweep: expected step > 0, max_rate >= step, room for results");
    double lo = 0, hi = -1;
    for (int i = 1; *n < cap; i++) {
        double rate = step * i;
        if (rate > max_rate + 1e-12)
            break;
        gpuest_noc_result_t r;
        GPUEST_TRY(sweep_point(cfg, opts, traffic, m, rate, &r, err));
        insert_sorted(out, n, &r);
        gpuest_progress_update(progress, (uint64_t)*n);
        if (r.saturated) {
            hi = rate;
            break;
        }
        lo = rate;
    }
    for (int i = 0; hi > 0 && i < refine && *n < cap; i++) {
        double mid = 0.5 * (lo + hi);
        gpuest_noc_result_t r;
        GPUEST_TRY(sweep_point(cfg, opts, traffic, m, mid, &r, err));
        insert_sorted(out, n, &r);
        gpuest_progress_update(progress, (uint64_t)*n);
        if (r.saturated)
            hi = mid;
        else
            lo = mid;
    }
    return GPUEST_OK;
}
