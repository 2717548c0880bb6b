/* cli_study.c: options shared by calibrate, estimate and validate. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_study.h"

void cli_study_init(cli_study_opts_t *o)
{
    cli_config_init(&o->cc, "mesh56");
    o->workload = "hotspot";
    o->scale = GPUEST_SCALE_SMALL;
    o->seed = 1;
    o->calib_dir = access("models/calibrations", F_OK) == 0 ? "models/calibrations"
                                                            : GPUEST_SOURCE_DIR "/models/calibrations";
    o->calib_file = NULL;
    o->csv = NULL;
    o->confidence = 0.95;
    o->points = 10;
    o->batch = NULL;
    o->truth_csv = NULL;
    o->techniques = NULL;
    o->refit = 0;
    o->phases = 0;
    o->simulate_missing = 0;
    o->pool_scoreboard = 0;
    o->pool_setres = 0;
    o->l1_fill_timing = 0;
    o->workload_given = 0;
    o->scale_given = 0;
}

int cli_study_option(cli_study_opts_t *o, cli_args_t *a, const char *cmd)
{
    if (!a->name)
        return 0;
    int used = cli_config_option(&o->cc, a);
    if (used != 0)
        return used;
    if (cli_args_is(a, "refit")) {
        o->refit = 1;
        return 1;
    }
    if (cli_args_is(a, "phases")) {
        o->phases = 1;
        return 1;
    }
    if (cli_args_is(a, "simulate-missing")) {
        o->simulate_missing = 1;
        return 1;
    }
    static const char *const ours[] = {"workload", "scale", "seed", "calibrations", "calibration", "csv",
                                       "confidence", "points", "batch", "truth-csv", "techniques", "pool-form",
                                       "pool-setres", "l1-fill-timing", NULL};
    int mine = 0;
    for (int i = 0; ours[i]; i++)
        mine |= cli_args_is(a, ours[i]);
    if (!mine)
        return 0;
    const char *v = cli_args_value(a);
    if (!v)
        return -1;
    if (cli_args_is(a, "workload")) {
        o->workload = v;
        o->workload_given = 1;
    } else if (cli_args_is(a, "scale")) {
        if (gpuest_scale_parse(v, &o->scale) != GPUEST_OK) {
            cli_usage_error(cmd, "--scale %s: expected tiny, small or default", v);
            return -1;
        }
        o->scale_given = 1;
    } else if (cli_args_is(a, "seed")) {
        if (cli_parse_u64(cmd, "seed", v, &o->seed))
            return -1;
    } else if (cli_args_is(a, "calibrations"))
        o->calib_dir = v;
    else if (cli_args_is(a, "calibration"))
        o->calib_file = v;
    else if (cli_args_is(a, "csv"))
        o->csv = v;
    else if (cli_args_is(a, "batch"))
        o->batch = v;
    else if (cli_args_is(a, "truth-csv"))
        o->truth_csv = v;
    else if (cli_args_is(a, "techniques"))
        o->techniques = v;
    else if (cli_args_is(a, "pool-form")) {
        if (strcmp(v, "token") != 0 && strcmp(v, "scoreboard") != 0) {
            cli_usage_error(cmd, "--pool-form %s: expected token or scoreboard", v);
            return -1;
        }
        o->pool_scoreboard = strcmp(v, "scoreboard") == 0;
    } else if (cli_args_is(a, "pool-setres")) {
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
            cli_usage_error(cmd, "--pool-setres %s: expected on or off", v);
            return -1;
        }
        o->pool_setres = strcmp(v, "on") == 0;
    } else if (cli_args_is(a, "l1-fill-timing")) {
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
            cli_usage_error(cmd, "--l1-fill-timing %s: expected on or off", v);
            return -1;
        }
        o->l1_fill_timing = strcmp(v, "on") == 0;
    }
    else if (cli_args_is(a, "confidence")) {
        if (cli_parse_double(cmd, "confidence", v, 0.5, 0.9999, &o->confidence))
            return -1;
    } else if (cli_args_is(a, "points")) {
        if (cli_parse_int(cmd, "points", v, 1, 16, &o->points))
            return -1;
    }
    return 1;
}

int cli_study_parse(cli_study_opts_t *o, int argc, char **argv, const char *cmd, void (*help)(FILE *out))
{
    cli_study_init(o);
    cli_args_t a;
    cli_args_init(&a, argc, argv, cmd);
    while (cli_args_next(&a)) {
        if (cli_args_is(&a, "help")) {
            help(stdout);
            return 0;
        }
        int used = cli_study_option(o, &a, cmd);
        if (used < 0)
            return 2;
        if (used == 0)
            return cli_usage_error(cmd, "unexpected argument '%s'", a.name ? a.name : a.value);
    }
    int rc = cli_config_finish(&o->cc, cmd);
    if (rc == 0)
        rc = cli_check_output(cmd, "csv", o->csv);
    return rc != 0 ? rc : -1;
}

int cli_study_load(cli_study_opts_t *o, const char *cmd, gpuest_calibration_t *c, char *path, size_t cap)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    cli_study_calib_path(o, path, cap);
    gpuest_err e = gpuest_calibration_read(path, c, &err);
    if (e == GPUEST_EIO) {
        fprintf(stderr, "gpuest %s: %s\n  (run 'gpuest calibrate --preset %s --workload %s --scale %s' first)\n", cmd,
                err.msg, o->cc.cfg.name, o->workload, gpuest_scale_name(o->scale));
        return 2;
    }
    if (e != GPUEST_OK)
        return cli_report(cmd, e, &err);
    /* Before, --workload bfs with a hotspot calibration estimated hotspot's model with bfs's
     * technique data, silently; the file's own name could lie the same way. */
    if ((o->workload_given || !o->calib_file) && strcmp(c->workload, o->workload) != 0)
        return cli_usage_error(cmd, "%s: calibrated on workload %s, expected %s (%s)", path, c->workload, o->workload,
                               o->calib_file ? "--workload" : "its file name");
    if ((o->scale_given || !o->calib_file) && c->scale != o->scale)
        return cli_usage_error(cmd, "%s: calibrated at scale %s, expected %s (%s)", path, gpuest_scale_name(c->scale),
                               gpuest_scale_name(o->scale), o->calib_file ? "--scale" : "its file name");
    o->workload = c->workload;
    o->scale = c->scale;
    cli_study_warn_stale(cmd, path, c);
    c->pool_scoreboard = o->pool_scoreboard;
    c->pool_setres = o->pool_setres;
    c->l1_fill_timing = o->l1_fill_timing;
    return 0;
}

void cli_study_calib_path(const cli_study_opts_t *o, char *buf, size_t cap)
{
    if (o->calib_file)
        snprintf(buf, cap, "%s", o->calib_file);
    else
        gpuest_calibration_path(o->calib_dir, o->cc.cfg.name, o->workload, o->scale, buf, cap);
}

void cli_study_warn_stale(const char *cmd, const char *path, const gpuest_calibration_t *c)
{
    char why[320];
    if (!gpuest_calibration_stale(c, why, sizeof why))
        return;
    fprintf(stderr,
            "gpuest %s: warning: %s: %s; regenerate it with 'gpuest calibrate --preset %s --workload %s --scale %s'\n",
            cmd, path, why, c->preset, c->workload, gpuest_scale_name(c->scale));
}
