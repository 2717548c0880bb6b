/* fig_series.c: the line figures: latency against injection rate, and any statistic against any key. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure_int.h"

/* ------------------------------------------------------------ series figures */
typedef struct {
    double x;
    double y;
    double y2; /* second column (accepted rate) or NAN */
    long series;
    long point;         /* index of the point in the database */
    const char *xlabel; /* categorical x: the value's text */
} xy_t;

static int cmp_xy(const void *a, const void *b)
{
    const xy_t *p = a, *q = b;
    if (p->series != q->series)
        return p->series < q->series ? -1 : 1;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y) /* same x (a scatter): by value, then by point, so the file never depends on qsort */
        return p->y < q->y ? -1 : 1;
    return (p->point > q->point) - (p->point < q->point);
}

/* Label of a point's series: everything that tells it apart except the x key (the other
 * swept keys only when with_keys). */
static void series_label(const gpuest_rdb_point_t *p, const char *xkey, int with_mode, int with_keys, rbuf_t *b)
{
    if (with_mode)
        rbuf_printf(b, "%s ", p->mode);
    rbuf_printf(b, "%s", p->preset);
    if (p->workload[0])
        rbuf_printf(b, " %s", p->workload);
    if (p->technique[0] && strcmp(p->technique, REP_BASELINE_TECHNIQUE) != 0 && strncmp(xkey, "technique.", 10) != 0)
        rbuf_printf(b, " %s", p->technique); /* unless the technique is the x axis */
    for (size_t i = 0; with_keys && i < p->num_keys; i++)
        if (strcmp(p->keys[i].key, xkey) != 0)
            rbuf_printf(b, " %s=%s", p->keys[i].key, p->keys[i].value);
}

/* Puts each point in its series (labels collected in series); the count of series. */
static gpuest_err label_points(const gpuest_rdb_t *db, xy_t *pts, size_t n, const char *xkey, int with_mode,
                               int with_keys, rep_strset_t *series, gpuest_error_t *err)
{
    rbuf_t label = {0};
    gpuest_err rc = GPUEST_OK;
    for (size_t i = 0; rc == GPUEST_OK && i < n; i++) {
        label.len = 0;
        series_label(gpuest_rdb_point(db, (size_t)pts[i].point), xkey, with_mode, with_keys, &label);
        long s = label.oom ? -1 : rep_strset_add(series, label.s);
        if (s < 0)
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        pts[i].series = s;
    }
    rbuf_free(&label);
    return rc;
}

/* Writes the sorted points as one data block per series (gnuplot "index"). */
static void write_blocks(rbuf_t *data, rbuf_t *script, xy_t *pts, size_t n, const rep_strset_t *series,
                         const char *columns, int categorical, int with_y2, const char *style)
{
    qsort(pts, n, sizeof *pts, cmp_xy);
    long cur = -1, block = -1;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].series != cur) {
            cur = pts[i].series;
            block++;
            rbuf_printf(data, "%s# series %ld: %s\n# %s\n", block ? "\n\n" : "", block, series->v[cur], columns);
            rbuf_printf(script, "%sDATAFILE index %ld using 1:2%s with %s title ", block ? ", \\\n     " : "plot ",
                        block, categorical ? ":xtic(3)" : "", style);
            rep_gp_quote(script, series->v[cur]);
        }
        char x[32], y[32], y2[32] = "?";
        rep_fmt6(x, sizeof x, pts[i].x);
        rep_fmt6(y, sizeof y, pts[i].y);
        if (!isnan(pts[i].y2))
            rep_fmt6(y2, sizeof y2, pts[i].y2);
        if (categorical)
            rbuf_printf(data, "%s\t%s\t%s\n", x, y, pts[i].xlabel);
        else if (with_y2)
            rbuf_printf(data, "%s\t%s\t%s\n", x, y, y2);
        else
            rbuf_printf(data, "%s\t%s\n", x, y);
    }
    rbuf_puts(script, "\n");
}

int rep_is_rate_key(const char *key)
{
    size_t n = strlen(key);
    return strcmp(key, "traffic.rate") == 0 || (n >= 14 && strcmp(key + n - 14, "injection_rate") == 0);
}

/* The swept key of a noc point that holds its injection rate. */
static const char *rate_key(const gpuest_rdb_point_t *p)
{
    for (size_t i = 0; i < p->num_keys; i++)
        if (rep_is_rate_key(p->keys[i].key))
            return p->keys[i].key;
    return NULL;
}

gpuest_err rep_fig_latency_injection(const gpuest_rdb_t *db, gpuest_figure_t *out, gpuest_error_t *err)
{
    size_t np = gpuest_rdb_num_points(db), n = 0;
    xy_t *pts = calloc(np + 1, sizeof *pts);
    rep_strset_t series = {0};
    rbuf_t label = {0}, data = {0}, script = {0};
    gpuest_err rc = pts ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (size_t i = 0; rc == GPUEST_OK && i < np; i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        const gpuest_rdb_result_t *lat = gpuest_rdb_result(p, "latency"), *acc = gpuest_rdb_result(p, "accepted");
        const char *rk = rate_key(p);
        double x;
        if (strcmp(p->mode, "noc") != 0 || !lat || !rk)
            continue;
        char buf[64];
        if (gpuest_parse_double(gpuest_rdb_key_value(p, rk, buf, sizeof buf), &x) != GPUEST_OK)
            continue;
        label.len = 0;
        series_label(p, rk, 0, 1, &label);
        long s = label.oom ? -1 : rep_strset_add(&series, label.s);
        if (s < 0) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            break;
        }
        pts[n++] = (xy_t){.x = x, .y = lat->value, .y2 = acc ? acc->value : NAN, .series = s};
    }
    if (rc == GPUEST_OK && n == 0)
        rc = gpuest_fail(err, GPUEST_EINVAL,
                         "latency-injection needs noc points with a swept rate (traffic.rate) and a latency result; "
                         "the database has none");
    if (rc == GPUEST_OK) {
        /* series numbered in label order */
        rep_strset_t sorted = {0};
        for (size_t i = 0; i < series.n; i++)
            rep_strset_add(&sorted, series.v[i]);
        rep_strset_sort(&sorted);
        for (size_t i = 0; i < n; i++)
            pts[i].series = rep_strset_find(&sorted, series.v[pts[i].series]);
        snprintf(out->title, sizeof out->title, "Average packet latency against injection rate");
        rbuf_puts(&data, "# latency (cycles) and accepted rate (flits/node/cycle) against offered injection rate\n");
        rbuf_puts(&script, "set xlabel \"injection rate (flits/node/cycle)\"\n"
                           "set ylabel \"average packet latency (cycles)\"\nset grid\nset key top left\n"
                           "set yrange [0:*]\n");
        rbuf_puts(&script, "set title ");
        rep_gp_quote(&script, out->title);
        rbuf_puts(&script, "\n");
        write_blocks(&data, &script, pts, n, &sorted, "injection_rate\tlatency\taccepted", 0, 1, "linespoints pt 7");
        rep_strset_free(&sorted);
        rc = rep_fig_finish(out, &data, &script, n, err);
    }
    rbuf_free(&label);
    rbuf_free(&data);
    rbuf_free(&script);
    rep_strset_free(&series);
    free(pts);
    return rc;
}

gpuest_err rep_fig_stat_vs_key(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                               gpuest_error_t *err)
{
    if (!spec->stat || !spec->key)
        return gpuest_fail(err, GPUEST_EINVAL, "stat-vs-key needs a statistic and a key (--stat S --key K)");
    size_t np = gpuest_rdb_num_points(db), n = 0;
    xy_t *pts = calloc(np + 1, sizeof *pts);
    char **xtext = calloc(np + 1, sizeof *xtext);
    rep_strset_t series = {0}, cats = {0};
    rbuf_t data = {0}, script = {0};
    gpuest_err rc = pts && xtext ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    int categorical = 0, modes_differ = 0;
    const char *first_mode = NULL;
    for (size_t i = 0; rc == GPUEST_OK && i < np; i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        const gpuest_rdb_result_t *r = gpuest_rdb_result(p, spec->stat);
        char buf[256];
        const char *xv = gpuest_rdb_key_value(p, spec->key, buf, sizeof buf);
        if (!r || !xv || (spec->mode && strcmp(p->mode, spec->mode) != 0))
            continue;
        if (first_mode && strcmp(first_mode, p->mode) != 0)
            modes_differ = 1;
        first_mode = first_mode ? first_mode : p->mode;
        if (gpuest_parse_double(xv, &pts[n].x) != GPUEST_OK)
            categorical = 1;
        if (!(xtext[n] = gpuest_strdup(xv)) || rep_strset_add(&cats, xv) < 0) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            break;
        }
        pts[n].y = r->value;
        pts[n].y2 = NAN;
        pts[n].point = (long)i; /* labelled below */
        n++;
    }
    if (rc == GPUEST_OK && n == 0)
        rc = gpuest_fail(err, GPUEST_EINVAL,
                         "stat-vs-key: no point has both the statistic '%s' and the key '%s'%s%s (swept keys are in "
                         "point_keys; any resolved configuration key works too)",
                         spec->stat, spec->key, spec->mode ? " in mode " : "", spec->mode ? spec->mode : "");
    /* One line per combination of the other swept keys draws a grid sweep well; a random or
     * quasi-random design (every point its own combination) would give one legend entry per
     * point. choice: then the other keys leave the label and the points are drawn as a scatter
     * per workload and technique, when that merges series and the keyed lines would be more than
     * 10 or mostly single points. */
    int scatter = 0;
    if (rc == GPUEST_OK)
        rc = label_points(db, pts, n, spec->key, modes_differ, 1, &series, err);
    if (rc == GPUEST_OK) {
        rep_strset_t plain = {0};
        rc = label_points(db, pts, n, spec->key, modes_differ, 0, &plain, err);
        scatter = rc == GPUEST_OK && plain.n < series.n && (series.n > 10 || 2 * series.n > n);
        rep_strset_free(&plain);
        if (rc == GPUEST_OK && scatter) {
            rep_strset_free(&series);
            rc = label_points(db, pts, n, spec->key, modes_differ, 0, &series, err);
        } else if (rc == GPUEST_OK) {
            rc = label_points(db, pts, n, spec->key, modes_differ, 1, &series, err); /* back to the keyed series */
        }
    }
    if (rc == GPUEST_OK) {
        rep_strset_sort(&cats);
        rep_strset_t sorted = {0};
        for (size_t i = 0; i < series.n; i++)
            rep_strset_add(&sorted, series.v[i]);
        rep_strset_sort(&sorted);
        for (size_t i = 0; i < n; i++) {
            pts[i].series = rep_strset_find(&sorted, series.v[pts[i].series]);
            if (categorical) { /* text values: positions 0, 1, ... in name order */
                pts[i].x = (double)rep_strset_find(&cats, xtext[i]);
                pts[i].xlabel = cats.v[(size_t)pts[i].x];
            }
        }
        snprintf(out->title, sizeof out->title, "%s against %s", spec->stat, spec->key);
        rbuf_printf(&data, "# %s against %s%s\n", spec->stat, spec->key,
                    categorical ? " (text values at 0, 1, ... in name order)" : "");
        rbuf_puts(&script, "set grid\nset key outside bottom center\nset xlabel ");
        rep_gp_quote(&script, spec->key);
        rbuf_puts(&script, "\nset ylabel ");
        rep_gp_quote(&script, spec->stat);
        rbuf_puts(&script, "\nset title ");
        rep_gp_quote(&script, out->title);
        rbuf_puts(&script, "\n");
        if (categorical)
            rbuf_printf(&script, "set xrange [-0.5:%zu.5]\n", cats.n - 1);
        char columns[600];
        snprintf(columns, sizeof columns, "%s %s%s", spec->key, spec->stat, categorical ? " label" : "");
        for (char *c = columns; *c; c++)
            if (*c == ' ')
                *c = '\t';
        write_blocks(&data, &script, pts, n, &sorted, columns, categorical, 0,
                     scatter ? "points pt 7 ps 0.7" : "linespoints pt 7");
        rep_strset_free(&sorted);
        rc = rep_fig_finish(out, &data, &script, n, err);
    }
    for (size_t i = 0; i < np; i++)
        free(xtext ? xtext[i] : NULL);
    free(xtext);
    rbuf_free(&data);
    rbuf_free(&script);
    rep_strset_free(&series);
    rep_strset_free(&cats);
    free(pts);
    return rc;
}
