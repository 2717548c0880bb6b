/* sample_pool.h: back-pressure's measured rates pooled over the last K detailed units
 * (gpuest_sample_opts_t.ff_pool; docs/estimator.md, "Back-pressure rates pooled over units").
 *
 * Back-pressure (sample.c, ff_backpressure_t) takes the LD/ST unit's hold per request and the miss
 * latencies it draws from from the last unit alone; after a burst unit (a restart after a drained
 * warming) the next fast-forward runs with rates far from the steady ones. The pool keeps the last
 * K units' stall cycles, requests and miss latencies: the hold is the ratio of the sums (a unit
 * weighs by its requests) and the draws come from the latencies of all K units together (a unit
 * weighs by its misses). K = 1 is the last unit alone. */
#ifndef GPUEST_SIM_SAMPLE_POOL_H
#define GPUEST_SIM_SAMPLE_POOL_H

#include <stdint.h>

#include "core/core.h"

typedef struct {
    int k;            /* units pooled (0: not allocated) */
    int n, next;      /* units held, the slot the next one goes to */
    uint32_t cap;     /* latencies kept a unit */
    double *stalls;   /* k: a unit's stall cycles */
    double *reqs;     /* k: its requests the stalls are charged to */
    uint32_t *lat;    /* k x cap: its miss latencies (as sm.c's ring holds them, L2-miss flag in the top bit) */
    uint32_t *nlat;   /* k */
} gpuest_ff_pool_t;

/* Room for k >= 1 units of up to cap latencies each. */
gpuest_err gpuest_ff_pool_init(gpuest_ff_pool_t *p, int k, uint32_t cap);
void gpuest_ff_pool_free(gpuest_ff_pool_t *p);

/* One unit's rates: stall cycles, the requests they are charged to, and its nlat miss latencies
 * (more than cap: the first cap kept). The oldest of K units held is dropped. */
void gpuest_ff_pool_push(gpuest_ff_pool_t *p, double stalls, double reqs, const uint32_t *lat, uint32_t nlat);

/* The pooled LD/ST cycles per request, 1 + sum stalls / sum requests; 0 when no unit held has a request. */
double gpuest_ff_pool_occ(const gpuest_ff_pool_t *p);

/* The pooled latencies, oldest unit first, into out (room for k x cap); returns how many. */
uint32_t gpuest_ff_pool_latencies(const gpuest_ff_pool_t *p, uint32_t *out);

#endif
