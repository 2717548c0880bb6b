/* sweep.h: design-space sweeps: the spec (INI), its expansion into design points, the evaluation
 * of one point in any mode, the SQLite store (db_schema.h) and the master/worker loop that hands
 * points to local worker processes or to Open MPI ranks. docs/sweep.md describes the spec format
 * and the database. */
#ifndef GPUEST_SWEEP_H
#define GPUEST_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ spec (spec.c) */
typedef enum {
    GPUEST_SWEEP_ESTIMATE = 0, /* calibrated analytical estimate (models/calibrations) */
    GPUEST_SWEEP_SAMPLE = 1,   /* sampled detailed simulation with intervals */
    GPUEST_SWEEP_SIMULATE = 2, /* full detailed simulation */
    GPUEST_SWEEP_NOC = 3       /* network alone under synthetic traffic (gpuest noc) */
} gpuest_sweep_mode_t;

typedef enum {
    GPUEST_SWEEP_GRID = 0,   /* every combination of the axes' values */
    GPUEST_SWEEP_RANDOM = 1, /* `points` independent uniform draws */
    GPUEST_SWEEP_LHS = 2,    /* Latin hypercube of `points` rows */
    GPUEST_SWEEP_SOBOL = 3   /* the first `points` points of GSL's Sobol sequence */
} gpuest_sweep_design_t;

const char *gpuest_sweep_mode_name(gpuest_sweep_mode_t m);
gpuest_err gpuest_sweep_mode_parse(const char *s, gpuest_sweep_mode_t *out);

#define GPUEST_SWEEP_MAX_AXES 32
#define GPUEST_SWEEP_KEY_MAX 80
#define GPUEST_SWEEP_VALUE_MAX 80

/* One axis: a list of values (a stepped range is expanded into one), or a continuous range
 * (only for the sampling designs). */
typedef struct {
    char key[GPUEST_SWEEP_KEY_MAX]; /* "section.key" (noc mode also: traffic.rate, traffic.packet_flits) */
    int line;                       /* spec line that defines it */
    int continuous;                 /* 1: lo..hi without a step */
    int integer;                    /* continuous: both ends are integers -> integer values */
    double lo, hi;
    char **values; /* list: nvalues strings */
    int nvalues;
} gpuest_sweep_axis_t;

/* A list-valued setting of [sweep] (workloads, scales, seeds, techniques). */
typedef struct {
    char **items;
    int n;
    int line;
} gpuest_sweep_list_t;

typedef struct {
    char origin[256];  /* spec path, for messages */
    char *text;        /* spec text as read */
    char hash[17];     /* FNV-1a 64 of text, hex */
    char preset[GPUEST_NAME_MAX];
    char config_file[512]; /* base INI (relative to the spec's folder), "" none */
    int mode_given;        /* the spec names a mode */
    gpuest_sweep_mode_t mode;
    gpuest_sweep_design_t design;
    int design_line;
    long points; /* rows of a sampling design */
    uint64_t design_seed;
    double confidence;          /* estimate / sample intervals */
    char calibrations[512];     /* estimate: calibration folder ("" = models/calibrations) */
    gpuest_sweep_list_t workloads, scales, seeds, techniques;
    gpuest_sweep_list_t sets;   /* [set] fixed "section.key=value" */
    int *set_lines;
    gpuest_sweep_axis_t axes[GPUEST_SWEEP_MAX_AXES];
    int naxes;
    /* noc mode: [noc] traffic pattern, packet size, measurement window */
    char traffic[16];
    int packet_flits;
    int sample_period;
    double rate; /* when traffic.rate is not an axis */
} gpuest_sweep_spec_t;

/* Parses spec text (origin names it in messages; relative paths are taken from origin's folder).
 * Errors name origin:line and the expectation (GPUEST_EPARSE / EINVAL / ENOKEY: exit 2). */
gpuest_err gpuest_sweep_spec_parse(const char *text, const char *origin, gpuest_sweep_spec_t *spec,
                                   gpuest_error_t *err);
gpuest_err gpuest_sweep_spec_load(const char *path, gpuest_sweep_spec_t *spec, gpuest_error_t *err);
void gpuest_sweep_spec_free(gpuest_sweep_spec_t *spec);

/* ------------------------------------------------------------ design (design.c) */
/* Unit-cube rows of the sampling designs: rows x dims values in [0, 1), row-major, from one
 * seeded generator (random, lhs) or GSL's Sobol generator (dims <= 40). */
gpuest_err gpuest_sweep_design_unit(gpuest_sweep_design_t d, long rows, int dims, uint64_t seed, double *out,
                                    gpuest_error_t *err);
/* The axis value a unit coordinate u selects (list: value floor(u * n); continuous: lo + u (hi -
 * lo), integers rounded down over [lo, hi]). */
void gpuest_sweep_axis_value(const gpuest_sweep_axis_t *a, double u, char *buf, size_t cap);

/* ------------------------------------------------------------ points (points.c) */
typedef struct {
    long id;                       /* index in the design, 0..N-1 */
    char hash[17], design_hash[17];
    char preset[GPUEST_NAME_MAX];
    char workload[GPUEST_NAME_MAX];
    char scale[16];
    uint64_t seed;
    char technique[160];           /* "compression=bdi", "none" */
    gpuest_sweep_mode_t mode;
    char **axis_values;            /* one per spec axis */
    char *config;                  /* sorted "section.key=value" lines */
    gpuest_config_t cfg;           /* resolved machine */
    double rate;                   /* noc mode: offered rate */
    int packet_flits;              /* noc mode: packet size (0: default) */
} gpuest_sweep_point_t;

/* Points one sweep may hold (each keeps its resolved machine in memory, about 2.4 KB). */
#define GPUEST_SWEEP_MAX_POINTS 1000000

/* Every point of spec in mode, in a fixed order: design rows, then techniques, workloads,
 * scales, seeds (innermost). A value a key refuses or a machine that fails validation is an
 * error naming the spec line. */
gpuest_err gpuest_sweep_points(const gpuest_sweep_spec_t *spec, gpuest_sweep_mode_t mode, gpuest_sweep_point_t **out,
                               size_t *n, gpuest_error_t *err);
void gpuest_sweep_points_free(gpuest_sweep_point_t *p, size_t n);
/* 64-bit FNV-1a, as 16 hex digits. */
void gpuest_sweep_hash_hex(const char *text, char out[17]);

/* ------------------------------------------------------------ evaluation (eval.c) */
#define GPUEST_SWEEP_STAT_NAME 48
typedef struct {
    char name[GPUEST_SWEEP_STAT_NAME]; /* lower case: ipc, amat, ... */
    double value, lo, hi;              /* lo, hi: NaN without an interval */
} gpuest_sweep_stat_t;

#define GPUEST_SWEEP_MAX_STATS 64
#define GPUEST_SWEEP_ERROR_MAX 512
typedef struct {
    long point;
    int ok;                          /* 0: error holds why */
    char error[GPUEST_SWEEP_ERROR_MAX];
    char start[32], end[32];         /* UTC, ISO 8601 */
    char host[64];
    int nstats;
    gpuest_sweep_stat_t stats[GPUEST_SWEEP_MAX_STATS];
} gpuest_sweep_result_t;

/* Per-worker state (calibrations read once per workload). */
typedef struct gpuest_sweep_evaluator_s gpuest_sweep_evaluator_t;
gpuest_err gpuest_sweep_evaluator_create(const gpuest_sweep_spec_t *spec, const char *model_dir,
                                         gpuest_sweep_evaluator_t **out, gpuest_error_t *err);
void gpuest_sweep_evaluator_destroy(gpuest_sweep_evaluator_t *ev);
/* Evaluates one point; a failure of the point itself is reported in out (ok = 0), not returned. */
void gpuest_sweep_evaluate(gpuest_sweep_evaluator_t *ev, const gpuest_sweep_point_t *p, gpuest_sweep_result_t *out);

/* Text form of a result, as workers send it to the master (exact: %a doubles). */
char *gpuest_sweep_result_encode(const gpuest_sweep_result_t *r, size_t *len);
gpuest_err gpuest_sweep_result_decode(const char *buf, size_t len, gpuest_sweep_result_t *r, gpuest_error_t *err);

/* ------------------------------------------------------------ database (db.c) */
typedef struct gpuest_sweep_db_s gpuest_sweep_db_t;
/* Opens (creating) path in WAL mode with the schema of db_schema.h. A database made from
 * another spec or in another mode is refused (GPUEST_EMISMATCH, message says which). */
gpuest_err gpuest_sweep_db_open(const char *path, const gpuest_sweep_spec_t *spec, gpuest_sweep_mode_t mode,
                                gpuest_sweep_db_t **out, gpuest_error_t *err);
void gpuest_sweep_db_close(gpuest_sweep_db_t *db);
/* done[i] = 1 for each point i < n that has a run with status 'ok'. A stored point whose hash is
 * not pts[i].hash (the same spec expanded differently by another gpuest) is GPUEST_EMISMATCH. */
gpuest_err gpuest_sweep_db_done(gpuest_sweep_db_t *db, const gpuest_sweep_point_t *pts, size_t n,
                                unsigned char *done, gpuest_error_t *err);
/* One transaction: the point, its axis values, its results (replacing none: a point is stored once)
 * and its run row. */
gpuest_err gpuest_sweep_db_store(gpuest_sweep_db_t *db, const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *p,
                                 const gpuest_sweep_result_t *r, gpuest_error_t *err);

/* ------------------------------------------------------------ running (runner.c, local.c, mpi.c) */
/* What the master needs from a transport: messages from any worker, and point ids to one. A
 * worker's first message is empty (ready). */
typedef struct {
    void *ctx;
    int nworkers;
    /* Blocks until a worker sends; *msg malloc'd (NULL, len 0: ready). Returns GPUEST_EIO when the
     * worker died (*worker set, *msg NULL). */
    gpuest_err (*recv)(void *ctx, int *worker, char **msg, size_t *len, gpuest_error_t *err);
    /* point >= 0: evaluate it; -1: stop. */
    gpuest_err (*send)(void *ctx, int worker, long point, gpuest_error_t *err);
} gpuest_sweep_transport_t;

typedef void (*gpuest_sweep_done_fn)(void *ctx, size_t done, size_t total);

/* Hands out every point not yet done and stores each result in db as it arrives. on_done (may be
 * NULL) after each stored point. *failed counts points stored with an error. */
gpuest_err gpuest_sweep_master(gpuest_sweep_transport_t *t, gpuest_sweep_db_t *db, const gpuest_sweep_spec_t *spec,
                               const gpuest_sweep_point_t *pts, size_t n, const unsigned char *done,
                               gpuest_sweep_done_fn on_done, void *done_ctx, size_t *failed, gpuest_error_t *err);

/* Local: forks jobs worker processes that evaluate points (master in this process). */
gpuest_err gpuest_sweep_run_local(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                  gpuest_sweep_db_t *db, const unsigned char *done, int jobs, const char *model_dir,
                                  gpuest_sweep_done_fn on_done, void *done_ctx, size_t *failed, gpuest_error_t *err);

/* Open MPI (only when built with it: gpuest_sweep_mpi_available()). */
int gpuest_sweep_mpi_available(void);
/* 1 when this process was started by mpirun (Open MPI's environment). */
int gpuest_sweep_mpi_launched(void);
gpuest_err gpuest_sweep_mpi_init(int *rank, int *size, gpuest_error_t *err);
void gpuest_sweep_mpi_finalize(void);
/* Ends every rank (a fatal error on rank 0 while the others wait for points). */
void gpuest_sweep_mpi_abort(int code);
/* Rank 0 broadcasts the spec text, its origin and the mode to every rank (others receive them into
 * *text, malloc'd, origin, *mode); rank 0 with *text NULL tells the others to give up (EINVAL). */
gpuest_err gpuest_sweep_mpi_share(char **text, char *origin, size_t origin_cap, int *mode, gpuest_error_t *err);
/* Rank 0: master over ranks 1..size-1. */
gpuest_err gpuest_sweep_mpi_master(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                   gpuest_sweep_db_t *db, const unsigned char *done, gpuest_sweep_done_fn on_done,
                                   void *done_ctx, size_t *failed, gpuest_error_t *err);
/* Ranks > 0: evaluate what rank 0 hands out until told to stop. */
gpuest_err gpuest_sweep_mpi_worker(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                   const char *model_dir, gpuest_error_t *err);

/* ------------------------------------------------------------ export (export.c) */
/* Writes one CSV row per point (id, hash, preset, workload, scale, technique, seed, mode, the axes,
 * then value/lo/hi of every statistic) for the points matching where (an SQL expression over the
 * columns of points and the axis keys as columns of point_keys, NULL: all), atomically. With
 * path NULL, rows are handed to row_cb instead (a table on stdout). */
typedef gpuest_err (*gpuest_sweep_row_fn)(void *ctx, const char *const *fields, size_t n, gpuest_error_t *err);
gpuest_err gpuest_sweep_export(const char *db_path, const char *where, const char *csv_path, gpuest_sweep_row_fn row_cb,
                               void *ctx, size_t *rows, gpuest_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
