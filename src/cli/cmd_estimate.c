/* cmd_estimate.c: 'gpuest estimate': calibrated estimates with intervals, one point or a batch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli_study.h"
#include "commands.h"
#include "technique/technique.h"

#define CMD "estimate"

static void help(FILE *out)
{
    fprintf(out, "usage: gpuest estimate --preset P --workload W [--set S.K=V ...] [--batch FILE] [--csv FILE]\n"
                 "                       [--confidence C] [--scale S] [--calibration FILE]\n\n"
                 "Estimates IPC, AMAT and its split, the MC stall ratio and the busiest link's utilisation\n"
                 "from the stored calibration (no simulation), each with its interval at confidence C\n"
                 "(default 0.95). --batch FILE: one design point per line, assignments separated by\n"
                 "blanks (an empty line = the machine as given). Points outside the calibrated range are\n"
                 "flagged. Where the calibration chose it (by error over its range), IPC and AMAT are the\n"
                 "model's ratio to the calibrated machine times the measured baseline (said above the\n"
                 "table).\n\noptions:\n" CLI_CONFIG_HELP CLI_STUDY_HELP
                 "  --batch FILE           many points\n  --csv FILE             one row per point\n"
                 "  --confidence C         interval level (default 0.95)\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const header[] = {"point", "ipc", "ipc_lo", "ipc_hi", "amat", "amat_lo", "amat_hi", "req",
                                     "mem", "reply", "mc_stall", "mc_stall_lo", "mc_stall_hi", "link_util",
                                     "link_util_lo", "link_util_hi", "extrapolated", "us"};
#define NCOL (sizeof header / sizeof header[0])

static int add_row(cli_table_t *t, const char *name, const gpuest_study_estimate_t *e, double us)
{
    return cli_table_addf(t, "%s\t%.4g\t%.4g\t%.4g\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%.0f",
                          name, e->ipc.v, e->ipc.lo, e->ipc.hi, e->amat.v, e->amat.lo, e->amat.hi, e->req.v, e->mem.v,
                          e->reply.v, e->mc_stall.v, e->mc_stall.lo, e->mc_stall.hi, e->link_util.v, e->link_util.lo,
                          e->link_util.hi, e->extrapolated ? "yes" : "no", us);
}

/* One batch line -> cfg. Returns 0 or an exit code (printed). */
static int batch_point(const gpuest_config_t *base, char *line, const char *file, int lineno, gpuest_config_t *out)
{
    *out = *base;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    char origin[300];
    snprintf(origin, sizeof origin, "%s:%d", file, lineno);
    for (char *t = strtok(line, " \t\r"); t; t = strtok(NULL, " \t\r"))
        if (gpuest_config_set(out, t, origin, &err) != GPUEST_OK)
            return cli_report(CMD, GPUEST_EPARSE, &err);
    if (gpuest_config_validate(out, &err) != GPUEST_OK) {
        /* the message names the key's origin (this file and line) where one key is to blame */
        if (strncmp(err.msg, origin, strlen(origin)) == 0)
            fprintf(stderr, "gpuest %s: error: %s\n", CMD, err.msg);
        else
            fprintf(stderr, "gpuest %s: error: %s: %s\n", CMD, origin, err.msg);
        return 2;
    }
    return 0;
}

#define BATCH_LINE_MAX 2047 /* characters of one design point's line */

/* Reads the next line of a batch file into line (BATCH_LINE_MAX + 1 bytes, without its newline).
 * Returns 1 for a line, 0 at the end, or an exit code + 2 (printed): a line longer than the limit
 * (fgets used to cut it in two points) or one holding a NUL byte (its tail was dropped silently). */
static int batch_line(FILE *f, const char *file, int lineno, char *line)
{
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (ch == '\0') {
            fprintf(stderr, "gpuest %s: error: %s:%d: binary data (a NUL byte); expected design-point text\n", CMD,
                    file, lineno);
            return 2 + 2;
        }
        if (n == BATCH_LINE_MAX) {
            fprintf(stderr, "gpuest %s: error: %s:%d: line longer than %d characters\n", CMD, file, lineno,
                    BATCH_LINE_MAX);
            return 2 + 2;
        }
        line[n++] = (char)ch;
    }
    line[n] = '\0';
    if (ch == EOF && ferror(f)) {
        fprintf(stderr, "gpuest %s: error: %s:%d: read error\n", CMD, file, lineno);
        return 1 + 2;
    }
    return ch == EOF && n == 0 ? 0 : 1;
}

/* A comment line: '#' after optional blanks. */
static int batch_comment(const char *line)
{
    line += strspn(line, " \t\r");
    return line[0] == '#';
}

/* The techniques' transform for cfg (*use = NULL when none is on), built in study so that
 * 'validate' estimates technique points the same way. */
static gpuest_err technique_transform(const cli_study_opts_t *o, const gpuest_calibration_t *c,
                                      const gpuest_config_t *cfg, gpuest_model_transform_t *t,
                                      const gpuest_model_transform_t **use, gpuest_error_t *err)
{
    return gpuest_study_technique_transform_cal(cfg, c, o->workload, o->scale, o->seed, cli_model_dir(), t, use, err);
}

int cli_cmd_estimate(int argc, char **argv)
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
    cli_table_t t;
    cli_table_init(&t, header, NCOL);
    int extrap = 0;
    gpuest_model_transform_t tr;
    const gpuest_model_transform_t *use = NULL;
    if (!o.batch) {
        gpuest_study_estimate_t est;
        double t0 = now_s();
        e = technique_transform(&o, &c, &o.cc.cfg, &tr, &use, &err);
        if (e == GPUEST_OK)
            e = gpuest_study_estimate(&c, &o.cc.cfg, use, o.confidence, &est, &err);
        double us = (now_s() - t0) * 1e6;
        if (e != GPUEST_OK) {
            cli_table_free(&t);
            return cli_report(CMD, e, &err);
        }
        add_row(&t, "point", &est, us);
        extrap = est.extrapolated;
        if (use)
            printf("technique transform: mean read reply %.3f flits (uncompressed %d), compressor %.1f L2 cycles, "
                   "decompressor %.2f core cycles a reply\n",
                   gpuest_model_reply_flits(use, gpuest_packet_flits(8u * GPUEST_LINE_BYTES, o.cc.cfg.noc.flit_bytes,
                                                                    o.cc.cfg.noc.header_bytes)),
                   gpuest_packet_flits(8u * GPUEST_LINE_BYTES, o.cc.cfg.noc.flit_bytes, o.cc.cfg.noc.header_bytes),
                   use->compress_latency, use->decompress_latency);
        if (use && use->reply_packets_saved > 0)
            printf("technique transform: %.4f of read replies (and their L2 accesses) saved by coalescing\n",
                   use->reply_packets_saved);
        if (use && (use->remote_read_share > 0 || use->probe_msgs_per_read > 0))
            printf("technique transform: %.4f of L1 read misses served by a remote L1 (%.0f %% of them over the "
                   "network), %.3f probe/NACK packets and %.3f extra request traversals per miss\n",
                   use->remote_read_share, 100.0 * use->remote_net_share, use->probe_msgs_per_read,
                   use->probe_extra_trips);
        if (use && use->l1_miss_scale > 0)
            printf("technique transform: L1 read miss rate x %.4f, L1 hit +%.2f core cycles (compressed L1)\n",
                   use->l1_miss_scale, use->l1_hit_extra_latency);
        if (use && est.raw.l1_dq_wait > 0)
            printf("technique transform: decompression queue (eq. 3), %.3f compressed hits per core cycle per SM, "
                   "%.2f core cycles per compressed hit at the model's throughput\n",
                   est.raw.l1_dq_rate, est.raw.l1_dq_wait);
        if (use && use->l1c_rule != GPUEST_MODEL_L1C_STATIC) {
            static const char *const mode_names[] = {"none", "bdi", "sc", "bpc"};
            printf("technique transform: adaptive compressed L1, candidates");
            for (int i = 0; i < use->l1c_modes && i < GPUEST_MODEL_L1C_MAX; i++)
                printf("%s %s (miss rate x %.4f, hit +%.2f)", i ? "," : "", mode_names[use->l1c_mode_id[i] & 3],
                       use->l1c_miss_scale[i], use->l1c_hit_extra[i]);
            printf("; the policy's rule takes %s\n", mode_names[use->l1c_mode_id[est.raw.l1c_choice & 3] & 3]);
        }
        if (use && (use->llc_fwd_hold > 0 || use->llc_fwd_gone > 0))
            printf("technique transform: LA-LLC, of L1 read misses %.4f have another last reader that holds the "
                   "line and %.4f one that no longer does (x the L2 hit rate: forwarded)\n",
                   use->llc_fwd_hold, use->llc_fwd_gone);
        if (use && use->l1_merge_windows > 0)
            printf("technique transform: WarpPool, merged line requests %.4f (1 queue) to %.4f (%d queues); the "
                   "model's pool holds %.2f queues: %.4f merged; L1 hit +%.2f core cycles\n",
                   use->l1_merge_share[0], use->l1_merge_share[use->l1_merge_windows - 1],
                   o.cc.cfg.technique.warppool_queues, est.raw.pool_occupancy, est.raw.pool_merge_share,
                   use->l1_hit_extra_latency);
        if (use && use->ldst_pool_lines > 0)
            printf("technique transform: WarpPool's LD/ST unblocking, %.2f core cycles of compute dependences a "
                   "customer cycle run while its loads wait in the pool\n", est.raw.pool_overlap);
        if (est.extrapolated)
            printf("note: %s; the interval may not hold\n", est.why);
    } else {
        FILE *f = fopen(o.batch, "r");
        if (!f) {
            cli_table_free(&t);
            fprintf(stderr, "gpuest %s: error: --batch %s: cannot open: %s\n", CMD, o.batch, strerror(errno));
            return 2;
        }
        char line[BATCH_LINE_MAX + 1];
        int lineno = 0;
        gpuest_study_batch_t *batch = NULL; /* points share the network part of the model */
        e = gpuest_study_batch_create(&batch, &err);
        if (e != GPUEST_OK) {
            fclose(f);
            cli_table_free(&t);
            return cli_report(CMD, e, &err);
        }
        int points = 0, got;
        while ((got = batch_line(f, o.batch, ++lineno, line)) == 1) {
            if (batch_comment(line))
                continue;
            points++;
            char name[64];
            snprintf(name, sizeof name, "line%d", lineno);
            gpuest_config_t cfg;
            int r = batch_point(&o.cc.cfg, line, o.batch, lineno, &cfg);
            if (r != 0) {
                fclose(f);
                gpuest_study_batch_destroy(batch);
                cli_table_free(&t);
                return r;
            }
            gpuest_study_estimate_t est;
            double t0 = now_s();
            e = technique_transform(&o, &c, &cfg, &tr, &use, &err);
            if (e == GPUEST_OK)
                e = gpuest_study_estimate_in(batch, &c, &cfg, use, o.confidence, &est, &err);
            double us = (now_s() - t0) * 1e6;
            if (e != GPUEST_OK) {
                fclose(f);
                gpuest_study_batch_destroy(batch);
                cli_table_free(&t);
                return cli_report(CMD, e, &err);
            }
            add_row(&t, name, &est, us);
            extrap += est.extrapolated;
        }
        fclose(f);
        gpuest_study_batch_destroy(batch);
        if (got > 1) {
            cli_table_free(&t);
            return got - 2;
        }
        if (points == 0) { /* an empty file gave an empty table (and CSV) and exit status 0 */
            cli_table_free(&t);
            fprintf(stderr, "gpuest %s: error: %s:%d: no design point (expected one line a point; an empty line is "
                            "the machine as given)\n", CMD, o.batch, lineno > 1 ? lineno - 1 : 1);
            return 2;
        }
    }
    printf("estimate of %s on %s (calibration %s; %.0f %% intervals; latencies in core cycles)\n", c.workload,
           o.cc.cfg.name, path, 100 * o.confidence);
    if (c.anchor_ipc || c.anchor_amat)
        printf("anchored at the measured baseline (%s%s%s): the model's ratio to the calibrated machine times "
               "the baseline run's value\n",
               c.anchor_ipc ? "IPC" : "", c.anchor_ipc && c.anchor_amat ? " and " : "", c.anchor_amat ? "AMAT" : "");
    cli_table_print(&t, stdout);
    if (extrap && o.batch)
        printf("note: %d point(s) outside the calibrated range (column extrapolated)\n", extrap);
    rc = o.csv ? cli_table_write_csv(&t, o.csv, CMD) : 0;
    cli_table_free(&t);
    return rc;
}
