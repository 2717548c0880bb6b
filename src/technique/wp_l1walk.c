/* wp_l1walk.c: the plain L1 walked in the order in which a WarpPool hands requests to it.
 *
 * Why: with the pool the simulator loses L1 hits (fermi spmv 431,506 -> 337,274, mesh56 2dconv
 * 134,195 -> 49,150; docs/estimator.md "WarpPool's L1 hits in the estimate"). Its selector is FIFO,
 * so the L1 sees the requests in the order they entered the pool; what changes is when: while the
 * L1 is stalled the pool keeps taking requests of other warps, so a request reaches the L1 only
 * after the requests queued ahead of it, while the fills keep arriving. A warp whose fill has
 * just come issues its next loads (the neighbours of the filled line), and these wait behind the
 * pool's queues, while the fills of those queued requests' earlier misses come in and evict.
 *
 * The walk (src/workload/charact.c with gto_bursts; the fill rule of l1c_fillq.c) issues the line
 * requests of each SM in GTO-burst order. Here each SM keeps a FIFO of up to `queues` bound
 * queues with the pool's rules (tech_wpm_request): a load joins its line's open load queue (fewer
 * than depth requests), else binds a queue; a store binds a queue of its own and closes its
 * line's open load queue. When every queue is bound, the oldest one makes its L1 access (a read:
 * hit, or a miss whose fill is queued under the warp that bound the queue; a store: the line is
 * invalidated, write-no-allocate). So a full pool of q queues puts each access q requests after
 * its issue. A read hits only when the line was in the L1 at its issue and still is at its access
 * (l1_access: the pool does not bring a fill sooner). A warp's fills are installed when its next turn starts; before that, its own queues
 * still in the pool make their accesses (the warp waited for their data). queues = 0: no pool,
 * every request accesses the L1 at once (the plain walk of l1c_model.c). The walk has no time:
 * a pool of q queues stands for a pool that holds q bound queues, and the model picks the size
 * from its own occupancy, as for the merges (src/model/warppool_rule.c). */
#include <stdlib.h>

#include "technique_int.h"

typedef struct {
    uint64_t line;
    uint32_t warp;
    int n;
    uint8_t load, closed;
    uint8_t held; /* the L1 held the line when the request entered the pool */
} wpl_queue_t;

struct tech_wpl1_s {
    int sms, queues, depth;
    tech_l1cm_cache_t *l1;
    tech_fillq_t *fq;
    wpl_queue_t *ring; /* sms x queues, each SM's bound queues in binding order */
    int *head, *len;
    uint64_t accesses, misses;
};

gpuest_err tech_wpl1_create(int sms, int sets, int assoc, int queues, int depth, tech_wpl1_t **out,
                            gpuest_error_t *err)
{
    *out = NULL;
    if (sms < 1 || queues < 0 || depth < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "WarpPool L1 walk: SMs and depth must be >= 1, queues >= 0");
    tech_wpl1_t *w = calloc(1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "WarpPool L1 walk: out of memory");
    *out = w;
    w->sms = sms;
    w->queues = queues;
    w->depth = depth;
    w->ring = calloc((size_t)sms * (size_t)(queues > 0 ? queues : 1), sizeof *w->ring);
    w->head = calloc((size_t)sms, sizeof *w->head);
    w->len = calloc((size_t)sms, sizeof *w->len);
    if (!w->ring || !w->head || !w->len) {
        tech_wpl1_destroy(w);
        *out = NULL;
        return gpuest_fail(err, GPUEST_ENOMEM, "WarpPool L1 walk: out of memory");
    }
    gpuest_err rc = tech_l1cm_create(sms, sets, assoc, &w->l1, err);
    if (rc == GPUEST_OK)
        rc = tech_fillq_create(&w->fq, err);
    if (rc != GPUEST_OK) {
        tech_wpl1_destroy(w);
        *out = NULL;
    }
    return rc;
}

void tech_wpl1_destroy(tech_wpl1_t *w)
{
    if (!w)
        return;
    tech_l1cm_destroy(w->l1);
    tech_fillq_destroy(w->fq);
    free(w->ring);
    free(w->head);
    free(w->len);
    free(w);
}

/* One L1 access of a queue (or of a request, without a pool). held: the line was in the L1 when
 * the request was issued. A line that was not, and is by the access, came with a fill that was
 * already on its way at the issue: in the simulator the fill takes hundreds of cycles and the
 * pool's lag tens, so such a request is an MSHR merge there, a miss (no fill of its own). Without
 * this, a lag of one request turns the pool-less walk's MSHR merges into hits (fermi 2dconv at one
 * queue: 0.92 of the misses, mesh56 pathfinder 0.98; the simulator: 1.00). */
static gpuest_err l1_access(tech_wpl1_t *w, int sm, uint32_t warp, uint64_t line, int is_load, int held,
                            gpuest_error_t *err)
{
    if (!is_load) {
        tech_l1cm_invalidate(w->l1, sm, line);
        return GPUEST_OK;
    }
    int hc;
    w->accesses++;
    int holds = tech_l1cm_holds(w->l1, sm, line);
    if (holds && held && tech_l1cm_access(w->l1, sm, line, GPUEST_LINE_BYTES, &hc))
        return GPUEST_OK;
    w->misses++;
    if (holds)
        return GPUEST_OK; /* merged into the fill already under way */
    return tech_fillq_push(w->fq, warp, (tech_fill_t){.line = line, .sm = sm, .which = 1}, err); /* at the warp's next turn */
}

static wpl_queue_t *ring_at(tech_wpl1_t *w, int sm, int i)
{
    return &w->ring[(size_t)sm * (size_t)w->queues + (size_t)((w->head[sm] + i) % w->queues)];
}

/* The oldest bound queue of SM sm makes its L1 access and frees. */
static gpuest_err drain_one(tech_wpl1_t *w, int sm, gpuest_error_t *err)
{
    wpl_queue_t q = *ring_at(w, sm, 0);
    w->head[sm] = (w->head[sm] + 1) % w->queues;
    w->len[sm]--;
    return l1_access(w, sm, q.warp, q.line, q.load, q.held, err);
}

gpuest_err tech_wpl1_request(tech_wpl1_t *w, int sm, uint32_t warp, uint64_t line, int is_load, gpuest_error_t *err)
{
    if (w->queues == 0)
        return l1_access(w, sm, warp, line, is_load, 1, err);
    for (int i = 0; i < w->len[sm]; i++) {
        wpl_queue_t *q = ring_at(w, sm, i);
        if (q->closed || q->line != line)
            continue;
        if (!is_load) {
            q->closed = 1;
            continue;
        }
        q->n++;
        q->closed = q->n >= w->depth;
        return GPUEST_OK; /* merged: answered by the queue's access */
    }
    if (w->len[sm] == w->queues)
        GPUEST_TRY(drain_one(w, sm, err));
    *ring_at(w, sm, w->len[sm]++) =
        (wpl_queue_t){.line = line, .warp = warp, .n = 1, .load = (uint8_t)(is_load != 0),
                      .closed = (uint8_t)(!is_load || w->depth <= 1),
                      .held = (uint8_t)tech_l1cm_holds(w->l1, sm, line)};
    return GPUEST_OK;
}

/* The index past the newest queue of SM sm bound by `warp` (0: none). */
static int newest_of(tech_wpl1_t *w, int sm, uint32_t warp)
{
    int last = 0;
    for (int i = 0; i < w->len[sm]; i++)
        if (ring_at(w, sm, i)->warp == warp)
            last = i + 1;
    return last;
}

gpuest_err tech_wpl1_turn(tech_wpl1_t *w, int sm, uint32_t warp, gpuest_error_t *err)
{
    if (w->queues > 0)
        for (int k = newest_of(w, sm, warp); k > 0; k--)
            GPUEST_TRY(drain_one(w, sm, err));
    const tech_fill_t *f;
    size_t n = tech_fillq_take(w->fq, warp, &f);
    for (size_t i = 0; i < n; i++) {
        int hc;
        tech_l1cm_access(w->l1, f[i].sm, f[i].line, GPUEST_LINE_BYTES, &hc); /* present: only touched */
    }
    return GPUEST_OK;
}

gpuest_err tech_wpl1_launch_end(tech_wpl1_t *w, gpuest_error_t *err)
{
    /* the pool drains at a kernel's end; the next launch starts with empty L1s (as l1c_model.c) */
    for (int sm = 0; sm < w->sms && w->queues > 0; sm++)
        while (w->len[sm] > 0)
            GPUEST_TRY(drain_one(w, sm, err));
    tech_fillq_clear(w->fq);
    tech_l1cm_flush(w->l1);
    return GPUEST_OK;
}

double tech_wpl1_miss_rate(const tech_wpl1_t *w)
{
    return w->accesses ? (double)w->misses / (double)w->accesses : 0.0;
}

uint64_t tech_wpl1_accesses(const tech_wpl1_t *w) { return w->accesses; }
uint64_t tech_wpl1_misses(const tech_wpl1_t *w) { return w->misses; }
