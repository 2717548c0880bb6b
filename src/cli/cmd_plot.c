/* cmd_plot.c: 'gpuest plot DB --figure NAME --out FILE.(png|svg)': a figure of a sweep's results through gnuplot. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_results.h"
#include "commands.h"
#include "report/report.h"

static void plot_help(FILE *out)
{
    fprintf(out, "usage: gpuest plot DB --figure NAME --out FILE.(png|svg) [--stat S] [--key K] [--mode M]\n"
                 "                   [--data-dir DIR] [--with DB2 ...]\n\n"
                 "Draws a figure of a results database (gpuest sweep) with gnuplot:\n"
                 "  ipc-bars              IPC normalized to technique none of the same design, per workload\n"
                 "                        and technique (mode: --mode, else simulate, sample, estimate)\n"
                 "  latency-injection     noc points: average packet latency against the swept injection rate\n"
                 "  estimate-vs-simulate  estimate with its interval against the detailed run of the same\n"
                 "                        design (--stat, default ipc)\n"
                 "  stat-vs-key           --stat S against --key K (a swept key or any configuration key)\n\n"
                 "options:\n"
                 "  --data-dir DIR   keep the data file (figure.dat) and script (figure.gp) handed to gnuplot\n"
                 "  --with DB2       also read the points of DB2 (repeatable): gpuest sweep keeps one mode per\n"
                 "                   database, so estimate-vs-simulate needs the estimate and the simulate sweep\n");
}

int cli_cmd_plot(int argc, char **argv)
{
    const char *paths[CLI_RESULTS_MAX_DBS + 1] = {NULL}, *figure = NULL, *out = NULL, *data_dir = NULL;
    int npaths = 1;
    gpuest_figure_spec_t spec = {0};
    cli_args_t a;
    cli_args_init(&a, argc, argv, "plot");
    while (cli_args_next(&a)) {
        const char **slot = NULL;
        if (!a.name) {
            if (paths[0])
                return cli_usage_error(a.cmd, "only one DB may be given ('%s' and '%s'; more with --with)", paths[0],
                                       a.value);
            paths[0] = a.value;
            continue;
        }
        if (cli_args_is(&a, "help")) {
            plot_help(stdout);
            return 0;
        }
        if (cli_args_is(&a, "figure"))
            slot = &figure;
        else if (cli_args_is(&a, "out"))
            slot = &out;
        else if (cli_args_is(&a, "stat"))
            slot = &spec.stat;
        else if (cli_args_is(&a, "key"))
            slot = &spec.key;
        else if (cli_args_is(&a, "mode"))
            slot = &spec.mode;
        else if (cli_args_is(&a, "data-dir"))
            slot = &data_dir;
        else if (cli_args_is(&a, "with") && npaths < CLI_RESULTS_MAX_DBS)
            slot = &paths[npaths++];
        else
            return cli_usage_error(a.cmd, "unknown option --%s", a.name);
        if (!(*slot = cli_args_value(&a)))
            return 2;
    }
    if (!paths[0] || !figure || !out)
        return cli_usage_error(a.cmd, "needs DB, --figure NAME and --out FILE.(png|svg) (see --help)");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = gpuest_figure_find(figure, &spec.kind, &err);
    if (rc != GPUEST_OK)
        return cli_report(a.cmd, rc, &err);
    gpuest_rdb_t *db = NULL;
    int code = cli_results_open(a.cmd, paths, &db);
    if (code != 0)
        return code;
    gpuest_figure_t fig;
    rc = gpuest_figure_build(db, &spec, &fig, &err);
    if (rc == GPUEST_OK) {
        rc = gpuest_figure_render(&fig, out, data_dir, &err);
        if (rc == GPUEST_OK)
            printf("wrote %s: %s (%zu data rows)\n", out, fig.title, fig.rows);
        gpuest_figure_free(&fig);
    }
    gpuest_rdb_close(db);
    return rc == GPUEST_OK ? 0 : cli_report(a.cmd, rc, &err);
}
