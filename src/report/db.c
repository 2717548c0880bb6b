/* db.c: loads a sweep results database (SQLite, read only) into memory. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

struct gpuest_rdb_s {
    gpuest_rdb_point_t *points; /* sorted by id */
    size_t num_points;
    gpuest_rdb_kv_t *meta;
    size_t num_meta;
    int num_sources;
};

static char *dup_col(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return gpuest_strdup(t ? (const char *)t : "");
}

static gpuest_err db_fail(sqlite3 *h, const char *path, const char *what, gpuest_error_t *err)
{
    return gpuest_fail(err, GPUEST_ECORRUPT, "%s: %s: %s (expected a results database of 'gpuest sweep')", path, what,
                       sqlite3_errmsg(h));
}

static gpuest_rdb_point_t *find_point(gpuest_rdb_t *db, int64_t id)
{
    size_t lo = 0, hi = db->num_points;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (db->points[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < db->num_points && db->points[lo].id == id ? &db->points[lo] : NULL;
}

static gpuest_err load_meta(sqlite3 *h, const char *path, gpuest_rdb_t *db, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT key, value FROM meta ORDER BY key", -1, &st, NULL) != SQLITE_OK)
        return db_fail(h, path, "table meta", err);
    gpuest_err rc = GPUEST_OK;
    while (rc == GPUEST_OK && sqlite3_step(st) == SQLITE_ROW) {
        gpuest_rdb_kv_t *v = realloc(db->meta, (db->num_meta + 1) * sizeof *v);
        if (!v) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            break;
        }
        db->meta = v;
        v[db->num_meta].key = dup_col(st, 0);
        v[db->num_meta].value = dup_col(st, 1);
        db->num_meta++;
    }
    sqlite3_finalize(st);
    return rc;
}

static gpuest_err load_points(sqlite3 *h, const char *path, gpuest_rdb_t *db, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h,
                           "SELECT id, hash, design_hash, preset, workload, scale, technique, seed, mode, version, "
                           "config FROM points ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(h, path, "table points", err);
    gpuest_err rc = GPUEST_OK;
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (db->num_points == cap) {
            cap = cap ? 2 * cap : 64;
            gpuest_rdb_point_t *v = realloc(db->points, cap * sizeof *v);
            if (!v) {
                rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
                break;
            }
            db->points = v;
        }
        gpuest_rdb_point_t *p = &db->points[db->num_points++];
        memset(p, 0, sizeof *p);
        p->id = sqlite3_column_int64(st, 0);
        p->hash = dup_col(st, 1);
        p->design_hash = dup_col(st, 2);
        p->preset = dup_col(st, 3);
        p->workload = dup_col(st, 4);
        p->scale = dup_col(st, 5);
        p->technique = dup_col(st, 6);
        p->seed = sqlite3_column_int64(st, 7);
        p->mode = dup_col(st, 8);
        p->version = dup_col(st, 9);
        p->config = dup_col(st, 10);
        p->status = gpuest_strdup("");
        p->host = gpuest_strdup("");
        p->start = gpuest_strdup("");
        p->end = gpuest_strdup("");
        p->error = gpuest_strdup("");
    }
    sqlite3_finalize(st);
    return rc;
}

static gpuest_err load_keys(sqlite3 *h, const char *path, gpuest_rdb_t *db, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT point_id, key, value FROM point_keys ORDER BY point_id, key", -1, &st, NULL) !=
        SQLITE_OK)
        return db_fail(h, path, "table point_keys", err);
    gpuest_err rc = GPUEST_OK;
    while (sqlite3_step(st) == SQLITE_ROW) {
        gpuest_rdb_point_t *p = find_point(db, sqlite3_column_int64(st, 0));
        if (!p)
            continue; /* a key of no point: nothing to show */
        gpuest_rdb_kv_t *v = realloc(p->keys, (p->num_keys + 1) * sizeof *v);
        if (!v) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            break;
        }
        p->keys = v;
        v[p->num_keys].key = dup_col(st, 1);
        v[p->num_keys].value = dup_col(st, 2);
        p->num_keys++;
    }
    sqlite3_finalize(st);
    return rc;
}

static gpuest_err load_results(sqlite3 *h, const char *path, gpuest_rdb_t *db, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT point_id, stat, value, lo, hi FROM results ORDER BY point_id, stat", -1, &st,
                           NULL) != SQLITE_OK)
        return db_fail(h, path, "table results", err);
    gpuest_err rc = GPUEST_OK;
    while (sqlite3_step(st) == SQLITE_ROW) {
        gpuest_rdb_point_t *p = find_point(db, sqlite3_column_int64(st, 0));
        if (!p || sqlite3_column_type(st, 2) == SQLITE_NULL)
            continue;
        gpuest_rdb_result_t *v = realloc(p->results, (p->num_results + 1) * sizeof *v);
        if (!v) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            break;
        }
        p->results = v;
        gpuest_rdb_result_t *r = &v[p->num_results++];
        r->stat = dup_col(st, 1);
        r->value = sqlite3_column_double(st, 2);
        r->has_interval = sqlite3_column_type(st, 3) != SQLITE_NULL && sqlite3_column_type(st, 4) != SQLITE_NULL;
        r->lo = r->has_interval ? sqlite3_column_double(st, 3) : r->value;
        r->hi = r->has_interval ? sqlite3_column_double(st, 4) : r->value;
    }
    sqlite3_finalize(st);
    return rc;
}

/* The last run of each point (highest run id) gives its status. */
static gpuest_err load_runs(sqlite3 *h, const char *path, gpuest_rdb_t *db, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT point_id, start, end, host, status, error FROM runs ORDER BY id", -1, &st,
                           NULL) != SQLITE_OK)
        return db_fail(h, path, "table runs", err);
    while (sqlite3_step(st) == SQLITE_ROW) {
        gpuest_rdb_point_t *p = find_point(db, sqlite3_column_int64(st, 0));
        if (!p)
            continue;
        char **fields[5] = {&p->start, &p->end, &p->host, &p->status, &p->error};
        for (int i = 0; i < 5; i++) {
            free(*fields[i]);
            *fields[i] = dup_col(st, i + 1);
        }
    }
    sqlite3_finalize(st);
    return GPUEST_OK;
}

static int strings_ok(const gpuest_rdb_t *db)
{
    for (size_t i = 0; i < db->num_points; i++) {
        const gpuest_rdb_point_t *p = &db->points[i];
        const char *s[] = {p->hash,    p->design_hash, p->preset, p->workload, p->scale, p->technique, p->mode,
                           p->version, p->config,      p->status, p->host,     p->start, p->end,       p->error};
        for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
            if (!s[k])
                return 0;
        for (size_t k = 0; k < p->num_keys; k++)
            if (!p->keys[k].key || !p->keys[k].value)
                return 0;
        for (size_t k = 0; k < p->num_results; k++)
            if (!p->results[k].stat)
                return 0;
    }
    for (size_t i = 0; i < db->num_meta; i++)
        if (!db->meta[i].key || !db->meta[i].value)
            return 0;
    return 1;
}

gpuest_err gpuest_rdb_open(const char *path, gpuest_rdb_t **out, gpuest_error_t *err)
{
    *out = NULL;
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        gpuest_err rc = gpuest_fail(err, GPUEST_EIO, "%s: cannot open: %s", path, h ? sqlite3_errmsg(h) : "no memory");
        sqlite3_close(h);
        return rc;
    }
    sqlite3_busy_timeout(h, 5000); /* a sweep may be writing */
    gpuest_rdb_t *db = calloc(1, sizeof *db);
    gpuest_err rc = db ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    if (rc == GPUEST_OK)
        rc = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? GPUEST_OK : db_fail(h, path, "cannot read", err);
    if (rc == GPUEST_OK)
        rc = load_meta(h, path, db, err);
    if (rc == GPUEST_OK)
        rc = load_points(h, path, db, err);
    if (rc == GPUEST_OK)
        rc = load_keys(h, path, db, err);
    if (rc == GPUEST_OK)
        rc = load_results(h, path, db, err);
    if (rc == GPUEST_OK)
        rc = load_runs(h, path, db, err);
    sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(h);
    if (rc == GPUEST_OK && !strings_ok(db))
        rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    if (rc != GPUEST_OK) {
        gpuest_rdb_close(db);
        return rc;
    }
    db->num_sources = 1;
    *out = db;
    return GPUEST_OK;
}

gpuest_err gpuest_rdb_merge(gpuest_rdb_t *db, gpuest_rdb_t *other, gpuest_error_t *err)
{
    gpuest_rdb_point_t *v = realloc(db->points, (db->num_points + other->num_points + 1) * sizeof *v);
    if (!v) {
        gpuest_rdb_close(other);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    db->points = v;
    for (size_t i = 0; i < other->num_points; i++) {
        v[db->num_points] = other->points[i];
        v[db->num_points++].source = db->num_sources;
    }
    db->num_sources++;
    other->num_points = 0; /* the points moved: closing other frees only its meta */
    gpuest_rdb_close(other);
    return GPUEST_OK;
}

int gpuest_rdb_num_sources(const gpuest_rdb_t *db)
{
    return db->num_sources;
}

void gpuest_rdb_close(gpuest_rdb_t *db)
{
    if (!db)
        return;
    for (size_t i = 0; i < db->num_points; i++) {
        gpuest_rdb_point_t *p = &db->points[i];
        char *s[] = {p->hash,    p->design_hash, p->preset, p->workload, p->scale, p->technique, p->mode,
                     p->version, p->config,      p->status, p->host,     p->start, p->end,       p->error};
        for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
            free(s[k]);
        for (size_t k = 0; k < p->num_keys; k++) {
            free(p->keys[k].key);
            free(p->keys[k].value);
        }
        free(p->keys);
        for (size_t k = 0; k < p->num_results; k++)
            free(p->results[k].stat);
        free(p->results);
    }
    free(db->points);
    for (size_t i = 0; i < db->num_meta; i++) {
        free(db->meta[i].key);
        free(db->meta[i].value);
    }
    free(db->meta);
    free(db);
}

size_t gpuest_rdb_num_points(const gpuest_rdb_t *db)
{
    return db->num_points;
}
const gpuest_rdb_point_t *gpuest_rdb_point(const gpuest_rdb_t *db, size_t i)
{
    return &db->points[i];
}

const char *gpuest_rdb_meta(const gpuest_rdb_t *db, const char *key)
{
    for (size_t i = 0; i < db->num_meta; i++)
        if (strcmp(db->meta[i].key, key) == 0)
            return db->meta[i].value;
    return NULL;
}

const gpuest_rdb_result_t *gpuest_rdb_result(const gpuest_rdb_point_t *p, const char *stat)
{
    for (size_t i = 0; i < p->num_results; i++)
        if (strcmp(p->results[i].stat, stat) == 0)
            return &p->results[i];
    return NULL;
}

const char *gpuest_rdb_key_value(const gpuest_rdb_point_t *p, const char *key, char *buf, size_t cap)
{
    for (size_t i = 0; i < p->num_keys; i++)
        if (strcmp(p->keys[i].key, key) == 0)
            return p->keys[i].value;
    size_t n = strlen(key);
    for (const char *line = p->config; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > n && strncmp(line, key, n) == 0 && line[n] == '=') {
            snprintf(buf, cap, "%.*s", (int)(len - n - 1), line + n + 1);
            return buf;
        }
        line = nl ? nl + 1 : line + len;
    }
    return NULL;
}
