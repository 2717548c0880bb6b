/* fig_pairs.c: estimate-vs-simulate, an estimate with its interval against the detailed run of the same design. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure_int.h"

/* ------------------------------------------------------------ estimate-vs-simulate */
typedef struct {
    const gpuest_rdb_point_t *est, *sim;
} pair_t;

static int cmp_pair(const void *a, const void *b)
{
    const pair_t *p = a, *q = b;
    int c = strcmp(p->est->workload, q->est->workload);
    return c ? c : strcmp(p->est->design_hash, q->est->design_hash);
}

gpuest_err rep_fig_est_vs_sim(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                              gpuest_error_t *err)
{
    const char *stat = spec->stat ? spec->stat : "ipc";
    size_t np = gpuest_rdb_num_points(db), n = 0;
    pair_t *pairs = calloc(np + 1, sizeof *pairs);
    if (!pairs)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (size_t i = 0; i < np; i++) {
        const gpuest_rdb_point_t *e = gpuest_rdb_point(db, i);
        if (strcmp(e->mode, "estimate") != 0 || !gpuest_rdb_result(e, stat))
            continue;
        for (size_t j = 0; j < np; j++) {
            const gpuest_rdb_point_t *s = gpuest_rdb_point(db, j);
            if (strcmp(s->mode, "simulate") == 0 && strcmp(s->design_hash, e->design_hash) == 0 &&
                gpuest_rdb_result(s, stat)) {
                pairs[n++] = (pair_t){e, s};
                break;
            }
        }
    }
    if (n == 0) {
        free(pairs);
        return gpuest_fail(err, GPUEST_EINVAL,
                           "estimate-vs-simulate needs estimate and simulate points of the same design (design_hash) "
                           "with a '%s' result; the database has none",
                           stat);
    }
    qsort(pairs, n, sizeof *pairs, cmp_pair);
    rbuf_t data = {0}, script = {0};
    double top = 0, bottom = INFINITY, abs_err = 0;
    size_t inside = 0;
    rbuf_printf(&data,
                "# %s: estimate (with its interval) against the detailed simulation of the same design\n"
                "# simulate\testimate\tlo\thi\tworkload\tdesign_hash\n",
                stat);
    for (size_t i = 0; i < n; i++) {
        const gpuest_rdb_result_t *e = gpuest_rdb_result(pairs[i].est, stat),
                                  *s = gpuest_rdb_result(pairs[i].sim, stat);
        char a[32], b[32], lo[32], hi[32];
        rep_fmt6(a, sizeof a, s->value);
        rep_fmt6(b, sizeof b, e->value);
        rep_fmt6(lo, sizeof lo, e->lo);
        rep_fmt6(hi, sizeof hi, e->hi);
        rbuf_printf(&data, "%s\t%s\t%s\t%s\t%s\t%s\n", a, b, lo, hi, pairs[i].est->workload, pairs[i].est->design_hash);
        top = fmax(top, fmax(s->value, e->hi));
        bottom = fmin(bottom, fmin(s->value, e->lo));
        if (s->value != 0)
            abs_err += fabs(e->value - s->value) / fabs(s->value);
        inside += s->value >= e->lo && s->value <= e->hi;
    }
    snprintf(out->title, sizeof out->title,
             "%s: estimate against simulation (%zu designs, mean |error| %.1f %%, %zu inside the interval)", stat, n,
             100.0 * abs_err / (double)n, inside);
    char t[32], b[32];
    rep_fmt6(t, sizeof t, top > 0 ? top * 1.05 : 1.0);
    rbuf_puts(&script, "set size square\nset grid\nset key top left\n");
    if (bottom > 0 && top / bottom > 50) { /* choice: values over more than 50x read better on log axes */
        rep_fmt6(b, sizeof b, bottom / 1.2);
        rbuf_printf(&script, "set logscale xy\nset xrange [%s:%s]\nset yrange [%s:%s]\n", b, t, b, t);
    } else {
        rbuf_printf(&script, "set xrange [0:%s]\nset yrange [0:%s]\n", t, t);
    }
    rbuf_printf(&script, "set xlabel \"%s, detailed simulation\"\nset ylabel \"%s, estimate\"\nset title ", stat, stat);
    rep_gp_quote(&script, out->title);
    rbuf_puts(&script, "\nplot DATAFILE using 1:2:3:4 with yerrorbars pt 7 title \"estimate (interval)\", \\\n"
                       "     x with lines dashtype 2 title \"estimate = simulation\"\n");
    free(pairs);
    gpuest_err rc = rep_fig_finish(out, &data, &script, n, err);
    rbuf_free(&data);
    rbuf_free(&script);
    return rc;
}
