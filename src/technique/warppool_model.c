/* warppool_model.c: the analytical estimator's view of the WarpPool (technique.coalescing =
 * warppool or pcu+warppool; src/sim/warppool.c): inter-warp merging of load line requests in
 * front of the L1D.
 *
 * The characterization walk (src/workload/charact.c) hands every line request, in its issue order
 * on each SM, to pools of 1, 2, 4, ..., technique.warppool_queues queues per SM with the
 * simulator's rules: a load joins the open queue of its line while it has fewer than
 * technique.warppool_depth requests, else binds a free queue; a store (or atomic) binds a queue of
 * its own and closes its line's open load queue; when every queue is bound, the oldest one makes
 * its L1 access and frees (the FIFO selector). A walk has no time, so a pool of q queues stands for
 * a pool that holds q bound queues: the merged share is measured for each size, and the model
 * picks the size from its own occupancy (src/model/warppool_rule.c). Every access also spends
 * technique.warppool_latency core cycles in the pool (hits included): it rides on the L1 hit
 * latency, charged beyond the SM's latency tolerance as the compressed L1's extra latency is.
 * With pcu+warppool the same walk measures the PCUs' inter-core locality (coalescing_model.c).
 * Short (docs/estimator.md): merged misses are not removed (the pool-less L1 merges them in its
 * MSHRs, so the requests sent to the L2 do not change); the pool's latency on the miss path (2 of
 * some 300 cycles) and the FIFO head-of-line blocking behind a stalled access are left out. */
#include <stdlib.h>
#include <string.h>

#include "technique_int.h"

typedef struct {
    uint64_t line, seq;
    int n;
    uint8_t bound, closed;
} wpm_queue_t;

struct tech_wpm_pool_s {
    int sms, queues, depth;
    uint64_t seq;
    wpm_queue_t *q; /* sms x queues */
    uint64_t requests, merged;
};

gpuest_err tech_wpm_create(int sms, int queues, int depth, tech_wpm_pool_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (sms < 1 || queues < 1 || depth < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "WarpPool model: SMs, queues and depth must be >= 1");
    tech_wpm_pool_t *p = calloc(1, sizeof *p);
    if (p)
        p->q = calloc((size_t)sms * (size_t)queues, sizeof *p->q);
    if (!p || !p->q) {
        free(p);
        return gpuest_fail(err, GPUEST_ENOMEM, "WarpPool model: out of memory");
    }
    p->sms = sms;
    p->queues = queues;
    p->depth = depth;
    *out = p;
    return GPUEST_OK;
}

void tech_wpm_destroy(tech_wpm_pool_t *p)
{
    if (p)
        free(p->q);
    free(p);
}

/* A free queue of the SM, after the oldest bound one made its access when none is free. */
static wpm_queue_t *free_queue(tech_wpm_pool_t *p, wpm_queue_t *q)
{
    wpm_queue_t *oldest = NULL;
    for (int i = 0; i < p->queues; i++) {
        if (!q[i].bound)
            return &q[i];
        if (!oldest || q[i].seq < oldest->seq)
            oldest = &q[i];
    }
    oldest->bound = 0;
    return oldest;
}

int tech_wpm_request(tech_wpm_pool_t *p, int sm, uint64_t line, int is_load)
{
    wpm_queue_t *q = &p->q[(size_t)sm * (size_t)p->queues];
    p->requests++;
    for (int i = 0; i < p->queues; i++) {
        wpm_queue_t *e = &q[i];
        if (!e->bound || e->closed || e->line != line)
            continue;
        if (!is_load) {
            e->closed = 1; /* a later load must not be answered by an access made before this write */
            continue;
        }
        e->n++;
        e->closed = e->n >= p->depth;
        p->merged++;
        return 1;
    }
    wpm_queue_t *e = free_queue(p, q);
    *e = (wpm_queue_t){.line = line, .seq = ++p->seq, .n = 1, .bound = 1,
                       .closed = (uint8_t)(!is_load || p->depth <= 1)};
    return 0;
}

void tech_wpm_flush(tech_wpm_pool_t *p)
{
    memset(p->q, 0, (size_t)p->sms * (size_t)p->queues * sizeof *p->q);
}

double tech_wpm_merged_share(const tech_wpm_pool_t *p)
{
    return p->requests ? (double)p->merged / (double)p->requests : 0.0;
}

/* ------------------------------------------------------------------ the walk */

typedef struct {
    int n;
    tech_wpm_pool_t *pool[GPUEST_MODEL_MERGE_WINDOWS];
    uint64_t miss_reads, shared_misses; /* pcu+warppool: the PCUs' locality */
    /* the plain L1 without a pool (l1[0]) and behind each pool size (l1[i + 1]; wp_l1walk.c) */
    tech_wpl1_t *l1[GPUEST_MODEL_MERGE_WINDOWS + 1];
    uint32_t warp; /* the warp whose turn it is */
    /* the L1's set reservations in time: the in-order unit (sr[0]) and the pool (sr[1]; wp_setres.c) */
    tech_wsr_t *sr[2];
} wpm_walk_t;

static gpuest_err on_access(void *ctx, const gpuest_memimg_t *img, int sm, uint64_t line, int is_load,
                            gpuest_error_t *err)
{
    (void)img;
    wpm_walk_t *w = ctx;
    for (int i = 0; i < w->n; i++)
        tech_wpm_request(w->pool[i], sm, line, is_load);
    for (int i = 0; i <= w->n; i++)
        GPUEST_TRY(tech_wpl1_request(w->l1[i], sm, w->warp, line, is_load, err));
    for (int i = 0; i < 2; i++)
        if (w->sr[i])
            tech_wsr_request(w->sr[i], sm, line, is_load);
    return GPUEST_OK;
}

static gpuest_err on_turn(void *ctx, int sm, uint32_t warp, gpuest_error_t *err)
{
    wpm_walk_t *w = ctx;
    w->warp = warp;
    for (int i = 0; i <= w->n; i++)
        GPUEST_TRY(tech_wpl1_turn(w->l1[i], sm, warp, err));
    return GPUEST_OK;
}

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)err;
    wpm_walk_t *w = ctx;
    w->miss_reads += s->miss_reads;
    w->shared_misses += s->shared_misses;
    for (int i = 0; i < w->n; i++)
        tech_wpm_flush(w->pool[i]); /* the pool drains at a kernel's end */
    for (int i = 0; i <= w->n; i++)
        GPUEST_TRY(tech_wpl1_launch_end(w->l1[i], err));
    for (int i = 0; i < 2; i++)
        if (w->sr[i])
            tech_wsr_launch_end(w->sr[i]);
    return GPUEST_OK;
}

gpuest_err tech_wp_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    gpuest_model_transform_identity(out);
    if (!env->launches)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.coalescing = warppool: the estimate needs the workload's launches to walk "
                           "their line requests (a generated workload or a trace)");
    gpuest_charact_opts_t o;
    tech_walk_opts(cfg, &o);
    int pcu = cfg->technique.coalescing == GPUEST_COALESCE_PCU_WARPPOOL;
    if (pcu)
        o.share_window = tech_coal_window(cfg);
    wpm_walk_t w;
    memset(&w, 0, sizeof w);
    int qmax = cfg->technique.warppool_queues;
    gpuest_err rc = GPUEST_OK;
    for (int size = 1; rc == GPUEST_OK && w.n < GPUEST_MODEL_MERGE_WINDOWS; size *= 2) {
        int q = size < qmax ? size : qmax;
        rc = tech_wpm_create(o.num_sms, q, cfg->technique.warppool_depth, &w.pool[w.n], err);
        if (rc == GPUEST_OK)
            w.n++;
        if (q == qmax)
            break;
    }
    /* the L1 walks: no pool, then each pool size (the same sizes as the merge pools) */
    for (int i = 0; rc == GPUEST_OK && i <= w.n; i++) {
        int q = i == 0 ? 0 : (1 << (i - 1) < qmax ? 1 << (i - 1) : qmax);
        /* depth 1: no merging in these walks; the merges are the model's l1_access_keep, and a
         * merged load removes a miss of the pool-less walk (an MSHR merge), so counted here too
         * it would lower the scale twice (mesh56 bfs: 0.967 at one queue from merges alone) */
        rc = tech_wpl1_create(o.num_sms, o.l1_lines / o.l1_assoc, o.l1_assoc, q, 1, &w.l1[i], err);
    }
    /* the set reservations: a miss holds its way for the L1 and L2 hit latencies (the round trip
     * of an L2 hit without its network, the least a fill takes; the model uses only the ratio of
     * the pool's stalls to the in-order unit's). Only when the estimate applies the relief
     * (env->pool_setres): otherwise its result would be dropped (study/estimate.c). */
    int miss_lat = cfg->l1.hit_latency + cfg->l2.hit_latency;
    for (int i = 0; rc == GPUEST_OK && env->pool_setres && i < 2; i++)
        rc = tech_wsr_create(o.num_sms, o.l1_lines / o.l1_assoc, o.l1_assoc, i ? qmax : 0, cfg->technique.warppool_depth,
                             cfg->technique.warppool_latency, miss_lat > 1 ? miss_lat : 1, &w.sr[i], err);
    o.access_cb = on_access;
    o.access_ctx = &w;
    /* GTO bursts and fills at the requester's next turn, as the compressed-L1 walk (l1c_model.c) */
    o.gto_bursts = 1;
    o.turn_cb = on_turn;
    if (rc == GPUEST_OK)
        rc = gpuest_workload_characterize(env->launches, &o, on_launch, NULL, &w, NULL, err);
    if (rc == GPUEST_OK) {
        out->l1_merge_windows = w.n;
        for (int i = 0; i < w.n; i++)
            out->l1_merge_share[i] = tech_wpm_merged_share(w.pool[i]);
        out->l1_hit_extra_latency = cfg->technique.warppool_latency;
        out->ldst_pool_lines = qmax; /* the LD/ST unblocking (src/model/ldst_pool.c) */
        double base = tech_wpl1_miss_rate(w.l1[0]);
        for (int i = 0; i < w.n && base > 0; i++)
            out->l1_pool_miss_scale[i] = tech_wpl1_miss_rate(w.l1[i + 1]) / base;
        /* the relief: the L1 side's cycles without an access per line request, behind the pool over
         * the in-order unit's (a pool that only delays its accesses by its latency gives more) */
        double sr0 = w.sr[0] ? tech_wsr_idle_per_request(w.sr[0]) : 0.0;
        if (sr0 > 0)
            out->ldst_block_scale = tech_wsr_idle_per_request(w.sr[1]) / sr0;
        if (pcu && w.miss_reads > 0)
            out->reply_packets_saved = (double)w.shared_misses / (double)w.miss_reads;
    }
    for (int i = 0; i < w.n; i++)
        tech_wpm_destroy(w.pool[i]);
    for (int i = 0; i <= GPUEST_MODEL_MERGE_WINDOWS; i++)
        tech_wpl1_destroy(w.l1[i]);
    for (int i = 0; i < 2; i++)
        tech_wsr_destroy(w.sr[i]);
    return rc;
}
