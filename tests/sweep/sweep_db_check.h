/* sweep_db_check.h: checks on sweep databases shared by the sweep program tests (exactly once,
 * nothing half written, same results as a reference database). */
#ifndef GPUEST_TEST_SWEEP_DB_CHECK_H
#define GPUEST_TEST_SWEEP_DB_CHECK_H

#include <sqlite3.h>
#include <stdio.h>

static sqlite3 *check_open(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    return db;
}

/* Removes a database and its write-ahead log files. */
static inline void remove_db(const char *path)
{
    char p[300];
    remove(path);
    snprintf(p, sizeof p, "%s-wal", path);
    remove(p);
    snprintf(p, sizeof p, "%s-shm", path);
    remove(p);
}

/* First column of the first row of sql as an integer (fails the test on an SQL error). */
static inline long long check_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static inline double check_double(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

static inline void check_text(sqlite3 *db, const char *sql, char *buf, size_t cap)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, cap, "%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
    sqlite3_finalize(st);
}

/* Runs with status ok (0 for a file killed before it had tables). */
static inline long long check_ok_runs(const char *path)
{
    sqlite3 *db = check_open(path);
    long long n = 0;
    if (check_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs'"))
        n = check_int(db, "SELECT COUNT(*) FROM runs WHERE status = 'ok'");
    sqlite3_close(db);
    return n;
}

/* Invariants that hold at any moment, finished or not: the file is sound, no point has two ok
 * runs, a point with an ok run has exactly nstats results, and no results exist without one. */
static inline void check_consistent(const char *path, int nstats)
{
    sqlite3 *db = check_open(path);
    char ok[64];
    check_text(db, "PRAGMA integrity_check", ok, sizeof ok);
    assert_string_equal(ok, "ok");
    /* killed before its first transaction: an empty file, and the tables come all or none */
    long long tables = check_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                                     "('meta', 'points', 'point_keys', 'results', 'runs')");
    if (tables == 0) {
        sqlite3_close(db);
        return;
    }
    assert_int_equal(tables, 5);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM meta WHERE key IN ('spec', 'spec_hash', 'mode')"), 3);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM (SELECT point_id FROM runs WHERE status = 'ok' "
                                   "GROUP BY point_id HAVING COUNT(*) > 1)"),
                     0);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM (SELECT point_id FROM runs WHERE status = 'ok') r WHERE "
             "(SELECT COUNT(*) FROM results x WHERE x.point_id = r.point_id) != %d",
             nstats);
    assert_int_equal(check_int(db, sql), 0);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM results WHERE point_id NOT IN "
                                   "(SELECT point_id FROM runs WHERE status = 'ok')"),
                     0);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM runs WHERE point_id NOT IN (SELECT id FROM points)"), 0);
    sqlite3_close(db);
}

/* path holds every point 0..n-1 once with an ok run, and the same points (hashes) and results
 * (value, lo, hi, bit for bit) as ref. */
static inline void check_same_as(const char *path, const char *ref, long long n)
{
    sqlite3 *db = check_open(path);
    char sql[1024];
    snprintf(sql, sizeof sql, "ATTACH '%s' AS ref", ref);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM points"), n);
    assert_int_equal(check_int(db, "SELECT MIN(id) FROM points"), 0);
    assert_int_equal(check_int(db, "SELECT MAX(id) FROM points"), n - 1);
    assert_int_equal(check_int(db, "SELECT COUNT(DISTINCT point_id) FROM runs WHERE status = 'ok'"), n);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM runs WHERE status = 'ok'"), n);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM points p JOIN ref.points q USING(id) WHERE p.hash = q.hash "
                                   "AND p.config = q.config"),
                     n);
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM results"), check_int(db, "SELECT COUNT(*) FROM ref.results"));
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM results a JOIN ref.results b USING(point_id, stat) "
                                   "WHERE a.value IS b.value AND a.lo IS b.lo AND a.hi IS b.hi"),
                     check_int(db, "SELECT COUNT(*) FROM ref.results"));
    assert_int_equal(check_int(db, "SELECT COUNT(*) FROM point_keys a JOIN ref.point_keys b USING(point_id, key) "
                                   "WHERE a.value = b.value"),
                     check_int(db, "SELECT COUNT(*) FROM ref.point_keys"));
    sqlite3_close(db);
}

#endif
