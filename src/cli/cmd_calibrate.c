/* cmd_calibrate.c: 'gpuest calibrate': runs of the excitation set, fit, calibration file. */
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>

#include "cli_study.h"
#include "commands.h"

#define CMD "calibrate"

static void help(FILE *out)
{
    fprintf(out, "usage: gpuest calibrate --preset P --workload W [--scale S] [--seed N] [--calibrations DIR]\n\n"
                 "Simulates the workload in detail on the excitation configurations of the preset (baseline,\n"
                 "flit width x0.5 and x2, L2 hit latency x2), fits the closed model's parameters (alpha, eta,\n"
                 "kappa) by nonlinear least squares, cross-validates (leave one configuration out) and writes\n"
                 "DIR/<preset>-<workload>-<scale>.cal with the runs that made it. --refit fits the runs\n"
                 "stored in that file again (no simulation).\n\noptions:\n" CLI_CONFIG_HELP CLI_STUDY_HELP
                 "  --refit                refit the stored runs\n"
                 "  --phases               with --refit: first measure the kernel phases (per-launch inputs)\n"
                 "                         with one detailed run of the baseline (files made before them)\n");
}

static double phase_total(const gpuest_calibration_t *c)
{
    double t = 0;
    for (int i = 0; i < c->nphases; i++)
        t += c->phases[i].warp_insts;
    return t > 0 ? t : 1;
}

int cli_cmd_calibrate(int argc, char **argv)
{
    cli_study_opts_t o;
    int rc = cli_study_parse(&o, argc, argv, CMD, help);
    if (rc >= 0)
        return rc;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    static gpuest_calibration_t c;
    char path[1024];
    cli_study_calib_path(&o, path, sizeof path);
    gpuest_err e;
    if (o.refit) { /* the stored runs, fitted again: no simulation */
        e = gpuest_calibration_read(path, &c, &err);
        if (e == GPUEST_OK && strcmp(c.preset, o.cc.cfg.name) != 0)
            e = gpuest_fail(&err, GPUEST_EINVAL, "%s was made on %s, not %s", path, c.preset, o.cc.cfg.name);
        /* --workload / --scale that the file does not hold were ignored: the file's runs were refitted */
        if (e == GPUEST_OK && (o.workload_given || !o.calib_file) && strcmp(c.workload, o.workload) != 0)
            e = gpuest_fail(&err, GPUEST_EINVAL, "%s holds runs of %s, not %s", path, c.workload, o.workload);
        if (e == GPUEST_OK && (o.scale_given || !o.calib_file) && c.scale != o.scale)
            e = gpuest_fail(&err, GPUEST_EINVAL, "%s holds runs at scale %s, not %s", path, gpuest_scale_name(c.scale),
                            gpuest_scale_name(o.scale));
        if (e == GPUEST_OK)
            cli_study_warn_stale(CMD, path, &c); /* the stored runs stay those of the machine they came from */
        if (e == GPUEST_OK && !(c.warp_profile[1] > 0)) /* a file of the token model: walk the workload once */
            e = gpuest_study_profile_calibration(&o.cc.cfg, &c, &err);
        if (e == GPUEST_OK && o.phases) /* one detailed baseline run for the per-launch inputs */
            e = gpuest_study_measure_phases(&o.cc.cfg, &c, NULL, &err);
        if (e == GPUEST_OK)
            e = gpuest_study_fit_runs(&o.cc.cfg, &c, &err);
    } else if (o.phases) {
        return cli_usage_error(CMD, "--phases goes with --refit (a new calibration measures the phases anyway)");
    } else {
        gpuest_progress_t *pr = cli_progress("calibrate", 4);
        e = gpuest_study_calibrate(&o.cc.cfg, o.workload, o.scale, o.seed, pr, &c, &err);
        gpuest_progress_finish(pr);
    }
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    if (!o.calib_file)
        mkdir(o.calib_dir, 0777); /* exists already, or the write below reports the problem */
    e = gpuest_calibration_write(&c, path, &err);
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    printf("calibration of %s on %s (scale %s): %d detailed runs, %.2f s in all\n", c.workload, c.preset,
           gpuest_scale_name(c.scale), c.nruns, c.calib_seconds);
    printf("  %-10s %9s %9s %8s %8s\n", "run", "ipc", "amat", "stall", "sim_s");
    for (int i = 0; i < c.nruns; i++)
        printf("  %-10s %9.3f %9.1f %8.3f %8.2f\n", c.runs[i].label, c.runs[i].ipc, c.runs[i].amat, c.runs[i].mc_stall,
               c.runs[i].sim_seconds);
    printf("  parameters: alpha %.4f (sd %.4f), eta %.4f (sd %.4f), kappa %.4f (sd %.4f)\n", c.fit.params.alpha,
           sqrt(c.fit.covar[0][0]), c.fit.params.eta, sqrt(c.fit.covar[1][1]), c.fit.params.kappa,
           sqrt(c.fit.covar[2][2]));
    printf("  model: %s\n", c.warp_profile[1] > 0 ? "scoreboard (warps as customers; kept: smaller IPC error over the range)"
                                                  : "token (read tokens per warp)");
    for (int i = 0; i < c.nphases; i++)
        printf("  phase %-14s %5.1f %% of instructions, %.1f warps with work per SM, %.2f instructions per request\n",
               c.phase_names[i], 100 * c.phases[i].warp_insts / phase_total(&c),
               c.phases[i].w.active_warps, c.phases[i].w.insts_per_request);
    printf("  fit RMS relative error %.2f %%; leave-one-out error IPC %.2f %%, AMAT %.2f %%\n",
           100 * c.fit.rms_rel_error, 100 * c.cv_ipc, 100 * c.cv_amat);
    printf("  anchored at the measured baseline: IPC %s (leave-one-out %.2f %% plain), AMAT %s (%.2f %% plain)\n",
           c.anchor_ipc ? "yes" : "no", 100 * c.raw_cv_ipc, c.anchor_amat ? "yes" : "no", 100 * c.raw_cv_amat);
    printf("  error over the calibrated range, anchored / plain: IPC %.2f / %.2f %%, AMAT %.2f / %.2f %% (the smaller "
           "is kept)\n", 100 * c.range_anch_ipc, 100 * c.range_raw_ipc, 100 * c.range_anch_amat, 100 * c.range_raw_amat);
    if (c.phase_choice)
        printf("  kernel phases: %s (IPC error over the range %.2f %% with %d phases, %.2f %% as one)\n",
               c.phase_choice > 0 ? "kept" : "not kept, the run is one phase", 100 * c.phase_cv_ipc,
               c.phase_choice > 0 ? c.phase_choice : -c.phase_choice, 100 * c.whole_cv_ipc);
    if (c.other_form)
        printf("  the other form: fit RMS %.2f %%; leave-one-out IPC %.2f %%, AMAT %.2f %%; IPC over the range %.2f %%\n",
               100 * c.other_rms, 100 * c.other_cv_ipc, 100 * c.other_cv_amat, 100 * c.other_range_ipc);
    if (c.sb_kept)
        printf("  the scoreboard fit is kept beside the token form for WarpPool's effect: alpha %.4f, eta %.4f, "
               "kappa %.4f\n", c.sb_params.alpha, c.sb_params.eta, c.sb_params.kappa);
    printf("  written to %s\n", path);
    return 0;
}
