/* cmd_report.c: 'gpuest report DB --out DIR': one self-contained HTML page of a sweep's results. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "report/report.h"

static void report_help(FILE *out)
{
    fprintf(out, "usage: gpuest report DB --out DIR\n\n"
                 "Writes DIR/index.html: one self-contained page (no other file needed) with the figures\n"
                 "of 'gpuest plot' as inline SVG, a sortable table of every point and its results, each\n"
                 "point's configuration and seed with the command that reproduces it, and the sweep's\n"
                 "specification. Figures need gnuplot (gnuplot-nox).\n");
}

int cli_cmd_report(int argc, char **argv)
{
    const char *db_path = NULL, *out = NULL;
    cli_args_t a;
    cli_args_init(&a, argc, argv, "report");
    while (cli_args_next(&a)) {
        if (!a.name) {
            if (db_path)
                return cli_usage_error(a.cmd, "only one database may be given ('%s' and '%s')", db_path, a.value);
            db_path = a.value;
        } else if (cli_args_is(&a, "help")) {
            report_help(stdout);
            return 0;
        } else if (cli_args_is(&a, "out")) {
            if (!(out = cli_args_value(&a)))
                return 2;
        } else {
            return cli_usage_error(a.cmd, "unknown option --%s", a.name);
        }
    }
    if (!db_path || !out)
        return cli_usage_error(a.cmd, "needs DB and --out DIR (see --help)");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_rdb_t *db = NULL;
    gpuest_err rc = gpuest_rdb_open(db_path, &db, &err);
    if (rc != GPUEST_OK)
        return cli_report(a.cmd, rc, &err);
    gpuest_report_info_t info;
    rc = gpuest_report_write(db, db_path, out, &info, &err);
    gpuest_rdb_close(db);
    if (rc != GPUEST_OK)
        return cli_report(a.cmd, rc, &err);
    printf("wrote %s/index.html: %zu points, %zu figures\n", out, info.rows, info.figures);
    if (!info.have_gnuplot)
        fprintf(stderr, "gpuest report: gnuplot is not installed: the page has no figures (apt-get install "
                        "gnuplot-nox)\n");
    return 0;
}
