/* collect.c: error datasets: run every application exact and at each level, write/read the CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approx_int.h"

const char *const gpuest_approx_csv_header[GPUEST_APPROX_CSV_COLUMNS] = {
    "dataset", "seed", "size", "cond_target", "log10_cond", "constraint", "metric", "error", "bits"};

void gpuest_approx_collect_defaults(gpuest_approx_app_t app, gpuest_approx_collect_opts_t *o)
{
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    memset(o, 0, sizeof *o);
    o->datasets = in->default_datasets;
    o->seed = 1;
    o->size_min = in->collect_size_min;
    o->size_max = in->collect_size_max;
    o->cond_min = GPUEST_APPROX_COLLECT_COND_MIN;
    o->cond_max = GPUEST_APPROX_COLLECT_COND_MAX;
    o->constraint_min = in->collect_constraint_min;
    o->constraint_max = in->collect_constraint_max;
}

/* Factors of dataset i: drawn from a stream of its own, so a dataset does not depend on
 * how many came before it. */
static gpuest_err draw_dataset(gpuest_approx_app_t app, const gpuest_approx_collect_opts_t *o, uint32_t i,
                               gpuest_approx_params_t *p, uint64_t *seed)
{
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    gpuest_rng_t *master = NULL, *rng = NULL;
    GPUEST_TRY(gpuest_rng_create(o->seed, &master));
    gpuest_err rc = gpuest_rng_fork(master, 1000003u * (uint64_t)i + (uint64_t)app, &rng);
    gpuest_rng_destroy(master);
    if (rc != GPUEST_OK)
        return rc;
    double lmin = log((double)o->size_min), lmax = log((double)o->size_max);
    p->size = (long)llround(exp(lmin + (lmax - lmin) * gpuest_rng_uniform(rng)));
    p->size = p->size < o->size_min ? o->size_min : (p->size > o->size_max ? o->size_max : p->size);
    double u = gpuest_rng_uniform(rng);
    p->log10_cond = in->uses_cond ? o->cond_min + (o->cond_max - o->cond_min) * u : 0.0;
    uint64_t span = (uint64_t)(o->constraint_max - o->constraint_min + 1);
    long k = o->constraint_min + (long)gpuest_rng_below(rng, span ? span : 1);
    p->constraint = in->uses_constraint ? k : 0;
    *seed = gpuest_rng_u64(rng);
    gpuest_rng_destroy(rng);
    return GPUEST_OK;
}

static gpuest_err write_record(gpuest_csv_writer_t *w, const gpuest_approx_record_t *r, gpuest_error_t *err)
{
    char f[GPUEST_APPROX_CSV_COLUMNS][40];
    snprintf(f[0], sizeof f[0], "%u", (unsigned)r->dataset);
    snprintf(f[1], sizeof f[1], "%llu", (unsigned long long)r->seed);
    snprintf(f[2], sizeof f[2], "%ld", r->size);
    gpuest_fmt_double(f[3], sizeof f[3], r->cond_target);
    gpuest_fmt_double(f[4], sizeof f[4], r->log10_cond);
    snprintf(f[5], sizeof f[5], "%ld", r->constraint);
    snprintf(f[6], sizeof f[6], "%s", r->metric);
    gpuest_fmt_double(f[7], sizeof f[7], r->error);
    snprintf(f[8], sizeof f[8], "%d", r->bits);
    const char *fields[GPUEST_APPROX_CSV_COLUMNS];
    for (int i = 0; i < GPUEST_APPROX_CSV_COLUMNS; i++)
        fields[i] = f[i];
    return gpuest_csv_write_row(w, fields, err);
}

static gpuest_err collect_one(gpuest_approx_app_t app, const gpuest_approx_collect_opts_t *o, uint32_t i,
                              gpuest_csv_writer_t *w, gpuest_error_t *err)
{
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    gpuest_approx_params_t p;
    gpuest_approx_record_t r;
    memset(&r, 0, sizeof r);
    GPUEST_TRY(draw_dataset(app, o, i, &p, &r.seed));
    gpuest_approx_dataset_t *ds = NULL;
    GPUEST_TRY(gpuest_approx_dataset_create(app, &p, r.seed, &ds, err));
    r.dataset = i;
    r.size = p.size;
    r.cond_target = p.log10_cond;
    r.log10_cond = gpuest_approx_dataset_log10_cond(ds);
    r.constraint = p.constraint;
    gpuest_err rc = GPUEST_OK;
    for (int l = 0; l < GPUEST_APPROX_NLEVELS && rc == GPUEST_OK; l++) {
        double e[2];
        rc = gpuest_approx_measure(ds, gpuest_approx_levels[l], e, err);
        r.bits = gpuest_approx_levels[l];
        for (int m = 0; m < 2 && rc == GPUEST_OK; m++) {
            const char *name = m == 0 ? in->metric : in->metric2;
            if (!name)
                continue;
            snprintf(r.metric, sizeof r.metric, "%s", name);
            r.error = e[m];
            rc = write_record(w, &r, err);
        }
    }
    gpuest_approx_dataset_destroy(ds);
    return rc;
}

static gpuest_err check_opts(gpuest_approx_app_t app, const gpuest_approx_collect_opts_t *o, gpuest_error_t *err)
{
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    if (o->datasets < 1)
        return gpuest_fail(err, GPUEST_ERANGE, "datasets must be at least 1, got %d", o->datasets);
    if (o->size_min < in->size_min || o->size_max > in->size_max || o->size_min > o->size_max)
        return gpuest_fail(err, GPUEST_ERANGE, "%s: size range [%ld, %ld] must lie within [%ld, %ld]", in->name,
                           o->size_min, o->size_max, in->size_min, in->size_max);
    if (in->uses_constraint &&
        (o->constraint_min < in->constraint_min || o->constraint_max > in->constraint_max ||
         o->constraint_min > o->constraint_max || o->constraint_max > o->size_min))
        return gpuest_fail(err, GPUEST_ERANGE, "%s: constraint range [%ld, %ld] must lie within [%ld, %ld] and not "
                           "exceed the smallest size", in->name, o->constraint_min, o->constraint_max,
                           in->constraint_min, in->constraint_max);
    if (in->uses_cond && !(o->cond_min >= GPUEST_APPROX_COND_MIN && o->cond_max <= GPUEST_APPROX_COND_MAX &&
                           o->cond_min <= o->cond_max))
        return gpuest_fail(err, GPUEST_ERANGE, "%s: condition range [%g, %g] must lie within [%g, %g]", in->name,
                           o->cond_min, o->cond_max, GPUEST_APPROX_COND_MIN, GPUEST_APPROX_COND_MAX);
    return GPUEST_OK;
}

gpuest_err gpuest_approx_collect(gpuest_approx_app_t app, const gpuest_approx_collect_opts_t *opts, const char *path,
                                 gpuest_progress_t *progress, gpuest_error_t *err)
{
    if ((unsigned)app >= GPUEST_APPROX_NAPPS || !opts || !path)
        return gpuest_fail(err, GPUEST_EINVAL, "invalid arguments to collect");
    GPUEST_TRY(check_opts(app, opts, err));
    gpuest_csv_writer_t w;
    GPUEST_TRY(gpuest_csv_writer_open(&w, path, gpuest_approx_csv_header, GPUEST_APPROX_CSV_COLUMNS, err));
    gpuest_err rc = GPUEST_OK;
    for (int i = 0; i < opts->datasets && rc == GPUEST_OK; i++) {
        rc = collect_one(app, opts, (uint32_t)i, &w, err);
        gpuest_progress_update(progress, (uint64_t)i + 1);
    }
    if (rc == GPUEST_OK)
        return gpuest_csv_writer_commit(&w, err);
    gpuest_csv_writer_abort(&w);
    return rc;
}

/* ------------------------------------------------------------ reading */

typedef struct {
    const char *path;
    gpuest_approx_record_t *rows;
    size_t n, cap;
} read_ctx;

static gpuest_err bad_field(gpuest_error_t *err, const char *path, size_t line, const char *col, const char *val,
                            const char *want)
{
    return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: column '%s' = '%s': expected %s", path, line, col, val, want);
}

static gpuest_err on_row(void *p, size_t line, const char *const *f, size_t nf, gpuest_error_t *err)
{
    read_ctx *c = p;
    if (nf != GPUEST_APPROX_CSV_COLUMNS)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected %d columns, found %zu", c->path, line,
                           GPUEST_APPROX_CSV_COLUMNS, nf);
    if (line == 1 || (c->n == 0 && strcmp(f[0], "dataset") == 0)) {
        for (int i = 0; i < GPUEST_APPROX_CSV_COLUMNS; i++)
            if (strcmp(f[i], gpuest_approx_csv_header[i]) != 0)
                return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: header column %d is '%s', expected '%s'", c->path,
                                   line, i + 1, f[i], gpuest_approx_csv_header[i]);
        return GPUEST_OK;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        gpuest_approx_record_t *g = realloc(c->rows, cap * sizeof *g);
        if (!g)
            return gpuest_fail(err, GPUEST_ENOMEM, "%s: out of memory", c->path);
        c->rows = g;
        c->cap = cap;
    }
    gpuest_approx_record_t *r = &c->rows[c->n];
    memset(r, 0, sizeof *r);
    uint64_t u;
    int64_t v;
    if (gpuest_parse_u64(f[0], &u) != GPUEST_OK || u > UINT32_MAX)
        return bad_field(err, c->path, line, "dataset", f[0], "a dataset index");
    r->dataset = (uint32_t)u;
    if (gpuest_parse_u64(f[1], &r->seed) != GPUEST_OK)
        return bad_field(err, c->path, line, "seed", f[1], "an unsigned integer");
    if (gpuest_parse_i64(f[2], &v) != GPUEST_OK || v < 1)
        return bad_field(err, c->path, line, "size", f[2], "a positive integer");
    r->size = (long)v;
    if (gpuest_parse_double(f[3], &r->cond_target) != GPUEST_OK)
        return bad_field(err, c->path, line, "cond_target", f[3], "a number");
    if (gpuest_parse_double(f[4], &r->log10_cond) != GPUEST_OK)
        return bad_field(err, c->path, line, "log10_cond", f[4], "a number");
    if (gpuest_parse_i64(f[5], &v) != GPUEST_OK || v < 0)
        return bad_field(err, c->path, line, "constraint", f[5], "a non-negative integer");
    r->constraint = (long)v;
    if (strlen(f[6]) == 0 || strlen(f[6]) >= sizeof r->metric)
        return bad_field(err, c->path, line, "metric", f[6], "a metric name");
    snprintf(r->metric, sizeof r->metric, "%s", f[6]);
    if (gpuest_parse_double(f[7], &r->error) != GPUEST_OK || !(r->error >= 0.0 && r->error <= 1.0))
        return bad_field(err, c->path, line, "error", f[7], "a number in [0, 1]");
    if (gpuest_parse_i64(f[8], &v) != GPUEST_OK || v < 0 || v > 23)
        return bad_field(err, c->path, line, "bits", f[8], "an integer in [0, 23]");
    r->bits = (int)v;
    c->n++;
    return GPUEST_OK;
}

gpuest_err gpuest_approx_read_csv(const char *path, gpuest_approx_record_t **records, size_t *count,
                                  gpuest_error_t *err)
{
    read_ctx c = {.path = path};
    *records = NULL;
    *count = 0;
    gpuest_err rc = gpuest_csv_read(path, on_row, &c, err);
    if (rc != GPUEST_OK) {
        free(c.rows);
        return rc;
    }
    if (c.n == 0) {
        free(c.rows);
        return gpuest_fail(err, GPUEST_EPARSE, "%s: no data rows", path);
    }
    *records = c.rows;
    *count = c.n;
    return GPUEST_OK;
}
