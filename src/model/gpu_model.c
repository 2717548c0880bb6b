/* gpu_model.c: the closed queueing network of a GPU kernel phase, solved by AMVA around the open
 * NoC model (estimator-method note section 2; choices in docs/estimator.md).
 *
 * Customers are outstanding memory-request tokens: each SM holds n = min(L1 MSHRs, alpha x
 * resident warps) of them. A token cycles through
 *   ISS (per SM, issue of the instructions between two requests) -> HIT (exposed L1-hit latency,
 *   delay) -> SMINJ (per SM, request serialization at the NI) -> REQNET (surrogate delay of the
 *   request network from the open Kiasari-style model) -> L2 (per MC, tag pipeline) -> ROP (fixed
 *   L2 latency, delay) -> BANKS (per MC, Seidmann multi-server) -> BUS (per MC, data bus) ->
 *   DRAMLAT (fixed DRAM latency of misses, delay) -> COMP (compressor latency not hidden by the
 *   injection queue, delay) -> INJ (per MC reply-injection port, always explicit) -> REPNET
 *   (surrogate delay) -> SMEJ (per SM, reply ejection) -> DECOMP (delay) -> ISS ...
 * plus the two hottest links as explicit FCFS stations (HOT0, HOT1; always explicit rather than
 * promoted past a threshold, so the model stays smooth in its parameters, which the fit needs; the
 * reply surrogate excludes their service). The open model is evaluated at no more than 0.7 of its
 * saturation load (it is accurate only below saturation; Kiasari et al. validate it there).
 * Finite MC reply buffer: customers beyond mc.reply_queue + noc.inject_queue at INJ really wait
 * in the request path (the L2 stops accepting), so that part of INJ's residence is reported as
 * request latency. Every time is in core cycles.
 *
 * Two forms of customer (customer_of): with a warp profile (the v2 simulator's scoreboard) the
 * customers are the resident warps, a cycle is alpha epochs of the profile (instructions issued,
 * then one wait for a batch of reads), the batch forks over the sub-partitions and channels
 * (stations with fork > 1), an LD/ST station per SM carries the measured reservation blocking
 * scaled by the model's miss latency, and the MSHRs cap the warps waiting on memory; without a
 * profile the customers are read tokens (the pre-v2 form). docs/estimator.md, "The scoreboard
 * model". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model_int.h"

#define LINE_BYTES 128 /* ARCHITECTURE.md: 128-byte lines, the DRAM access unit */
/* Points of the tabulated surrogate curve (noc_delays): the open model's delays grow smoothly and
 * convexly up to 0.7 of its saturation load, where linear interpolation between 16 points is
 * within a fraction of a per cent of the model (checked in tests/model/test_gpu_model.c). */
#define SURR_POINTS 16
#define SURR_CAP 0.7

enum {
    ST_ISS, ST_HIT, ST_SMINJ, ST_REQNET, ST_L2, ST_ROP, ST_BANKS, ST_BUS, ST_DRAMLAT, ST_COMP, ST_INJ, ST_REPNET,
    ST_SMEJ, ST_DECOMP, ST_HOT0, ST_HOT1, ST_LDST, ST_PHAND, ST_COUNT
};

const char *const gpuest_gpu_param_names[GPUEST_GPU_PARAMS] = {"alpha", "eta", "kappa"};
const double gpuest_gpu_param_lo[GPUEST_GPU_PARAMS] = {0.01, 0.02, 0.1};
const double gpuest_gpu_param_hi[GPUEST_GPU_PARAMS] = {8.0, 1.0, 10.0};

void gpuest_gpu_params_default(gpuest_gpu_params_t *p)
{
    p->alpha = 0.5;
    p->eta = 0.5;
    p->kappa = 1.0;
}

void gpuest_gpu_params_to_vec(const gpuest_gpu_params_t *p, double *v)
{
    v[0] = p->alpha;
    v[1] = p->eta;
    v[2] = p->kappa;
}

void gpuest_gpu_params_from_vec(gpuest_gpu_params_t *p, const double *v)
{
    p->alpha = v[0];
    p->eta = v[1];
    p->kappa = v[2];
}

void gpuest_model_transform_identity(gpuest_model_transform_t *t) { memset(t, 0, sizeof *t); }

double gpuest_model_reply_flits(const gpuest_model_transform_t *t, int uncompressed_flits)
{
    if (!t)
        return uncompressed_flits;
    double w = 0.0, s = 0.0;
    for (int f = 1; f <= GPUEST_MODEL_MAX_FLITS; f++) {
        w += t->reply_flit_hist[f];
        s += t->reply_flit_hist[f] * f;
    }
    return w > 0.0 ? s / w : (double)uncompressed_flits;
}

/* Second moment of reply flits (for the injection port's service SCV). */
static double reply_flits_m2(const gpuest_model_transform_t *t, int uncompressed_flits)
{
    double w = 0.0, s = 0.0;
    for (int f = 1; t && f <= GPUEST_MODEL_MAX_FLITS; f++) {
        w += t->reply_flit_hist[f];
        s += t->reply_flit_hist[f] * f * f;
    }
    return w > 0.0 ? s / w : (double)uncompressed_flits * uncompressed_flits;
}

struct gpuest_gpu_model_s {
    gpuest_config_t cfg;
    gpuest_config_t net_cfg;    /* the network's view: one MC node per memory sub-partition */
    int req_flits, rep_flits;   /* uncompressed packet lengths */
    double icnt, l2c, dramc;    /* core cycles per interconnect / L2 / DRAM cycle */
    /* the open NoC model, rebuilt when the (rounded) reply length or the write share changes */
    gpuest_model_noc_t *noc;
    int noc_rep_flits, noc_write_flits;
    double noc_write_fraction;
    double sat_scale, sat_kappa; /* cached saturation scale for one kappa */
    double hot_load[2];          /* flits per cycle on the two hottest links at scale 1 */
    /* the open model's request and reply delays (interconnect cycles) tabulated over scales
     * 0 .. 0.7 x sat_scale for kappa table_kappa (see noc_delays) */
    double table_req[SURR_POINTS], table_rep[SURR_POINTS];
    double table_kappa;
    /* the previous kappa's saturation scale, hot-link capacity and curve, kept for a swap: an
     * estimate's interval alternates between the fitted kappa and kappa + h */
    struct {
        double kappa, sat_scale, hot_capacity;
        double req[SURR_POINTS], rep[SURR_POINTS];
    } alt;
    double link_sum;             /* summed load of the links that carry traffic, and their count */
    int link_used;
    double hot_capacity;         /* utilisation of the hottest link when the open model saturates: its
                                    usable share after head-of-line and allocation losses */
    double cap_scale;            /* the open model's saturation scale at its default constants (0: not yet) */
    /* models of the same machine for kernel phases 1.. (phases.c): each phase keeps the open NoC model
     * of its own write share and reply length instead of rebuilding this one at every switch */
    struct gpuest_gpu_model_s *phase_kid[GPUEST_MODEL_MAX_PHASES];
    /* the open model's remote-L1 probe class (probe_traffic.c): probe packets per SM per cycle at
     * scale 1 (0: no class) and its shape */
    double noc_probe_rate;
    int noc_probe_index;
    /* A retargeted model answers as a fresh one (the batch's promise) only with an open model whose
     * saturation searches started as a fresh model's do. noc_hinted: the current open model was
     * built while the last one's saturation scale bracketed its first search (a rebuild inside one
     * estimate: a technique's write share or reply length); new_point: retargeted, and no open
     * model asked for since (ensure_noc). */
    int noc_hinted, new_point;
};

gpuest_err gpuest_gpu_model_for_phase(gpuest_gpu_model_t *m, int k, gpuest_gpu_model_t **out, gpuest_error_t *err)
{
    *out = m;
    if (k <= 0)
        return GPUEST_OK;
    if (k >= GPUEST_MODEL_MAX_PHASES)
        return gpuest_fail(err, GPUEST_EINVAL, "phase %d: at most %d phases", k, GPUEST_MODEL_MAX_PHASES);
    if (!m->phase_kid[k])
        GPUEST_TRY(gpuest_gpu_model_create(&m->cfg, &m->phase_kid[k], err));
    *out = m->phase_kid[k];
    return GPUEST_OK;
}

gpuest_err gpuest_gpu_model_create(const gpuest_config_t *cfg, gpuest_gpu_model_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (cfg->core.num_sms <= 0 || cfg->mc.num_mcs <= 0 || cfg->core.clock_mhz <= 0 || cfg->noc.clock_mhz <= 0 ||
        cfg->l2.clock_mhz <= 0 || cfg->dram.clock_mhz <= 0)
        return gpuest_fail(err, GPUEST_EINVAL, "GPU model: SMs, MCs and every clock must be positive");
    gpuest_gpu_model_t *m = calloc(1, sizeof *m);
    if (!m)
        return gpuest_fail(err, GPUEST_ENOMEM, "GPU model: out of memory");
    m->cfg = *cfg;
    /* Each memory sub-partition has its own L2 bank and network port (the simulator's crossbar
     * gives it a port after the SMs'); the DRAM channel is shared by the channel's sub-partitions.
     * The open NoC model therefore sees channels x sub-partitions MC nodes. */
    m->net_cfg = *cfg;
    if (cfg->mc.sub_partitions > 1 && cfg->noc.topology == GPUEST_TOPO_CROSSBAR) {
        m->net_cfg.mc.num_mcs = cfg->mc.num_mcs * cfg->mc.sub_partitions;
        m->net_cfg.mc.sub_partitions = 1;
    }
    gpuest_model_gpu_packet_flits(cfg, &m->req_flits, &m->rep_flits);
    m->icnt = cfg->core.clock_mhz / cfg->noc.clock_mhz;
    m->l2c = cfg->core.clock_mhz / cfg->l2.clock_mhz;
    m->dramc = cfg->core.clock_mhz / cfg->dram.clock_mhz;
    m->noc_rep_flits = -1;
    *out = m;
    return GPUEST_OK;
}

int gpuest_gpu_model_retarget(gpuest_gpu_model_t *m, const gpuest_config_t *cfg)
{
    /* the open NoC model reads the core, MC and network sections and the line size */
    if (memcmp(&m->cfg.core, &cfg->core, sizeof cfg->core) != 0 || memcmp(&m->cfg.mc, &cfg->mc, sizeof cfg->mc) != 0 ||
        memcmp(&m->cfg.noc, &cfg->noc, sizeof cfg->noc) != 0 || m->cfg.l2.line_bytes != cfg->l2.line_bytes ||
        cfg->l2.clock_mhz <= 0 || cfg->dram.clock_mhz <= 0)
        return 0;
    gpuest_config_t net = m->net_cfg;
    m->cfg = *cfg;
    net.l1 = cfg->l1;
    net.l2 = cfg->l2;
    net.dram = cfg->dram;
    net.technique = cfg->technique;
    m->net_cfg = net;
    m->l2c = cfg->core.clock_mhz / cfg->l2.clock_mhz;
    m->dramc = cfg->core.clock_mhz / cfg->dram.clock_mhz;
    m->new_point = 1;
    for (int k = 0; k < GPUEST_MODEL_MAX_PHASES; k++)
        if (m->phase_kid[k])
            gpuest_gpu_model_retarget(m->phase_kid[k], cfg); /* the same network: always retargets */
    return 1;
}

void gpuest_gpu_model_destroy(gpuest_gpu_model_t *m)
{
    if (!m)
        return;
    gpuest_model_noc_destroy(m->noc);
    for (int k = 0; k < GPUEST_MODEL_MAX_PHASES; k++)
        gpuest_gpu_model_destroy(m->phase_kid[k]);
    free(m);
}

/* The two busiest output ports at scale 1 (all classes), excluding ejection into SMs, which
 * the SMEJ station already represents. */
static void find_hot_links(gpuest_gpu_model_t *m)
{
    m->hot_load[0] = m->hot_load[1] = 0.0;
    int routers = gpuest_model_noc_num_routers(m->noc), ports = gpuest_model_noc_num_ports(m->noc);
    int mesh = m->cfg.noc.topology == GPUEST_TOPO_MESH;
    double width = mesh ? 1.0 : (m->cfg.noc.xbar_port_flits > 1 ? m->cfg.noc.xbar_port_flits : 1);
    for (int r = 0; r < routers; r++)
        for (int p = 0; p < ports; p++) {
            if (mesh && p == GPUEST_NET_PORT_LOCAL)
                continue;
            double l = gpuest_model_noc_port_load(m->noc, r, p, -1) / width;
            if (l > m->hot_load[0]) {
                m->hot_load[1] = m->hot_load[0];
                m->hot_load[0] = l;
            } else if (l > m->hot_load[1]) {
                m->hot_load[1] = l;
            }
        }
}

/* The open NoC model of the reply length, write length and write share (kept while the share moves
 * by less than 1e-3). The first one a retargeted model's estimate asks for is what a fresh model
 * would build: the kept one only when it has exactly these inputs and its searches started from
 * nothing (not noc_hinted), else a new one whose first search starts from nothing too (sat_scale
 * 0). The remote-L1 probe class (probes per SM per cycle, its shape) is an input like the others.
 * Later rebuilds inside one estimate start from the last scale, as on a fresh model. */
static gpuest_err ensure_noc(gpuest_gpu_model_t *m, int rep_flits, int write_flits, double wf, double probes,
                             int probe_index, gpuest_error_t *err)
{
    int first = m->new_point;
    m->new_point = 0;
    if (m->noc && m->noc_rep_flits == rep_flits && m->noc_write_flits == write_flits &&
        fabs(m->noc_write_fraction - wf) < 1e-3 && fabs(m->noc_probe_rate - probes) <= 1e-6 * probes &&
        (probes == 0 || m->noc_probe_index == probe_index) &&
        !(first && (m->noc_hinted || m->noc_write_fraction != wf || m->noc_probe_rate != probes)))
        return GPUEST_OK;
    if (first)
        m->sat_scale = 0.0;
    m->noc_hinted = m->sat_scale > 0;
    gpuest_model_noc_destroy(m->noc);
    m->noc = NULL;
    gpuest_model_pattern_t p;
    GPUEST_TRY(gpuest_model_pattern_init(&p, "gpu", err));
    p.request_flits = m->req_flits;
    p.reply_flits = rep_flits;
    p.write_fraction = wf;
    p.write_flits = write_flits;
    gpuest_model_traffic_t t;
    GPUEST_TRY(gpuest_model_traffic_build(&t, &p, &m->net_cfg, 1.0, err));
    gpuest_err rc = probes > 0 ? gpuest_model_traffic_add_probes(&t, &m->net_cfg, probes, probe_index, m->req_flits, err)
                               : GPUEST_OK;
    if (rc == GPUEST_OK)
        rc = gpuest_model_noc_create(&m->net_cfg, &t, &m->noc, err);
    gpuest_model_traffic_free(&t);
    if (rc != GPUEST_OK)
        return rc;
    m->noc_rep_flits = rep_flits;
    m->noc_write_flits = write_flits;
    m->cap_scale = 0.0;
    m->noc_write_fraction = wf;
    m->noc_probe_rate = probes;
    m->noc_probe_index = probe_index;
    m->sat_kappa = -1.0;
    m->table_kappa = -1.0;
    m->alt.kappa = -1.0;
    find_hot_links(m);
    m->link_sum = 0.0;
    m->link_used = 0;
    int routers = gpuest_model_noc_num_routers(m->noc), ports = gpuest_model_noc_num_ports(m->noc);
    for (int rt = 0; rt < routers; rt++)
        for (int pt = 0; pt < ports; pt++) {
            double l = gpuest_model_noc_port_load(m->noc, rt, pt, -1);
            if (l > 0.0) {
                m->link_sum += l;
                m->link_used++;
            }
        }
    return GPUEST_OK;
}

/* Saturation scale of the open model: the root of its largest utilisation minus one
 * (gpuest_model_noc_saturation_root: a bracketing secant search with warm-started evaluations),
 * from 0 .. the scale at which the hottest link carries one flit per cycle (saturated whatever the
 * waits; widened for wider crossbar ports), or from a bracket of +-0.4 SAT_REL_TOL around the last
 * kappa's scale when one was solved (fit, interval derivatives; a link at capacity leaves the
 * scale unchanged, and the search steps out when it moved). The bracket ends narrower than
 * SAT_REL_TOL, relative: the interval's kappa derivative (1 % steps) needs it; at 1e-5 its
 * bounds moved by up to 0.3 % of the estimate. It replaced a bisection on the saturated flag (16
 * halvings with 60-sweep probes from zero, 10 from a +-10 % bracket, 2e-5 and 4e-5 resolution:
 * the interval's derivative carried that error; docs/estimator.md, "Estimator speed"). The first
 * solve of a kappa at or above the default constant searches below the capacity scale (more
 * contention saturates no later), which halves the extra cost of the capacity root. */
#define SAT_REL_TOL 1e-6

/* The scale at which the open model saturates with its own contention constants
 * (gpuest_model_params_default, the ones it was validated with against the cycle-level NoC), which
 * sets the hot links' usable capacity. Not at the fitted kappa: the fit raises kappa to lengthen the
 * network's delays at the calibrated machine, where the MC injection ports saturate first and kappa
 * leaves the saturation point alone; on a network whose links or VCs saturate first (YX requests
 * along the MC row, diamond placement, two VCs) the same kappa moved the saturation point far below
 * the cycle-level NoC's (docs/estimator.md, "NoC structure points on mesh56"). */
static gpuest_err capacity_scale(gpuest_gpu_model_t *m, gpuest_error_t *err)
{
    gpuest_model_params_t q;
    gpuest_model_params_default(&q);
    return gpuest_model_noc_saturation_root(m->noc, &q, 0.0, 1.0 / m->hot_load[0], SAT_REL_TOL, &m->cap_scale, NULL,
                                            err);
}

static gpuest_err saturation_scale(gpuest_gpu_model_t *m, const gpuest_model_params_t *pp, gpuest_error_t *err)
{
    if (!(m->hot_load[0] > 0))
        return gpuest_fail(err, GPUEST_EINVAL, "GPU model: the network carries no traffic");
    if (!(m->cap_scale > 0)) /* once per open model: it does not depend on kappa */
        GPUEST_TRY(capacity_scale(m, err));
    double lo = 0.0, hi = 1.0 / m->hot_load[0];
    gpuest_model_params_t def;
    gpuest_model_params_default(&def);
    if (m->sat_scale > 0) { /* a nearby kappa's scale: often the root already (a link at capacity) */
        lo = (1.0 - 0.4 * SAT_REL_TOL) * m->sat_scale;
        hi = (1.0 + 0.4 * SAT_REL_TOL) * m->sat_scale;
    } else if (pp->kappa >= def.kappa) { /* more contention saturates no later */
        hi = (1.0 + SAT_REL_TOL) * m->cap_scale;
    }
    GPUEST_TRY(gpuest_model_noc_saturation_root(m->noc, pp, lo, hi, SAT_REL_TOL, &m->sat_scale, NULL, err));
    m->hot_capacity = m->hot_load[0] * m->cap_scale;
    if (m->hot_capacity > 1.0)
        m->hot_capacity = 1.0;
    if (m->hot_capacity < 0.2)
        m->hot_capacity = 0.2;
    return GPUEST_OK;
}

/* Mean delay of the request (classes 0, 2) or reply (1, 3) classes, weighted by their packets;
 * with the zero-load pipeline alone when zero_only (the curve's first point, where no packet flows
 * and the weights are the rates' shares, the same at every scale). */
static double class_delay(const gpuest_model_result_t *r, int reply, int zero_only)
{
    double wd = 0.0, w = 0.0;
    for (int c = 0; c < r->num_classes; c++)
        if ((c == 1 || c == 3) == reply) {
            wd += r->cls[c].packets * (r->cls[c].zero_load + (zero_only ? 0.0 : r->cls[c].hop_wait));
            w += r->cls[c].packets;
        }
    return w > 0 ? wd / w : 0.0;
}

/* The surrogate curve: the open model's mean request and reply delays (zero-load pipeline + hop
 * waits, interconnect cycles; the NI source queues and the MC reply queue are explicit stations)
 * at SURR_POINTS scales evenly spread over 0 .. SURR_CAP x the saturation scale, for one kappa: the
 * outer loop of the closed model interpolates on it instead of evaluating the open model at every
 * iteration. It is filled on demand (table_point): the outer loop reads only the points around the
 * scales it passes through (past 0.7 of saturation: the first two and the last two), and each
 * point is the open model's fixed point at its scale, evaluated from zero, whichever points were
 * read before it. An uncomputed point is NaN, so the kept second kappa's curve (alt) carries its
 * gaps along. */
static void build_table(gpuest_gpu_model_t *m)
{
    for (int j = 0; j < SURR_POINTS; j++)
        m->table_req[j] = m->table_rep[j] = NAN;
}

static gpuest_err table_point(gpuest_gpu_model_t *m, const gpuest_model_params_t *pp, int j, gpuest_error_t *err)
{
    if (!isnan(m->table_req[j]))
        return GPUEST_OK;
    if (j == 0) /* scale 0: the zero-load delays, weighted by the rates of any other point */
        return table_point(m, pp, 1, err);
    double sc = SURR_CAP * m->sat_scale * j / (SURR_POINTS - 1);
    gpuest_model_result_t r;
    /* from zero, not warm: a point must not depend on which points were read before it (a batch's
     * later points read points its earlier ones left; bit-identical to a single estimate) */
    gpuest_err rc = gpuest_model_noc_eval(m->noc, sc, pp, &r, err);
    if (rc != GPUEST_OK && rc != GPUEST_ESATURATED)
        return rc;
    m->table_req[j] = class_delay(&r, 0, 0);
    m->table_rep[j] = class_delay(&r, 1, 0);
    if (isnan(m->table_req[0])) {
        m->table_req[0] = class_delay(&r, 0, 1);
        m->table_rep[0] = class_delay(&r, 1, 1);
    }
    return GPUEST_OK;
}

/* Surrogate delays (core cycles) of the request and reply networks at `scale` (capped at SURR_CAP
 * of the open model's saturation), by linear interpolation on the surrogate curve. */
static gpuest_err noc_delays(gpuest_gpu_model_t *m, double scale, double kappa, double *d_req, double *d_rep,
                             double *link_mean, gpuest_error_t *err)
{
    gpuest_model_params_t pp;
    gpuest_model_params_default(&pp);
    pp.kappa *= kappa;
    if (m->sat_kappa != kappa || m->table_kappa != kappa) {
        if (m->alt.kappa == kappa && m->sat_kappa == m->table_kappa) { /* swap with the kept one */
            double ks = m->sat_kappa, ss = m->sat_scale, hc = m->hot_capacity, rq[SURR_POINTS], rp[SURR_POINTS];
            memcpy(rq, m->table_req, sizeof rq);
            memcpy(rp, m->table_rep, sizeof rp);
            m->sat_scale = m->alt.sat_scale;
            m->hot_capacity = m->alt.hot_capacity;
            memcpy(m->table_req, m->alt.req, sizeof rq);
            memcpy(m->table_rep, m->alt.rep, sizeof rp);
            m->alt.kappa = ks;
            m->alt.sat_scale = ss;
            m->alt.hot_capacity = hc;
            memcpy(m->alt.req, rq, sizeof rq);
            memcpy(m->alt.rep, rp, sizeof rp);
        } else {
            if (m->sat_kappa == m->table_kappa && m->sat_kappa > 0) { /* keep the current one */
                m->alt.kappa = m->sat_kappa;
                m->alt.sat_scale = m->sat_scale;
                m->alt.hot_capacity = m->hot_capacity;
                memcpy(m->alt.req, m->table_req, sizeof m->alt.req);
                memcpy(m->alt.rep, m->table_rep, sizeof m->alt.rep);
            }
            m->sat_kappa = m->table_kappa = -1.0;
            GPUEST_TRY(saturation_scale(m, &pp, err));
            build_table(m);
        }
        m->sat_kappa = m->table_kappa = kappa;
    }
    double cap = SURR_CAP * m->sat_scale;
    double u = scale < cap ? scale / cap * (SURR_POINTS - 1) : (double)(SURR_POINTS - 1);
    int j = (int)u;
    if (j > SURR_POINTS - 2)
        j = SURR_POINTS - 2;
    double f = u - j;
    GPUEST_TRY(table_point(m, &pp, j, err));
    GPUEST_TRY(table_point(m, &pp, j + 1, err));
    *d_req = (m->table_req[j] + f * (m->table_req[j + 1] - m->table_req[j])) * m->icnt;
    *d_rep = (m->table_rep[j] + f * (m->table_rep[j + 1] - m->table_rep[j])) * m->icnt;
    /* mean load over links that carry traffic, at the real (uncapped) scale */
    *link_mean = m->link_used ? m->link_sum / m->link_used * scale : 0.0;
    return GPUEST_OK;
}

/* DRAM command cycles a 128-byte line holds the channel's data bus: the bus moves
 * chips_per_channel x chip_bytes bytes per transfer and data_rate transfers per command cycle
 * (dram.c: burst_length x chip_bytes x chips bytes per column command in burst_length /
 * data_rate command cycles). GTX480: 2 x 4 x 4 = 32 bytes per cycle, 4 cycles a line. */
static double line_bus_cycles(const gpuest_config_t *c)
{
    double bpc = (double)c->dram.chips_per_channel * c->dram.chip_bytes * c->dram.data_rate;
    return (double)LINE_BYTES / (bpc > 0 ? bpc : 32.0);
}

/* Data-bus cycles per DRAM access (DRAM command cycles): the line's bursts plus the bus's idle
 * time at read/write turnarounds (dram.c, GPGPU-Sim's derived gaps): a read after a write waits
 * tWTR = WL + burst + tCDLR from the write, so the bus idles tCDLR + tCL; a write after a read waits
 * tRTW = tCL + burst + 2 - WL, an idle of 2. Turns alternate direction, so half of them are each
 * kind. turns: turnarounds per access, measured (the simulator counts them; FR-FCFS orders by row
 * hits, not by direction, and how often the direction changes depends on how the workload's
 * write-backs and reads meet in a channel, which no write share alone gives); 0: bursts only. */
static double bus_cycles_per_access(const gpuest_config_t *c, double turns)
{
    turns = turns < 0 ? 0 : turns;
    return line_bus_cycles(c) + 0.5 * turns * (c->dram.tCDLR + c->dram.tCL + 2.0);
}

/* The replicas a batch of rm reads spreads over at per-MC stations whose stream is concentrated
 * conc times (channel_concentration at the DRAM stations, slice_concentration at the L2 and its
 * reply ports): the replicas / conc busy ones hold the batch, so with the demand scaled by conc the
 * part of the batch each serves is that of rm reads on replicas / conc of them: conc min(rm,
 * replicas / conc) = min(rm conc, replicas) (the solver serves a fork of 1 or less one request at
 * a time). conc = 1: min(rm, replicas), the uniform spread. */
static double busy_fork(double rm, double conc, int replicas)
{
    double f = rm * conc;
    return f < replicas ? f : (double)replicas;
}

/* Bank occupancy per DRAM access and its SCV (row hits: one burst; misses: precharge + activate
 * + burst); DRAM cycles. */
static void bank_service(const gpuest_config_t *c, double row_hit, double *mean, double *scv)
{
    double burst = line_bus_cycles(c);
    if (burst < c->dram.tCCD)
        burst = c->dram.tCCD;
    double hit = burst, miss = c->dram.tRP + c->dram.tRCD + burst;
    double m1 = row_hit * hit + (1 - row_hit) * miss, m2 = row_hit * hit * hit + (1 - row_hit) * miss * miss;
    *mean = m1;
    *scv = m1 > 0 ? m2 / (m1 * m1) - 1.0 : 0.0;
}

static double clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

/* MC stall ratio: P(N > K) for the number N of replies waiting at one MC (reply queue + NI
 * queue, at most B), K = the replies the NI's flit capacity holds (mc_port.c). N takes the
 * truncated-geometric distribution on 0..B (the maximum-entropy law for a given mean; M/M/1/B's
 * form) whose mean is the closed model's reply-side queue per MC, capped just below B
 * (stall_ratio.c). */

/* The reply network's surrogate delay without the hot links' own service (they are explicit). */
static double rep_surrogate(double d_rep, const gpuest_amva_station_t *st, double reads)
{
    double d = d_rep - (st[ST_HOT0].demand + st[ST_HOT1].demand) / reads;
    return d > 0 ? d : 0.0;
}

/* Background (write) utilisation inflates a station's demand for the closed class: the mixed-
 * network rule D / (1 - U_open) (Lazowska et al. 1984, ch. 7). */
static double inflate(double d, double u_open) { return d / (1.0 - (u_open < 0.95 ? u_open : 0.95)); }

/* The customer of the closed network and what one of its cycles carries (docs/estimator.md). */
typedef struct {
    double n;    /* customers per SM */
    double insts; /* warp instructions issued per customer cycle */
    double reads; /* read requests sent to the MCs per customer cycle */
    double pm;    /* probability that a cycle waits on the memory system (at least one L1 miss) */
    double rm;    /* reads per memory wait: reads / pm (>= 1), the batch the warp waits for */
    double dep;   /* own-warp waits on compute results per cycle (delay) */
    double hit;   /* exposed L1-hit latency per cycle (delay) */
} customer_t;

/* Scoreboard model (v2 simulator; the workload has a warp profile): the customers are the resident
 * warps; a cycle is alpha epochs of the profile (alpha = 1: the loads of one epoch return together,
 * as the walk assumes; > 1: a warp also overlaps the next epoch's loads). Its reads follow from the
 * measured instructions per read. It waits on memory unless all its line requests hit the L1
 * (h1^lines, independent hits), and then for its whole batch; an all-hit epoch costs the L1 hit
 * latency; the closed network hides both behind the other warps' issue, so no latency-tolerance
 * term is needed. Token model (no profile, pre-v2): customers are alpha x warps read tokens, one
 * read each, the exposed hit latency by LATTE-CC eq. 2 and 4. */
static void customer_of(const gpuest_config_t *c, const gpuest_model_workload_t *w, const gpuest_gpu_params_t *p,
                        double ipr, double wpr, double hit_lat, customer_t *k)
{
    /* a phase whose work sits on a few warps runs with that few (phases.c) */
    double act = w->active_warps > 0 ? w->active_warps : 0.0;
    if (w->insts_per_epoch > 0 && w->resident_warps > 0) {
        k->n = act > 0 && act < w->resident_warps ? act : w->resident_warps;
        k->insts = p->alpha * w->insts_per_epoch;
        k->reads = k->insts / ipr;
        double q = p->alpha * w->lines_per_epoch, h1 = clamp01(w->l1_hit_rate);
        double pm = q > 0 ? 1.0 - pow(h1, q) : 0.0, cap = k->reads < 1.0 ? k->reads : 1.0;
        pm = pm > cap ? cap : pm; /* at least one read per memory wait */
        k->pm = pm > 1e-9 ? pm : 1e-9;
        k->rm = k->reads / k->pm > 1.0 ? k->reads / k->pm : 1.0;
        k->dep = p->alpha * w->dep_per_epoch;
        k->hit = (1.0 - k->pm) * hit_lat;
        return;
    }
    double lt = w->avail_warps * w->cycles_per_schedule; /* latency tolerance, LATTE-CC eq. 4 */
    double exposed_hit = hit_lat - lt > 0 ? hit_lat - lt : 0.0;
    double slots = act > 0 && act < c->core.warps_per_sm ? act : c->core.warps_per_sm;
    k->n = c->l1.mshrs > 0 && p->alpha * slots > c->l1.mshrs ? c->l1.mshrs : p->alpha * slots;
    k->insts = ipr;
    k->reads = 1.0;
    k->pm = 1.0;
    k->rm = 1.0;
    k->dep = 0.0;
    k->hit = w->hits_per_request * (1 + wpr) * exposed_hit;
}

/* Mean time of one request of a batch at a station (per memory wait): the batch's residence less
 * the part of its own service that a request does not wait for. A batch of b requests served one
 * after another at one server finishes after b services, its mean request after (b + 1) / 2. */
static double per_request(const gpuest_amva_station_t *s, double r, const customer_t *k)
{
    double t = r;
    if (s->kind == GPUEST_ST_QUEUE) {
        double f = s->fork > 1.0 ? s->fork : 1.0, b = k->rm / f;
        if (b > 1.0)
            t -= s->demand / f * (b - 1.0) / (2.0 * b);
    }
    return t / k->pm;
}

/* A read's miss latency (request + memory + reply) at the current solution. */
static double miss_of(const gpuest_amva_station_t *st, const gpuest_amva_result_t *a, const customer_t *k)
{
    double sum = 0.0;
    for (int i = ST_SMINJ; i <= ST_HOT1; i++)
        sum += per_request(&st[i], a->r[i], k);
    return sum;
}

/* LD/ST occupancy per read: one cycle per line request it handles (loads and stores), plus the
 * cycles it is blocked by reservation failures, measured at miss latency block_miss_latency and
 * scaled to the model's miss latency (a reserved way or MSHR stays taken for one miss). */
static double ldst_demand(const gpuest_model_workload_t *w, double lines_per_read, double wpr, double miss)
{
    double blk = w->ldst_block_per_read;
    if (blk > 0 && w->block_miss_latency > 0)
        blk *= miss / w->block_miss_latency;
    return lines_per_read + wpr + blk;
}

/* Read misses x s (s > 0): per request sent, reads are (1 - wf), writes wf; after, the requests
 * per request before are D = (1 - wf) s + wf, so instructions, writes and DRAM accesses per request
 * and writes per request divide by D; DRAM accesses per request are kept (the removed misses are
 * taken to reach DRAM as the others do); each removed miss becomes an L1 hit. */
static void l1_fewer_misses(gpuest_model_workload_t *w, double s)
{
    double wf = w->write_fraction < 0 ? 0 : (w->write_fraction > 0.95 ? 0.95 : w->write_fraction);
    double d = (1.0 - wf) * s + wf;
    w->hits_per_request = (w->hits_per_request + (1.0 - wf) * (1.0 - s)) / d;
    w->insts_per_request /= d;
    w->write_fraction = wf / d;
    w->l1_hit_rate = 1.0 - (1.0 - clamp01(w->l1_hit_rate)) * s;
}

double gpuest_gpu_model_hit_latency(const gpuest_gpu_model_t *m) { return m->cfg.l1.hit_latency; }
int gpuest_gpu_model_sms(const gpuest_gpu_model_t *m) { return m->cfg.core.num_sms; }

void gpuest_gpu_model_l1_rates(const gpuest_gpu_model_t *m, const gpuest_model_workload_t *w, double s,
                               const gpuest_gpu_estimate_t *est, double *hits, double *reads)
{
    gpuest_model_workload_t x = *w;
    if (s > 0)
        l1_fewer_misses(&x, s);
    int sms = m->cfg.core.num_sms > 0 ? m->cfg.core.num_sms : 1;
    double per_req = x.insts_per_request > 0 ? est->warp_ipc / sms / x.insts_per_request : 0.0;
    double wf = x.write_fraction < 0 ? 0 : (x.write_fraction > 0.95 ? 0.95 : x.write_fraction);
    *hits = per_req * x.hits_per_request;
    *reads = per_req * (x.hits_per_request + (1.0 - wf)); /* hits and read misses */
}

/* The step of a damped fixed-point update x += 0.5 step (g(x) - x) (solve's scoreboard feedbacks):
 * halved when the residual g(x) - x changes sign (the last update overshot), grown by a tenth up
 * to SIGN_STEP_MAX while it keeps its sign. Above 2 the update over-relaxes: a feedback whose map is
 * nearly flat (the MSHR cap of fermi spmv: g' ~ 0.9, the half step contracts by 0.95 an iteration
 * and reached the 100-iteration cap 1e-4 short) converges in tens of iterations; an overshoot flips
 * the residual's sign and halves the step again. The growth is slow so that a cycle shrinks: the
 * iteration can cycle through the open model's saturation (mesh56 hotspot near alpha 8: about nine
 * iterations a turn, two sign changes), and at a growth of a quarter 1.25^7 / 4 > 1 kept it going
 * until the cap; 1.1^7 / 4 < 1 damps it. */
#define SIGN_STEP_MAX 4.0
typedef struct {
    double step, last_sign;
} sign_step_t;

static double sign_step(sign_step_t *s, double residual)
{
    double sign = residual > 0 ? 1.0 : (residual < 0 ? -1.0 : 0.0);
    if (sign != 0 && s->last_sign != 0)
        s->step = sign != s->last_sign ? 0.5 * s->step : (1.1 * s->step < SIGN_STEP_MAX ? 1.1 * s->step : SIGN_STEP_MAX);
    if (sign != 0)
        s->last_sign = sign;
    return s->step;
}

gpuest_err gpuest_gpu_model_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                  const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                  gpuest_gpu_estimate_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    const gpuest_config_t *c = &m->cfg;
    if (t && t->l1c_rule != GPUEST_MODEL_L1C_STATIC) /* an adaptive policy: its rule over static candidates */
        return gpuest_model_l1c_solve(m, w, t, p, out, err);
    if (t && t->l1_merge_windows > 0) /* a WarpPool: its occupancy, then its merging */
        return gpuest_model_warppool_solve(m, w, t, p, out, err);
    if (t && t->l1_dq_latency > 0) /* a compressed L1's decompression queue: its wait to a fixed point */
        return gpuest_model_l1c_queue_solve(m, w, t, p, out, err);
    /* Compressed L1 (t->l1_miss_scale, t->l1_hit_extra_latency): a lower read miss rate and a
     * longer hit; the token model's latency tolerance (eq. 4) then hides what it can of the hit. */
    gpuest_model_workload_t wl1;
    if (t && t->l1_miss_scale > 0) {
        wl1 = *w;
        l1_fewer_misses(&wl1, t->l1_miss_scale);
        w = &wl1;
    }
    double hit_lat = c->l1.hit_latency + (t ? t->l1_hit_extra_latency : 0.0);
    /* What a hit costs a warp in the closed network. The scoreboard model hides the base hit
     * latency behind the other warps' issue, as calibrated; of the latency a technique adds, only
     * what exceeds the SM's latency tolerance (LATTE-CC eq. 4, measured with the workload) is
     * charged (AMAT_GPU, eq. 2), once per epoch that ends on L1 hits (below). The token model
     * applies its own eq. 4 to the whole hit. */
    double hit_charge = hit_lat, extra_exposed = 0.0;
    int profile = w->insts_per_epoch > 0 && w->resident_warps > 0;
    if (t && profile) {
        hit_charge = c->l1.hit_latency;
        extra_exposed = gpuest_model_exposed_extra(t->l1_hit_extra_latency, w->avail_warps * w->cycles_per_schedule);
    }
    if (!(w->insts_per_request > 0) || !isfinite(w->insts_per_request))
        return gpuest_fail(err, GPUEST_EINVAL, "GPU model: instructions per request must be > 0 (got %g)",
                           w->insts_per_request);
    if (!(p->alpha > 0) || !(p->eta > 0) || !(p->kappa > 0))
        return gpuest_fail(err, GPUEST_EINVAL, "GPU model: alpha, eta and kappa must be > 0");
    int S = c->core.num_sms, M = c->mc.num_mcs; /* M: DRAM channels */
    int P = M * (c->mc.sub_partitions > 1 ? c->mc.sub_partitions : 1); /* memory sub-partitions */
    double wf = w->write_fraction < 0 ? 0 : (w->write_fraction > 0.95 ? 0.95 : w->write_fraction);
    double h2 = clamp01(w->l2_hit_rate);
    /* Reads are what a warp waits for (not its stores); writes are an open background class riding
     * at wpr writes per read. */
    double wpr = wf / (1 - wf);
    double rep_mean = gpuest_model_reply_flits(t, m->rep_flits), rep_m2 = reply_flits_m2(t, m->rep_flits);
    /* Remote-L1 probing (technique_int.h, probing_model.c): reads a remote L1 serves skip the L2,
     * DRAM and MC reply port (mem_keep); those that cross the network (a probe out, the data back
     * from the supplier SM) keep the request/reply transit delays, PP's oracle skips them
     * (net_keep); probes and NACKs load the SMs' injection ports; failed probes add request-network
     * traversals. The open NoC model carries the MC-injected replies only, x mem_keep as the coalescing
     * saving (the SM-to-SM probe and data packets are not on its links). */
    double rs = t ? clamp01(t->remote_read_share) : 0.0, mem_keep = 1.0 - rs;
    double rnet = t ? clamp01(t->remote_net_share) : 0.0, net_keep = 1.0 - rs * (1.0 - rnet);
    double probe_trips = t && t->probe_extra_trips > 0 ? t->probe_extra_trips : 0.0;
    /* With probe_trip_scale set, the probes' traversals (SM to SM) are priced apart from the
     * requests': at the request network's zero-load SM-to-MC delay x the scale (their hops against
     * a request's). A probe does not queue for the MC-bound links and ports whose load makes up most
     * of the loaded delay d_req; its own load on the SM-to-SM paths is left out. */
    double probe_zl = 0.0;
    if (t && t->probe_trip_scale > 0) {
        probe_zl = probe_trips * t->probe_trip_scale;
        probe_trips = 0.0;
    }
    /* PCU coalescing (t->reply_packets_saved): one L2 access, one reply injection and, on the
     * multicast tree's trunk from the MC, one packet per group of reads. The open network model
     * carries the replies' flits per read x (1 - saved) (exact on the trunk's links next to the
     * MC, where the hot links of an MC-bound mesh are; an upper bound of the saving further out);
     * a reply is still rep_mean flits long, so the serialization the shorter modelled packet
     * leaves out is added back to the reply network's delay. */
    double rep_keep = t ? 1.0 - clamp01(t->reply_packets_saved) : 1.0;
    /* LA-LLC: L2 read hits forwarded to a last reader that holds the line (fwd: the MC injects no
     * reply, the sharer's SM does) or no longer does (back: the read returns to its L2) */
    double fwd = t ? clamp01(h2 * t->llc_fwd_hold) : 0.0, back = t ? clamp01(h2 * t->llc_fwd_gone) : 0.0;
    double l2_keep = rep_keep + back; /* a forward is still an L2 access; a return is one more */
    rep_keep *= 1.0 - fwd;
    int noc_rep = (int)lround(rep_mean * rep_keep * mem_keep);
    noc_rep = noc_rep < 1 ? 1 : noc_rep;
    /* a write request carries the sectors its store wrote (0 measured: a full line) */
    double wbytes = w->write_bytes;
    double write_flits = gpuest_model_write_flits(c, wbytes);
    /* the open model's write class: whole flits; 0 (not measured) keeps the reply's length */
    int noc_write = wbytes > 0 ? (int)lround(write_flits) : 0;
    /* remote-L1 probes on the open model's links: packets per read x reads per request packet, per
     * request flit of the scale (gpu traffic at scale 1 sends 1 / req_flits requests per SM a cycle) */
    double noc_probes = t && t->probe_msgs_per_read > 0 ? t->probe_msgs_per_read * (1.0 - wf) / m->req_flits : 0.0;
    GPUEST_TRY(ensure_noc(m, noc_rep, noc_write, wf, noc_probes, t ? t->probe_index_chain : 0, err));
    double rep_ser_back = rep_keep * mem_keep < 1.0 && rep_mean > noc_rep ? (rep_mean - noc_rep) : 0.0;
    double width = c->noc.topology == GPUEST_TOPO_CROSSBAR && c->noc.xbar_port_flits > 1 ? c->noc.xbar_port_flits : 1;
    double tf = m->icnt / width; /* core cycles per flit at a port */
    double rep_scv = rep_m2 / (rep_mean * rep_mean) - 1.0;
    double bank_s, bank_scv;
    bank_service(c, clamp01(w->row_hit_rate), &bank_s, &bank_scv);
    /* the v2 simulator's fixed pipeline between the L2 lookup and the channel queue (GPGPU-Sim
     * -dram_latency); the command timing (tRCD, tCL, burst) comes on top, as in the simulator */
    double dram_fixed = c->dram.latency > 0 ? c->dram.latency : 0.0;
    double dram_per_read = w->dram_per_request * (1 + wpr) * mem_keep; /* write-backs ride on the reads */
    double ipr = w->insts_per_request * (1 + wpr);          /* warp instructions per read */
    customer_t k;
    customer_of(c, w, p, ipr, wpr, hit_charge, &k);
    if (extra_exposed > 0) {
        /* The added latency lengthens the wait of an epoch whose line requests all hit (a warp
         * waits once per epoch, the profile's unit): h1^lines per epoch, and alpha epochs per
         * customer cycle when alpha < 1 (a cycle is then a fraction of an epoch; for alpha >= 1 the
         * model waits once per cycle, on hits with probability 1 - pm). */
        double h1 = clamp01(w->l1_hit_rate);
        double waits = p->alpha < 1.0 ? p->alpha * pow(h1, w->lines_per_epoch) : 1.0 - k.pm;
        k.hit += waits * extra_exposed;
    }
    double r = k.reads, rm = k.rm, pm = k.pm;
    /* a batch of rm reads spreads over the shared stations' replicas and is served in parallel */
    double fork_p = rm < P ? rm : P;
    /* a DRAM stream concentrated c times more than at the calibrated count (channel_concentration,
     * docs/estimator.md "Power-of-two channel counts in the estimate") keeps M / c channels busy
     * at once: each carries c times the even share, and a batch spreads over rm c of the M */
    double conc = w->channel_concentration > 0 ? w->channel_concentration : 1.0;
    double fork_dram = busy_fork(rm, conc, M);

    /* per-read demands of the queues (dr; dw: per write, the background class), per station */
    double dr[ST_COUNT] = {0}, dw[ST_COUNT] = {0};
    gpuest_amva_station_t st[ST_COUNT];
    memset(st, 0, sizeof st);
    for (int i = 0; i < ST_COUNT; i++)
        st[i] = (gpuest_amva_station_t){GPUEST_ST_DELAY, 0.0, 1, 0, 1, 1.0, 1.0};
    int iw = c->core.schedulers_per_sm > 0 ? c->core.schedulers_per_sm : 1;
    st[ST_ISS] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, 0, S, 1, 1, 1.0, 1.0};
    st[ST_HIT].demand = k.hit + k.dep; /* own-warp delays: all-hit epochs and compute dependences */
    dr[ST_ISS] = k.insts / (p->eta * iw) / r;
    st[ST_SMINJ] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, 0, S, 1, 1, 0.0, 1.0};
    dr[ST_SMINJ] = m->req_flits * tf;
    dw[ST_SMINJ] = write_flits * tf; /* a write carries its data */
    /* the lines a remote L1 sends travel on the reply network: through the SM's one injection
     * link when the classes share a network (VC split), through the SM's own port of the reply
     * network, which nothing else loads, when they are separate networks (physical split) */
    double sm_data = c->noc.class_split == GPUEST_SPLIT_PHYSICAL ? 0.0 : 1.0;
    if (t && (rs > 0 || t->probe_msgs_per_read > 0)) /* remote data replies, probes and NACKs */
        dr[ST_SMINJ] += (sm_data * rs * rnet * rep_mean + t->probe_msgs_per_read * m->req_flits) * tf;
    dr[ST_SMINJ] += (sm_data * fwd * rep_mean + back * m->req_flits) * tf; /* LA-LLC: the sharers' data, the returns */
    probe_trips += fwd + 2.0 * back; /* LA-LLC: MC -> sharer (and sharer -> L2) on the request network */
    /* a read a remote L1 answers (probing over the network, LA-LLC) waits for that L1's lookup (the
     * simulator's probe handler sends the data one L1 hit latency after taking the probe) */
    double remote_l1 = (rs * rnet + fwd) * c->l1.hit_latency;
    st[ST_L2] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, 0, P, 0, 1, 0.0, fork_p}; /* one L2 bank per sub-partition */
    /* PCU coalescing: one L2 access and one reply injection per group of reads (the SM ejection
     * port still receives every reply) */
    dr[ST_L2] = m->l2c * l2_keep * mem_keep;
    dw[ST_L2] = m->l2c;
    st[ST_ROP].demand = pm * c->l2.hit_latency * mem_keep;
    st[ST_BANKS] = (gpuest_amva_station_t){GPUEST_ST_MULTI, 0, M, 0, c->dram.banks > 0 ? c->dram.banks : 1, bank_scv,
                                           fork_dram};
    dr[ST_BANKS] = conc * dram_per_read * bank_s * m->dramc;
    st[ST_BUS] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, 0, M, 0, 1, 0.0, fork_dram};
    dr[ST_BUS] = conc * dram_per_read * bus_cycles_per_access(c, w->dram_turns_per_access) * m->dramc;
    /* the batch waits for DRAM when any of its reads misses the L2 */
    st[ST_DRAMLAT].demand = pm * (1 - pow(h2, rm)) * (dram_fixed + c->dram.tCL * m->dramc) * mem_keep;
    st[ST_INJ] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, 0, P, 0, 1, rep_scv, fork_p}; /* one port per sub-partition */
    dr[ST_INJ] = rep_mean * tf * rep_keep * mem_keep;
    /* the L2 access stream concentrated the same way (slice_concentration): its busy slices and
     * their reply ports carry c times the even share */
    double slice_conc = w->slice_concentration > 0 ? w->slice_concentration : 1.0;
    dr[ST_L2] *= slice_conc;
    dr[ST_INJ] *= slice_conc;
    st[ST_L2].fork = st[ST_INJ].fork = busy_fork(rm, slice_conc, P);
    dw[ST_INJ] = 1.0 * tf; /* write acknowledgement */
    st[ST_SMEJ] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, 0, S, 1, 1, rep_scv, 1.0};
    dr[ST_SMEJ] = rep_mean * tf;
    dw[ST_SMEJ] = 1.0 * tf;
    st[ST_DECOMP].demand = t ? pm * t->decompress_latency : 0.0;
    /* the LD/ST unit is modelled with the scoreboard (its blocking is a v2 measurement) */
    int ldst = w->insts_per_epoch > 0 && w->resident_warps > 0;
    double lines_per_read = ldst ? w->lines_per_epoch / (w->insts_per_epoch / ipr) : 0.0;
    double lines_all = lines_per_read; /* before a WarpPool's merging */
    if (t && t->l1_access_keep > 0) /* WarpPool: merged line requests make no L1 access */
        lines_per_read *= t->l1_access_keep;
    double miss_now = w->block_miss_latency;
    if (ldst)
        st[ST_LDST] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, r * ldst_demand(w, lines_per_read, wpr, miss_now), S, 1,
                                              1, 1.0, 1.0};

    /* Remote-L1 probing: the probe handler of the SMs a chain visits, one L1 lookup per visit on
     * a cycle the local LD/ST unit leaves the L1 port free (probe.c, handle_probe); by symmetry
     * every SM's handler takes as many visits as its own reads send. A queue per SM whose service
     * stretches by the port's local use (below, from the LD/ST station of the last solve). */
    double visit_d = t && t->probe_visits_per_read > 0 ? t->probe_visits_per_read : 0.0;
    double port_share = ldst && ldst_demand(w, lines_per_read, wpr, miss_now) > 0
                            ? (lines_per_read + wpr) / ldst_demand(w, lines_per_read, wpr, miss_now)
                            : 0.0;
    if (visit_d > 0)
        st[ST_PHAND] = (gpuest_amva_station_t){GPUEST_ST_QUEUE, r * visit_d, S, 1, 1, 0.0, 1.0};

    double n = k.n > 1e-3 ? k.n : 1e-3;
    out->tokens_per_sm = n;
    /* open-model scale (request flits per SM per interconnect cycle) per read per core cycle */
    double per_x = m->icnt * m->req_flits / S * (1 + wpr);
    double d_req = 0, d_rep = 0, link_mean = 0;
    GPUEST_TRY(noc_delays(m, 0.0, p->kappa, &d_req, &d_rep, &link_mean, err));
    double d_req0 = d_req; /* zero load: what a probe traversal pays (probe_zl) */
    int promoted[2] = {0, 0};
    for (int h = 0; h < 2; h++) {
        promoted[h] = m->hot_load[h] > 0;
        st[ST_HOT0 + h] = (gpuest_amva_station_t){promoted[h] ? GPUEST_ST_QUEUE : GPUEST_ST_DELAY,
                                                  r * m->hot_load[h] * per_x / m->hot_capacity, 1, 0, 1, 0.5, 1.0};
    }
    /* The channel's request window (dram_window.c): reads that miss the L2 take a slot, a write miss
     * two (its fetch and its data; write-backs none); each holds its slot for the fixed pipeline,
     * the column latency and its bank and bus service. Its wait is a load-dependent delay on the
     * DRAM pipeline, iterated with the network's surrogate delays below. The slots' load is spread
     * evenly over the M channels, not x channel_concentration: with the concentration the
     * development points were worse (15.45 against 15.11 % IPC MAPE, docs/estimator.md "Channel
     * counts, sixth session"; hotspot at 3 channels -8.9 against -3.4 %). */
    double win_slots_per_read = (1 - h2) * (1 + 2 * wpr) * mem_keep;
    double win_hold = dram_fixed + (c->dram.tCL + bank_s + bus_cycles_per_access(c, w->dram_turns_per_access)) * m->dramc;
    double dram_lat = dram_fixed + c->dram.tCL * m->dramc, win_wait = 0.0;
    gpuest_amva_result_t a;
    double omega = 0.5, x_prev = 0.0, last_sign = 0.0, x = 0.0;
    /* the scoreboard's two feedbacks (LD/ST blocking, MSHR cap) are damped on their own: they
     * oppose each other (longer latency: more blocking, fewer warps) and can cycle at the plain half
     * step. Each has its own step (sign_step): halved when its residual (the model's value less the
     * one assumed) changes sign, grown by a tenth while it keeps its sign, so
     * the step shrinks only while the iteration overshoots and the loop ends at the fixed point. (The
     * steps were cut by 0.8 at every iteration past the 20th, which froze a cycling iteration
     * wherever it stood some 40 iterations later: estimates that jumped by up to 4 % between
     * parameters 0.5 % apart, and a rugged fit; docs/estimator.md, "Fit starts and the chi-square
     * landscape (fifth session)".) */
    sign_step_t step_miss = {1.0, 0.0}, step_n = {1.0, 0.0};
    int flips = 0, it;
    /* WarpPool's LD/ST unblocking (ldst_pool.c): the warp's compute dependences overlap its wait
     * for the L1 port, taken off its own-warp delay; damped like the scoreboard's feedbacks */
    double pool_lines = t && ldst && t->ldst_pool_lines > 0 ? t->ldst_pool_lines : 0.0, ovl = 0.0;
    for (it = 1; it <= 100; it++) {
        /* background utilisation of one replica at the current read throughput x r */
        for (int i = 0; i < ST_COUNT; i++) {
            if (st[i].kind == GPUEST_ST_DELAY || i >= ST_HOT0)
                continue; /* hot-link demands already include the writes' flits; LD/ST: below */
            int reps = st[i].private_station ? S : st[i].replicas;
            double uw = x * r * wpr * dw[i] / reps;
            st[i].demand = inflate(r * dr[i], uw);
        }
        st[ST_REQNET].demand = pm * d_req * (net_keep + probe_trips) + pm * (remote_l1 + d_req0 * probe_zl);
        st[ST_REPNET].demand = pm * (rep_surrogate(d_rep, st, r) + rep_ser_back * tf) * net_keep;
        st[ST_DRAMLAT].demand = pm * (1 - pow(h2, rm)) * (dram_lat + win_wait) * mem_keep;
        if (visit_d > 0) /* the port's local use: the LD/ST station's utilisation x its port share */
            st[ST_PHAND].demand = inflate(r * visit_d, it > 1 && ldst ? a.util[ST_LDST] * port_share : 0.0);
        GPUEST_TRY(gpuest_model_amva_from(st, ST_COUNT, S, n, 1e-10, it > 1 ? &a : NULL, &a, err));
        x = a.x;
        double scale = x * r * per_x;
        /* compressor latency hidden while the injection port is busy */
        st[ST_COMP].demand = t ? pm * t->compress_latency * m->l2c * (1 - clamp01(a.util[ST_INJ])) : 0.0;
        double nr, np, lm;
        GPUEST_TRY(noc_delays(m, scale, p->kappa, &nr, &np, &lm, err));
        if (scale >= 0.7 * m->sat_scale)
            omega = 1.0; /* past the cap the open model's delays no longer depend on x: jump */
        link_mean = lm;
        double diff = (nr - d_req) + (np - d_rep);
        double sign = diff > 0 ? 1.0 : (diff < 0 ? -1.0 : 0.0);
        if (sign != 0 && last_sign != 0 && sign != last_sign && ++flips >= 2) {
            omega *= 0.5;
            flips = 0;
        } else if (sign != 0 && sign == last_sign && omega < 1.0) {
            /* regrown by a tenth while the surrogates' residual keeps its sign (as sign_step): a
             * step halved during an early cycle otherwise crawls to the fixed point (fermi srad at
             * 4 channels: omega 1/16, the cap reached 3e-5 short) */
            omega = 1.1 * omega < 1.0 ? 1.1 * omega : 1.0;
        }
        last_sign = sign;
        double dchange = fabs(diff) / (d_req + d_rep + 1e-9);
        double wn = gpuest_model_dram_window_wait(x * r * win_slots_per_read / M, win_hold, c->dram.queue_size);
        dchange += fabs(wn - win_wait) / (dram_lat + win_wait + 1e-9);
        win_wait += omega * (wn - win_wait);
        d_req += omega * (nr - d_req);
        d_rep += omega * (np - d_rep);
        double xchange = x_prev > 0 ? fabs(x - x_prev) / x : 1.0;
        x_prev = x;
        if (ldst) { /* the LD/ST blocking follows the miss latency (damped like the surrogates) */
            double mn = miss_of(st, &a, &k);
            dchange += fabs(mn - miss_now) / (miss_now + 1e-9);
            miss_now += 0.5 * sign_step(&step_miss, mn - miss_now) * (mn - miss_now);
            miss_now = miss_now > 0.0 ? miss_now : 0.0; /* an over-relaxed step stays a latency */
            st[ST_LDST].demand = r * ldst_demand(w, lines_per_read, wpr, miss_now);
            /* MSHR cap: the warps waiting on memory hold rm reads each, at most mshrs per SM, so the
             * population is cut to the warps whose memory share of the cycle fits in the MSHRs */
            double cyc = 0.0, memr = 0.0;
            for (int i = 0; i < ST_COUNT; i++) {
                cyc += a.r[i];
                if (i >= ST_SMINJ && i <= ST_HOT1)
                    memr += a.r[i];
            }
            if (c->l1.mshrs > 0 && cyc > 0 && memr > 0) {
                double ncap = c->l1.mshrs / (rm * memr / cyc), nn = ncap < k.n ? ncap : k.n;
                nn = nn > 1.0 ? nn : 1.0;
                dchange += fabs(nn - n) / n;
                /* an over-relaxed step stays within the cap's range [1, max(k.n, 1)] (or its start) */
                double n_lo = n < 1.0 ? n : 1.0, n_hi = k.n > 1.0 ? k.n : 1.0;
                n += 0.5 * sign_step(&step_n, nn - n) * (nn - n);
                n = n < n_lo ? n_lo : (n > n_hi ? n_hi : n);
            }
            if (pool_lines > 0 && k.dep > 0) {
                double wait = a.r[ST_LDST] - r * (lines_per_read + wpr);
                double on = gpuest_model_pool_overlap(pool_lines, a.q[ST_LDST] * r * (lines_all + wpr), wait, k.dep);
                dchange += fabs(on - ovl) / k.dep;
                ovl += 0.5 * (on - ovl);
                st[ST_HIT].demand = k.hit + k.dep - ovl;
            }
        }
        if (dchange < 1e-6 && xchange < 1e-7)
            break;
    }
    st[ST_REQNET].demand = pm * d_req * (net_keep + probe_trips) + pm * (remote_l1 + d_req0 * probe_zl);
    st[ST_REPNET].demand = pm * (rep_surrogate(d_rep, st, r) + rep_ser_back * tf) * net_keep;
    GPUEST_TRY(gpuest_model_amva_from(st, ST_COUNT, S, n, 1e-10, &a, &a, err));
    out->outer_iterations = it > 100 ? 100 : it;
    out->promoted_links = promoted[0] + promoted[1];

    /* Latencies per read request (what the simulator averages): each station's residence per
     * memory wait, less the part of the batch's own service a request does not wait for. */
    double rq[ST_COUNT];
    for (int i = 0; i < ST_COUNT; i++)
        rq[i] = per_request(&st[i], a.r[i], &k);
    rq[ST_DRAMLAT] = (1 - h2) * (dram_lat + win_wait) * mem_keep; /* a read's own L2 miss */
    /* Back-pressure: the reply side (MC reply queue + NI queue per MC, and the VC buffers of the hot
     * links) holds a bounded number of packets; requests queued there beyond that bound really wait
     * in the MC's request path and the request network (the L2 stops accepting), so by Little's law
     * their time is moved from reply to request latency. A customer present at a station holds its
     * batch's rm / fork requests at each replica. */
    /* the NI holds inject_queue_flits / rep_mean replies as the MC sees it (mc_port.c), not
     * inject_queue packets: the bound of the reply side and the stall ratio's threshold */
    double ni_k = gpuest_model_ni_packets(c->noc.inject_queue, c->noc.inject_queue_flits, rep_mean);
    double buf = c->mc.reply_queue + ni_k;
    double link_buf = (double)c->noc.vcs * c->noc.buffer_flits / (rep_mean > 1 ? rep_mean : 1);
    double side_q = a.q[ST_INJ] * P * rm / fork_p, side_r = rq[ST_INJ];
    for (int h = 0; h < 2; h++)
        if (promoted[h]) {
            side_q += a.q[ST_HOT0 + h] * rm;
            side_r += rq[ST_HOT0 + h];
        }
    double cap_q = P * buf + (promoted[0] + promoted[1]) * link_buf, excess = 0.0;
    if (side_q > cap_q)
        excess = side_r * (side_q - cap_q) / side_q;
    /* the excess only moves time between the request and reply parts: the miss latency (and so
     * AMAT, which the fit reads) is summed without it, so it does not depend on the bound's
     * rounding (bit for bit the same wherever nothing is in excess) */
    double req0 = rq[ST_SMINJ] + rq[ST_REQNET];
    double mem = rq[ST_L2] + rq[ST_ROP] + rq[ST_BANKS] + rq[ST_BUS] + rq[ST_DRAMLAT] + rq[ST_COMP];
    double rep0 = side_r + rq[ST_REPNET] + rq[ST_SMEJ] + rq[ST_DECOMP];
    out->req_latency = req0 + excess;
    out->mem_latency = mem;
    out->reply_latency = rep0 - excess;
    out->miss_latency = req0 + mem + rep0;
    double h1 = clamp01(w->l1_hit_rate);
    out->amat = h1 * hit_lat + (1 - h1) * out->miss_latency;
    out->warp_ipc = a.x * k.insts;
    out->ipc = out->warp_ipc * (w->threads_per_warp_inst > 0 ? w->threads_per_warp_inst : c->core.warp_size);
    out->inject_util = a.x * r * (dr[ST_INJ] + wpr * dw[ST_INJ]) / P;
    /* the MC stall ratio: the blocked share of the reply side past the NI's packets, less the L2
     * cycles in which the port takes the next reply (mc_port.c); tf / l2c: L2 cycles per flit */
    out->mc_stall_ratio = gpuest_model_mc_stall(side_q / P, c->mc.reply_queue, ni_k, rep_mean * tf / m->l2c);
    double scale = a.x * r * per_x;
    out->link_util_max = m->hot_load[0] * scale;
    out->link_util_mean = link_mean;
    double bu = 0.0;
    for (int i = 0; i < ST_COUNT; i++)
        if (st[i].kind != GPUEST_ST_DELAY && a.util[i] > bu)
            bu = a.util[i];
    out->bottleneck_util = bu > out->link_util_max ? bu : out->link_util_max;
    if (ldst) { /* each customer at the LD/ST unit holds its cycle's line requests (loads and stores) */
        out->ldst_queue_lines = a.q[ST_LDST] * r * (lines_all + wpr);
        out->ldst_line_rate = a.x / S * r * (lines_all + wpr);
    }
    out->pool_overlap = ovl;
    return GPUEST_OK;
}
