/* cmd_run.c: 'gpuest run': the main job, the hybrid estimator end to end on the built-in default
 * (mesh56, hotspot, small): calibration on sampled runs (or a calibration file), a small design
 * space estimated in batch form with intervals, three of its points simulated in detail, and
 * one table with the estimates, their intervals and the errors (docs/estimator.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "model/model.h"
#include "sim/sim.h"
#include "study/study.h"
#include "workload/workload.h"

#define CMD "run"

static void run_help(FILE *out)
{
    fprintf(out, "usage: gpuest run [--workload W] [--scale tiny|small|default] [--seed N] [--calibration FILE]\n"
                 "                  [--csv FILE] [--preset P] [--config FILE] [--set S.K=V ...]\n\n"
                 "The main job, the hybrid estimator on the built-in default (the mesh56 preset, workload\n"
                 "hotspot at small scale): the closed queueing model is calibrated on sampled simulations of\n"
                 "the excitation configurations, a design space of flit widths x reply compression (none,\n"
                 "BDI) is estimated with 95 %% intervals, three of its points are simulated in detail, and\n"
                 "one table prints the estimates, intervals, detailed results and errors.\n\n"
                 "options:\n" CLI_CONFIG_HELP
                 "  --calibration FILE     use this calibration file instead of calibrating (no sampled runs)\n"
                 "  --csv FILE             the table as CSV\n"
                 "  --save-calibration FILE  write the calibration used (for --calibration, estimate, validate)\n");
}

static void print_machine(const gpuest_config_t *c)
{
    const char *desc = gpuest_preset_description(c->name);
    printf("machine: %s (%s)\n", c->name, desc ? desc : "");
    printf("  SMs %d x %d warps, %s, core %.0f MHz | L1D %d KB %d-way, %d B lines | L2 %d KB x %d MCs\n",
           c->core.num_sms, c->core.warps_per_sm, c->core.scheduler == GPUEST_WSCHED_GTO ? "GTO" : "LRR",
           c->core.clock_mhz, c->l1.size_bytes / 1024, c->l1.assoc, c->l1.line_bytes, c->l2.size_per_mc_bytes / 1024,
           c->mc.num_mcs);
    if (c->noc.topology == GPUEST_TOPO_MESH)
        printf("  NoC %dx%d mesh, %d VCs x %d flits, %d B flits, %s-%s routing, MCs %s, %.0f MHz\n", c->noc.k, c->noc.k,
               c->noc.vcs, c->noc.buffer_flits, c->noc.flit_bytes, gpuest_routing_name(c->noc.routing_request),
               gpuest_routing_name(c->noc.routing_reply), gpuest_mc_placement_name(c->noc.mc_placement),
               c->noc.clock_mhz);
    else
        printf("  NoC request + reply crossbars, %d B flits, %d flit(s)/cycle/port, %.0f MHz\n", c->noc.flit_bytes,
               c->noc.xbar_port_flits, c->noc.clock_mhz);
}

/* Wall times, printed on stderr when it is a terminal (like the progress bars), so that the
 * output for a seed stays identical between runs. */
static void times(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void times(const char *fmt, ...)
{
    if (!isatty(2))
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define SPACE 6
/* The design space: flit width x0.5, x1, x2 with reply compression off and BDI. Points 0 (the
 * machine as given), 1 (flit x0.5) and 4 (BDI) are simulated in detail. */
static int design_space(const gpuest_config_t *cfg, gpuest_study_variant_t *v)
{
    static const int num[3] = {1, 2, 4};
    static const char *const comp[2] = {"none", "bdi"};
    int n = 0;
    for (int c = 0; c < 2; c++)
        for (int f = 0; f < 3; f++) {
            int order[3] = {1, 0, 2}; /* as given first */
            int flit = cfg->noc.flit_bytes * num[order[f]] / 2;
            gpuest_study_variant_t *p = &v[n++];
            memset(p, 0, sizeof *p);
            snprintf(p->label, sizeof p->label, "flit%d_%s", flit, comp[c]);
            snprintf(p->sets[p->nsets++], sizeof p->sets[0], "noc.flit_bytes=%d", flit);
            if (c)
                snprintf(p->sets[p->nsets++], sizeof p->sets[0], "technique.compression=%s", comp[c]);
        }
    return n;
}

static int validated(int i) { return i == 0 || i == 1 || i == 3; }

typedef struct {
    const char *workload;
    gpuest_scale_t scale;
    unsigned long long seed;
    const char *calib_file, *csv;
    const char *save_calib; /* --save-calibration FILE: the calibration used (made or read), for --calibration */
} run_opts_t;

/* --csv and --save-calibration, written at the end: the calibration used to be saved as soon as it
 * was made, and stayed when a later step failed. The table is staged, the calibration written,
 * then the table renamed into place (or dropped when the calibration could not be written). */
static int save_outputs(const cli_table_t *t, const gpuest_calibration_t *c, const run_opts_t *o)
{
    gpuest_csv_writer_t w;
    int rc = o->csv ? cli_table_stage_csv(t, o->csv, CMD, &w) : 0;
    if (rc != 0)
        return rc;
    if (o->save_calib) {
        gpuest_error_t err;
        gpuest_error_clear(&err);
        gpuest_err e = gpuest_calibration_write(c, o->save_calib, &err);
        if (e != GPUEST_OK) {
            if (o->csv)
                gpuest_csv_writer_abort(&w);
            return cli_report(CMD, e, &err);
        }
    }
    return o->csv ? cli_csv_commit(&w, CMD) : 0;
}

static int hybrid(const gpuest_config_t *cfg, const run_opts_t *o)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    static gpuest_calibration_t c;
    double t0 = wall_now();
    gpuest_err e;
    if (o->calib_file) {
        e = gpuest_calibration_read(o->calib_file, &c, &err);
        if (e == GPUEST_OK && (strcmp(c.preset, cfg->name) != 0 || strcmp(c.workload, o->workload) != 0))
            e = gpuest_fail(&err, GPUEST_EINVAL, "%s was made for %s on %s, not %s on %s", o->calib_file, c.workload,
                            c.preset, o->workload, cfg->name);
        /* the scale too: a tiny calibration against small detailed runs gave errors that meant nothing */
        if (e == GPUEST_OK && c.scale != o->scale)
            e = gpuest_fail(&err, GPUEST_EINVAL, "%s was made at scale %s, not %s (--scale)", o->calib_file,
                            gpuest_scale_name(c.scale), gpuest_scale_name(o->scale));
        if (e != GPUEST_OK)
            return cli_report(CMD, e, &err);
        printf("\n1. calibration: read from %s (no sampled runs; %d runs, fitted %s)\n", o->calib_file, c.nruns,
               c.warp_profile[1] > 0 ? "scoreboard model" : "token model");
    } else {
        printf("\n1. calibration on sampled runs of the excitation set (the sampler's defaults; the detailed points\n"
               "   below check the result)\n");
        gpuest_progress_t *pr = cli_progress("calibrate", 4);
        e = gpuest_study_calibrate_sampled(cfg, o->workload, o->scale, o->seed, pr, &c, &err);
        gpuest_progress_finish(pr);
        if (e != GPUEST_OK)
            return cli_report(CMD, e, &err);
        for (int i = 0; i < c.nruns; i++)
            printf("   %-10s sampled IPC %8.2f (+-%4.1f %% se)  AMAT %7.1f (+-%4.1f %% se)\n", c.runs[i].label,
                   c.runs[i].ipc, 100 * c.runs[i].ipc_cv, c.runs[i].amat, 100 * c.runs[i].amat_cv);
    }
    printf("   model %s; alpha %.3f, eta %.3f, kappa %.3f; fit RMS %.1f %%, leave-one-out IPC %.1f %%\n",
           c.warp_profile[1] > 0 ? "scoreboard" : "token", c.fit.params.alpha, c.fit.params.eta, c.fit.params.kappa,
           100 * c.fit.rms_rel_error, 100 * c.cv_ipc);
    printf("   anchored at the sampled baseline: IPC %s, AMAT %s (the form with the smaller error over the calibrated "
           "range)\n", c.anchor_ipc ? "yes" : "no", c.anchor_amat ? "yes" : "no");
    if (!o->calib_file) /* a file does not store the range errors */
        printf("   error over the calibrated range, anchored / plain: IPC %.1f / %.1f %%, AMAT %.1f / %.1f %%\n",
               100 * c.range_anch_ipc, 100 * c.range_raw_ipc, 100 * c.range_anch_amat, 100 * c.range_raw_amat);
    /* times go to a terminal only: the output is the same for the same seed, bit for bit */
    times("gpuest run: calibration %.1f s\n", wall_now() - t0);

    gpuest_study_variant_t v[SPACE];
    int n = design_space(cfg, v);
    static gpuest_study_estimate_t est[SPACE];
    gpuest_study_batch_t *batch = NULL;
    e = gpuest_study_batch_create(&batch, &err);
    double t1 = wall_now(), est_s = 0.0;
    for (int i = 0; e == GPUEST_OK && i < n; i++) {
        gpuest_config_t vc;
        gpuest_model_transform_t tr;
        const gpuest_model_transform_t *use = NULL;
        e = gpuest_study_apply(cfg, &v[i], &vc, &err);
        if (e == GPUEST_OK)
            e = gpuest_study_technique_transform(&vc, o->workload, o->scale, o->seed, cli_model_dir(), &tr, &use, &err);
        double te = wall_now();
        if (e == GPUEST_OK)
            e = gpuest_study_estimate_in(batch, &c, &vc, use, 0.95, &est[i], &err);
        est_s += wall_now() - te;
    }
    gpuest_study_batch_destroy(batch);
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    printf("\n2. design space: %d points estimated (flit width x reply compression)\n", n);
    times("gpuest run: %d estimates in %.1f ms (%.2f ms a point; the BDI transform's walk of the workload "
                    "%.2f s more)\n", n, est_s * 1e3, est_s * 1e3 / n, wall_now() - t1 - est_s);

    printf("\n3. detailed simulation of points 1, 2 and 4 (the rest are estimates only)\n");
    static gpuest_study_run_t truth[SPACE];
    gpuest_progress_t *pr = cli_progress("simulate", 3);
    int done = 0;
    for (int i = 0; i < n; i++) {
        if (!validated(i))
            continue;
        gpuest_config_t vc;
        e = gpuest_study_apply(cfg, &v[i], &vc, &err);
        if (e == GPUEST_OK)
            e = gpuest_study_run_detailed(&vc, o->workload, o->scale, o->seed, &truth[i], &err);
        if (e != GPUEST_OK) {
            gpuest_progress_finish(pr);
            return cli_report(CMD, e, &err);
        }
        if (pr)
            gpuest_progress_update(pr, (uint64_t)++done);
    }
    gpuest_progress_finish(pr);

    static const char *const header[] = {"point", "ipc", "ipc_lo", "ipc_hi", "amat", "amat_lo", "amat_hi",
                                         "mc_stall", "ipc_sim", "ipc_err_pct", "covered", "amat_sim", "amat_err_pct",
                                         "extrapolated"};
    cli_table_t t;
    if (cli_table_init(&t, header, sizeof header / sizeof header[0]) != 0)
        return 1;
    double sum_err = 0.0;
    int cov = 0, nval = 0;
    for (int i = 0; i < n; i++) {
        const gpuest_study_estimate_t *x = &est[i];
        if (validated(i)) {
            double ei = 100 * (x->ipc.v - truth[i].ipc) / truth[i].ipc;
            double ea = 100 * (x->amat.v - truth[i].amat) / truth[i].amat;
            int c1 = truth[i].ipc >= x->ipc.lo && truth[i].ipc <= x->ipc.hi;
            sum_err += fabs(ei);
            cov += c1;
            nval++;
            cli_table_addf(&t, "%s\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t%.1f\t%.3f\t%.2f\t%+.1f\t%s\t%.1f\t%+.1f\t%s", v[i].label,
                           x->ipc.v, x->ipc.lo, x->ipc.hi, x->amat.v, x->amat.lo, x->amat.hi, x->mc_stall.v,
                           truth[i].ipc, ei, c1 ? "yes" : "no", truth[i].amat, ea, x->extrapolated ? "yes" : "no");
        } else {
            cli_table_addf(&t, "%s\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t%.1f\t%.3f\t-\t-\t-\t-\t-\t%s", v[i].label, x->ipc.v,
                           x->ipc.lo, x->ipc.hi, x->amat.v, x->amat.lo, x->amat.hi, x->mc_stall.v,
                           x->extrapolated ? "yes" : "no");
        }
    }
    printf("\n%s on %s (scale %s): estimates with 95 %% intervals, detailed results where simulated\n", o->workload,
           cfg->name, gpuest_scale_name(o->scale));
    cli_table_print(&t, stdout);
    printf("IPC error over the %d simulated points: mean |error| %.1f %%, intervals covering %d/%d\n", nval,
           sum_err / (nval ? nval : 1), cov, nval);
    times("gpuest run: total %.1f s\n", wall_now() - t0);
    int rc = save_outputs(&t, &c, o);
    cli_table_free(&t);
    return rc;
}

int cli_cmd_run(int argc, char **argv)
{
    cli_config_t cc;
    cli_config_init(&cc, "mesh56");
    run_opts_t o = {"hotspot", GPUEST_SCALE_SMALL, 1, NULL, NULL, NULL};
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        if (cli_args_is(&a, "help")) {
            run_help(stdout);
            return 0;
        }
        int used = a.name ? cli_config_option(&cc, &a) : 0;
        if (used < 0)
            return 2;
        if (used > 0)
            continue;
        static const char *const valued[] = {"workload", "scale", "seed", "calibration", "csv", "save-calibration",
                                             NULL};
        if (!cli_args_known(&a, valued)) /* not "--bogus needs a value" */
            return cli_usage_error(CMD, "unexpected argument '%s'", a.name ? a.name : a.value);
        const char *v = a.name ? cli_args_value(&a) : NULL;
        if (a.name && !v)
            return 2;
        if (cli_args_is(&a, "workload")) {
            o.workload = v;
        } else if (cli_args_is(&a, "scale")) {
            if (gpuest_scale_parse(v, &o.scale) != GPUEST_OK)
                return cli_usage_error(CMD, "--scale %s: expected tiny, small or default", v);
        } else if (cli_args_is(&a, "seed")) {
            if (cli_parse_u64(CMD, "seed", v, &o.seed))
                return 2;
        } else if (cli_args_is(&a, "calibration")) {
            o.calib_file = v;
        } else if (cli_args_is(&a, "csv")) {
            o.csv = v;
        } else if (cli_args_is(&a, "save-calibration")) {
            o.save_calib = v;
        } else {
            return cli_usage_error(CMD, "unexpected argument '%s'", a.name ? a.name : a.value);
        }
    }
    int rc = cli_config_finish(&cc, CMD);
    if (rc == 0)
        rc = cli_check_output(CMD, "csv", o.csv);
    if (rc == 0)
        rc = cli_check_output(CMD, "save-calibration", o.save_calib);
    if (rc != 0)
        return rc;
    if (gpuest_study_any_technique(&cc.cfg))
        return cli_usage_error(CMD, "the machine as given must have every technique off (the design space adds BDI)");
    print_machine(&cc.cfg);
    printf("workload: %s (scale %s, seed %llu)\n", o.workload, gpuest_scale_name(o.scale), o.seed);
    return hybrid(&cc.cfg, &o);
}
