/* fixture_db.c: the test database: the sweep schema and 14 points.
 *
 * simulate (mesh56, tiny, seed 1 unless said), ipc:
 *   1 bfs none 16K: 100      2 bfs bdi 16K: 120      3 bfs none 32K: 110    4 bfs bdi 32K: 99
 *   5 hotspot none 16K: 200  6 hotspot bdi 16K: 250  7 hotspot sc2 16K: 180
 *   8 hotspot sc2 64K seed 2: 170 (no baseline)
 * estimate: 9 = design of 1: ipc 95 [90, 105]; 10 = design of 2: ipc 130 [125, 135]
 * points 3 and 4 carry a preset.name line, as gpuest sweep writes it
 * noc (uniform): 11 vcs 2 rate 0.1: 20 / 0.1; 12 vcs 2 rate 0.05: 18 / 0.05;
 *                13 vcs 4 rate 0.1: 19 / 0.1; 14 vcs 2 rate 0.3: 300.5 / 0.21 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture_db.h"

static const char schema_sql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE points(id INTEGER PRIMARY KEY, hash TEXT UNIQUE NOT NULL, design_hash TEXT NOT NULL,"
    " preset TEXT, workload TEXT, scale TEXT, technique TEXT, seed INTEGER, mode TEXT, version TEXT,"
    " config TEXT NOT NULL);"
    "CREATE TABLE point_keys(point_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT, PRIMARY KEY(point_id, key));"
    "CREATE TABLE results(point_id INTEGER NOT NULL, stat TEXT NOT NULL, value REAL, lo REAL, hi REAL,"
    " PRIMARY KEY(point_id, stat));"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, point_id INTEGER NOT NULL, start TEXT, end TEXT, host TEXT,"
    " status TEXT, error TEXT);";

/* clang-format off */
static const char points_sql[] =
    "INSERT INTO meta VALUES('spec','[sweep]\nmode = simulate\n[axes]\nl1.size_bytes = 16384, 32768\n'),"
    " ('spec_hash','abc123'),('version','0.1.0'),('created','2026-11-26T05:00:00Z');"
    "INSERT INTO points VALUES"
    "(1,'h1','d1','mesh56','bfs','tiny','none',1,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=16384\nnoc.vcs=4\ntechnique.compression=none'),"
    "(2,'h2','d2','mesh56','bfs','tiny','compression=bdi',1,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=16384\nnoc.vcs=4\ntechnique.compression=bdi'),"
    "(3,'h3','d3','mesh56','bfs','tiny','none',1,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=32768\nnoc.vcs=4\npreset.name=mesh56\ntechnique.compression=none'),"
    "(4,'h4','d4','mesh56','bfs','tiny','compression=bdi',1,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=32768\nnoc.vcs=4\npreset.name=mesh56\ntechnique.compression=bdi'),"
    "(5,'h5','d5','mesh56','hotspot','tiny','none',1,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=16384\nnoc.vcs=4\ntechnique.compression=none'),"
    "(6,'h6','d6','mesh56','hotspot','tiny','compression=bdi',1,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=16384\nnoc.vcs=4\ntechnique.compression=bdi'),"
    "(7,'h7','d7','mesh56','hotspot','tiny','compression=sc2',1,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=16384\nnoc.vcs=4\ntechnique.compression=sc2'),"
    "(8,'h8','d8','mesh56','hotspot','tiny','compression=sc2',2,'simulate','0.1.0','core.num_sms=56\nl1.size_bytes=65536\nnoc.vcs=4\ntechnique.compression=sc2'),"
    "(9,'h9','d1','mesh56','bfs','tiny','none',1,'estimate','0.1.0','core.num_sms=56\nl1.size_bytes=16384\nnoc.vcs=4\ntechnique.compression=none'),"
    "(10,'h10','d2','mesh56','bfs','tiny','compression=bdi',1,'estimate','0.1.0','core.num_sms=56\nl1.size_bytes=16384\nnoc.vcs=4\ntechnique.compression=bdi'),"
    "(11,'h11','n1','mesh56','uniform','','none',1,'noc','0.1.0','core.num_sms=56\nnoc.vcs=2'),"
    "(12,'h12','n2','mesh56','uniform','','none',1,'noc','0.1.0','core.num_sms=56\nnoc.vcs=2'),"
    "(13,'h13','n3','mesh56','uniform','','none',1,'noc','0.1.0','core.num_sms=56\nnoc.vcs=4'),"
    "(14,'h14','n4','mesh56','uniform','','none',1,'noc','0.1.0','core.num_sms=56\nnoc.vcs=2');"
    "INSERT INTO point_keys VALUES"
    "(1,'l1.size_bytes','16384'),(2,'l1.size_bytes','16384'),(3,'l1.size_bytes','32768'),"
    "(4,'l1.size_bytes','32768'),(5,'l1.size_bytes','16384'),(6,'l1.size_bytes','16384'),"
    "(7,'l1.size_bytes','16384'),(8,'l1.size_bytes','65536'),(9,'l1.size_bytes','16384'),"
    "(10,'l1.size_bytes','16384'),"
    /* gpuest sweep's rate axis, and one point with the other accepted name */
    "(11,'traffic.rate','0.1'),(11,'noc.vcs','2'),(12,'traffic.rate','0.05'),(12,'noc.vcs','2'),"
    "(13,'noc.injection_rate','0.1'),(13,'noc.vcs','4'),(14,'traffic.rate','0.3'),(14,'noc.vcs','2');"
    "INSERT INTO results VALUES"
    "(1,'ipc',100,NULL,NULL),(1,'amat',300,NULL,NULL),(2,'ipc',120,NULL,NULL),(3,'ipc',110,NULL,NULL),"
    "(4,'ipc',99,NULL,NULL),(5,'ipc',200,NULL,NULL),(6,'ipc',250,NULL,NULL),(7,'ipc',180,NULL,NULL),"
    "(8,'ipc',170,NULL,NULL),(9,'ipc',95,90,105),(10,'ipc',130,125,135),"
    "(11,'latency',20,NULL,NULL),(11,'accepted',0.1,NULL,NULL),(12,'latency',18,NULL,NULL),"
    "(12,'accepted',0.05,NULL,NULL),(13,'latency',19,NULL,NULL),(13,'accepted',0.1,NULL,NULL),"
    "(14,'latency',300.5,NULL,NULL),(14,'accepted',0.21,NULL,NULL);"
    "INSERT INTO runs VALUES(1,1,'2026-11-26T05:00:01Z','2026-11-26T05:00:02Z','hostA','ok',''),"
    "(2,8,'2026-11-26T05:00:01Z','2026-11-26T05:00:02Z','hostA','failed','killed'),"
    "(3,8,'2026-11-26T05:01:01Z','2026-11-26T05:01:09Z','hostB','ok','');";
/* clang-format on */

static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    unlink(path);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL, why[512];
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    snprintf(why, sizeof why, "%s", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    if (rc != SQLITE_OK)
        fail_msg("fixture SQL: %s", why);
}

void fixture_db_create(const char *path)
{
    char sql[sizeof schema_sql + sizeof points_sql];
    snprintf(sql, sizeof sql, "%s%s", schema_sql, points_sql);
    exec_sql(path, sql);
}

void fixture_db_create_empty(const char *path)
{
    exec_sql(path, schema_sql);
}

long fixture_file_head(const char *path, unsigned char *head, size_t n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, n, f), n);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    return size;
}
