/* technique_int.h: private declarations shared by the technique files. */
#ifndef GPUEST_TECHNIQUE_INT_H
#define GPUEST_TECHNIQUE_INT_H

#include "technique.h"

/* Appends one statistic when there is room; returns the new count. */
static inline size_t tech_stat(gpuest_technique_stat_t *out, size_t n, size_t max, const char *name, double v)
{
    if (n >= max)
        return n;
    size_t i = 0;
    for (; name[i] && i + 1 < GPUEST_TECH_STAT_NAME; i++)
        out[n].name[i] = name[i];
    out[n].name[i] = '\0';
    out[n].value = v;
    return n + 1;
}

/* tech_l1compression.c, for tests: the set-sampling counters of SM sm for mode m (hits,
 * insertions) and its current follower mode, from the technique's state (hooks.ctx). */
void tech_l1c_counts(const void *state, int sm, int mode, uint64_t *hits, uint64_t *misses);
int tech_l1c_mode(const void *state, int sm);

/* coalescing_model.c: the model transform of technique.coalescing = pcu, and the inter-core
 * locality ratio it rests on (shared read line requests over read line requests, window
 * = MC ports x technique.pcu_rgrs read requests; runs every remaining launch of wl). */
gpuest_err tech_coal_locality(const gpuest_config_t *cfg, gpuest_workload_t *wl, double *ratio, gpuest_error_t *err);
/* filtering_model.c: the model transform of technique.filtering (reply flits from sector masks). */
gpuest_err tech_flt_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
gpuest_err tech_coal_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
/* probing_model.c: the model transform of technique.probing (pp, dp, ip); the probability that C
 * of `others` cores taken at random include one of k sharers; the mapping of the walk's misses by
 * sharer count (holders[0..GPUEST_CHARACT_MAX_HOLDERS]) onto the transform (for tests). */
gpuest_err tech_probe_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
double tech_probe_find_prob(int others, int cores, int k);
void tech_probe_map(const gpuest_config_t *cfg, uint64_t misses, const uint64_t *holders,
                    gpuest_model_transform_t *out);

#endif
