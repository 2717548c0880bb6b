/* cmd_workload.c: 'gpuest workload list|export': the kernel generators and writing them as native CSV traces. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "workload/workload.h"

static void workload_help(FILE *out)
{
    fprintf(out, "usage: gpuest workload list [--csv FILE]\n"
                 "       gpuest workload export NAME --out TRACE.csv [--image FILE] [--scale S] [--seed N]\n\n"
                 "list    every kernel generator with its suite, benchmark, category, data type and the\n"
                 "        original kernel it follows (--csv writes name,suite,benchmark,category,data_type)\n"
                 "export  runs generator NAME and writes its instruction stream as a native CSV trace\n"
                 "        (docs/workload.md), and its initial memory image as a raw file with --image\n\n"
                 "options:\n"
                 "  --scale S     tiny, small or default (default: small)\n"
                 "  --seed N      input seed (default 1)\n");
}

static int workload_list(int argc, char **argv)
{
    const char *csv = NULL;
    cli_args_t a;
    cli_args_init(&a, argc, argv, "workload list");
    while (cli_args_next(&a)) {
        if (!a.name)
            return cli_usage_error(a.cmd, "unexpected argument '%s'", a.value);
        if (cli_args_is(&a, "help")) {
            workload_help(stdout);
            return 0;
        }
        if (!cli_args_is(&a, "csv"))
            return cli_usage_error(a.cmd, "unknown option --%s", a.name);
        if (!(csv = cli_args_value(&a)))
            return 2;
    }
    static const char *const full[] = {"name", "suite", "benchmark", "category", "data_type", "kernel_source"};
    cli_table_t t, tc;
    if (cli_table_init(&t, full, 6) != 0 || cli_table_init(&tc, full, 5) != 0)
        return cli_report(a.cmd, GPUEST_ENOMEM, NULL);
    for (size_t i = 0; gpuest_generators[i]; i++) {
        const gpuest_generator_t *g = gpuest_generators[i];
        const char *row[6] = {g->name, g->suite, g->benchmark, g->category, g->data_type, g->kernel_source};
        cli_table_add(&t, row);
        cli_table_add(&tc, row);
    }
    cli_table_print(&t, stdout);
    int rc = csv ? cli_table_write_csv(&tc, csv, a.cmd) : 0;
    cli_table_free(&t);
    cli_table_free(&tc);
    return rc;
}

static int workload_export(int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *image = NULL;
    gpuest_scale_t scale = GPUEST_SCALE_SMALL;
    unsigned long long seed = 1;
    cli_args_t a;
    cli_args_init(&a, argc, argv, "workload export");
    while (cli_args_next(&a)) {
        const char *v;
        if (!a.name) {
            if (name)
                return cli_usage_error(a.cmd, "only one NAME may be given");
            name = a.value;
        } else if (cli_args_is(&a, "help")) {
            workload_help(stdout);
            return 0;
        } else if (cli_args_is(&a, "out")) {
            if (!(out = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "image")) {
            if (!(image = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "scale")) {
            if (!(v = cli_args_value(&a)))
                return 2;
            if (gpuest_scale_parse(v, &scale) != GPUEST_OK)
                return cli_usage_error(a.cmd, "--scale: expected tiny, small or default, got '%s'", v);
        } else if (cli_args_is(&a, "seed")) {
            if (!(v = cli_args_value(&a)) || cli_parse_u64(a.cmd, "--seed", v, &seed) != 0)
                return 2;
        } else {
            return cli_usage_error(a.cmd, "unknown option --%s", a.name);
        }
    }
    if (!name || !out)
        return cli_usage_error(a.cmd, "needs NAME and --out FILE");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_workload_t *wl = NULL;
    gpuest_err rc = gpuest_workload_create(name, scale, seed, &wl, &err);
    if (rc == GPUEST_OK)
        rc = gpuest_workload_write_csv(wl, out, image, &err);
    gpuest_workload_destroy(wl);
    if (rc != GPUEST_OK)
        return cli_report(a.cmd, rc, &err);
    return 0;
}

int cli_cmd_workload(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        workload_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "list") == 0)
        return workload_list(argc - 1, argv + 1);
    if (strcmp(argv[1], "export") == 0)
        return workload_export(argc - 1, argv + 1);
    return cli_usage_error("workload", "unknown action '%s' (expected list or export)", argv[1]);
}
