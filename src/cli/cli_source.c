/* cli_source.c: parsing, checking and opening the workload source of 'simulate' and 'characterize'. */
#include <string.h>

#include "cli_source.h"

void cli_source_init(cli_source_t *s)
{
    memset(s, 0, sizeof *s);
    s->scale = GPUEST_SCALE_SMALL;
    s->seed = 1;
}

int cli_source_option(cli_source_t *s, cli_args_t *a)
{
    const char **str = cli_args_is(a, "workload")    ? &s->workload
                       : cli_args_is(a, "trace")     ? &s->trace
                       : cli_args_is(a, "csv-trace") ? &s->csv_trace
                       : cli_args_is(a, "image")     ? &s->image
                                                     : NULL;
    const char *v;
    if (str)
        return (*str = cli_args_value(a)) ? 1 : -1;
    if (cli_args_is(a, "seed"))
        return (v = cli_args_value(a)) && cli_parse_u64(a->cmd, a->name, v, &s->seed) == 0 ? 1 : -1;
    if (!cli_args_is(a, "scale"))
        return 0;
    if (!(v = cli_args_value(a)))
        return -1;
    if (gpuest_scale_parse(v, &s->scale) != GPUEST_OK) {
        cli_usage_error(a->cmd, "--scale: expected tiny, small or default, got '%s'", v);
        return -1;
    }
    return 1;
}

int cli_source_check(const cli_source_t *s, const char *cmd, int others, const char *list)
{
    int sources = (s->workload != NULL) + (s->trace != NULL) + (s->csv_trace != NULL) + others;
    if (sources != 1)
        return cli_usage_error(cmd, "give exactly one of %s", list);
    if (s->image && !s->csv_trace)
        return cli_usage_error(cmd, "--image goes with --csv-trace");
    return 0;
}

gpuest_err cli_source_open(const cli_source_t *s, const char *name, gpuest_workload_t **wl, gpuest_error_t *err)
{
    if (s->trace)
        return gpuest_workload_open_accelsim(s->trace, wl, err);
    if (s->csv_trace)
        return gpuest_workload_open_csv(s->csv_trace, s->image, wl, err);
    return gpuest_workload_create(name ? name : s->workload, s->scale, s->seed, wl, err);
}
