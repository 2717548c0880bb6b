/* cmd_validate.c: 'gpuest validate': estimates against full detailed runs on held-out configurations. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_study.h"
#include "commands.h"

#define CMD "validate"

static void help(FILE *out)
{
    fprintf(out, "usage: gpuest validate --preset P --workload W [--points N] [--csv FILE] [--confidence C]\n\n"
                 "Estimates N held-out configurations (not used by the calibration: L2 latency, flit width,\n"
                 "DRAM timing, VCs, MC placement and count, routing, buffers) and runs each in full detail;\n"
                 "prints per point the errors of IPC and AMAT and whether the interval covered the truth,\n"
                 "then the mean absolute percentage errors and the coverage.\n\noptions:\n" CLI_CONFIG_HELP
                 CLI_STUDY_HELP "  --points N             held-out points (default 10)\n"
                 "  --csv FILE             one row per point\n  --confidence C         interval level (0.95)\n");
}

int cli_cmd_validate(int argc, char **argv)
{
    cli_study_opts_t o;
    cli_study_init(&o);
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        if (cli_args_is(&a, "help")) {
            help(stdout);
            return 0;
        }
        int used = cli_study_option(&o, &a, CMD);
        if (used < 0)
            return 2;
        if (used == 0)
            return cli_usage_error(CMD, "unexpected argument '%s'", a.name ? a.name : a.value);
    }
    int rc = cli_config_finish(&o.cc, CMD);
    if (rc != 0)
        return rc;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    static gpuest_calibration_t c;
    char path[1024];
    cli_study_calib_path(&o, path, sizeof path);
    gpuest_err e = gpuest_calibration_read(path, &c, &err);
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    static gpuest_study_validation_point_t pts[16];
    int n = 0;
    gpuest_progress_t *pr = cli_progress("validate", (unsigned long long)o.points);
    e = gpuest_study_validate(&c, &o.cc.cfg, (int)o.points, o.confidence, pr, pts, &n, &err);
    gpuest_progress_finish(pr);
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    static const char *const header[] = {"point", "sets", "ipc_sim", "ipc", "ipc_lo", "ipc_hi", "ipc_err_pct",
                                         "ipc_covered", "amat_sim", "amat", "amat_lo", "amat_hi", "amat_err_pct",
                                         "amat_covered", "extrapolated", "est_us", "sim_s"};
    cli_table_t t;
    cli_table_init(&t, header, sizeof header / sizeof header[0]);
    double si = 0, sa = 0, est_us = 0, sim_s = 0;
    int ci = 0, ca = 0;
    for (int i = 0; i < n; i++) {
        const gpuest_study_validation_point_t *p = &pts[i];
        char sets[256] = "";
        for (int k = 0; k < p->variant.nsets; k++)
            snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s%s", k ? " " : "", p->variant.sets[k]);
        cli_table_addf(&t, "%s\t%s\t%.4g\t%.4g\t%.4g\t%.4g\t%+.2f\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%+.2f\t%s\t%s\t%.0f\t%.2f",
                       p->variant.label, sets, p->truth.ipc, p->est.ipc.v, p->est.ipc.lo, p->est.ipc.hi,
                       100 * p->ipc_err, p->ipc_covered ? "yes" : "no", p->truth.amat, p->est.amat.v, p->est.amat.lo,
                       p->est.amat.hi, 100 * p->amat_err, p->amat_covered ? "yes" : "no",
                       p->est.extrapolated ? "yes" : "no", p->est_seconds * 1e6, p->truth.sim_seconds);
        si += fabs(p->ipc_err);
        sa += fabs(p->amat_err);
        ci += p->ipc_covered;
        ca += p->amat_covered;
        est_us += p->est_seconds * 1e6;
        sim_s += p->truth.sim_seconds;
    }
    printf("validation of %s on %s (scale %s, calibration %s), %d held-out points:\n", c.workload, o.cc.cfg.name,
           gpuest_scale_name(c.scale), path, n);
    cli_table_print(&t, stdout);
    if (n > 0)
        printf("IPC MAPE %.2f %%, AMAT MAPE %.2f %%; %.0f %% intervals covered IPC %d/%d, AMAT %d/%d; estimate %.0f us "
               "a point vs detailed %.2f s (%.0fx)\n",
               100 * si / n, 100 * sa / n, 100 * o.confidence, ci, n, ca, n, est_us / n, sim_s / n,
               est_us > 0 ? sim_s / (est_us * 1e-6) : 0.0);
    rc = o.csv ? cli_table_write_csv(&t, o.csv, CMD) : 0;
    cli_table_free(&t);
    return rc;
}
