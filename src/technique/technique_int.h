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

/* coalescing_model.c: the options of the functional walk every model transform runs (the
 * machine's SMs, residency and L1 geometry). */
void tech_walk_opts(const gpuest_config_t *cfg, gpuest_charact_opts_t *o);
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
/* l1c_model.c: the model transform of technique.l1_compression's static policies, and the
 * compressed L1 it walks (per SM: sets x 4*assoc tags, assoc x 4 sub-blocks of 32 bytes per set,
 * LRU lines dropped until a fill fits; exposed for the tests). */
gpuest_err tech_l1c_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
typedef struct tech_l1cm_cache_s tech_l1cm_cache_t;
gpuest_err tech_l1cm_create(int sms, int sets, int assoc, tech_l1cm_cache_t **out, gpuest_error_t *err);
void tech_l1cm_destroy(tech_l1cm_cache_t *c);
void tech_l1cm_flush(tech_l1cm_cache_t *c);
void tech_l1cm_invalidate(tech_l1cm_cache_t *c, int sm, uint64_t line);
/* A read of `line`: 1 on a hit (*hit_compressed: the line is stored in fewer than 128 bytes); on
 * a miss the line is filled taking ceil(bytes / 32) sub-blocks, and 0 is returned. */
int tech_l1cm_access(tech_l1cm_cache_t *c, int sm, uint64_t line, int bytes, int *hit_compressed);
/* The effective capacity of SM sm's L1: valid lines x 128 B over its data bytes. */
double tech_l1cm_capacity(const tech_l1cm_cache_t *c, int sm);
/* The 18 FANN features (gpuest_l1c_fann_feature_names) the model can supply at candidate
 * v->current and EP position ep_in_period (l1c_model.c; the queue features are 0). */
void tech_l1c_fann_features(const gpuest_model_l1c_view_t *v, int ep_in_period, double x[GPUEST_L1C_FANN_FEATURES]);

#endif
