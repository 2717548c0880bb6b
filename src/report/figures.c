/* figures.c: the data and gnuplot commands of each figure, computed from a results database.
 *
 * Numbers go to the data file with 6 significant digits ("%.6g"): enough for any
 * plot and short enough to check by hand. Rows and series are sorted (workloads,
 * techniques and series labels by name, x values ascending), so one database
 * always gives the same file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

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
typedef struct {
    char **v;
    size_t n;
} strset_t;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Index of s in the set, adding it (0 on allocation failure leaves *idx = -1). */
static long strset_add(strset_t *s, const char *str)
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

static long strset_find(const strset_t *s, const char *str)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], str) == 0)
            return (long)i;
    return -1;
}

static void strset_sort(strset_t *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, cmp_str);
}

static void strset_free(strset_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static void fmt6(char *buf, size_t cap, double v)
{
    snprintf(buf, cap, "%.6g", v);
}

/* A gnuplot double-quoted string. */
static void gp_quote(rbuf_t *b, const char *s)
{
    rbuf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            rbuf_puts(b, "\\");
        rbuf_printf(b, "%c", *s);
    }
    rbuf_puts(b, "\"");
}

static gpuest_err finish(gpuest_figure_t *out, rbuf_t *data, rbuf_t *script, size_t rows, gpuest_error_t *err)
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

static gpuest_err build_ipc_bars(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                                 gpuest_error_t *err)
{
    const char *mode = spec->mode ? spec->mode : default_mode(db, "ipc");
    if (!mode)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "ipc-bars needs simulate, sample or estimate points with an ipc result; "
                           "the database has none");
    size_t np = gpuest_rdb_num_points(db);
    strset_t base_sig = {0}, workloads = {0}, techs = {0};
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
            long k = sig.oom ? -1 : strset_add(&base_sig, sig.s);
            if (k < 0)
                rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            else
                base_ipc[k] = r->value;
        } else if (strset_add(&techs, p->technique) < 0 || strset_add(&workloads, p->workload) < 0) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        }
    }
    strset_sort(&workloads);
    strset_sort(&techs);
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
        long b = sig.oom ? -1 : strset_find(&base_sig, sig.s);
        if (b < 0 || !(base_ipc[b] > 0))
            continue; /* no baseline of the same design */
        double ratio = r->value / base_ipc[b];
        cell_t *c = &cells[strset_find(&workloads, p->workload) * (long)techs.n + strset_find(&techs, p->technique)];
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
                    fmt6(v, sizeof v, g);
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
                    fmt6(v, sizeof v, exp(gsum[t] / gn[t]));
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
        gp_quote(&script, out->title);
        rbuf_puts(&script, "\nplot ");
        for (size_t t = 0; t < techs.n; t++) {
            rbuf_printf(&script, "%sDATAFILE using %zu%s title ", t ? ", \\\n     " : "", t + 2, t ? "" : ":xtic(1)");
            gp_quote(&script, techs.v[t]);
        }
        rbuf_puts(&script, "\n");
        rc = finish(out, &data, &script, workloads.n + (workloads.n > 1), err);
    }
    rbuf_free(&data);
    rbuf_free(&script);
    rbuf_free(&sig);
    free(cells);
    free(base_ipc);
    strset_free(&base_sig);
    strset_free(&workloads);
    strset_free(&techs);
    return rc;
}

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
                               int with_keys, strset_t *series, gpuest_error_t *err)
{
    rbuf_t label = {0};
    gpuest_err rc = GPUEST_OK;
    for (size_t i = 0; rc == GPUEST_OK && i < n; i++) {
        label.len = 0;
        series_label(gpuest_rdb_point(db, (size_t)pts[i].point), xkey, with_mode, with_keys, &label);
        long s = label.oom ? -1 : strset_add(series, label.s);
        if (s < 0)
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        pts[i].series = s;
    }
    rbuf_free(&label);
    return rc;
}

/* Writes the sorted points as one data block per series (gnuplot "index"). */
static void write_blocks(rbuf_t *data, rbuf_t *script, xy_t *pts, size_t n, const strset_t *series, const char *columns,
                         int categorical, int with_y2, const char *style)
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
            gp_quote(script, series->v[cur]);
        }
        char x[32], y[32], y2[32] = "?";
        fmt6(x, sizeof x, pts[i].x);
        fmt6(y, sizeof y, pts[i].y);
        if (!isnan(pts[i].y2))
            fmt6(y2, sizeof y2, pts[i].y2);
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

static gpuest_err build_latency_injection(const gpuest_rdb_t *db, gpuest_figure_t *out, gpuest_error_t *err)
{
    size_t np = gpuest_rdb_num_points(db), n = 0;
    xy_t *pts = calloc(np + 1, sizeof *pts);
    strset_t series = {0};
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
        long s = label.oom ? -1 : strset_add(&series, label.s);
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
        strset_t sorted = {0};
        for (size_t i = 0; i < series.n; i++)
            strset_add(&sorted, series.v[i]);
        strset_sort(&sorted);
        for (size_t i = 0; i < n; i++)
            pts[i].series = strset_find(&sorted, series.v[pts[i].series]);
        snprintf(out->title, sizeof out->title, "Average packet latency against injection rate");
        rbuf_puts(&data, "# latency (cycles) and accepted rate (flits/node/cycle) against offered injection rate\n");
        rbuf_puts(&script, "set xlabel \"injection rate (flits/node/cycle)\"\n"
                           "set ylabel \"average packet latency (cycles)\"\nset grid\nset key top left\n"
                           "set yrange [0:*]\n");
        rbuf_puts(&script, "set title ");
        gp_quote(&script, out->title);
        rbuf_puts(&script, "\n");
        write_blocks(&data, &script, pts, n, &sorted, "injection_rate\tlatency\taccepted", 0, 1, "linespoints pt 7");
        strset_free(&sorted);
        rc = finish(out, &data, &script, n, err);
    }
    rbuf_free(&label);
    rbuf_free(&data);
    rbuf_free(&script);
    strset_free(&series);
    free(pts);
    return rc;
}

static gpuest_err build_stat_vs_key(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                                    gpuest_error_t *err)
{
    if (!spec->stat || !spec->key)
        return gpuest_fail(err, GPUEST_EINVAL, "stat-vs-key needs a statistic and a key (--stat S --key K)");
    size_t np = gpuest_rdb_num_points(db), n = 0;
    xy_t *pts = calloc(np + 1, sizeof *pts);
    char **xtext = calloc(np + 1, sizeof *xtext);
    strset_t series = {0}, cats = {0};
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
        if (!(xtext[n] = gpuest_strdup(xv)) || strset_add(&cats, xv) < 0) {
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
        strset_t plain = {0};
        rc = label_points(db, pts, n, spec->key, modes_differ, 0, &plain, err);
        scatter = rc == GPUEST_OK && plain.n < series.n && (series.n > 10 || 2 * series.n > n);
        strset_free(&plain);
        if (rc == GPUEST_OK && scatter) {
            strset_free(&series);
            rc = label_points(db, pts, n, spec->key, modes_differ, 0, &series, err);
        } else if (rc == GPUEST_OK) {
            rc = label_points(db, pts, n, spec->key, modes_differ, 1, &series, err); /* back to the keyed series */
        }
    }
    if (rc == GPUEST_OK) {
        strset_sort(&cats);
        strset_t sorted = {0};
        for (size_t i = 0; i < series.n; i++)
            strset_add(&sorted, series.v[i]);
        strset_sort(&sorted);
        for (size_t i = 0; i < n; i++) {
            pts[i].series = strset_find(&sorted, series.v[pts[i].series]);
            if (categorical) { /* text values: positions 0, 1, ... in name order */
                pts[i].x = (double)strset_find(&cats, xtext[i]);
                pts[i].xlabel = cats.v[(size_t)pts[i].x];
            }
        }
        snprintf(out->title, sizeof out->title, "%s against %s", spec->stat, spec->key);
        rbuf_printf(&data, "# %s against %s%s\n", spec->stat, spec->key,
                    categorical ? " (text values at 0, 1, ... in name order)" : "");
        rbuf_puts(&script, "set grid\nset key outside bottom center\nset xlabel ");
        gp_quote(&script, spec->key);
        rbuf_puts(&script, "\nset ylabel ");
        gp_quote(&script, spec->stat);
        rbuf_puts(&script, "\nset title ");
        gp_quote(&script, out->title);
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
        strset_free(&sorted);
        rc = finish(out, &data, &script, n, err);
    }
    for (size_t i = 0; i < np; i++)
        free(xtext ? xtext[i] : NULL);
    free(xtext);
    rbuf_free(&data);
    rbuf_free(&script);
    strset_free(&series);
    strset_free(&cats);
    free(pts);
    return rc;
}

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

static gpuest_err build_est_vs_sim(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
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
        fmt6(a, sizeof a, s->value);
        fmt6(b, sizeof b, e->value);
        fmt6(lo, sizeof lo, e->lo);
        fmt6(hi, sizeof hi, e->hi);
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
    fmt6(t, sizeof t, top > 0 ? top * 1.05 : 1.0);
    rbuf_puts(&script, "set size square\nset grid\nset key top left\n");
    if (bottom > 0 && top / bottom > 50) { /* choice: values over more than 50x read better on log axes */
        fmt6(b, sizeof b, bottom / 1.2);
        rbuf_printf(&script, "set logscale xy\nset xrange [%s:%s]\nset yrange [%s:%s]\n", b, t, b, t);
    } else {
        rbuf_printf(&script, "set xrange [0:%s]\nset yrange [0:%s]\n", t, t);
    }
    rbuf_printf(&script, "set xlabel \"%s, detailed simulation\"\nset ylabel \"%s, estimate\"\nset title ", stat, stat);
    gp_quote(&script, out->title);
    rbuf_puts(&script, "\nplot DATAFILE using 1:2:3:4 with yerrorbars pt 7 title \"estimate (interval)\", \\\n"
                       "     x with lines dashtype 2 title \"estimate = simulation\"\n");
    free(pairs);
    gpuest_err rc = finish(out, &data, &script, n, err);
    rbuf_free(&data);
    rbuf_free(&script);
    return rc;
}

gpuest_err gpuest_figure_build(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                               gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    switch (spec->kind) {
    case GPUEST_FIG_IPC_BARS:
        return build_ipc_bars(db, spec, out, err);
    case GPUEST_FIG_LATENCY_INJECTION:
        return build_latency_injection(db, out, err);
    case GPUEST_FIG_EST_VS_SIM:
        return build_est_vs_sim(db, spec, out, err);
    case GPUEST_FIG_STAT_VS_KEY:
        return build_stat_vs_key(db, spec, out, err);
    }
    return gpuest_fail(err, GPUEST_EINVAL, "unknown figure kind %d", (int)spec->kind);
}
