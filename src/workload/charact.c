/* charact.c: per-kernel characterization of a workload's line-request stream (sector use, CA/ICA, inter-core sharing). */
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

void gpuest_charact_opts_default(gpuest_charact_opts_t *o)
{
    o->num_sms = 15;
    o->ctas_per_sm = 8;
    o->warps_per_sm = 48;
    o->l1_lines = 128;
    o->l1_assoc = 4;
    o->share_window = 1024;
    o->access_cb = NULL;
    o->access_ctx = NULL;
    o->inst_cb = NULL;
    o->holder_delay = 0;
    o->miss_cb = NULL;
    o->gto_bursts = 0;
    o->turn_cb = NULL;
    o->sim_placement = 0;
    o->sm_rate = NULL;
}

/* ------------------------------------------------------------ line table
 * Open addressing on the line address; per line the two most recent read
 * requests from different SMs (for the sharing window). */
typedef struct {
    uint64_t line;          /* 0 = empty slot (line 0 is never a real request: see key()) */
    int32_t sm_a, sm_b;     /* most recent requester, most recent other requester (-1 none) */
    uint64_t t_a, t_b;
    int32_t msm_a, msm_b;   /* the same over the reads that miss the L1 (what reaches the MCs) */
    uint64_t mt_a, mt_b;
} line_ent_t;

typedef struct {
    line_ent_t *e;
    size_t cap, used;
} line_tab_t;

static uint64_t key(uint64_t line) { return line | 1u; }   /* lines are 128-aligned, so bit 0 is free */

static size_t hash_line(uint64_t k, size_t cap) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1); }

static gpuest_err tab_grow(line_tab_t *t, gpuest_error_t *err)
{
    size_t cap = t->cap ? t->cap * 2 : 4096;
    line_ent_t *e = calloc(cap, sizeof *e);
    if (!e)
        return gpuest_fail(err, GPUEST_ENOMEM, "characterize: out of memory for the line table");
    for (size_t i = 0; i < t->cap; i++)
        if (t->e[i].line) {
            size_t h = hash_line(t->e[i].line, cap);
            while (e[h].line)
                h = (h + 1) & (cap - 1);
            e[h] = t->e[i];
        }
    free(t->e);
    t->e = e;
    t->cap = cap;
    return GPUEST_OK;
}

/* Finds or inserts line; *fresh = 1 when inserted. */
static gpuest_err tab_get(line_tab_t *t, uint64_t line, line_ent_t **out, int *fresh, gpuest_error_t *err)
{
    if ((t->used + 1) * 2 > t->cap)
        GPUEST_TRY(tab_grow(t, err));
    uint64_t k = key(line);
    size_t h = hash_line(k, t->cap);
    while (t->e[h].line && t->e[h].line != k)
        h = (h + 1) & (t->cap - 1);
    *fresh = t->e[h].line == 0;
    if (*fresh) {
        t->e[h].line = k;
        t->e[h].sm_a = t->e[h].sm_b = -1;
        t->e[h].msm_a = t->e[h].msm_b = -1;
        t->used++;
    }
    *out = &t->e[h];
    return GPUEST_OK;
}

/* ------------------------------------------------------------ per-SM L1 generations */
typedef struct {
    uint64_t line;      /* key(line), 0 = invalid */
    uint64_t lru;
    uint8_t first, all;
    uint8_t inconsistent;
    uint64_t fill;      /* the launch's read-miss count when the line came in */
} l1_way_t;

typedef struct {
    l1_way_t *ways;     /* num_sms * sets * assoc */
    int sets, assoc;
    uint64_t clock;
    uint64_t miss_clock; /* the launch's read misses before the current one */
} l1_model_t;

static void gen_record(gpuest_charact_t *st, const l1_way_t *w)
{
    int n = gpuest_sector_count(w->all);
    if (n < 1)
        return;
    if (w->inconsistent)
        st->gen_ica[n - 1]++;
    else
        st->gen_ca[n - 1]++;
}

/* Returns 1 when the access hits (the line is there). */
static int l1_access(l1_model_t *m, gpuest_charact_t *st, int sm, uint64_t line, uint8_t sectors)
{
    uint64_t k = key(line);
    size_t set = (size_t)((line / GPUEST_LINE_BYTES) % (uint64_t)m->sets);
    l1_way_t *w = &m->ways[((size_t)sm * (size_t)m->sets + set) * (size_t)m->assoc];
    l1_way_t *victim = &w[0];
    m->clock++;
    for (int i = 0; i < m->assoc; i++) {
        if (w[i].line == k) {
            if (sectors & ~w[i].all)
                w[i].inconsistent = 1;   /* needs data outside what is already there */
            w[i].all |= sectors;
            w[i].lru = m->clock;
            return 1; /* the baseline L1 fills whole lines: a present line hits */
        }
        if (w[i].line == 0 || (victim->line != 0 && w[i].lru < victim->lru))
            victim = &w[i];
    }
    if (victim->line)
        gen_record(st, victim);
    victim->line = k;
    victim->lru = m->clock;
    victim->first = victim->all = sectors;
    victim->inconsistent = 0;
    victim->fill = m->miss_clock;
    return 0;
}

/* How many SMs other than sm hold the line in their L1 now, counting a line only once it has
 * been there for `delay` read misses (a line still in flight cannot answer). */
static int l1_holders(const l1_model_t *m, int num_sms, int sm, uint64_t line, uint64_t delay)
{
    uint64_t k = key(line);
    size_t set = (size_t)((line / GPUEST_LINE_BYTES) % (uint64_t)m->sets);
    int n = 0;
    for (int o = 0; o < num_sms; o++) {
        if (o == sm)
            continue;
        const l1_way_t *w = &m->ways[((size_t)o * (size_t)m->sets + set) * (size_t)m->assoc];
        for (int i = 0; i < m->assoc; i++)
            if (w[i].line == k) {
                n += w[i].fill + delay <= m->miss_clock;
                break;
            }
    }
    return n;
}

static void l1_flush(l1_model_t *m, gpuest_charact_t *st, int num_sms)
{
    size_t n = (size_t)num_sms * (size_t)m->sets * (size_t)m->assoc;
    for (size_t i = 0; i < n; i++)
        if (m->ways[i].line) {
            gen_record(st, &m->ways[i]);
            m->ways[i].line = 0;
        }
}

/* ------------------------------------------------------------ driver */
typedef struct {
    uint32_t cta;
    int sm;
    int live;               /* warps not yet finished */
    gpuest_warp_t **warps;  /* warps_per_cta entries, NULL when finished */
    gpuest_inst_t *held;    /* gto_bursts: per warp, the instruction that ended its last burst */
    uint8_t *has_held;
    uint32_t warp0;         /* the turn callback's name of its first warp */
} slot_t;

typedef struct {
    gpuest_workload_t *wl;
    const gpuest_charact_opts_t *o;
    gpuest_charact_t st;
    line_tab_t tab;
    l1_model_t l1;
    uint64_t now;           /* read line requests so far in the launch */
    uint64_t now_miss;      /* of them, L1 misses */
    gpuest_line_req_t reqs[GPUEST_COALESCE_MAX];
} run_t;

static gpuest_err on_request(run_t *r, int sm, const gpuest_inst_t *in, const gpuest_line_req_t *q,
                             gpuest_error_t *err)
{
    gpuest_charact_t *st = &r->st;
    st->line_requests++;
    st->req_by_sectors[gpuest_sector_count(q->sectors) - 1]++;
    line_ent_t *e;
    int fresh;
    GPUEST_TRY(tab_get(&r->tab, q->line, &e, &fresh, err));
    if (fresh)
        st->distinct_lines++;
    if (r->o->access_cb)
        GPUEST_TRY(r->o->access_cb(r->o->access_ctx, gpuest_workload_image(r->wl), sm, q->line,
                                   in->op == GPUEST_MEM_LOAD, err));
    if (in->op != GPUEST_MEM_LOAD)
        return GPUEST_OK;
    st->read_requests++;
    st->read_by_sectors[gpuest_sector_count(q->sectors) - 1]++;
    if (q->sectors == 0xF)
        st->fdr++;
    else
        st->pdr++;
    uint64_t t = r->now++, win = (uint64_t)r->o->share_window;
    int other = -1;
    uint64_t t_other = 0;
    if (e->sm_a >= 0 && e->sm_a != sm)
        other = e->sm_a, t_other = e->t_a;
    else if (e->sm_b >= 0)
        other = e->sm_b, t_other = e->t_b;
    if (other >= 0 && t - t_other <= win)
        st->shared_requests++;
    if (e->sm_a == sm) {
        e->t_a = t;
    } else {
        e->sm_b = e->sm_a, e->t_b = e->t_a;
        e->sm_a = sm, e->t_a = t;
    }
    if (l1_access(&r->l1, st, sm, q->line, q->sectors))
        return GPUEST_OK;
    /* a miss: the same sharing test over the misses only, time counted in misses */
    st->miss_reads++;
    int holders = l1_holders(&r->l1, r->o->num_sms, sm, q->line, r->o->holder_delay);
    holders = holders < GPUEST_CHARACT_MAX_HOLDERS ? holders : GPUEST_CHARACT_MAX_HOLDERS;
    st->miss_holders[holders]++;
    if (r->o->miss_cb)
        GPUEST_TRY(r->o->miss_cb(r->o->access_ctx, sm, in->pc, holders, err));
    uint64_t mt = r->now_miss++;
    r->l1.miss_clock = r->now_miss;
    other = -1;
    if (e->msm_a >= 0 && e->msm_a != sm)
        other = e->msm_a, t_other = e->mt_a;
    else if (e->msm_b >= 0)
        other = e->msm_b, t_other = e->mt_b;
    if (other >= 0 && mt - t_other <= win)
        st->shared_misses++;
    if (e->msm_a == sm) {
        e->mt_a = mt;
    } else {
        e->msm_b = e->msm_a, e->mt_b = e->mt_a;
        e->msm_a = sm, e->mt_a = mt;
    }
    return GPUEST_OK;
}

static gpuest_err slot_fill(run_t *r, slot_t *s, uint32_t cta, int sm, const gpuest_launch_t *l,
                            gpuest_error_t *err)
{
    s->cta = cta;
    s->sm = sm;
    s->live = 0;
    r->st.warps += l->warps_per_cta;
    for (uint32_t w = 0; w < l->warps_per_cta; w++) {
        GPUEST_TRY(gpuest_warp_open(r->wl, cta, w, &s->warps[w], err));
        if (s->has_held)
            s->has_held[w] = 0;
        s->live++;
    }
    return GPUEST_OK;
}

/* One issued instruction of a warp on the slot's SM: counted, and its line requests walked. */
static gpuest_err issue_inst(run_t *r, slot_t *s, const gpuest_inst_t *in, gpuest_error_t *err)
{
    r->st.warp_instructions++;
    if (in->kind != GPUEST_INST_MEM)
        return GPUEST_OK;
    r->st.mem_instructions++;
    size_t n = gpuest_coalesce(in, r->reqs);
    if (r->o->inst_cb)
        GPUEST_TRY(r->o->inst_cb(r->o->access_ctx, s->sm, in->op == GPUEST_MEM_LOAD, (int)n, err));
    for (size_t i = 0; i < n; i++)
        GPUEST_TRY(on_request(r, s->sm, in, &r->reqs[i], err));
    return GPUEST_OK;
}

static void close_warp(slot_t *s, uint32_t w)
{
    gpuest_warp_close(s->warps[w]);
    s->warps[w] = NULL;
    s->live--;
}

/* 1 when in reads a register in the pending set (one bit per register number). */
static int reads_pending(const gpuest_inst_t *in, const uint64_t pend[4])
{
    for (int k = 0; k < in->nsrc && k < GPUEST_INST_MAX_SRC; k++)
        if (pend[in->src[k] >> 6] >> (in->src[k] & 63) & 1)
            return 1;
    return 0;
}

/* gto_bursts: warp w issues until an instruction needs a load of this burst or is a barrier (at
 * least one instruction a turn); the instruction that stops it is held for its next turn. */
static gpuest_err warp_burst(run_t *r, slot_t *s, uint32_t w, gpuest_error_t *err)
{
    uint64_t pend[4] = {0, 0, 0, 0};
    for (int issued = 0;; issued++) {
        gpuest_inst_t *in = &s->held[w];
        if (!s->has_held[w])
            GPUEST_TRY(gpuest_warp_next(s->warps[w], in, err));
        s->has_held[w] = 0;
        if (in->kind == GPUEST_INST_END) {
            close_warp(s, w);
            return GPUEST_OK;
        }
        if (issued > 0 && (in->kind == GPUEST_INST_BARRIER || reads_pending(in, pend))) {
            s->has_held[w] = 1;
            return GPUEST_OK;
        }
        GPUEST_TRY(issue_inst(r, s, in, err));
        if (in->kind == GPUEST_INST_MEM && in->op == GPUEST_MEM_LOAD)
            for (int k = 0; k < in->ndst && k < GPUEST_INST_MAX_DST; k++)
                pend[in->dst[k] >> 6] |= 1ull << (in->dst[k] & 63);
        if (in->kind == GPUEST_INST_BARRIER)
            return GPUEST_OK;
    }
}

/* Issues one instruction (gto_bursts: one burst) of each live warp of a slot; closes finished warps. */
static gpuest_err slot_step(run_t *r, slot_t *s, const gpuest_launch_t *l, gpuest_error_t *err)
{
    gpuest_inst_t in;
    for (uint32_t w = 0; w < l->warps_per_cta; w++) {
        if (!s->warps[w])
            continue;
        if (r->o->turn_cb)
            GPUEST_TRY(r->o->turn_cb(r->o->access_ctx, s->sm, s->warp0 + w, err));
        if (r->o->gto_bursts) {
            GPUEST_TRY(warp_burst(r, s, w, err));
            continue;
        }
        GPUEST_TRY(gpuest_warp_next(s->warps[w], &in, err));
        if (in.kind == GPUEST_INST_END) {
            close_warp(s, w);
            continue;
        }
        GPUEST_TRY(issue_inst(r, s, &in, err));
    }
    return GPUEST_OK;
}

/* Which SMs issue in this round: every SM without rates; with rates, SM s once its credit (its
 * rate added each round, from 0 at the launch's start) reaches 1, which it then spends: an SM of
 * rate 3/4 issues in rounds 2, 3, 4, then 6, 7, 8, ... (error diffusion, no generator). */
static void sm_rounds(const gpuest_charact_opts_t *o, double *credit, unsigned char *go)
{
    for (int s = 0; s < o->num_sms; s++) {
        if (!o->sm_rate) {
            go[s] = 1;
            continue;
        }
        double rate = o->sm_rate[s] > 1.0 ? 1.0 : o->sm_rate[s] < 1e-3 ? 1e-3 : o->sm_rate[s];
        credit[s] += rate;
        go[s] = credit[s] >= 1.0 - 1e-9;
        if (go[s])
            credit[s] -= 1.0;
    }
}

static gpuest_err run_launch(run_t *r, const gpuest_launch_t *l, gpuest_error_t *err)
{
    const gpuest_charact_opts_t *o = r->o;
    int per_sm = o->ctas_per_sm;
    int by_warps = (int)((uint32_t)o->warps_per_sm / (l->warps_per_cta ? l->warps_per_cta : 1));
    if (by_warps < per_sm)
        per_sm = by_warps < 1 ? 1 : by_warps;
    size_t nslots = (size_t)o->num_sms * (size_t)per_sm;
    if (nslots > l->num_ctas)
        nslots = l->num_ctas;
    slot_t *slots = calloc(nslots, sizeof *slots);
    gpuest_warp_t **wp = calloc(nslots * l->warps_per_cta, sizeof *wp);
    gpuest_inst_t *held = NULL;
    uint8_t *has_held = NULL;
    if (o->gto_bursts) {
        held = malloc(nslots * l->warps_per_cta * sizeof *held);
        has_held = calloc(nslots * l->warps_per_cta, 1);
    }
    int *sm_of = calloc(nslots, sizeof *sm_of), *count = calloc((size_t)o->num_sms, sizeof *count);
    double *credit = calloc((size_t)o->num_sms, sizeof *credit);
    unsigned char *go = calloc((size_t)o->num_sms, 1);
    gpuest_err rc = GPUEST_OK;
    if (!slots || !wp || (o->gto_bursts && (!held || !has_held)) || !sm_of || !count || !credit || !go)
        rc = gpuest_fail(err, GPUEST_ENOMEM, "characterize: out of memory");
    else if (o->sim_placement)
        nslots = gpuest_cta_place_first(o->num_sms, per_sm, l->num_ctas, sm_of, count, nslots);
    else
        for (size_t i = 0; i < nslots; i++)
            sm_of[i] = (int)(i % (size_t)o->num_sms); /* CTA c goes to SM c mod num_sms */
    uint32_t next = 0;
    size_t active = 0;
    for (size_t i = 0; rc == GPUEST_OK && i < nslots; i++) {
        slots[i].warps = wp + i * l->warps_per_cta;
        slots[i].warp0 = (uint32_t)(i * l->warps_per_cta);
        if (held) {
            slots[i].held = held + i * l->warps_per_cta;
            slots[i].has_held = has_held + i * l->warps_per_cta;
        }
        /* later CTAs take the slot freed on the same SM */
        rc = slot_fill(r, &slots[i], next, sm_of[i], l, err);
        next++;
        active++;
    }
    while (rc == GPUEST_OK && active > 0) {
        sm_rounds(o, credit, go);
        for (size_t i = 0; rc == GPUEST_OK && i < nslots; i++) {
            slot_t *s = &slots[i];
            if (s->live == 0 || !go[s->sm])
                continue;
            rc = slot_step(r, s, l, err);
            if (rc == GPUEST_OK && s->live == 0) {
                if (next < l->num_ctas)
                    rc = slot_fill(r, s, next++, s->sm, l, err);
                else
                    active--;
            }
        }
    }
    for (size_t i = 0; slots && wp && i < nslots; i++)
        for (uint32_t w = 0; w < l->warps_per_cta; w++)
            gpuest_warp_close(slots[i].warps[w]);
    free(slots);
    free(wp);
    free(held);
    free(has_held);
    free(sm_of);
    free(count);
    free(credit);
    free(go);
    return rc;
}

gpuest_err gpuest_workload_characterize(gpuest_workload_t *wl, const gpuest_charact_opts_t *opts,
                                        gpuest_charact_cb cb, gpuest_charact_line_cb line_cb, void *ctx,
                                        gpuest_progress_t *progress, gpuest_error_t *err)
{
    gpuest_charact_opts_t def;
    if (!opts) {
        gpuest_charact_opts_default(&def);
        opts = &def;
    }
    if (opts->num_sms < 1 || opts->ctas_per_sm < 1 || opts->warps_per_sm < 1 || opts->l1_assoc < 1 ||
        opts->l1_lines < opts->l1_assoc || opts->l1_lines % opts->l1_assoc != 0 || opts->share_window < 1)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "characterize: options need num_sms, ctas_per_sm, warps_per_sm, share_window >= 1 and "
                           "l1_lines a positive multiple of l1_assoc");
    run_t r;
    memset(&r, 0, sizeof r);
    r.wl = wl;
    r.o = opts;
    r.l1.assoc = opts->l1_assoc;
    r.l1.sets = opts->l1_lines / opts->l1_assoc;
    r.l1.ways = calloc((size_t)opts->num_sms * (size_t)opts->l1_lines, sizeof *r.l1.ways);
    if (!r.l1.ways)
        return gpuest_fail(err, GPUEST_ENOMEM, "characterize: out of memory");
    gpuest_err rc = GPUEST_OK;
    uint64_t launches = 0;
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        rc = gpuest_workload_next_launch(wl, &l, &done, err);
        if (rc != GPUEST_OK || done)
            break;
        memset(&r.st, 0, sizeof r.st);
        snprintf(r.st.workload, sizeof r.st.workload, "%s", gpuest_workload_name(wl));
        memcpy(r.st.kernel, l.name, sizeof r.st.kernel);   /* same size, NUL-terminated */
        r.st.launch = l.index;
        r.now = r.now_miss = 0;
        r.l1.miss_clock = 0;
        if (r.tab.e)
            memset(r.tab.e, 0, r.tab.cap * sizeof *r.tab.e);
        r.tab.used = 0;
        rc = run_launch(&r, &l, err);
        if (rc != GPUEST_OK)
            break;
        l1_flush(&r.l1, &r.st, opts->num_sms);   /* L1s are not kept across kernels */
        for (size_t i = 0; line_cb && rc == GPUEST_OK && i < r.tab.cap; i++)
            if (r.tab.e[i].line)
                rc = line_cb(ctx, gpuest_workload_image(wl), r.tab.e[i].line & ~(uint64_t)1, err);
        if (rc == GPUEST_OK && cb)
            rc = cb(ctx, &r.st, err);
        if (rc == GPUEST_OK)
            rc = gpuest_workload_end_launch(wl, err);
        if (rc != GPUEST_OK)
            break;
        gpuest_progress_update(progress, ++launches);
    }
    free(r.tab.e);
    free(r.l1.ways);
    return rc;
}
