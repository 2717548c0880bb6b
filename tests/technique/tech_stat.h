/* tech_stat.h: a technique set's statistic by name for the technique tests; a missing one fails
 * the test. Include after cmocka.h. */
#ifndef GPUEST_TEST_TECH_STAT_H
#define GPUEST_TEST_TECH_STAT_H

#include <string.h>

#include "technique/technique.h"

static inline double tech_stat(gpuest_technique_set_t *set, const char *name)
{
    gpuest_technique_stat_t st[GPUEST_TECH_MAX_STATS];
    size_t n = gpuest_technique_set_stats(set, st, GPUEST_TECH_MAX_STATS);
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].name, name) == 0)
            return st[i].value;
    fail_msg("statistic %s missing", name);
    return 0;
}

#endif
