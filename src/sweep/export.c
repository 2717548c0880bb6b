/* export.c: a sweep database as one wide table, a row per point: its identity, status, the swept
 * keys and every statistic (value, and lo / hi where the mode gives intervals). --where filters
 * on any of these columns (SQL, e.g. "workload = 'bfs' AND \"noc.vcs\" >= 4 AND ipc > 1"). */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

typedef struct {
    char **items;
    int n;
} names_t;

static void names_free(names_t *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
}

static gpuest_err names_query(sqlite3 *db, const char *sql, names_t *out, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    memset(out, 0, sizeof *out);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return gpuest_fail(err, GPUEST_EIO, "%s", sqlite3_errmsg(db));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char **grown = realloc(out->items, (size_t)(out->n + 1) * sizeof *grown);
        if (!grown) {
            sqlite3_finalize(st);
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        }
        out->items = grown;
        out->items[out->n++] = gpuest_strdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? GPUEST_OK : gpuest_fail(err, GPUEST_EIO, "%s", sqlite3_errmsg(db));
}

/* SQL text grown with appendf. */
typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} sqlbuf;

/* sqlite3_vmprintf formats (%Q, %w), which the compiler's printf check does not know. */
static void appendf(sqlbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *piece = sqlite3_vmprintf(fmt, ap); /* %w / %q quote identifiers and strings */
    va_end(ap);
    size_t n = piece ? strlen(piece) : 0;
    if (!piece || (b->len + n + 1 > b->cap && !(b->s = realloc(b->s, b->cap = 2 * (b->len + n + 1))))) {
        b->failed = 1;
        sqlite3_free(piece);
        return;
    }
    memcpy(b->s + b->len, piece, n + 1);
    b->len += n;
    sqlite3_free(piece);
}

/* The wide view: one row per point (temp table 'sweep'). */
static gpuest_err build_wide(sqlite3 *db, const names_t *keys, const names_t *stats, const names_t *ivals,
                             gpuest_error_t *err)
{
    sqlbuf b = {0};
    appendf(&b, "CREATE TEMP TABLE sweep AS SELECT p.id AS id, p.hash AS hash, p.design_hash AS design_hash, "
                "p.preset AS preset, p.workload AS workload, p.scale AS scale, p.technique AS technique, "
                "p.seed AS seed, p.mode AS mode, "
                "(SELECT status FROM runs r WHERE r.point_id = p.id ORDER BY r.id DESC LIMIT 1) AS status");
    for (int i = 0; i < keys->n; i++)
        appendf(&b, ", (SELECT value FROM point_keys k WHERE k.point_id = p.id AND k.key = %Q) AS \"%w\"",
                keys->items[i], keys->items[i]);
    for (int i = 0; i < stats->n; i++) {
        appendf(&b, ", (SELECT value FROM results x WHERE x.point_id = p.id AND x.stat = %Q) AS \"%w\"",
                stats->items[i], stats->items[i]);
        for (int j = 0; j < ivals->n; j++)
            if (strcmp(ivals->items[j], stats->items[i]) == 0) {
                appendf(&b, ", (SELECT lo FROM results x WHERE x.point_id = p.id AND x.stat = %Q) AS \"%w_lo\"",
                        stats->items[i], stats->items[i]);
                appendf(&b, ", (SELECT hi FROM results x WHERE x.point_id = p.id AND x.stat = %Q) AS \"%w_hi\"",
                        stats->items[i], stats->items[i]);
            }
    }
    appendf(&b, " FROM points p");
    if (b.failed) {
        free(b.s);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    char *msg = NULL;
    int rc = sqlite3_exec(db, b.s, NULL, NULL, &msg);
    free(b.s);
    if (rc != SQLITE_OK) {
        gpuest_err e = gpuest_fail(err, GPUEST_EIO, "%s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return e;
    }
    return GPUEST_OK;
}

static gpuest_err emit_rows(sqlite3 *db, const char *db_path, const char *where, const char *csv_path,
                            gpuest_sweep_row_fn row_cb, void *ctx, size_t *rows, gpuest_error_t *err)
{
    sqlbuf b = {0};
    appendf(&b, "SELECT * FROM sweep");
    if (where && *where)
        appendf(&b, " WHERE %s", where);
    appendf(&b, " ORDER BY id");
    if (b.failed) {
        free(b.s);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    sqlite3_stmt *st;
    const char *tail = NULL;
    int prc = sqlite3_prepare_v2(db, b.s, -1, &st, &tail);
    int extra = prc == SQLITE_OK && tail && strspn(tail, " \t\n;") != strlen(tail);
    free(b.s);
    if (prc != SQLITE_OK)
        return gpuest_fail(err, GPUEST_EINVAL, "--where '%s': %s", where ? where : "", sqlite3_errmsg(db));
    if (extra) {
        sqlite3_finalize(st);
        return gpuest_fail(err, GPUEST_EINVAL, "--where '%s': one expression expected", where);
    }
    int ncol = sqlite3_column_count(st);
    const char **fields = calloc((size_t)ncol, sizeof *fields);
    char(*bufs)[40] = calloc((size_t)ncol, sizeof *bufs);
    gpuest_csv_writer_t w;
    gpuest_err e = fields && bufs ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (int i = 0; i < ncol && e == GPUEST_OK; i++)
        fields[i] = sqlite3_column_name(st, i);
    int have_writer = 0;
    if (e == GPUEST_OK && csv_path)
        have_writer = (e = gpuest_csv_writer_open(&w, csv_path, fields, (size_t)ncol, err)) == GPUEST_OK;
    else if (e == GPUEST_OK)
        e = row_cb(ctx, fields, (size_t)ncol, err);
    int rc = SQLITE_ROW;
    *rows = 0;
    while (e == GPUEST_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < ncol; i++) {
            int type = sqlite3_column_type(st, i);
            if (type == SQLITE_FLOAT) {
                gpuest_fmt_double(bufs[i], sizeof bufs[i], sqlite3_column_double(st, i));
                fields[i] = bufs[i];
            } else if (type == SQLITE_NULL) {
                fields[i] = "";
            } else {
                fields[i] = (const char *)sqlite3_column_text(st, i);
            }
        }
        e = have_writer ? gpuest_csv_write_row(&w, fields, err) : row_cb(ctx, fields, (size_t)ncol, err);
        (*rows)++;
    }
    if (e == GPUEST_OK && rc != SQLITE_DONE)
        e = gpuest_fail(err, GPUEST_EIO, "%s: %s", db_path, sqlite3_errmsg(db));
    if (have_writer) {
        if (e == GPUEST_OK)
            e = gpuest_csv_writer_commit(&w, err);
        else
            gpuest_csv_writer_abort(&w);
    }
    sqlite3_finalize(st);
    free(fields);
    free(bufs);
    return e;
}

gpuest_err gpuest_sweep_export(const char *db_path, const char *where, const char *csv_path, gpuest_sweep_row_fn row_cb,
                               void *ctx, size_t *rows, gpuest_error_t *err)
{
    sqlite3 *db = NULL;
    *rows = 0;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        gpuest_err e = gpuest_fail(err, GPUEST_EIO, "%s: cannot open: %s", db_path, db ? sqlite3_errmsg(db) : "?");
        sqlite3_close(db);
        return e;
    }
    sqlite3_busy_timeout(db, 10000);
    names_t keys = {0}, stats = {0}, ivals = {0};
    gpuest_err e = names_query(db, "SELECT key FROM point_keys GROUP BY key ORDER BY MIN(rowid)", &keys, err);
    if (e != GPUEST_OK) { /* the cause is copied first: formatting err->msg into itself garbled the message */
        char cause[sizeof err->msg];
        snprintf(cause, sizeof cause, "%s", err->msg);
        e = gpuest_fail(err, GPUEST_ECORRUPT, "%s: not a gpuest sweep database (%s)", db_path, cause);
    }
    if (e == GPUEST_OK)
        e = names_query(db, "SELECT stat FROM results GROUP BY stat ORDER BY MIN(rowid)", &stats, err);
    if (e == GPUEST_OK)
        e = names_query(db, "SELECT DISTINCT stat FROM results WHERE lo IS NOT NULL", &ivals, err);
    if (e == GPUEST_OK)
        e = build_wide(db, &keys, &stats, &ivals, err);
    if (e == GPUEST_OK)
        e = emit_rows(db, db_path, where, csv_path, row_cb, ctx, rows, err);
    names_free(&keys);
    names_free(&stats);
    names_free(&ivals);
    sqlite3_close(db);
    return e;
}
