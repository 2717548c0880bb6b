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
                 "then the mean absolute percentage errors, the coverage and the share of technique\n"
                 "effects whose sign the estimate gets right.\n\noptions:\n" CLI_CONFIG_HELP
                 CLI_STUDY_HELP "  --points N             held-out points (default 10)\n"
                 "  --techniques LIST      also validate technique points on the baseline machine, one per\n"
                 "                         item of LIST: a compression algorithm (bdi) or a technique key\n"
                 "                         and value (coalescing=pcu), e.g. bdi,coalescing=pcu, with the sign\n"
                 "                         of each one's IPC effect, estimated vs simulated (default none)\n"
                 "  --truth-csv FILE       detailed runs of an earlier --csv instead of new simulations\n"
                 "  --simulate-missing     with --truth-csv: run in detail the held-out points the file\n"
                 "                         lacks (e.g. --points 14 over a 10-point table)\n"
                 "  --csv FILE             one row per point\n  --confidence C         interval level (0.95)\n");
}

/* --truth-csv: the detailed runs of an earlier 'validate --csv' (columns point, ipc_sim, amat_sim, sim_s).
 * Every message names the file and the line; a point named twice is refused (which row would the
 * validation take?), and so is a file with no header at all (an empty file). */
typedef struct {
    const char *path;
    gpuest_study_run_t *t;
    int n;
    int c_point, c_ipc, c_amat, c_sim;
} truth_ctx_t;

static gpuest_err truth_row(void *vctx, size_t line, const char *const *f, size_t nf, gpuest_error_t *err)
{
    truth_ctx_t *c = vctx;
    if (c->c_point < 0) { /* the first record is the header, whatever line it is on */
        for (size_t i = 0; i < nf; i++) {
            if (strcmp(f[i], "point") == 0) c->c_point = (int)i;
            if (strcmp(f[i], "ipc_sim") == 0) c->c_ipc = (int)i;
            if (strcmp(f[i], "amat_sim") == 0) c->c_amat = (int)i;
            if (strcmp(f[i], "sim_s") == 0) c->c_sim = (int)i;
        }
        if (c->c_point < 0 || c->c_ipc < 0 || c->c_amat < 0 || c->c_sim < 0) {
            c->c_point = -1;
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected the columns point, ipc_sim, amat_sim and sim_s "
                                                   "of 'gpuest validate --csv'", c->path, line);
        }
        return GPUEST_OK;
    }
    if (c->n >= 32)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: more than 32 points", c->path, line);
    gpuest_study_run_t *r = &c->t[c->n];
    memset(r, 0, sizeof *r);
    if ((size_t)c->c_sim >= nf || (size_t)c->c_point >= nf || (size_t)c->c_ipc >= nf || (size_t)c->c_amat >= nf)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: %zu fields, fewer than the header's", c->path, line, nf);
    if (f[c->c_point][0] == '\0' || strlen(f[c->c_point]) >= sizeof r->label)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected a point name of 1 to %zu characters in column 'point'",
                           c->path, line, sizeof r->label - 1);
    snprintf(r->label, sizeof r->label, "%s", f[c->c_point]);
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->t[i].label, r->label) == 0)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: point '%s' appears twice (expected one row a point)",
                               c->path, line, r->label);
    /* sim_s feeds the speedup the summary prints: a NaN or a negative time is as wrong as a bad IPC */
    if (gpuest_parse_double(f[c->c_ipc], &r->ipc) != GPUEST_OK || gpuest_parse_double(f[c->c_amat], &r->amat) != GPUEST_OK ||
        gpuest_parse_double(f[c->c_sim], &r->sim_seconds) != GPUEST_OK || !(r->ipc > 0) || !(r->amat > 0) ||
        !isfinite(r->ipc) || !isfinite(r->amat) || !(r->sim_seconds >= 0) || !isfinite(r->sim_seconds))
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected ipc_sim and amat_sim finite numbers > 0 and sim_s "
                                               "a finite number >= 0", c->path, line);
    c->n++;
    return GPUEST_OK;
}

#define MAX_TECH 8

/* --techniques a,b,...: each must be a value technique.compression accepts or a technique
 * key=value that switches a technique on (checked on the
 * machine now, so a typo fails before any simulation). Returns 0 or an exit code (printed). */
static int split_techniques(cli_study_opts_t *o, char **out, int *n)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s", o->techniques);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (*n >= MAX_TECH) {
            cli_usage_error(CMD, "--techniques: at most %d algorithms", MAX_TECH);
            return 2;
        }
        gpuest_config_t probe = o->cc.cfg;
        char set[128];
        gpuest_study_technique_setting(t, set, sizeof set);
        gpuest_error_t err;
        gpuest_error_clear(&err);
        if (gpuest_config_set(&probe, set, "--techniques", &err) != GPUEST_OK ||
            gpuest_config_validate(&probe, &err) != GPUEST_OK) {
            cli_usage_error(CMD, "--techniques %s: '%s' is not a compression algorithm or technique key=value (%s)",
                            o->techniques, t, err.msg);
            return 2;
        }
        if (!gpuest_study_any_technique(&probe)) {
            cli_usage_error(CMD, "--techniques %s: '%s' switches no technique on", o->techniques, t);
            return 2;
        }
        out[(*n)++] = t;
    }
    return 0;
}

int cli_cmd_validate(int argc, char **argv)
{
    cli_study_opts_t o;
    int rc = cli_study_parse(&o, argc, argv, CMD, help);
    if (rc >= 0)
        return rc;
    static gpuest_calibration_t c;
    char path[1024];
    if ((rc = cli_study_load(&o, CMD, &c, path, sizeof path)) != 0)
        return rc;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err e;
    char *tech[MAX_TECH];
    int ntech = 0;
    if (o.techniques && (rc = split_techniques(&o, tech, &ntech)) != 0)
        return rc;
    static gpuest_study_validation_point_t pts[16 + MAX_TECH];
    int n = 0;
    gpuest_progress_t *pr = cli_progress("validate", (unsigned long long)o.points);
    static gpuest_study_run_t truths[32];
    int ntruths = 0;
    if (o.truth_csv) {
        truth_ctx_t tc = {o.truth_csv, truths, 0, -1, -1, -1, -1};
        e = gpuest_csv_read(o.truth_csv, truth_row, &tc, &err);
        if (e == GPUEST_OK && tc.c_point < 0)
            e = gpuest_fail(&err, GPUEST_EPARSE, "%s:1: expected the header point,ipc_sim,amat_sim,sim_s of 'gpuest "
                                                 "validate --csv' (the file is empty)", o.truth_csv);
        if (e != GPUEST_OK) {
            gpuest_progress_finish(pr);
            return cli_report(CMD, e, &err);
        }
        ntruths = tc.n;
    }
    e = gpuest_study_validate(&c, &o.cc.cfg, (int)o.points, o.confidence, o.truth_csv ? truths : NULL, ntruths,
                              o.simulate_missing, pr, pts, &n, &err);
    if (e == GPUEST_OK && ntech > 0) {
        int nt = 0;
        e = gpuest_study_validate_techniques(&c, &o.cc.cfg, (const char *const *)tech, ntech, cli_model_dir(),
                                             o.confidence, o.truth_csv ? truths : NULL, ntruths, NULL, pts + n, &nt,
                                             &err);
        n += nt;
    }
    gpuest_progress_finish(pr);
    if (e == GPUEST_ENOKEY && o.truth_csv) { /* the library does not know which file held the truths */
        fprintf(stderr, "gpuest %s: error: %s: %s (expected a row for every held-out point; --simulate-missing "
                        "runs the missing ones in detail)\n", CMD, o.truth_csv, err.msg);
        return gpuest_exit_code(e);
    }
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    static const char *const header[] = {"point", "sets", "ipc_sim", "ipc", "ipc_lo", "ipc_hi", "ipc_err_pct",
                                         "ipc_covered", "amat_sim", "amat", "amat_lo", "amat_hi", "amat_err_pct",
                                         "amat_covered", "extrapolated", "est_us", "sim_s",
                                         "effect_sim_pct", "effect_est_pct", "sign_agree"};
    cli_table_t t;
    cli_table_init(&t, header, sizeof header / sizeof header[0]);
    double si = 0, sa = 0, est_us = 0, sim_s = 0;
    int ci = 0, ca = 0, nt = 0, agree = 0;
    for (int i = 0; i < n; i++) {
        const gpuest_study_validation_point_t *p = &pts[i];
        char sets[256] = "";
        for (int k = 0; k < p->variant.nsets; k++)
            snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s%s", k ? " " : "", p->variant.sets[k]);
        char effect[3][16] = {"-", "-", "-"};
        if (p->technique) {
            snprintf(effect[0], sizeof effect[0], "%+.2f", 100 * p->effect_sim);
            snprintf(effect[1], sizeof effect[1], "%+.2f", 100 * p->effect_est);
            snprintf(effect[2], sizeof effect[2], "%s", p->sign_agree ? "yes" : "no");
            nt++;
            agree += p->sign_agree;
        }
        cli_table_addf(&t, "%s\t%s\t%.4g\t%.4g\t%.4g\t%.4g\t%+.2f\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%+.2f\t%s\t%s\t%.0f\t%.2f\t%s\t%s\t%s",
                       p->variant.label, sets, p->truth.ipc, p->est.ipc.v, p->est.ipc.lo, p->est.ipc.hi,
                       100 * p->ipc_err, p->ipc_covered ? "yes" : "no", p->truth.amat, p->est.amat.v, p->est.amat.lo,
                       p->est.amat.hi, 100 * p->amat_err, p->amat_covered ? "yes" : "no",
                       p->est.extrapolated ? "yes" : "no", p->est_seconds * 1e6, p->truth.sim_seconds, effect[0], effect[1], effect[2]);
        si += fabs(p->ipc_err);
        sa += fabs(p->amat_err);
        ci += p->ipc_covered;
        ca += p->amat_covered;
        est_us += p->est_seconds * 1e6;
        sim_s += p->truth.sim_seconds;
    }
    printf("validation of %s on %s (scale %s, calibration %s), %d points (%d with a technique on):\n", c.workload,
           o.cc.cfg.name, gpuest_scale_name(c.scale), path, n, ntech);
    cli_table_print(&t, stdout);
    if (n > 0)
        printf("IPC MAPE %.2f %%, AMAT MAPE %.2f %%; %.0f %% intervals covered IPC %d/%d, AMAT %d/%d; estimate %.0f us "
               "a point vs detailed %.2f s (%.0fx)\n",
               100 * si / n, 100 * sa / n, 100 * o.confidence, ci, n, ca, n, est_us / n, sim_s / n,
               est_us > 0 ? sim_s / (est_us * 1e-6) : 0.0);
    if (nt > 0)
        printf("technique effect on IPC (vs the baseline machine): sign right in %d/%d points (%.0f %%)\n", agree, nt,
               100.0 * agree / nt);
    rc = o.csv ? cli_table_write_csv(&t, o.csv, CMD) : 0;
    cli_table_free(&t);
    return rc;
}
