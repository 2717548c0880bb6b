/* cmd_config.c: 'gpuest config show|check|presets': print or validate a configuration. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void config_help(FILE *out)
{
    fprintf(out, "usage: gpuest config show [--preset P] [--set S.K=V ...] [FILE]\n"
                 "       gpuest config check [--preset P] [--set S.K=V ...] FILE\n"
                 "       gpuest config presets\n"
                 "       gpuest config import GPGPUSIM_CONFIG [ICNT_CONFIG] --out FILE.ini (see import --help)\n\n"
                 "show    prints the fully resolved configuration as INI (it loads back identically)\n"
                 "check   validates FILE and prints 'ok' or the first error (exit 2)\n"
                 "presets lists the built-in machines\n\n"
                 "options:\n" CLI_CONFIG_HELP "\nThe default base is the mesh56 preset.\n");
}

static int list_presets(void)
{
    for (size_t i = 0; gpuest_preset_names[i]; i++)
        printf("%-8s  %s\n", gpuest_preset_names[i], gpuest_preset_description(gpuest_preset_names[i]));
    return 0;
}

/* Resolves the configuration from options and an optional positional FILE. */
static int resolve(cli_config_t *cc, cli_args_t *a, int need_file)
{
    const char *file = NULL;
    while (cli_args_next(a)) {
        if (!a->name) {
            if (file)
                return cli_usage_error(a->cmd, "only one FILE may be given ('%s' and '%s')", file, a->value);
            file = a->value;
            continue;
        }
        if (cli_args_is(a, "help")) {
            config_help(stdout);
            return -1;
        }
        int used = cli_config_option(cc, a);
        if (used < 0)
            return 2;
        if (used == 0)
            return cli_usage_error(a->cmd, "unknown option --%s", a->name);
    }
    if (need_file && !file)
        return cli_usage_error(a->cmd, "config check needs a FILE");
    if (file) {
        gpuest_error_t err;
        gpuest_error_clear(&err);
        gpuest_err rc = gpuest_config_load_file(&cc->cfg, file, &err);
        if (rc != GPUEST_OK)
            return cli_report(a->cmd, rc, &err);
    }
    return cli_config_finish(cc, a->cmd);
}

int cli_cmd_config(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        config_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *action = argv[1];
    if (strcmp(action, "presets") == 0)
        return list_presets();
    if (strcmp(action, "import") == 0)
        return cli_config_import(argc - 1, argv + 1);
    if (strcmp(action, "show") != 0 && strcmp(action, "check") != 0)
        return cli_usage_error("config", "unknown action '%s' (expected show, check, presets or import)", action);
    cli_config_t cc;
    cli_config_init(&cc, "mesh56");
    cli_args_t a;
    cli_args_init(&a, argc - 1, argv + 1, "config");
    int rc = resolve(&cc, &a, strcmp(action, "check") == 0);
    if (rc < 0)
        return 0; /* --help */
    if (rc != 0)
        return rc;
    if (strcmp(action, "check") == 0) {
        printf("ok\n");
        return 0;
    }
    return gpuest_config_write_ini(&cc.cfg, stdout) == GPUEST_OK ? 0 : 1;
}
