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

#endif
