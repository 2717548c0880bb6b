/* sample_pool.c: back-pressure's rates pooled over the last K detailed units (sample_pool.h). */
#include "sim/sample_pool.h"

#include <stdlib.h>
#include <string.h>

gpuest_err gpuest_ff_pool_init(gpuest_ff_pool_t *p, int k, uint32_t cap)
{
    memset(p, 0, sizeof *p);
    if (k < 1 || cap == 0)
        return GPUEST_EINVAL;
    p->k = k;
    p->cap = cap;
    p->stalls = calloc((size_t)k, sizeof *p->stalls);
    p->reqs = calloc((size_t)k, sizeof *p->reqs);
    p->nlat = calloc((size_t)k, sizeof *p->nlat);
    p->lat = calloc((size_t)k * cap, sizeof *p->lat);
    if (!p->stalls || !p->reqs || !p->nlat || !p->lat) {
        gpuest_ff_pool_free(p);
        return GPUEST_ENOMEM;
    }
    return GPUEST_OK;
}

void gpuest_ff_pool_free(gpuest_ff_pool_t *p)
{
    free(p->stalls);
    free(p->reqs);
    free(p->nlat);
    free(p->lat);
    memset(p, 0, sizeof *p);
}

void gpuest_ff_pool_push(gpuest_ff_pool_t *p, double stalls, double reqs, const uint32_t *lat, uint32_t nlat)
{
    int s = p->next;
    if (nlat > p->cap)
        nlat = p->cap;
    p->stalls[s] = stalls;
    p->reqs[s] = reqs;
    p->nlat[s] = nlat;
    if (nlat)
        memcpy(&p->lat[(size_t)s * p->cap], lat, nlat * sizeof *lat);
    p->next = (s + 1) % p->k;
    if (p->n < p->k)
        p->n++;
}

double gpuest_ff_pool_occ(const gpuest_ff_pool_t *p)
{
    double st = 0, rq = 0;
    for (int j = 0; j < p->n; j++) {
        st += p->stalls[j];
        rq += p->reqs[j];
    }
    return rq > 0 ? 1.0 + st / rq : 0.0;
}

uint32_t gpuest_ff_pool_latencies(const gpuest_ff_pool_t *p, uint32_t *out)
{
    uint32_t m = 0;
    for (int j = 0; j < p->n; j++) { /* oldest first: the slot after the newest, when full */
        int s = p->n < p->k ? j : (p->next + j) % p->k;
        memcpy(&out[m], &p->lat[(size_t)s * p->cap], p->nlat[s] * sizeof *out);
        m += p->nlat[s];
    }
    return m;
}
