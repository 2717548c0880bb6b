/* main.c: the gpuest program: dispatches to subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

typedef struct {
    const char *name;
    cli_command_fn run; /* NULL: not yet available */
    const char *summary;
} command_entry;

static const command_entry commands[] = {
    {"run", cli_cmd_run, "main job: estimate the built-in default design point"},
    {"config", cli_cmd_config, "show or check a machine + technique configuration"},
    {"compress", cli_cmd_compress, "compress a binary file line by line with every algorithm"},
    {"workload", cli_cmd_workload, "list the built-in kernel generators"},
    {"characterize", cli_cmd_characterize, "access-stream statistics of a workload or trace"},
    {"noc", cli_cmd_noc, "network-on-chip alone: synthetic traffic, simulated or analytical"},
    {"simulate", cli_cmd_simulate, "detailed cycle-level simulation of the whole memory system"},
    {"approx", cli_cmd_approx, "approximation-bit predictor: collect, train, predict, evaluate"},
    {"sample", cli_cmd_sample, "sampled simulation with confidence intervals (and its error against a full run)"},
    {"calibrate", cli_cmd_calibrate, "fit the analytical model to simulated runs of a workload"},
    {"estimate", cli_cmd_estimate, "calibrated analytical estimate of IPC / AMAT / network load with intervals"},
    {"validate", cli_cmd_validate, "estimates against full detailed runs on held-out configurations"},
    {"sweep", cli_cmd_sweep, "design-space sweep into a SQLite database (local workers or Open MPI), resumable"},
    {"results", cli_cmd_results, "a sweep database as a table or CSV, filtered with --where"},
    {"plot", cli_cmd_plot, "a figure of a sweep's results database through gnuplot (png, svg)"},
    {"report", cli_cmd_report, "one self-contained HTML page of a sweep's results database"},
    {"l1c-fann", cli_cmd_l1cfann, "LATTE-CC's FANN mode selector: train and check it on per-EP oracle labels"},
};

static void print_help(FILE *out)
{
    fprintf(out,
            "gpuest %s: estimates how memory-system techniques that cut SM<->MC traffic\n"
            "change IPC, AMAT and network load on a GPU.\n\n"
            "usage: gpuest <command> [options]\n"
            "       gpuest <command> --help\n"
            "       gpuest --version\n\ncommands:\n",
            gpuest_version());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("gpuest %s\n", gpuest_version());
        return 0;
    }
    const char *closest = NULL;
    size_t best = (size_t)-1;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(commands[i].name, name) == 0) {
            if (!commands[i].run) {
                fprintf(stderr, "gpuest %s: not yet available in this version\n", name);
                return 1;
            }
            return commands[i].run(argc - 1, argv + 1);
        }
        size_t d = gpuest_edit_distance(name, commands[i].name);
        if (d < best) {
            best = d;
            closest = commands[i].name;
        }
    }
    fprintf(stderr, "gpuest: unknown command '%s'", name);
    if (closest && best <= 3)
        fprintf(stderr, " (did you mean '%s'?)", closest);
    fprintf(stderr, "\n(see 'gpuest --help')\n");
    return 2;
}
