/* eval.c: fixed-point solution of the coupled router, source-queue and MC reply-path equations. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* Shares the private layout with noc_model.c. */
#include "model/model_int.h"

static void note_util(gpuest_model_result_t *out, double u, int r, int p, int kind)
{
    if (u > out->max_util) {
        out->max_util = u;
        out->bottleneck_router = r;
        out->bottleneck_port = p;
        out->bottleneck_kind = kind;
    }
}

/* Flits per cycle entering the crossbar from every input port and leaving through every output
 * port, per plane. */
static void port_loads(gpuest_model_noc_t *m, double scale)
{
    size_t rp = (size_t)m->routers * m->ports;
    memset(m->util_in, 0, rp * m->planes * sizeof(double));
    memset(m->util_out, 0, rp * m->planes * sizeof(double));
    for (int r = 0; r < m->routers; r++)
        for (int i = 0; i < m->ports; i++)
            for (int o = 0; o < m->ports; o++)
                for (int c = 0; c < m->ncls && m->used[((size_t)r * m->ports + i) * m->ports + o]; c++) {
                    double f = m->pk[noc_pk_idx(m, r, i, o, c)] * m->len[c] * scale;
                    size_t base = (size_t)m->plane[c] * m->routers + r;
                    m->util_in[base * m->ports + i] += f;
                    m->util_out[base * m->ports + o] += f;
                }
}

/* Serialization of a flit stream from input i to output o, stretched by the conflicts it loses at
 * the crossbar input: the input is busy with other outputs for a share u_i - f_io of the cycles
 * and a round-robin arbiter makes the flit lose about `conflict` of those meetings. */
static double stretch(const gpuest_model_noc_t *m, int plane, int r, int i, int o, double scale, double conflict)
{
    if (m->vcs_part * (m->planes == 1 ? m->nparts : 1) < 2)
        return 1.0; /* a single VC per input: its packets cross one at a time, nothing to lose to */
    double f_io = 0.0;
    for (int c = 0; c < m->ncls; c++)
        if (m->plane[c] == plane)
            f_io += m->pk[noc_pk_idx(m, r, i, o, c)] * m->len[c] * scale;
    double other = m->util_in[((size_t)plane * m->routers + r) * m->ports + i] - f_io;
    return 1.0 + conflict * (other > 0.0 ? other : 0.0);
}

/* Share of a packet that cannot be absorbed by one downstream VC buffer: that share of the
 * downstream waiting holds the upstream channel (wormhole blocking, Kiasari et al. sec. III). */
static double blocking_share(const gpuest_model_noc_t *m, int c)
{
    double b = 1.0 - (double)m->noc.buffer_flits / m->len[c];
    return b > 0.0 ? b : 0.0;
}

/* Waiting met downstream of an output by a packet that holds its output VC (the share of the
 * packet the downstream buffer cannot absorb waits with the head), and the refusal of a request by
 * a full MC, which keeps the ejection channel busy for the whole refusal: both read by the output
 * sweep from the slots gpuest_model_noc_prepare found for each hop. */

/* Stores the new wait v and raises *delta to its relative change. Only whether the sweep's largest
 * change is within tol is ever read (eval_from), so once *delta is past tol the change is not
 * computed (a division per wait in the sweeps that do not converge). */
static double update(double *slot, double v, double *delta, double tol)
{
    if (*delta <= tol) {
        double d = fabs(v - *slot) / (1.0 + fabs(v));
        if (d > *delta)
            *delta = d;
    }
    *slot = v;
    return v;
}

/* Crossbar-conflict stretch of hop entry e at this evaluation (stretch() at scale 1 is 1 + B). */
static inline double hop_stretch(const gpuest_model_noc_ent_t *e, double scale, double conflict)
{
    return 1.0 + conflict * scale * e->b;
}

/* What the sweeps of one evaluation read of each hop kind and injection that depends on the rate
 * per switch cycle sw and the contention constants alone (the same operations, in the same order,
 * as a sweep computing them itself, so the same values): the kind's packets per switch cycle, its
 * serialization stretched by crossbar conflicts, that plus the VC turnaround, its output occupancy
 * without refusals at an ejection (no downstream VC, so no blocking), and its input VC service
 * without the output wait; per injection its service without blocking. A kind that carries no
 * packets (deliveries only) keeps only its packets. */
static void scale_hops(gpuest_model_noc_t *m, double sw, const gpuest_model_params_t *pp)
{
    double vcs = (double)m->vcs_part, ovh = m->noc.routing_delay + m->noc.vc_alloc_delay;
    for (int q = 0; q < m->nkinds; q++) {
        const gpuest_model_noc_ent_t *e = &m->ent[m->kind_ent[q]];
        double lam = e->lam * sw;
        m->hx_lam[q] = lam;
        if (lam <= 0.0)
            continue;
        double ser = m->len[e->c] * hop_stretch(e, sw, pp->conflict);
        m->hx_ser[q] = ser;
        m->hx_sv[q] = ser + pp->vc_hold;
        double held = (m->hx_sv[q] + 0.0) / vcs; /* no downstream blocking at an ejection */
        m->hx_occ[q] = ser > held ? ser : held;
        m->hx_svc[q] = ovh + ser;
    }
    for (int n = 0; n < m->nodes; n++) {
        int r = gpuest_net_router_of(&m->topo, n), i = gpuest_net_local_port(&m->topo, n);
        for (int c = 0; c < m->ncls; c++) {
            if (m->inj[(size_t)n * m->ncls + c] * sw <= 0.0)
                continue;
            double s = 1.0 + pp->conflict * sw * m->istr[((size_t)m->plane[c] * m->routers + r) * m->ports + i];
            m->inj_base[(size_t)n * m->ncls + c] = m->len[c] * s + m->inj_stall[c];
        }
    }
}

/* Output ports: M/G/1-type wait corrected for the finite number of inputs (Karol et al.). The hops
 * that carry traffic are visited in (plane, router, output, input, class) order (m->sw_out, as
 * m->ord_out), the order of the dense loops they replace; outputs without traffic keep their zero
 * wait. What does not change within an evaluation (the hop's load, serialization and, at an
 * ejection, its occupancy without refusals) is read from scale_hops' arrays. */
/* The load, second moment and input-share sum of output group g's hops at this sweep. */
static void output_group(const gpuest_model_noc_t *m, const gpuest_model_noc_group_t *g, double vcs, double *rho_out,
                         double *m2_out, double *sq_out)
{
    const gpuest_model_noc_sweep_hop_t *H = m->sw_out;
    const gpuest_model_noc_ent_t *E = m->ent;
    double rho = 0.0, m2 = 0.0, sq = 0.0, rho_i = 0.0;
    for (int k = g->start; k < g->end; k++) {
        const gpuest_model_noc_sweep_hop_t *h = &H[k];
        int q = h->kind;
        double lam = m->hx_lam[q];
        if (!(lam <= 0.0)) {
            /* A packet holds one of the vcs output VCs for its flits, the VC turnaround and any
             * downstream blocking; the link itself only for its flits. With one VC the two
             * coincide; with several, other VCs use the link meanwhile. */
            double occ;
            if (h->down_j < 0) {
                occ = m->hx_occ[q];
            } else {
                double ser = m->hx_ser[q];
                double held = (m->hx_sv[q] + E[h->ent].bshare * (m->w_vc[h->down_j] + m->w_down[h->down_j])) / vcs;
                occ = ser > held ? ser : held;
            }
            occ += h->bp >= 0 ? m->w_bp[h->bp] : 0.0;
            rho_i += lam * occ;
            m2 += lam * occ * occ;
        }
        if (h->end & GPUEST_NOC_END_INPUT) {
            rho += rho_i;
            sq += rho_i * rho_i;
            rho_i = 0.0;
        }
    }
    *rho_out = rho, *m2_out = m2, *sq_out = sq;
}

static int solve_outputs(gpuest_model_noc_t *m, const gpuest_model_params_t *pp, double vcs,
                         gpuest_model_result_t *out, double *delta)
{
    long sweep = ++m->sweep_no;
    for (int gi = 0; gi < m->nogroups; gi++) {
        const gpuest_model_noc_group_t *g = &m->ogroups[gi];
        const gpuest_model_noc_sweep_hop_t *last = &m->sw_out[g->end - 1];
        double wbp = g->bp >= 0 ? m->w_bp[g->bp] : 0.0, rho, w;
        gpuest_model_noc_shape_memo_t *memo = g->shape >= 0 && !m->no_reuse ? &m->shape_memo[g->shape] : NULL;
        if (memo && memo->sweep_no == sweep && memo->wbp == wbp) {
            rho = memo->rho;
            w = memo->w;
            m->reused++;
        } else {
            double m2, sq;
            output_group(m, g, vcs, &rho, &m2, &sq);
            w = rho > 0.0 ? pp->kappa * m2 / (2.0 * (1.0 - rho)) * (1.0 - sq / (rho * rho)) : 0.0;
            if (memo)
                *memo = (gpuest_model_noc_shape_memo_t){sweep, wbp, rho, w};
        }
        note_util(out, rho, last->r, last->p, 0);
        if (rho >= 1.0)
            return 1;
        update(&m->w_out[last->slot], w, delta, pp->tol);
    }
    return 0;
}

/* Input VCs: a head holds its VC through route computation and VC allocation, the wait for the
 * output and its own flits; the VCs of a partition act as c parallel servers (G/G/c). Hops in
 * (partition, router, input, output, class) order (m->sw_in, as m->ord_in). Inputs of equal loads
 * and services (a crossbar's SM ports under uniform traffic) follow one another, so the last
 * G/G/c wait is kept and reused when its inputs are exactly the same (the wait is a function of
 * them alone). */
/* Whether input groups a and b (of one shape; b computed in this sweep) read equal output waits,
 * hop for hop: at once when b is a's shape's first group and a reads the same slots (every input of
 * a crossbar's SMs reads the MCs' outputs), else value by value. */
static int same_output_waits(const gpuest_model_noc_t *m, const gpuest_model_noc_group_t *a,
                             const gpuest_model_noc_group_t *b)
{
    if (a->rep_slots && b == &m->igroups[a->rep])
        return 1;
    for (int k = 0; k < a->end - a->start; k++)
        if (!(m->w_out[m->sw_in[a->start + k].wo] == m->w_out[m->sw_in[b->start + k].wo]))
            return 0;
    return 1;
}

static int solve_inputs(gpuest_model_noc_t *m, const gpuest_model_params_t *pp, gpuest_model_result_t *out,
                        double *delta)
{
    const gpuest_model_noc_sweep_hop_t *H = m->sw_in;
    long sweep = m->sweep_no; /* numbered by this sweep's solve_outputs */
    double last_lam = -1.0, last_es = 0.0, last_cs2 = 0.0, last_w = 0.0;
    for (int gi = 0; gi < m->nigroups; gi++) {
        const gpuest_model_noc_group_t *g = &m->igroups[gi];
        const gpuest_model_noc_sweep_hop_t *h = &H[g->end - 1];
        gpuest_model_noc_in_memo_t *memo = &m->in_memo[g->shape];
        if (!m->no_reuse && memo->sweep_no == sweep && same_output_waits(m, g, &m->igroups[memo->g])) {
            m->reused++;
            if (memo->skip)
                continue;
            note_util(out, memo->u, h->r, h->p, 1);
            update(&m->w_vc[h->slot], memo->w, delta, pp->tol);
            update(&m->w_down[h->slot], memo->wd, delta, pp->tol);
            continue;
        }
        double lam = 0.0, s1 = 0.0, s2 = 0.0, wsum = 0.0;
        for (int k = g->start; k < g->end; k++) {
            double l = m->hx_lam[H[k].kind];
            if (!(l <= 0.0)) {
                double wo = m->w_out[H[k].wo];
                double svc = m->hx_svc[H[k].kind] + wo;
                lam += l;
                s1 += l * svc;
                s2 += l * svc * svc;
                wsum += l * wo;
            }
        }
        *memo = (gpuest_model_noc_in_memo_t){sweep, gi, 1, 0.0, 0.0, 0.0};
        if (lam <= 0.0)
            continue;
        double es = s1 / lam, cs2 = s2 / (lam * es * es) - 1.0, w;
        double u = lam * es / m->vcs_part;
        note_util(out, u, h->r, h->p, 1);
        cs2 = cs2 > 0.0 ? cs2 : 0.0;
        if (!m->no_reuse && lam == last_lam && es == last_es && cs2 == last_cs2) {
            w = last_w;
            m->reused++;
        } else {
            if (gpuest_model_ggc_wait(m->vcs_part, lam, es, pp->ca2, cs2, &w) != GPUEST_OK) {
                memo->sweep_no = 0;
                return 1;
            }
            last_lam = lam, last_es = es, last_cs2 = cs2, last_w = w;
        }
        double wd = wsum / lam;
        *memo = (gpuest_model_noc_in_memo_t){sweep, gi, 0, u, w, wd};
        update(&m->w_vc[h->slot], w, delta, pp->tol);
        update(&m->w_down[h->slot], wd, delta, pp->tol);
    }
    return 0;
}

/* The mirror image of stretch() for an injection port: a flit it offers to output o finds that
 * output taken by another input for a share (load of o) - f_io of the cycles and loses about
 * `conflict` of those meetings, so the port delivers fewer than one flit per cycle. This is what
 * keeps a crossbar MC port below one reply flit per cycle. Mean over the port's outputs. */
static double inject_stretch(const gpuest_model_noc_t *m, int plane, int r, int i, double scale, double conflict)
{
    double tot = 0.0, acc = 0.0;
    if (m->vcs_part * (m->planes == 1 ? m->nparts : 1) < 2)
        return 1.0;
    for (int o = 0; o < m->ports; o++) {
        double f_io = 0.0;
        for (int c = 0; c < m->ncls; c++)
            if (m->plane[c] == plane)
                f_io += m->pk[noc_pk_idx(m, r, i, o, c)] * m->len[c] * scale;
        if (f_io <= 0.0)
            continue;
        double other = m->util_out[((size_t)plane * m->routers + r) * m->ports + o] - f_io;
        tot += f_io;
        acc += f_io * (1.0 + conflict * (other > 0.0 ? other : 0.0));
    }
    return tot > 0.0 ? acc / tot : 1.0;
}

/* Whether hop entries a and b are of one kind: the same class and bit for bit the same load at scale
 * 1 and conflict coefficient. */
static int same_kind(const gpuest_model_noc_ent_t *a, const gpuest_model_noc_ent_t *b)
{
    return a->c == b->c && memcmp(&a->lam, &b->lam, sizeof a->lam) == 0 && memcmp(&a->b, &b->b, sizeof a->b) == 0;
}

static size_t kind_hash(const gpuest_model_noc_ent_t *e)
{
    uint64_t l, b;
    memcpy(&l, &e->lam, sizeof l);
    memcpy(&b, &e->b, sizeof b);
    uint64_t h = (l * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (uint64_t)e->c;
    return (size_t)(h ^ (h >> 31));
}

/* The hops' kinds: hops of one class with bit for bit the same load at scale 1 and conflict
 * coefficient are one kind (what scale_hops computes of them is the same), found with an
 * open-addressing table; kind_of[entry] gets its kind, m->kind_ent the first entry of each. */
static gpuest_err hop_kinds(gpuest_model_noc_t *m, int *kind_of)
{
    m->nkinds = 0;
    size_t cap = 16;
    while (cap < 2 * m->nent)
        cap <<= 1;
    int *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return GPUEST_ENOMEM;
    for (size_t j = 0; j < cap; j++)
        slot[j] = -1;
    for (size_t e = 0; e < m->nent; e++) {
        size_t j = kind_hash(&m->ent[e]) & (cap - 1);
        while (slot[j] >= 0 && !same_kind(&m->ent[m->kind_ent[slot[j]]], &m->ent[e]))
            j = (j + 1) & (cap - 1);
        if (slot[j] < 0) {
            slot[j] = m->nkinds;
            m->kind_ent[m->nkinds++] = (int)e;
        }
        kind_of[e] = slot[j];
    }
    free(slot);
    return GPUEST_OK;
}

/* Whether output groups a and b have the same shape: hop for hop the same kind and run ends. */
static int same_shape(const gpuest_model_noc_t *m, const gpuest_model_noc_group_t *a, const gpuest_model_noc_group_t *b)
{
    if (a->end - a->start != b->end - b->start)
        return 0;
    for (int k = 0; k < a->end - a->start; k++) {
        const gpuest_model_noc_sweep_hop_t *x = &m->sw_out[a->start + k], *y = &m->sw_out[b->start + k];
        if (x->kind != y->kind || x->end != y->end)
            return 0;
    }
    return 1;
}

/* Whether input groups a and b have the same shape: hop for hop the same kind. */
static int same_in_shape(const gpuest_model_noc_t *m, const gpuest_model_noc_group_t *a,
                         const gpuest_model_noc_group_t *b)
{
    if (a->end - a->start != b->end - b->start)
        return 0;
    for (int k = 0; k < a->end - a->start; k++)
        if (m->sw_in[a->start + k].kind != m->sw_in[b->start + k].kind)
            return 0;
    return 1;
}

/* Shapes of sweep groups: an open-addressing table from a hash of a group's hop kinds to its shape
 * number, each shape remembered by its first group (the one the others reuse). */
typedef struct {
    size_t cap;  /* a power of two, at least twice the groups */
    int *slot;   /* shape number at a hash slot, -1 when empty */
    int *rep;    /* first group of each shape */
    int nshapes;
} shape_table_t;

typedef int (*same_shape_fn)(const gpuest_model_noc_t *, const gpuest_model_noc_group_t *,
                             const gpuest_model_noc_group_t *);

static gpuest_err shape_table_init(shape_table_t *t, size_t ngroups)
{
    t->cap = 16;
    while (t->cap < 2 * ngroups)
        t->cap <<= 1;
    t->nshapes = 0;
    t->slot = malloc(t->cap * sizeof *t->slot);
    t->rep = malloc((ngroups ? ngroups : 1) * sizeof *t->rep);
    if (!t->slot || !t->rep)
        return GPUEST_ENOMEM;
    for (size_t j = 0; j < t->cap; j++)
        t->slot[j] = -1;
    return GPUEST_OK;
}

static void shape_table_free(shape_table_t *t)
{
    free(t->slot);
    free(t->rep);
}

/* The shape of group g of groups (hash h): that of an earlier group same() matches, else a new one. */
static int shape_table_find(shape_table_t *t, uint64_t h, const gpuest_model_noc_t *m,
                            const gpuest_model_noc_group_t *groups, int g, same_shape_fn same)
{
    size_t j = (size_t)(h ^ (h >> 29)) & (t->cap - 1);
    while (t->slot[j] >= 0 && !same(m, &groups[t->rep[t->slot[j]]], &groups[g]))
        j = (j + 1) & (t->cap - 1);
    if (t->slot[j] < 0) {
        t->slot[j] = t->nshapes;
        t->rep[t->nshapes++] = g;
    }
    return t->slot[j];
}

/* The input sweep's groups and their shapes (as output_groups). */
static gpuest_err input_groups(gpuest_model_noc_t *m)
{
    size_t n = m->nent;
    m->nigroups = m->nishapes = 0;
    for (size_t k = 0; k < n; k++)
        m->nigroups += (m->sw_in[k].end & GPUEST_NOC_END_GROUP) != 0;
    size_t ng = m->nigroups ? (size_t)m->nigroups : 1;
    m->igroups = calloc(ng, sizeof *m->igroups);
    m->in_memo = calloc(ng, sizeof *m->in_memo);
    shape_table_t t;
    if (shape_table_init(&t, ng) != GPUEST_OK || !m->igroups || !m->in_memo) {
        shape_table_free(&t);
        return GPUEST_ENOMEM;
    }
    int g = 0, start = 0;
    for (size_t k = 0; k < n; k++) {
        if (!(m->sw_in[k].end & GPUEST_NOC_END_GROUP))
            continue;
        gpuest_model_noc_group_t *gr = &m->igroups[g];
        *gr = (gpuest_model_noc_group_t){start, (int)k + 1, -1, -1, -1, 0};
        uint64_t h = 0x84222325CBF29CE4ull;
        for (int e = gr->start; e < gr->end; e++)
            h = (h ^ (uint64_t)m->sw_in[e].kind) * 0x100000001B3ull;
        gr->shape = shape_table_find(&t, h, m, m->igroups, g, same_in_shape);
        gr->rep = t.rep[gr->shape];
        const gpuest_model_noc_group_t *rg = &m->igroups[gr->rep];
        gr->rep_slots = 1;
        for (int e = 0; e < gr->end - gr->start; e++)
            gr->rep_slots = gr->rep_slots && m->sw_in[gr->start + e].wo == m->sw_in[rg->start + e].wo;
        g++;
        start = (int)k + 1;
    }
    m->nishapes = t.nshapes;
    shape_table_free(&t);
    return GPUEST_OK;
}

/* The output sweep's groups and the shapes of those whose hops all end at an ejection with one
 * refusing MC (or none), found with an open-addressing table over a hash of the kinds. */
static gpuest_err output_groups(gpuest_model_noc_t *m)
{
    size_t n = m->nent;
    m->nogroups = m->nshapes = 0;
    for (size_t k = 0; k < n; k++)
        m->nogroups += (m->sw_out[k].end & GPUEST_NOC_END_GROUP) != 0;
    m->ogroups = calloc(m->nogroups ? (size_t)m->nogroups : 1, sizeof *m->ogroups);
    m->shape_memo = calloc(m->nogroups ? (size_t)m->nogroups : 1, sizeof *m->shape_memo);
    shape_table_t t;
    if (shape_table_init(&t, (size_t)m->nogroups) != GPUEST_OK || !m->ogroups || !m->shape_memo) {
        shape_table_free(&t);
        return GPUEST_ENOMEM;
    }
    int g = 0, start = 0;
    for (size_t k = 0; k < n; k++) {
        if (!(m->sw_out[k].end & GPUEST_NOC_END_GROUP))
            continue;
        gpuest_model_noc_group_t *gr = &m->ogroups[g];
        *gr = (gpuest_model_noc_group_t){start, (int)k + 1, -1, m->sw_out[start].bp, -1, 0};
        int plain = 1;
        uint64_t h = 0x84222325CBF29CE4ull;
        for (int e = gr->start; e < gr->end; e++) {
            const gpuest_model_noc_sweep_hop_t *hp = &m->sw_out[e];
            plain = plain && hp->down_j < 0 && hp->bp == gr->bp;
            h = (h ^ (uint64_t)(hp->kind * 4 + hp->end)) * 0x100000001B3ull;
        }
        if (plain)
            gr->shape = shape_table_find(&t, h, m, m->ogroups, g, same_shape);
        g++;
        start = (int)k + 1;
    }
    m->nshapes = t.nshapes;
    shape_table_free(&t);
    return input_groups(m);
}

/* The sweeps' flat hop lists (model_int.h): the hops in ord_out order with the end of each input's
 * run and of each output's group marked, and the slots the output sweep reads; the hops in ord_in
 * order with the end of each input VC group; each injection's VC slot, credit stall and blocking
 * share; and the arrays scale_hops fills at each evaluation. */
static gpuest_err prepare_sweeps(gpuest_model_noc_t *m, gpuest_error_t *err)
{
    size_t n = m->nent, nc = (size_t)m->nodes * m->ncls, cap = n ? n : 1;
    m->sw_out = calloc(cap, sizeof *m->sw_out);
    m->sw_in = calloc(cap, sizeof *m->sw_in);
    m->inj_j = calloc(nc ? nc : 1, sizeof *m->inj_j);
    m->inj_base = calloc(nc ? nc : 1, sizeof *m->inj_base);
    m->kind_ent = calloc(cap, sizeof *m->kind_ent);
    double **hx[5] = {&m->hx_lam, &m->hx_ser, &m->hx_sv, &m->hx_occ, &m->hx_svc};
    int *kind_of = calloc(cap, sizeof *kind_of);
    int ok = m->sw_out && m->sw_in && m->inj_j && m->inj_base && m->kind_ent && kind_of;
    for (int a = 0; a < 5; a++)
        ok = (*hx[a] = calloc(cap, sizeof(double))) != NULL && ok;
    if (!ok || hop_kinds(m, kind_of) != GPUEST_OK) {
        free(kind_of);
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    }
    const gpuest_model_noc_ent_t *E = m->ent;
    for (size_t k = 0; k < n; k++) {
        const gpuest_model_noc_ent_t *e = &E[m->ord_out[k]];
        gpuest_model_noc_sweep_hop_t *h = &m->sw_out[k];
        h->ent = m->ord_out[k];
        int last_group = k + 1 == n || E[m->ord_out[k + 1]].grp_out != e->grp_out;
        h->end = last_group || E[m->ord_out[k + 1]].i != e->i ? GPUEST_NOC_END_INPUT : 0;
        h->end |= last_group ? GPUEST_NOC_END_GROUP : 0;
        h->slot = (m->plane[e->c] * m->routers + e->r) * m->ports + e->o;
        h->r = e->r, h->p = e->o;
        h->down_j = e->down < 0 ? -1 : m->part[e->c] * m->routers * m->ports + e->down;
        h->bp = e->bp;
        h->wo = -1;
        h->kind = kind_of[h->ent];
    }
    for (size_t k = 0; k < n; k++) {
        const gpuest_model_noc_ent_t *e = &E[m->ord_in[k]];
        gpuest_model_noc_sweep_hop_t *h = &m->sw_in[k];
        h->ent = m->ord_in[k];
        h->end = k + 1 == n || E[m->ord_in[k + 1]].grp_in != e->grp_in ? GPUEST_NOC_END_GROUP : 0;
        h->slot = (m->part[e->c] * m->routers + e->r) * m->ports + e->i;
        h->r = e->r, h->p = e->i;
        h->down_j = h->bp = -1;
        h->wo = (m->plane[e->c] * m->routers + e->r) * m->ports + e->o;
        h->kind = kind_of[h->ent];
    }
    free(kind_of);
    if (output_groups(m) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    int rtt = gpuest_model_inject_credit_rtt(&m->noc);
    for (int c = 0; c < m->ncls; c++) {
        m->inj_stall[c] = gpuest_model_credit_send_time(m->len[c], m->noc.buffer_flits, rtt) - m->len[c];
        m->inj_bshare[c] = blocking_share(m, c);
    }
    for (int v = 0; v < m->nodes; v++) {
        int r = gpuest_net_router_of(&m->topo, v), i = gpuest_net_local_port(&m->topo, v);
        for (int c = 0; c < m->ncls; c++)
            m->inj_j[(size_t)v * m->ncls + c] = (m->part[c] * m->routers + r) * m->ports + i;
    }
    return GPUEST_OK;
}

/* Called once when the model is built (noc_model.c): the loads are linear in the scale, so the
 * crossbar conflicts of every hop (stretch) and injection port (inject_stretch) are 1 + conflict x
 * scale x a coefficient taken here at scale 1; and the hops that carry traffic become a flat list
 * with their downstream VC and refusing MC, visited in the dense loops' orders by the sweeps. */
gpuest_err gpuest_model_noc_prepare(gpuest_model_noc_t *m, gpuest_error_t *err)
{
    size_t rp = (size_t)m->routers * m->ports, hops = rp * m->ports;
    port_loads(m, 1.0);
    m->nent = 0;
    for (size_t h = 0; h < hops; h++) /* m->used: the hops where some class has pk or pkd > 0 */
        for (int c = 0; m->used[h] && c < m->ncls; c++)
            if (m->pk[h * m->ncls + c] > 0.0 || m->pkd[h * m->ncls + c] > 0.0)
                m->nent++;
    size_t groups = rp * (size_t)(m->planes > m->nparts ? m->planes : m->nparts);
    m->ent = calloc(m->nent ? m->nent : 1, sizeof *m->ent);
    m->ord_out = calloc(m->nent ? m->nent : 1, sizeof *m->ord_out);
    m->ord_in = calloc(m->nent ? m->nent : 1, sizeof *m->ord_in);
    size_t *next = malloc((groups + 1) * sizeof *next);
    if (!m->ent || !m->ord_out || !m->ord_in || !next) {
        free(next);
        return gpuest_fail(err, GPUEST_ENOMEM, "NoC model: out of memory");
    }
    size_t n = 0;
    for (int r = 0; r < m->routers; r++)
        for (int i = 0; i < m->ports; i++)
            for (int o = 0; o < m->ports; o++) {
                if (!m->used[((size_t)r * m->ports + i) * m->ports + o])
                    continue;
                for (int c = 0; c < m->ncls; c++) {
                    size_t h = noc_pk_idx(m, r, i, o, c);
                    if (!(m->pk[h] > 0.0 || m->pkd[h] > 0.0))
                        continue;
                    gpuest_model_noc_ent_t *e = &m->ent[n++];
                    e->r = r, e->i = i, e->o = o, e->c = c;
                    e->lam = m->pk[h];
                    e->pkd = m->pkd[h];
                    e->b = stretch(m, m->plane[c], r, i, o, 1.0, 1.0) - 1.0;
                    int in, nb = noc_next(m, r, o, &in);
                    e->down = nb < 0 ? -1 : nb * m->ports + in;
                    e->bshare = blocking_share(m, c);
                    int dst = gpuest_net_eject_node(&m->topo, r, o);
                    e->bp = (dst >= 0 && m->is_request[c] && m->mc[dst]) ? dst : -1;
                    e->grp_out = ((m->plane[c] * m->routers + r) * m->ports + o);
                    e->grp_in = ((m->part[c] * m->routers + r) * m->ports + i);
                }
            }
    /* The sweeps' orders, (plane, router, output, input, class) and (partition, router, input,
     * output, class): the entries are made in (router, input, output, class) order, so a stable
     * counting sort by the output group (plane, router, output) keeps (input, class) within it,
     * and one by the input group keeps (output, class). */
    for (int pass = 0; pass < 2; pass++) {
        int *ord = pass == 0 ? m->ord_out : m->ord_in;
        memset(next, 0, (groups + 1) * sizeof *next);
        for (size_t e = 0; e < m->nent; e++)
            next[(size_t)(pass == 0 ? m->ent[e].grp_out : m->ent[e].grp_in) + 1]++;
        for (size_t g = 1; g <= groups; g++)
            next[g] += next[g - 1];
        for (size_t e = 0; e < m->nent; e++)
            ord[next[pass == 0 ? m->ent[e].grp_out : m->ent[e].grp_in]++] = (int)e;
    }
    m->nout = m->nent;
    free(next);
    for (int pl = 0; pl < m->planes; pl++)
        for (int r = 0; r < m->routers; r++)
            for (int i = 0; i < m->ports; i++) {
                size_t ri = ((size_t)pl * m->routers + r) * m->ports + i;
                m->istr[ri] = inject_stretch(m, pl, r, i, 1.0, 1.0) - 1.0;
            }
    return prepare_sweeps(m, err);
}

/* Time one packet of class c holds the injection channel of node n: scale_hops' part (its flits
 * stretched by crossbar conflicts, then the credit stall: one packet at a time, flit by flit on
 * credits, so a VC buffer shorter than the credit loop stalls it; noc_credit.c) plus the share of
 * the VC's downstream waiting the buffer cannot absorb. */
static inline double inject_service(const gpuest_model_noc_t *m, int n, int c)
{
    size_t nc = (size_t)n * m->ncls + c, j = (size_t)m->inj_j[nc];
    return m->inj_base[nc] + m->inj_bshare[c] * (m->w_vc[j] + m->w_down[j]);
}

/* An MC node whose kept M/D/1/K inputs (rate, service) are exactly (lam, d): its outputs are
 * copied into mq (the solution is a function of the rate, the service and K alone, and K is the
 * same at every node), so that nodes with equal loads (every MC of a crossbar with uniform
 * traffic) solve the queue once a sweep instead of once each. Returns 1 when found. */
static int md1k_kept(gpuest_model_noc_t *m, double lam, double d, double *mq)
{
    for (int n = 0; n < m->nodes && !m->no_reuse; n++) {
        const double *o = &m->mdk[(size_t)n * 5];
        if (m->mc[n] && o != mq && o[0] == lam && o[1] == d) {
            memcpy(mq, o, 5 * sizeof *mq);
            m->reused++;
            return 1;
        }
    }
    return 0;
}

void gpuest_model_noc_set_reuse(gpuest_model_noc_t *m, int on) { m->no_reuse = !on; }

long gpuest_model_noc_reused(const gpuest_model_noc_t *m) { return m->reused; }

/* NI source queues (discrete-time Geo/G/1: W = lambda E[S(S-1)] / (2 (1 - rho))) and the MC
 * reply path (M/D/1/K over the MC reply queue + NI queue, refusing requests when full). */
static int solve_endpoints(gpuest_model_noc_t *m, double scale, double tol, gpuest_model_result_t *out,
                           double *delta, double *stall_sum, int *mcs)
{
    *stall_sum = 0.0;
    *mcs = 0;
    for (int n = 0; n < m->nodes; n++) {
        double rep_lam = 0.0, rep_s = 0.0;
        for (int pl = 0; pl < m->planes; pl++) {
            double rho = 0.0, e = 0.0;
            for (int c = 0; c < m->ncls; c++) {
                double lam = m->inj[(size_t)n * m->ncls + c] * scale;
                if (lam <= 0.0 || m->plane[c] != pl)
                    continue;
                double s = inject_service(m, n, c);
                if (m->mc[n] && m->part[c] == 1) {
                    rep_lam += lam;
                    rep_s += lam * s;
                    continue;
                }
                rho += lam * s;
                e += lam * s * (s - 1.0);
            }
            note_util(out, rho, n, -1, 3);
            if (rho >= 1.0)
                return 1;
            update(&m->w_src[(size_t)pl * m->nodes + n], e > 0.0 ? e / (2.0 * (1.0 - rho)) : 0.0, delta, tol);
        }
        if (!m->mc[n] || rep_lam <= 0.0)
            continue;
        double d = rep_s / rep_lam;
        note_util(out, rep_lam * d, n, -1, 2);
        if (out->mc_inject_util < rep_lam * d)
            out->mc_inject_util = rep_lam * d;
        if (rep_lam * d >= 1.0)
            return 1;
        int k = m->mc_slots + m->ni_slots;
        if (k > 64)
            k = 64;
        /* the M/D/1/K solution is O(K^2): kept per node and reused while its inputs are unchanged
         * (the reply service time moves only with the waits a reply packet meets), or taken from
         * another MC node whose kept inputs are exactly these (md1k_kept) */
        double *mq = &m->mdk[(size_t)n * 5];
        if (!(mq[0] == rep_lam && mq[1] == d) && !md1k_kept(m, rep_lam, d, mq)) {
            gpuest_model_md1k_t q;
            if (gpuest_model_md1k(rep_lam, d, k, &q, NULL) != GPUEST_OK)
                return 1;
            double st = 0.0;
            for (int j = m->ni_slots + 1; j <= k; j++)
                st += q.p[j];
            mq[0] = rep_lam, mq[1] = d, mq[2] = st, mq[3] = q.p_full, mq[4] = q.mean_wait;
        }
        double stall = mq[2], p_full = mq[3];
        *stall_sum += stall;
        (*mcs)++;
        if (out->mc_full_prob < p_full)
            out->mc_full_prob = p_full;
        update(&m->w_mcq[n], mq[4], delta, tol);
        /* Every refusal costs the refused request one more reply service time. */
        update(&m->w_bp[n], d * p_full / (1.0 - p_full), delta, tol);
    }
    return 0;
}

static void reset_state(gpuest_model_noc_t *m)
{
    size_t rp = (size_t)m->routers * m->ports, n = (size_t)m->nodes;
    memset(m->w_out, 0, rp * m->planes * sizeof(double));
    memset(m->w_vc, 0, rp * m->nparts * sizeof(double));
    memset(m->w_down, 0, rp * m->nparts * sizeof(double));
    memset(m->w_bp, 0, n * sizeof(double));
    memset(m->w_mcq, 0, n * sizeof(double));
    memset(m->w_src, 0, n * m->planes * sizeof(double));
}

/* Per-class latency components from the converged waits (solved in switch cycles, reported in
 * interconnect cycles: divided by m->clock); scale is per interconnect cycle. */
static void class_results(const gpuest_model_noc_t *m, gpuest_model_result_t *out, double scale)
{
    double clk = m->clock;
    double tot = 0.0, lat = 0.0, net = 0.0;
    /* hop waits per class: the hops in (r, i, o) order, as the dense loops, one pass for all classes
     * (each class's sum in the same order as a pass of its own) */
    double hws[GPUEST_MODEL_MAX_CLASSES] = {0};
    for (size_t k = 0; !out->saturated && k < m->nent; k++) {
        const gpuest_model_noc_ent_t *e = &m->ent[k];
        double l = e->pkd; /* one wait per delivery behind it */
        int c = e->c;
        if (l > 0.0)
            hws[c] += l * (m->w_vc[((size_t)m->part[c] * m->routers + e->r) * m->ports + e->i] +
                           m->w_out[((size_t)m->plane[c] * m->routers + e->r) * m->ports + e->o]);
    }
    for (int c = 0; c < m->ncls; c++) {
        gpuest_model_class_result_t *cr = &out->cls[c];
        double p = m->cls_pk[c];
        cr->packets = p * scale;
        cr->flits = p * scale * m->len[c];
        if (p <= 0.0)
            continue;
        cr->avg_hops = m->cls_hops[c] / p;
        cr->zero_load = m->cls_t0[c] / p; /* already in interconnect cycles */
        cr->serialization = (double)(m->len[c] - 1) / clk;
        if (out->saturated)
            continue;
        double hw = hws[c], sq = 0.0, mq = 0.0, rq = 0.0;
        double fan = m->cls_inj[c] > 0.0 ? p / m->cls_inj[c] : 1.0; /* deliveries per injected packet */
        for (int n = 0; n < m->nodes; n++) {
            double li = m->inj[(size_t)n * m->ncls + c], la = m->arr[(size_t)n * m->ncls + c];
            if (m->mc[n] && m->part[c] == 1)
                mq += li * fan * m->w_mcq[n];
            else
                sq += li * fan * m->w_src[(size_t)m->plane[c] * m->nodes + n];
            if (m->is_request[c] && m->mc[n])
                rq += la * m->w_bp[n];
        }
        cr->hop_wait = hw / p / clk;
        cr->source_queue = sq / p / clk;
        cr->mc_queue = (mq + rq) / p / clk;
        /* Request refusals happen inside the network (before the tail is accepted); the reply
         * queue wait happens before injection, like the source queue. */
        cr->avg_network_latency = cr->zero_load + cr->serialization + cr->hop_wait + rq / p / clk;
        cr->avg_latency = cr->avg_network_latency + cr->source_queue + mq / p / clk;
        tot += p;
        lat += p * cr->avg_latency;
        net += p * cr->avg_network_latency;
    }
    if (!out->saturated && tot > 0.0) {
        out->avg_packet_latency = lat / tot;
        out->avg_network_latency = net / tot;
    }
}

/* The waits a warm evaluation may start from: those of the last converged warm evaluation, when it
 * was at a scale and a kappa no higher than this one's, with the same other contention constants.
 * Every wait of the fixed-point map grows with the others, with the scale and with kappa (the
 * output waits' multiplier), so the iteration started below the least fixed point climbs to it as
 * the one from zero does, in fewer sweeps. */
static int warm_usable(const gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *pp)
{
    const gpuest_model_params_t *k = &m->keep_params;
    return m->keep_valid && m->keep_scale <= scale && k->kappa <= pp->kappa && k->conflict == pp->conflict &&
           k->ca2 == pp->ca2 && k->vc_hold == pp->vc_hold;
}

static void state_copy(gpuest_model_noc_t *m, int to_keep)
{
    size_t rp = (size_t)m->routers * m->ports, n = (size_t)m->nodes;
    double *live[6] = {m->w_out, m->w_vc, m->w_down, m->w_bp, m->w_mcq, m->w_src};
    double *kept[6] = {m->k_out, m->k_vc, m->k_down, m->k_bp, m->k_mcq, m->k_src};
    size_t len[6] = {rp * m->planes, rp * m->nparts, rp * m->nparts, n, n, n * m->planes};
    for (int a = 0; a < 6; a++)
        memcpy(to_keep ? kept[a] : live[a], to_keep ? live[a] : kept[a], len[a] * sizeof(double));
}

/* classes: 0 leaves the per-class latencies (class_results) out of the result */
static gpuest_err eval_from(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                            gpuest_model_result_t *out, int warm, int classes, gpuest_error_t *err);

gpuest_err gpuest_model_noc_eval(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                                 gpuest_model_result_t *out, gpuest_error_t *err)
{
    return eval_from(m, scale, params, out, 0, 1, err);
}

gpuest_err gpuest_model_noc_eval_warm(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                                      gpuest_model_result_t *out, gpuest_error_t *err)
{
    return eval_from(m, scale, params, out, 1, 1, err);
}

gpuest_err gpuest_model_noc_eval_probe(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                                       gpuest_model_result_t *out, gpuest_error_t *err)
{
    return eval_from(m, scale, params, out, 1, 0, err);
}

void gpuest_model_noc_forget(gpuest_model_noc_t *m) { m->keep_valid = 0; }

static gpuest_err eval_from(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                            gpuest_model_result_t *out, int warm, int classes, gpuest_error_t *err)
{
    gpuest_model_params_t def;
    if (!params) {
        gpuest_model_params_default(&def);
        params = &def;
    }
    memset(out, 0, sizeof *out);
    out->num_classes = m->ncls;
    out->bottleneck_router = -1;
    out->bottleneck_port = -1;
    if (!(scale >= 0.0) || !isfinite(scale))
        return gpuest_fail(err, GPUEST_ERANGE, "NoC model: rate scale must be finite and >= 0 (got %g)", scale);
    /* the rate per switch cycle: a crossbar port of w flits is a one-flit port clocked w times
     * per interconnect cycle (m->clock); utilisations are then shares of a port's capacity */
    double sw = scale / m->clock;
    int from_keep = warm && warm_usable(m, scale, params);
    if (from_keep)
        state_copy(m, 0);
    else
        reset_state(m);
    scale_hops(m, sw, params);
    double flits = 0.0, delivered = 0.0;
    for (int c = 0; c < m->ncls; c++) {
        flits += m->cls_inj[c] * m->len[c] * scale;
        delivered += m->cls_pk[c] * m->len[c] * scale;
    }
    out->offered_rate = m->injecting > 0 ? flits / m->injecting : 0.0;
    /* accepted = flits ejected per injecting node: a multicast packet is accepted once per member */
    double fanout = flits > 0.0 ? delivered / flits : 1.0;
    int sat = 0, mcs = 0, converged = 0;
    double stall = 0.0;
    for (int it = 1; it <= params->max_iter && !sat; it++) {
        double delta = 0.0;
        out->max_util = 0.0; /* what the sweep raises (note_util) starts again from zero */
        out->mc_full_prob = 0.0;
        out->mc_inject_util = 0.0;
        sat = solve_outputs(m, params, (double)m->vcs_part, out, &delta) || solve_inputs(m, params, out, &delta) ||
              solve_endpoints(m, sw, params->tol, out, &delta, &stall, &mcs);
        out->iterations = it;
        if (delta <= params->tol) {
            converged = 1;
            break;
        }
    }
    /* The iteration from zero is monotone: without convergence the waits keep growing, which is
     * the fixed point failing to exist (saturation) rather than a usable answer. */
    if (!sat && !converged)
        sat = 1;
    if (warm && !sat) { /* the start of the next warm evaluation at this scale or above */
        state_copy(m, 1);
        m->keep_valid = 1;
        m->keep_scale = scale;
        m->keep_params = *params;
    }
    out->saturated = sat;
    out->mc_stall_ratio = (!sat && mcs > 0) ? stall / mcs : 0.0;
    if (sat) {
        out->mc_stall_ratio = out->mc_full_prob = 0.0;
        out->accepted_rate = out->max_util > 0.0 ? out->offered_rate / out->max_util : 0.0;
        if (out->accepted_rate > out->offered_rate)
            out->accepted_rate = out->offered_rate;
        out->accepted_rate *= fanout;
    } else {
        out->accepted_rate = out->offered_rate * fanout;
    }
    if (classes)
        class_results(m, out, scale);
    if (sat)
        return gpuest_fail(err, GPUEST_ESATURATED,
                           "NoC model saturated at scale %g: utilisation %.3f at router %d port %d (kind %d)", scale,
                           out->max_util, out->bottleneck_router, out->bottleneck_port, out->bottleneck_kind);
    return GPUEST_OK;
}
