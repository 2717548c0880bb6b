/* db.c: the SQLite store of a sweep (schema in db_schema.h). WAL journal, one transaction per
 * finished point: a point is in the database with all its results and its run row, or not at
 * all, whatever moment the process is killed at. */
#include <sqlite3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sweep/db_schema.h"
#include "sweep/sweep.h"

struct gpuest_sweep_db_s {
    sqlite3 *db;
    char path[1024];
};

static gpuest_err db_fail(gpuest_sweep_db_t *db, gpuest_error_t *err, const char *what)
{
    return gpuest_fail(err, GPUEST_EIO, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

static gpuest_err exec(gpuest_sweep_db_t *db, const char *sql, gpuest_error_t *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        gpuest_err rc = gpuest_fail(err, GPUEST_EIO, "%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->db));
        sqlite3_free(msg);
        return rc;
    }
    return GPUEST_OK;
}

/* meta value of key into buf ("" when absent). */
static gpuest_err meta_get(gpuest_sweep_db_t *db, const char *key, char *buf, size_t cap, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, err, "reading meta");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(buf, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPUEST_OK : db_fail(db, err, "reading meta");
}

static gpuest_err meta_put(gpuest_sweep_db_t *db, const char *key, const char *value, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, err, "writing meta");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? GPUEST_OK : db_fail(db, err, "writing meta");
}

/* A new database gets the spec; an existing one must hold the same spec and mode. */
static gpuest_err check_meta(gpuest_sweep_db_t *db, const gpuest_sweep_spec_t *spec, gpuest_sweep_mode_t mode,
                             gpuest_error_t *err)
{
    GPUEST_TRY(exec(db, "BEGIN IMMEDIATE", err));
    /* the tables and the spec in one transaction: a kill while creating leaves an empty file */
    gpuest_err rc = exec(db, GPUEST_SWEEP_DB_SCHEMA, err);
    char hash[64] = "", have_mode[32] = "";
    if (rc == GPUEST_OK)
        rc = meta_get(db, "spec_hash", hash, sizeof hash, err);
    if (rc == GPUEST_OK)
        rc = meta_get(db, "mode", have_mode, sizeof have_mode, err);
    if (rc == GPUEST_OK && hash[0] == '\0') {
        char created[32];
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
        rc = meta_put(db, "spec", spec->text, err);
        if (rc == GPUEST_OK)
            rc = meta_put(db, "spec_hash", spec->hash, err);
        if (rc == GPUEST_OK)
            rc = meta_put(db, "spec_file", spec->origin, err);
        if (rc == GPUEST_OK)
            rc = meta_put(db, "version", gpuest_version(), err);
        if (rc == GPUEST_OK)
            rc = meta_put(db, "created", created, err);
        if (rc == GPUEST_OK)
            rc = meta_put(db, "mode", gpuest_sweep_mode_name(mode), err);
        if (rc == GPUEST_OK)
            rc = meta_put(db, "schema", GPUEST_SWEEP_SCHEMA_VERSION, err);
    } else if (rc == GPUEST_OK && strcmp(hash, spec->hash) != 0) {
        rc = gpuest_fail(err, GPUEST_EMISMATCH,
                         "%s was made from another spec (hash %s, %s has %s): give another --db to start a new sweep",
                         db->path, hash, spec->origin, spec->hash);
    } else if (rc == GPUEST_OK && strcmp(have_mode, gpuest_sweep_mode_name(mode)) != 0) {
        rc = gpuest_fail(err, GPUEST_EMISMATCH,
                         "%s holds the %s points of this spec, not %s ones: give another --db for the %s mode",
                         db->path, have_mode, gpuest_sweep_mode_name(mode), gpuest_sweep_mode_name(mode));
    }
    if (rc != GPUEST_OK) {
        exec(db, "ROLLBACK", NULL);
        return rc;
    }
    return exec(db, "COMMIT", err);
}

gpuest_err gpuest_sweep_db_open(const char *path, const gpuest_sweep_spec_t *spec, gpuest_sweep_mode_t mode,
                                gpuest_sweep_db_t **out, gpuest_error_t *err)
{
    gpuest_sweep_db_t *db = calloc(1, sizeof *db);
    if (!db)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    snprintf(db->path, sizeof db->path, "%s", path);
    if (sqlite3_open_v2(path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        gpuest_err rc = gpuest_fail(err, GPUEST_EIO, "%s: cannot open: %s", path,
                                    db->db ? sqlite3_errmsg(db->db) : "out of memory");
        gpuest_sweep_db_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db->db, 10000);
    /* WAL: a commit is one append to the log, readers (plot, report) never block the writer.
     * synchronous=NORMAL in WAL mode keeps every committed transaction when the process is
     * killed (the log is in the OS's hands); only a power loss can drop the last ones, and it
     * never leaves a half-written transaction. */
    gpuest_err rc = exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", err);
    if (rc == GPUEST_OK)
        rc = check_meta(db, spec, mode, err);
    if (rc != GPUEST_OK) {
        gpuest_sweep_db_close(db);
        return rc;
    }
    *out = db;
    return GPUEST_OK;
}

void gpuest_sweep_db_close(gpuest_sweep_db_t *db)
{
    if (!db)
        return;
    sqlite3_close(db->db);
    free(db);
}

gpuest_err gpuest_sweep_db_done(gpuest_sweep_db_t *db, const gpuest_sweep_point_t *pts, size_t n,
                                unsigned char *done, gpuest_error_t *err)
{
    memset(done, 0, n);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db,
                           "SELECT p.id, p.hash FROM points p WHERE EXISTS (SELECT 1 FROM runs r WHERE r.point_id = p.id "
                           "AND r.status = 'ok')",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, err, "reading runs");
    int rc = SQLITE_DONE;
    gpuest_err e = GPUEST_OK;
    while (e == GPUEST_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 id = sqlite3_column_int64(st, 0);
        const char *hash = (const char *)sqlite3_column_text(st, 1);
        if (id < 0 || (size_t)id >= n || !hash || strcmp(hash, pts[id].hash) != 0)
            /* same spec text, other points: another gpuest (a preset or a key's default changed) */
            e = gpuest_fail(err, GPUEST_EMISMATCH,
                            "%s: point %lld was stored with another machine or workload than this gpuest builds "
                            "from the spec (hash %s, now %s): give another --db",
                            db->path, (long long)id, hash ? hash : "?", id >= 0 && (size_t)id < n ? pts[id].hash : "-");
        else
            done[id] = 1;
    }
    sqlite3_finalize(st);
    if (e != GPUEST_OK)
        return e;
    return rc == SQLITE_DONE ? GPUEST_OK : db_fail(db, err, "reading runs");
}

/* ------------------------------------------------------------ storing one point */

static int bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    return s && *s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int bind_real_or_null(sqlite3_stmt *st, int i, double v)
{
    return isnan(v) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
}

/* Prepares sql, lets bind fill it, steps once; GPUEST_OK when done. */
static gpuest_err step_once(gpuest_sweep_db_t *db, sqlite3_stmt *st, const char *what, gpuest_error_t *err)
{
    int rc = sqlite3_step(st);
    gpuest_err e = rc == SQLITE_DONE ? GPUEST_OK : db_fail(db, err, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return e;
}

static gpuest_err insert_point(gpuest_sweep_db_t *db, const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *p,
                               gpuest_error_t *err)
{
    sqlite3_stmt *st;
    /* The point row may already be there from an earlier run that failed: then it must be the same point. */
    if (sqlite3_prepare_v2(db->db, "SELECT hash FROM points WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, err, "reading points");
    sqlite3_bind_int64(st, 1, p->id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        int same = strcmp((const char *)sqlite3_column_text(st, 0), p->hash) == 0;
        sqlite3_finalize(st);
        return same ? GPUEST_OK
                    : gpuest_fail(err, GPUEST_EMISMATCH, "%s: point %ld has another hash in the database", db->path,
                                  p->id);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(db, err, "reading points");
    if (sqlite3_prepare_v2(db->db,
                           "INSERT INTO points(id, hash, design_hash, preset, workload, scale, technique, seed, mode, "
                           "version, config) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, err, "writing points");
    sqlite3_bind_int64(st, 1, p->id);
    sqlite3_bind_text(st, 2, p->hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, p->design_hash, -1, SQLITE_STATIC);
    bind_text_or_null(st, 4, p->preset);
    bind_text_or_null(st, 5, p->workload);
    bind_text_or_null(st, 6, p->mode == GPUEST_SWEEP_NOC ? NULL : p->scale);
    bind_text_or_null(st, 7, p->technique);
    sqlite3_bind_int64(st, 8, (sqlite3_int64)p->seed);
    sqlite3_bind_text(st, 9, gpuest_sweep_mode_name(p->mode), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 10, gpuest_version(), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 11, p->config, -1, SQLITE_STATIC);
    gpuest_err e = step_once(db, st, "writing points", err);
    sqlite3_finalize(st);
    if (e != GPUEST_OK || spec->naxes == 0)
        return e;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO point_keys(point_id, key, value) VALUES(?,?,?)", -1, &st, NULL) !=
        SQLITE_OK)
        return db_fail(db, err, "writing point_keys");
    for (int a = 0; a < spec->naxes && e == GPUEST_OK; a++) {
        sqlite3_bind_int64(st, 1, p->id);
        sqlite3_bind_text(st, 2, spec->axes[a].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, p->axis_values[a], -1, SQLITE_STATIC);
        e = step_once(db, st, "writing point_keys", err);
    }
    sqlite3_finalize(st);
    return e;
}

static gpuest_err insert_results(gpuest_sweep_db_t *db, const gpuest_sweep_result_t *r, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO results(point_id, stat, value, lo, hi) VALUES(?,?,?,?,?)", -1, &st,
                           NULL) != SQLITE_OK)
        return db_fail(db, err, "writing results");
    gpuest_err e = GPUEST_OK;
    for (int i = 0; i < r->nstats && e == GPUEST_OK; i++) {
        sqlite3_bind_int64(st, 1, r->point);
        sqlite3_bind_text(st, 2, r->stats[i].name, -1, SQLITE_STATIC);
        bind_real_or_null(st, 3, r->stats[i].value);
        bind_real_or_null(st, 4, r->stats[i].lo);
        bind_real_or_null(st, 5, r->stats[i].hi);
        e = step_once(db, st, "writing results", err);
    }
    sqlite3_finalize(st);
    return e;
}

static gpuest_err insert_run(gpuest_sweep_db_t *db, const gpuest_sweep_result_t *r, gpuest_error_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO runs(point_id, start, end, host, status, error) VALUES(?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, err, "writing runs");
    sqlite3_bind_int64(st, 1, r->point);
    bind_text_or_null(st, 2, r->start);
    bind_text_or_null(st, 3, r->end);
    bind_text_or_null(st, 4, r->host);
    sqlite3_bind_text(st, 5, r->ok ? "ok" : "error", -1, SQLITE_STATIC);
    bind_text_or_null(st, 6, r->ok ? NULL : r->error);
    gpuest_err e = step_once(db, st, "writing runs", err);
    sqlite3_finalize(st);
    return e;
}

gpuest_err gpuest_sweep_db_store(gpuest_sweep_db_t *db, const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *p,
                                 const gpuest_sweep_result_t *r, gpuest_error_t *err)
{
    GPUEST_TRY(exec(db, "BEGIN IMMEDIATE", err));
    gpuest_err e = insert_point(db, spec, p, err);
    if (e == GPUEST_OK && r->ok)
        e = insert_results(db, r, err);
    if (e == GPUEST_OK)
        e = insert_run(db, r, err);
    if (e != GPUEST_OK) {
        exec(db, "ROLLBACK", NULL);
        return e;
    }
    return exec(db, "COMMIT", err);
}
