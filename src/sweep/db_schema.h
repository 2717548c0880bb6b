/* db_schema.h: the SQLite schema of a sweep database, shared by every reader and writer
 * (gpuest sweep writes it; gpuest results, plot and report read it). docs/sweep.md explains
 * each column. Columns or tables may be added; none of these may be renamed. */
#ifndef GPUEST_SWEEP_DB_SCHEMA_H
#define GPUEST_SWEEP_DB_SCHEMA_H

/* Bumped when a column or table is added; stored as meta 'schema'. */
#define GPUEST_SWEEP_SCHEMA_VERSION "1"

#define GPUEST_SWEEP_DB_SCHEMA                                                                                          \
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);\n"                                             \
    "CREATE TABLE IF NOT EXISTS points(\n"                                                                             \
    "  id INTEGER PRIMARY KEY,\n"                                                                                      \
    "  hash TEXT UNIQUE NOT NULL,\n"                                                                                   \
    "  design_hash TEXT NOT NULL,\n"                                                                                   \
    "  preset TEXT, workload TEXT, scale TEXT, technique TEXT, seed INTEGER, mode TEXT, version TEXT,\n"               \
    "  config TEXT NOT NULL);\n"                                                                                       \
    "CREATE TABLE IF NOT EXISTS point_keys(point_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT,\n"               \
    "  PRIMARY KEY(point_id, key));\n"                                                                                 \
    "CREATE TABLE IF NOT EXISTS results(point_id INTEGER NOT NULL, stat TEXT NOT NULL, value REAL, lo REAL, hi REAL,\n" \
    "  PRIMARY KEY(point_id, stat));\n"                                                                                \
    "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, point_id INTEGER NOT NULL, start TEXT, end TEXT,\n"       \
    "  host TEXT, status TEXT, error TEXT);\n"

#endif
