/* cmd_config_import.c: 'gpuest config import': a GPGPU-Sim / Accel-Sim configuration -> gpuest INI. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "import/import.h"

static void import_help(FILE *out)
{
    fprintf(out, "usage: gpuest config import GPGPUSIM_CONFIG [ICNT_CONFIG] --out FILE.ini [--preset P]\n\n"
                 "Reads a GPGPU-Sim 3.x / Accel-Sim gpgpusim.config and the BookSim interconnect file\n"
                 "(ICNT_CONFIG, else the one -inter_config_file names beside the config) and writes the\n"
                 "gpuest configuration: every option gpuest models is mapped, the others are listed.\n\n"
                 "options:\n"
                 "  --out FILE.ini   output (written only when the whole import succeeds)\n"
                 "  --preset P       base machine for what the files do not describe (default fermi)\n"
                 "  --quiet          do not list the mapped keys and ignored options\n");
}

static int write_result(const gpuest_import_t *imp, const char *path)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_outfile_t f;
    gpuest_err rc = gpuest_outfile_open(&f, path, 0, &err);
    if (rc != GPUEST_OK)
        return cli_report("config import", rc, &err);
    rc = gpuest_import_write_ini(imp, f.fp);
    if (rc != GPUEST_OK) {
        gpuest_outfile_abort(&f);
        return cli_report("config import", rc, &err);
    }
    rc = gpuest_outfile_commit(&f, &err);
    return rc == GPUEST_OK ? 0 : cli_report("config import", rc, &err);
}

static void print_summary(const gpuest_import_t *imp, const char *out, int quiet)
{
    size_t nm = gpuest_import_num_mapped(imp), ni = gpuest_import_num_ignored(imp);
    printf("wrote %s: %zu keys mapped, %zu options ignored\n", out, nm, ni);
    if (quiet)
        return;
    printf("\nmapped:\n");
    for (size_t i = 0; i < nm; i++) {
        const gpuest_import_mapped_t *m = gpuest_import_mapped(imp, i);
        printf("  %-28s = %-10s <- %s\n", m->key, m->value, m->from);
    }
    printf("\nignored (not modelled by gpuest):\n");
    for (size_t i = 0; i < ni; i++) {
        const gpuest_import_ignored_t *g = gpuest_import_ignored(imp, i);
        printf("  %s (%s)%s%s\n", g->option, g->from, g->why[0] ? ": " : "", g->why);
    }
}

int cli_config_import(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL}, *out = NULL, *preset = "fermi";
    int nfiles = 0, quiet = 0;
    cli_args_t a;
    cli_args_init(&a, argc, argv, "config import");
    while (cli_args_next(&a)) {
        if (!a.name) {
            if (nfiles == 2)
                return cli_usage_error(a.cmd, "at most two files (GPGPUSIM_CONFIG [ICNT_CONFIG]), got '%s' too",
                                       a.value);
            files[nfiles++] = a.value;
        } else if (cli_args_is(&a, "help")) {
            import_help(stdout);
            return 0;
        } else if (cli_args_is(&a, "out")) {
            if (!(out = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "preset")) {
            if (!(preset = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "quiet")) {
            quiet = 1;
        } else {
            return cli_usage_error(a.cmd, "unknown option --%s", a.name);
        }
    }
    if (nfiles == 0)
        return cli_usage_error(a.cmd, "needs a GPGPU-Sim configuration file (see --help)");
    if (!out)
        return cli_usage_error(a.cmd, "needs --out FILE.ini");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_import_t *imp = NULL;
    gpuest_err rc = gpuest_import_gpgpusim(files[0], files[1], preset, &imp, &err);
    if (rc != GPUEST_OK)
        return cli_report(a.cmd, rc, &err);
    int code = write_result(imp, out);
    if (code == 0)
        print_summary(imp, out, quiet);
    gpuest_import_free(imp);
    return code;
}
