/* rng.c: the seeded generator every random choice draws from (GSL mt19937). */
#include "core.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

struct gpuest_rng_s {
    gsl_rng *gen;
};

gpuest_err gpuest_rng_create(uint64_t seed, gpuest_rng_t **out)
{
    gpuest_rng_t *rng = calloc(1, sizeof *rng);
    if (!rng)
        return GPUEST_ENOMEM;
    rng->gen = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng->gen) {
        free(rng);
        return GPUEST_ENOMEM;
    }
    /* mt19937 takes an unsigned long seed; fold the upper half in so seeds that
     * differ only above bit 32 still give different streams. GSL maps seed 0 to
     * its default seed, so 0 and 4357 coincide; that is documented GSL behaviour. */
    gsl_rng_set(rng->gen, (unsigned long)(seed ^ (seed >> 32) * 0x9E3779B97F4A7C15ull));
    *out = rng;
    return GPUEST_OK;
}

void gpuest_rng_destroy(gpuest_rng_t *rng)
{
    if (!rng)
        return;
    gsl_rng_free(rng->gen);
    free(rng);
}

uint32_t gpuest_rng_u32(gpuest_rng_t *rng)
{
    return (uint32_t)gsl_rng_get(rng->gen);
}

uint64_t gpuest_rng_u64(gpuest_rng_t *rng)
{
    uint64_t hi = gpuest_rng_u32(rng);
    return (hi << 32) | gpuest_rng_u32(rng);
}

gpuest_err gpuest_rng_fork(gpuest_rng_t *rng, uint64_t stream, gpuest_rng_t **out)
{
    uint64_t s = gpuest_rng_u64(rng) ^ (stream * 0xD1B54A32D192ED03ull);
    return gpuest_rng_create(s, out);
}

double gpuest_rng_uniform(gpuest_rng_t *rng)
{
    return gsl_rng_uniform(rng->gen);
}
double gpuest_rng_uniform_pos(gpuest_rng_t *rng)
{
    return gsl_rng_uniform_pos(rng->gen);
}

uint64_t gpuest_rng_below(gpuest_rng_t *rng, uint64_t n)
{
    if (n <= 1)
        return 0;
    if (n <= 0xFFFFFFFFull)
        return gsl_rng_uniform_int(rng->gen, (unsigned long)n);
    /* Rejection sampling for wide ranges keeps the draw unbiased. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t v;
    do {
        v = gpuest_rng_u64(rng);
    } while (v >= limit);
    return v % n;
}

double gpuest_rng_gaussian(gpuest_rng_t *rng, double sigma)
{
    return gsl_ran_gaussian_ziggurat(rng->gen, sigma);
}

int gpuest_rng_bernoulli(gpuest_rng_t *rng, double p)
{
    return gsl_rng_uniform(rng->gen) < p;
}

void *gpuest_rng_gsl(gpuest_rng_t *rng)
{
    return rng->gen;
}
