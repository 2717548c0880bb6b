/* cmd_results.c: 'gpuest results': a sweep database as one row per point, printed or as CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "sweep/sweep.h"

#define CMD "results"

static void help(FILE *out)
{
    fprintf(out, "usage: gpuest results DB [--csv FILE] [--where EXPR]\n\n"
                 "One row per point of a sweep database: id, hash, design_hash, preset, workload, scale,\n"
                 "technique, seed, mode, status of its last run, the swept keys, then every statistic\n"
                 "(with _lo / _hi columns where the mode gives an interval). Without --csv the rows are\n"
                 "printed as a table.\n\noptions:\n"
                 "  --csv FILE     write CSV (atomically) instead of printing\n"
                 "  --where EXPR   SQL condition over those columns, e.g.\n"
                 "                 \"workload = 'bfs' AND \\\"noc.vcs\\\" >= 4 AND ipc > 0.5\"\n");
}

static gpuest_err add_row(void *ctx, const char *const *fields, size_t n, gpuest_error_t *err)
{
    cli_table_t *t = ctx;
    if (t->columns == 0) { /* the header row */
        const char **h = malloc(n * sizeof *h);
        if (!h)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            h[i] = gpuest_strdup(fields[i]);
        if (cli_table_init(t, h, n) != 0)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        return GPUEST_OK;
    }
    return cli_table_add(t, fields) == 0 ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
}

int cli_cmd_results(int argc, char **argv)
{
    const char *db = NULL, *csv = NULL, *where = NULL;
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        if (!a.name) {
            if (db)
                return cli_usage_error(CMD, "one database expected ('%s' is a second)", a.value);
            db = a.value;
        } else if (cli_args_is(&a, "help")) {
            help(stdout);
            return 0;
        } else if (cli_args_is(&a, "csv")) {
            if (!(csv = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "where")) {
            if (!(where = cli_args_value(&a)))
                return 2;
        } else {
            return cli_usage_error(CMD, "unknown option --%s (try --help)", a.name);
        }
    }
    if (!db)
        return cli_usage_error(CMD, "a database is required (see --help)");
    if (access(db, R_OK) != 0) {
        fprintf(stderr, "gpuest %s: cannot read %s\n", CMD, db);
        return 2;
    }
    gpuest_error_t err;
    gpuest_error_clear(&err);
    cli_table_t t;
    memset(&t, 0, sizeof t);
    size_t rows = 0;
    gpuest_err rc = gpuest_sweep_export(db, where, csv, add_row, &t, &rows, &err);
    if (rc == GPUEST_OK && !csv)
        cli_table_print(&t, stdout);
    if (rc == GPUEST_OK && csv)
        printf("results: %zu row(s) written to %s\n", rows, csv);
    const char **header = t.header;
    size_t columns = t.columns;
    cli_table_free(&t);
    for (size_t i = 0; header && i < columns; i++)
        free((char *)header[i]);
    free((void *)header);
    return rc == GPUEST_OK ? 0 : cli_report(CMD, rc, &err);
}
