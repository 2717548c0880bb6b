/* figures.c: the data and gnuplot commands of each figure, computed from a results database.
 *
 * Numbers go to the data file with 6 significant digits ("%.6g"): enough for any
 * plot and short enough to check by hand. Rows and series are sorted (workloads,
 * techniques and series labels by name, x values ascending), so one database
 * always gives the same file. */
#include <stdlib.h>
#include <string.h>

#include "figure_int.h"

const char *const gpuest_figure_names[] = {"ipc-bars", "latency-injection", "estimate-vs-simulate", "stat-vs-key",
                                           NULL};

gpuest_err gpuest_figure_find(const char *name, gpuest_figure_kind_t *out, gpuest_error_t *err)
{
    for (int i = 0; gpuest_figure_names[i]; i++)
        if (strcmp(gpuest_figure_names[i], name) == 0) {
            *out = (gpuest_figure_kind_t)i;
            return GPUEST_OK;
        }
    return gpuest_fail(err, GPUEST_ENOKEY,
                       "unknown figure '%s' (figures: ipc-bars, latency-injection, estimate-vs-simulate, stat-vs-key)",
                       name);
}

void gpuest_figure_free(gpuest_figure_t *fig)
{
    free(fig->data);
    free(fig->script);
    memset(fig, 0, sizeof *fig);
}

/* ------------------------------------------------------------ small sorted string sets */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Index of s in the set, adding it (0 on allocation failure leaves *idx = -1). */
long rep_strset_add(rep_strset_t *s, const char *str)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], str) == 0)
            return (long)i;
    char **v = realloc(s->v, (s->n + 1) * sizeof *v);
    if (!v)
        return -1;
    s->v = v;
    if (!(v[s->n] = gpuest_strdup(str)))
        return -1;
    return (long)s->n++;
}

long rep_strset_find(const rep_strset_t *s, const char *str)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], str) == 0)
            return (long)i;
    return -1;
}

void rep_strset_sort(rep_strset_t *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, cmp_str);
}

void rep_strset_free(rep_strset_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

void rep_fmt6(char *buf, size_t cap, double v)
{
    snprintf(buf, cap, "%.6g", v);
}

/* A gnuplot double-quoted string. */
void rep_gp_quote(rbuf_t *b, const char *s)
{
    rbuf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            rbuf_puts(b, "\\");
        rbuf_printf(b, "%c", *s);
    }
    rbuf_puts(b, "\"");
}

gpuest_err rep_fig_finish(gpuest_figure_t *out, rbuf_t *data, rbuf_t *script, size_t rows, gpuest_error_t *err)
{
    out->data = rbuf_take(data);
    out->script = rbuf_take(script);
    out->rows = rows;
    if (!out->data || !out->script) {
        gpuest_figure_free(out);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    return GPUEST_OK;
}

gpuest_err gpuest_figure_build(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                               gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    switch (spec->kind) {
    case GPUEST_FIG_IPC_BARS:
        return rep_fig_ipc_bars(db, spec, out, err);
    case GPUEST_FIG_LATENCY_INJECTION:
        return rep_fig_latency_injection(db, out, err);
    case GPUEST_FIG_EST_VS_SIM:
        return rep_fig_est_vs_sim(db, spec, out, err);
    case GPUEST_FIG_STAT_VS_KEY:
        return rep_fig_stat_vs_key(db, spec, out, err);
    }
    return gpuest_fail(err, GPUEST_EINVAL, "unknown figure kind %d", (int)spec->kind);
}
