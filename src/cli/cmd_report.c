/* cmd_report.c: 'gpuest report DB --out DIR': one self-contained HTML page of a sweep's results. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_results.h"
#include "commands.h"
#include "report/report.h"

static void report_help(FILE *out)
{
    fprintf(out, "usage: gpuest report DB --out DIR [--with DB2 ...]\n\n"
                 "Writes DIR/index.html: one self-contained page (no other file needed) with the figures\n"
                 "of 'gpuest plot' as inline SVG, a sortable table of every point and its results, each\n"
                 "point's configuration and seed with the command that reproduces it, and the sweep's\n"
                 "specification. Figures need gnuplot (gnuplot-nox). --with DB2 adds the points of another\n"
                 "database (e.g. the estimate sweep of the same designs, for estimate-vs-simulate).\n");
}

int cli_cmd_report(int argc, char **argv)
{
    const char *paths[CLI_RESULTS_MAX_DBS + 1] = {NULL}, *out = NULL;
    int npaths = 1;
    cli_args_t a;
    cli_args_init(&a, argc, argv, "report");
    while (cli_args_next(&a)) {
        if (!a.name) {
            if (paths[0])
                return cli_usage_error(a.cmd, "only one DB may be given ('%s' and '%s'; more with --with)", paths[0],
                                       a.value);
            paths[0] = a.value;
        } else if (cli_args_is(&a, "help")) {
            report_help(stdout);
            return 0;
        } else if (cli_args_is(&a, "out")) {
            if (!(out = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "with") && npaths < CLI_RESULTS_MAX_DBS) {
            if (!(paths[npaths++] = cli_args_value(&a)))
                return 2;
        } else {
            return cli_usage_error(a.cmd, "unknown option --%s", a.name);
        }
    }
    if (!paths[0] || !out)
        return cli_usage_error(a.cmd, "needs DB and --out DIR (see --help)");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_rdb_t *db = NULL;
    int code = cli_results_open(a.cmd, paths, &db);
    if (code != 0)
        return code;
    gpuest_report_info_t info;
    gpuest_err rc = gpuest_report_write(db, paths, out, &info, &err);
    gpuest_rdb_close(db);
    if (rc != GPUEST_OK)
        return cli_report(a.cmd, rc, &err);
    printf("wrote %s/index.html: %zu points, %zu figures\n", out, info.rows, info.figures);
    if (!info.have_gnuplot)
        fprintf(stderr, "gpuest report: gnuplot is not installed: the page has no figures (apt-get install "
                        "gnuplot-nox)\n");
    return 0;
}
