/* wp_setres.c: the L1's set reservations replayed in time, with and without a WarpPool in front.
 *
 * Why: on fermi 2dconv the simulator's LD/ST unit is stalled in 85 % of an SM's cycles, and 99.7 %
 * of those stall cycles are one reservation failure: the line is absent and every way of its set
 * is already reserved by an earlier miss whose fill has not come (allocate on miss; GPGPU-Sim's
 * case (d); docs/estimator.md, "WarpPool on token-form calibrations (seventh session)"). The model
 * carries that blocking as a measured number of cycles per read (ldst_block_per_read) that no
 * technique changes. This walk measures how a pool changes it.
 *
 * The walk replays each SM's line requests (the characterization walk's GTO-burst order, as
 * wp_l1walk.c) through an L1 of `sets` x `assoc` ways with a clock. The LD/ST unit hands one line
 * request a cycle; an access takes one cycle:
 *  - a load whose line is present and filled hits; one whose line is present and still reserved
 *    merges into the reservation (an MSHR merge: it never stalls);
 *  - a load whose line is absent reserves the least recently used way of its set that holds no
 *    pending fill, for miss_latency cycles (its fill comes then); when every way of the set is
 *    reserved the access waits for the set's earliest fill: the stall, counted in cycles;
 *  - a store is write-no-allocate: it invalidates a filled copy of its line and never stalls.
 * Without a pool (queues = 0) the unit is in order: a stalled access holds it, so request i
 * accesses one cycle after request i - 1's access completed. With a pool (sim/warppool.c) the unit
 * inserts one request a cycle into `queues` FIFO queues of up to `depth` loads of one line; the
 * oldest queue makes its access once its oldest request spent `latency` cycles in the pool, and a
 * stalled head stays the head (FIFO, as the simulator's selector). While it is stalled the pool
 * keeps taking requests: a load to the line of an open load queue rides that queue's access (one
 * reservation for all of them), any other request binds a free queue, and when none is free the
 * unit waits for the head's access. So the pool changes the stall cycles per request only through
 * those riders and through the order of the accesses.
 *
 * The stream is open: a warp's next request does not wait for its own fills, so the walk is the
 * unit's view when it is the bottleneck (2dconv: 85 % stalled); the model takes from it only the
 * ratio of the stall cycles per line request with and without the pool (the reservation relief,
 * src/model/warppool_rule.c) and scales its measured blocking by it. */
#include <stdlib.h>
#include <string.h>

#include "technique_int.h"

typedef struct {
    uint64_t line;
    int64_t fill_at; /* the cycle its fill arrives: reserved before it */
    uint64_t lru;
    uint8_t valid;
} wsr_way_t;

typedef struct {
    uint64_t line;
    int64_t ins; /* the cycle its oldest request entered the pool */
    int n;
    uint8_t load, closed;
} wsr_queue_t;

typedef struct {
    wsr_way_t *ways;     /* sets x assoc */
    wsr_queue_t *ring;   /* queues, binding order from head */
    int head, len;
    int64_t acc;         /* the cycle of the last L1 access */
    int64_t ins;         /* the cycle of the last insertion into the pool */
    int64_t start;       /* the cycle before the launch's first access */
    uint64_t stamp;
} wsr_sm_t;

struct tech_wsr_s {
    int sms, sets, assoc, queues, depth;
    int64_t latency, miss_latency;
    wsr_sm_t *sm;
    tech_wsr_counts_t c;
};

gpuest_err tech_wsr_create(int sms, int sets, int assoc, int queues, int depth, int latency, int miss_latency,
                           tech_wsr_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (sms < 1 || sets < 1 || assoc < 1 || queues < 0 || depth < 1 || latency < 0 || miss_latency < 1)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "set-reservation walk: SMs, sets, ways, depth and miss latency must be >= 1, queues and "
                           "latency >= 0");
    tech_wsr_t *w = calloc(1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "set-reservation walk: out of memory");
    *out = w;
    *w = (tech_wsr_t){.sms = sms, .sets = sets, .assoc = assoc, .queues = queues, .depth = depth,
                      .latency = latency, .miss_latency = miss_latency};
    w->sm = calloc((size_t)sms, sizeof *w->sm);
    if (!w->sm)
        goto oom;
    for (int s = 0; s < sms; s++) {
        w->sm[s].ways = calloc((size_t)sets * (size_t)assoc, sizeof *w->sm[s].ways);
        w->sm[s].ring = calloc((size_t)(queues > 0 ? queues : 1), sizeof *w->sm[s].ring);
        if (!w->sm[s].ways || !w->sm[s].ring)
            goto oom;
    }
    return GPUEST_OK;
oom:
    tech_wsr_destroy(w);
    *out = NULL;
    return gpuest_fail(err, GPUEST_ENOMEM, "set-reservation walk: out of memory");
}

void tech_wsr_destroy(tech_wsr_t *w)
{
    if (!w)
        return;
    for (int s = 0; w->sm && s < w->sms; s++) {
        free(w->sm[s].ways);
        free(w->sm[s].ring);
    }
    free(w->sm);
    free(w);
}

static wsr_way_t *set_of(tech_wsr_t *w, wsr_sm_t *s, uint64_t line)
{
    size_t set = (size_t)((line / GPUEST_LINE_BYTES) % (uint64_t)w->sets);
    return &s->ways[set * (size_t)w->assoc];
}

/* The cycle at which an access that may start at t0 completes (t0, or the set's earliest fill when
 * the access must allocate and every way is reserved). No side effect. */
static int64_t access_time(tech_wsr_t *w, wsr_sm_t *s, uint64_t line, int is_load, int64_t t0)
{
    if (!is_load)
        return t0;
    wsr_way_t *set = set_of(w, s, line);
    int64_t earliest = -1;
    for (int i = 0; i < w->assoc; i++) {
        if (set[i].valid && set[i].line == line)
            return t0; /* a hit or an MSHR merge */
        if (!set[i].valid || set[i].fill_at <= t0)
            return t0; /* a way to reserve */
        if (earliest < 0 || set[i].fill_at < earliest)
            earliest = set[i].fill_at;
    }
    return earliest;
}

/* The access at cycle t (its set has a way to take by then: access_time). */
static void access_at(tech_wsr_t *w, wsr_sm_t *s, uint64_t line, int is_load, int64_t t)
{
    wsr_way_t *set = set_of(w, s, line);
    s->acc = t;
    w->c.accesses++;
    for (int i = 0; i < w->assoc; i++)
        if (set[i].valid && set[i].line == line) {
            if (!is_load) {
                if (set[i].fill_at <= t)
                    set[i].valid = 0; /* write-no-allocate: the filled copy goes */
                return;
            }
            set[i].lru = ++s->stamp;
            if (set[i].fill_at <= t)
                w->c.hits++;
            else
                w->c.mshr_merges++;
            return;
        }
    if (!is_load)
        return;
    wsr_way_t *v = NULL;
    for (int i = 0; i < w->assoc; i++) {
        wsr_way_t *x = &set[i];
        if (x->valid && x->fill_at > t)
            continue; /* reserved */
        if (!x->valid) {
            v = x;
            break;
        }
        if (!v || x->lru < v->lru)
            v = x;
    }
    /* access_time guarantees a way; keep the walk defined if a caller did not ask it */
    if (!v)
        return;
    *v = (wsr_way_t){.line = line, .fill_at = t + w->miss_latency, .lru = ++s->stamp, .valid = 1};
    w->c.allocs++;
}

/* The pool's oldest queue makes its access (starting no earlier than it may): returns the cycle. */
static int64_t drain_head(tech_wsr_t *w, wsr_sm_t *s)
{
    wsr_queue_t *q = &s->ring[s->head];
    int64_t t0 = s->acc + 1, ready = q->ins + w->latency;
    if (ready > t0)
        t0 = ready;
    int64_t t = access_time(w, s, q->line, q->load, t0);
    if (t > t0) {
        w->c.blocked++;
        w->c.stall_cycles += (uint64_t)(t - t0);
    }
    access_at(w, s, q->line, q->load, t);
    s->head = (s->head + 1) % w->queues;
    s->len--;
    return t;
}

/* The head's access completes by cycle `now` (it started and, if it stalled, its fill came). */
static int head_done_by(tech_wsr_t *w, wsr_sm_t *s, int64_t now)
{
    wsr_queue_t *q = &s->ring[s->head];
    int64_t t0 = s->acc + 1, ready = q->ins + w->latency;
    if (ready > t0)
        t0 = ready;
    return t0 <= now && access_time(w, s, q->line, q->load, t0) <= now;
}

void tech_wsr_request(tech_wsr_t *w, int sm, uint64_t line, int is_load)
{
    wsr_sm_t *s = &w->sm[sm];
    w->c.requests++;
    if (w->queues == 0) { /* the in-order unit: one access a cycle after the last completed */
        int64_t t0 = s->acc + 1, t = access_time(w, s, line, is_load, t0);
        if (t > t0) {
            w->c.blocked++;
            w->c.stall_cycles += (uint64_t)(t - t0);
        }
        access_at(w, s, line, is_load, t);
        return;
    }
    int64_t now = s->ins + 1;
    while (s->len > 0 && head_done_by(w, s, now))
        drain_head(w, s);
    for (int i = 0; i < s->len; i++) {
        wsr_queue_t *q = &s->ring[(s->head + i) % w->queues];
        if (q->closed || q->line != line)
            continue;
        if (!is_load) {
            q->closed = 1; /* a later load must not ride an access made before this write */
            continue;
        }
        q->n++;
        q->closed = q->n >= w->depth;
        w->c.riders++;
        s->ins = now;
        return;
    }
    if (s->len == w->queues) { /* no free queue: the unit waits for the head's access */
        int64_t t = drain_head(w, s);
        if (t > now)
            now = t;
    }
    s->ring[(s->head + s->len++) % w->queues] =
        (wsr_queue_t){.line = line, .ins = now, .n = 1, .load = (uint8_t)(is_load != 0),
                      .closed = (uint8_t)(!is_load || w->depth <= 1)};
    s->ins = now;
}

void tech_wsr_launch_end(tech_wsr_t *w)
{
    /* the pool drains at a kernel's end; the next launch starts with an empty L1 (as wp_l1walk.c)
     * and its clock after the last fill, so no reservation carries over */
    for (int i = 0; i < w->sms; i++) {
        wsr_sm_t *s = &w->sm[i];
        while (s->len > 0)
            drain_head(w, s);
        w->c.cycles += (uint64_t)(s->acc - s->start);
        memset(s->ways, 0, (size_t)w->sets * (size_t)w->assoc * sizeof *s->ways);
        s->acc += w->miss_latency;
        s->ins = s->acc;
        s->start = s->acc;
    }
}

tech_wsr_counts_t tech_wsr_counts(const tech_wsr_t *w) { return w->c; }

double tech_wsr_stall_per_request(const tech_wsr_t *w)
{
    return w->c.requests ? (double)w->c.stall_cycles / (double)w->c.requests : 0.0;
}

double tech_wsr_idle_per_request(const tech_wsr_t *w)
{
    if (!w->c.requests || w->c.cycles <= w->c.accesses)
        return 0.0;
    return (double)(w->c.cycles - w->c.accesses) / (double)w->c.requests;
}
