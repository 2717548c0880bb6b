/* cli_source.h: the workload-source options (--workload, --trace, --csv-trace, --image, --scale, --seed)
 * shared by the commands that run one workload or trace. */
#ifndef GPUEST_CLI_SOURCE_H
#define GPUEST_CLI_SOURCE_H

#include "cli.h"
#include "workload/workload.h"

typedef struct {
    const char *workload, *trace, *csv_trace, *image;
    gpuest_scale_t scale;
    unsigned long long seed;
} cli_source_t;

/* No source; scale small, seed 1. */
void cli_source_init(cli_source_t *s);
/* Takes the current option if it is a source option: 1 taken, 0 not one, -1 bad value (message printed). */
int cli_source_option(cli_source_t *s, cli_args_t *a);
/* Checks that exactly one source is given; others counts the command's own sources (e.g. --all) and
 * list names all of them in the message. 0 ok, else the exit code (message printed). */
int cli_source_check(const cli_source_t *s, const char *cmd, int others, const char *list);
/* Opens the trace, or creates generator `name` (NULL: --workload) at the chosen scale and seed. */
gpuest_err cli_source_open(const cli_source_t *s, const char *name, gpuest_workload_t **wl, gpuest_error_t *err);

#endif
