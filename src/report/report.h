/* report.h: reading sweep results databases (SQLite), figures through gnuplot, the HTML report.
 *
 * The database is the one `gpuest sweep` writes (tables meta, points, point_keys,
 * results, runs; see docs/sweep-report.md). This module only reads it. Figures are
 * built in two steps so that the numbers can be checked apart from the drawing:
 * gpuest_figure_build computes the data file and the gnuplot commands, and
 * gpuest_figure_render hands them to gnuplot (pngcairo or svg terminal). */
#ifndef GPUEST_REPORT_H
#define GPUEST_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ database */
typedef struct {
    char *key, *value;
} gpuest_rdb_kv_t;

typedef struct {
    char *stat;
    double value, lo, hi;
    int has_interval; /* lo and hi are set */
} gpuest_rdb_result_t;

typedef struct {
    int64_t id;
    char *hash, *design_hash, *preset, *workload, *scale, *technique, *mode, *version;
    int64_t seed;
    char *config;          /* sorted "section.key=value" lines */
    gpuest_rdb_kv_t *keys; /* swept axes' values, sorted by key */
    size_t num_keys;
    gpuest_rdb_result_t *results; /* sorted by stat */
    size_t num_results;
    char *status, *host, *start, *end, *error; /* the point's last run ("" when none) */
    int source; /* 0: the database opened, n: the n-th merged into it (gpuest_rdb_merge) */
} gpuest_rdb_point_t;

typedef struct gpuest_rdb_s gpuest_rdb_t;

/* Loads a whole database (read only). A file that is not a gpuest results
 * database gives GPUEST_ECORRUPT naming the missing table or column. */
gpuest_err gpuest_rdb_open(const char *path, gpuest_rdb_t **out, gpuest_error_t *err);
void gpuest_rdb_close(gpuest_rdb_t *db);
/* Moves every point of other into db (other is closed, its meta dropped). gpuest sweep keeps
 * one mode per database, so an estimate sweep and a simulate sweep of the same designs are
 * two files; merged, their points pair by design_hash. */
gpuest_err gpuest_rdb_merge(gpuest_rdb_t *db, gpuest_rdb_t *other, gpuest_error_t *err);
/* Databases the points come from (1 + merged ones). */
int gpuest_rdb_num_sources(const gpuest_rdb_t *db);
size_t gpuest_rdb_num_points(const gpuest_rdb_t *db);
const gpuest_rdb_point_t *gpuest_rdb_point(const gpuest_rdb_t *db, size_t i);
/* meta value or NULL. */
const char *gpuest_rdb_meta(const gpuest_rdb_t *db, const char *key);
/* The point's result for stat, or NULL. */
const gpuest_rdb_result_t *gpuest_rdb_result(const gpuest_rdb_point_t *p, const char *stat);
/* The point's value of key: a swept axis, else a resolved configuration key
 * ("section.key"), else NULL. */
const char *gpuest_rdb_key_value(const gpuest_rdb_point_t *p, const char *key, char *buf, size_t cap);

/* ------------------------------------------------------------ figures */
typedef enum {
    GPUEST_FIG_IPC_BARS = 0,          /* normalized IPC per workload and technique */
    GPUEST_FIG_LATENCY_INJECTION = 1, /* noc points: latency against injection rate */
    GPUEST_FIG_EST_VS_SIM = 2,        /* estimate (with interval) against simulate, paired by design */
    GPUEST_FIG_STAT_VS_KEY = 3,       /* any statistic against any swept key */
} gpuest_figure_kind_t;

extern const char *const gpuest_figure_names[]; /* by kind, NULL-terminated */
gpuest_err gpuest_figure_find(const char *name, gpuest_figure_kind_t *out, gpuest_error_t *err);

typedef struct {
    gpuest_figure_kind_t kind;
    const char *stat; /* stat-vs-key, estimate-vs-simulate (default ipc) */
    const char *key;  /* stat-vs-key: the x axis */
    const char *mode; /* ipc-bars / stat-vs-key: only points of this mode (NULL: see docs) */
} gpuest_figure_spec_t;

typedef struct {
    char *data;   /* the data file handed to gnuplot */
    char *script; /* gnuplot commands after the terminal; DATAFILE stands for the data file's path */
    size_t rows;  /* data rows (points or bars) */
    char title[160];
} gpuest_figure_t;

/* Computes the figure's data and commands. No usable point: GPUEST_EINVAL naming
 * what the figure needs. */
gpuest_err gpuest_figure_build(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                               gpuest_error_t *err);
void gpuest_figure_free(gpuest_figure_t *fig);

/* 1 when a gnuplot program is on PATH. */
int gpuest_gnuplot_available(void);
/* Draws fig into out_path (.png: pngcairo, .svg: svg), written atomically and
 * checked (PNG signature / SVG root element). work_dir: where the data file
 * (figure.dat) and script (figure.gp) go and stay; NULL: a temporary folder,
 * removed afterwards. No gnuplot: GPUEST_EUNSUPPORTED. */
gpuest_err gpuest_figure_render(const gpuest_figure_t *fig, const char *out_path, const char *work_dir,
                                gpuest_error_t *err);

/* ------------------------------------------------------------ report */
typedef struct {
    size_t figures; /* drawn */
    size_t skipped; /* figures the data has nothing for, or no gnuplot */
    size_t rows;    /* table rows (points) */
    int have_gnuplot;
} gpuest_report_info_t;

/* Writes out_dir/index.html: one self-contained page (inline SVG figures, sortable
 * tables, each point's configuration, seed and the command that reproduces it).
 * db_paths: the database opened, then those merged into it (NULL-terminated), named on the page. */
gpuest_err gpuest_report_write(const gpuest_rdb_t *db, const char *const *db_paths, const char *out_dir,
                               gpuest_report_info_t *info, gpuest_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
