/* cli_results.h: opening a sweep results database (and the ones --with merges into it) for plot and report. */
#ifndef GPUEST_CLI_RESULTS_H
#define GPUEST_CLI_RESULTS_H

#include "report/report.h"

#define CLI_RESULTS_MAX_DBS 8

/* Opens paths[0] and merges paths[1..] (NULL-terminated). Returns 0, or prints and returns the exit code. */
int cli_results_open(const char *cmd, const char *const *paths, gpuest_rdb_t **out);

#endif
