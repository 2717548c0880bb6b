/* fig_bars.c: ipc-bars, IPC normalized to technique none of the same design, per workload and technique. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure_int.h"

/* ------------------------------------------------------------ ipc-bars */
/* The point's design without its technique: a baseline (technique none) and a
 * technique point pair when everything else is equal. */
static void design_without_technique(const gpuest_rdb_point_t *p, rbuf_t *b)
{
    rbuf_printf(b, "%s|%s|%s|%lld|%s|", p->preset, p->workload, p->scale, (long long)p->seed, p->mode);
    for (const char *line = p->config; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, "technique.", 10) != 0)
            rbuf_printf(b, "%.*s;", (int)len, line);
        line += len + (nl ? 1 : 0);
    }
    for (size_t i = 0; i < p->num_keys; i++)
        if (strncmp(p->keys[i].key, "technique", 9) != 0)
            rbuf_printf(b, "%s=%s;", p->keys[i].key, p->keys[i].value);
}

/* Most detailed mode with the stat: simulate, then sample, then estimate. */
static const char *default_mode(const gpuest_rdb_t *db, const char *stat)
{
    static const char *const order[] = {"simulate", "sample", "estimate"};
    for (int m = 0; m < 3; m++)
        for (size_t i = 0; i < gpuest_rdb_num_points(db); i++) {
            const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
            if (strcmp(p->mode, order[m]) == 0 && gpuest_rdb_result(p, stat))
                return order[m];
        }
    return NULL;
}

typedef struct {
    double log_sum;
    int n;
    double only; /* the ratio itself when n == 1 (no exp(log()) rounding) */
} cell_t;

gpuest_err rep_fig_ipc_bars(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                            gpuest_error_t *err)
{
    const char *mode = spec->mode ? spec->mode : default_mode(db, "ipc");
    if (!mode)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "ipc-bars needs simulate, sample or estimate points with an ipc result; "
                           "the database has none");
    size_t np = gpuest_rdb_num_points(db);
    rep_strset_t base_sig = {0}, workloads = {0}, techs = {0};
    double *base_ipc = calloc(np + 1, sizeof *base_ipc);
    gpuest_err rc = base_ipc ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    rbuf_t sig = {0};
    /* pass 1: baselines by design; the workload and technique axes */
    for (size_t i = 0; rc == GPUEST_OK && i < np; i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        const gpuest_rdb_result_t *r = gpuest_rdb_result(p, "ipc");
        if (strcmp(p->mode, mode) != 0 || !r)
            continue;
        if (strcmp(p->technique, REP_BASELINE_TECHNIQUE) == 0) {
            sig.len = 0;
            design_without_technique(p, &sig);
            long k = sig.oom ? -1 : rep_strset_add(&base_sig, sig.s);
            if (k < 0)
                rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            else
                base_ipc[k] = r->value;
        } else if (rep_strset_add(&techs, p->technique) < 0 || rep_strset_add(&workloads, p->workload) < 0) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        }
    }
    rep_strset_sort(&workloads);
    rep_strset_sort(&techs);
    cell_t *cells = calloc(workloads.n * techs.n + 1, sizeof *cells);
    if (rc == GPUEST_OK && !cells)
        rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    /* pass 2: each technique point over its baseline */
    size_t matched = 0;
    for (size_t i = 0; rc == GPUEST_OK && i < np; i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        const gpuest_rdb_result_t *r = gpuest_rdb_result(p, "ipc");
        if (strcmp(p->mode, mode) != 0 || !r || strcmp(p->technique, REP_BASELINE_TECHNIQUE) == 0)
            continue;
        sig.len = 0;
        design_without_technique(p, &sig);
        long b = sig.oom ? -1 : rep_strset_find(&base_sig, sig.s);
        if (b < 0 || !(base_ipc[b] > 0))
            continue; /* no baseline of the same design */
        double ratio = r->value / base_ipc[b];
        cell_t *c =
            &cells[rep_strset_find(&workloads, p->workload) * (long)techs.n + rep_strset_find(&techs, p->technique)];
        c->log_sum += log(ratio);
        c->only = ratio;
        c->n++;
        matched++;
    }
    if (rc == GPUEST_OK && matched == 0)
        rc = gpuest_fail(err, GPUEST_EINVAL,
                         "ipc-bars needs %s points with an ipc result for a technique other than none and for "
                         "technique none of the same design; the database has none",
                         mode);
    rbuf_t data = {0}, script = {0};
    if (rc == GPUEST_OK) {
        rbuf_printf(&data,
                    "# IPC normalized to technique none of the same design (mode %s; geometric mean over "
                    "designs and seeds; ? = no pair)\n# workload",
                    mode);
        for (size_t t = 0; t < techs.n; t++)
            rbuf_printf(&data, "\t%s", techs.v[t]);
        rbuf_puts(&data, "\n");
        double *gsum = calloc(techs.n, sizeof *gsum);
        int *gn = calloc(techs.n, sizeof *gn);
        if (!gsum || !gn)
            data.oom = 1;
        for (size_t w = 0; w < workloads.n && !data.oom; w++) {
            rbuf_puts(&data, workloads.v[w]);
            for (size_t t = 0; t < techs.n; t++) {
                const cell_t *c = &cells[w * techs.n + t];
                char v[32] = "?";
                if (c->n) {
                    double g = c->n == 1 ? c->only : exp(c->log_sum / c->n);
                    rep_fmt6(v, sizeof v, g);
                    gsum[t] += log(g);
                    gn[t]++;
                }
                rbuf_printf(&data, "\t%s", v);
            }
            rbuf_puts(&data, "\n");
        }
        if (workloads.n > 1 && !data.oom) { /* the seeds' figures end with the geometric mean */
            rbuf_puts(&data, "GMEAN");
            for (size_t t = 0; t < techs.n; t++) {
                char v[32] = "?";
                if (gn[t])
                    rep_fmt6(v, sizeof v, exp(gsum[t] / gn[t]));
                rbuf_printf(&data, "\t%s", v);
            }
            rbuf_puts(&data, "\n");
        }
        free(gsum);
        free(gn);
        snprintf(out->title, sizeof out->title, "IPC normalized to technique none (%s)", mode);
        rbuf_puts(&script, "set style data histograms\nset style histogram clustered gap 1\n"
                           "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:*]\n"
                           "set grid ytics\nset key outside top center horizontal\n"
                           "set xtics rotate by -30 scale 0\nset ylabel \"IPC / IPC(technique none)\"\n"
                           "set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2\n");
        rbuf_puts(&script, "set title ");
        rep_gp_quote(&script, out->title);
        rbuf_puts(&script, "\nplot ");
        for (size_t t = 0; t < techs.n; t++) {
            rbuf_printf(&script, "%sDATAFILE using %zu%s title ", t ? ", \\\n     " : "", t + 2, t ? "" : ":xtic(1)");
            rep_gp_quote(&script, techs.v[t]);
        }
        rbuf_puts(&script, "\n");
        rc = rep_fig_finish(out, &data, &script, workloads.n + (workloads.n > 1), err);
    }
    rbuf_free(&data);
    rbuf_free(&script);
    rbuf_free(&sig);
    free(cells);
    free(base_ipc);
    rep_strset_free(&base_sig);
    rep_strset_free(&workloads);
    rep_strset_free(&techs);
    return rc;
}
