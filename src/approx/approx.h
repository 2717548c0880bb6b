/* approx.h: floating-point applications run with mantissa truncation, their error metrics and
 * seeded dataset generators (packet compression thesis, sections 3.2, 5.1 and 6.5, Table 6.3). */
#ifndef GPUEST_APPROX_H
#define GPUEST_APPROX_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h" /* gpuest_err, gpuest_error_t, gpuest_progress_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- applications */

typedef enum {
    GPUEST_APPROX_KMEANS,
    GPUEST_APPROX_LUD,
    GPUEST_APPROX_GAUSSIAN,
    GPUEST_APPROX_ATAX,
    GPUEST_APPROX_BICG,
    GPUEST_APPROX_2DCONV,
    GPUEST_APPROX_SCALARPROD,
    GPUEST_APPROX_SRAD2,
    GPUEST_APPROX_HYBRIDSORT,
    GPUEST_APPROX_NAPPS
} gpuest_approx_app_t;

/* The approximation levels of the thesis: 4, 8, 12, 16 and 20 truncated mantissa bits. */
#define GPUEST_APPROX_NLEVELS 5
extern const int gpuest_approx_levels[GPUEST_APPROX_NLEVELS];

/* What an application is and which input factors it has. Ranges: the _min/_max pairs are
 * what the application accepts; the collect_ ones are what `collect` samples by default
 * (the range users are expected to ask about). */
typedef struct {
    const char *name;           /* "kmeans", "lud", ... */
    const char *metric;         /* primary error metric (the one the predictor learns) */
    const char *metric2;        /* a second metric also recorded, or NULL (LUD: nrmse) */
    const char *size_meaning;   /* "instances", "side", "elements", "elements per vector" */
    long size_min, size_max;
    long collect_size_min, collect_size_max;
    int uses_cond;              /* input is a matrix with a chosen condition number */
    int uses_constraint;        /* an application constraint exists (Kmeans: clusters) */
    long constraint_min, constraint_max;
    long collect_constraint_min, collect_constraint_max;
    int default_datasets;       /* datasets `collect` generates by default */
} gpuest_approx_info_t;

const gpuest_approx_info_t *gpuest_approx_info(gpuest_approx_app_t app);
/* Looks an application up by name; unknown names give GPUEST_ENOKEY listing the valid ones. */
gpuest_err gpuest_approx_find(const char *name, gpuest_approx_app_t *out, gpuest_error_t *err);

/* Condition numbers generated and accepted (log10). */
#define GPUEST_APPROX_COND_MIN 0.0
#define GPUEST_APPROX_COND_MAX 7.0
#define GPUEST_APPROX_COLLECT_COND_MIN 1.0
#define GPUEST_APPROX_COLLECT_COND_MAX 6.0

/* ---------------------------------------------------------------- datasets */

/* Factors of one dataset. log10_cond is ignored unless the app uses_cond,
 * constraint unless it uses_constraint. */
typedef struct {
    long size;
    double log10_cond;
    long constraint;
} gpuest_approx_params_t;

typedef struct gpuest_approx_dataset_s gpuest_approx_dataset_t;

/* Generates a dataset from its factors and a seed (same seed -> same data, bit for bit).
 * Out-of-range factors give GPUEST_ERANGE naming the factor and its range. */
gpuest_err gpuest_approx_dataset_create(gpuest_approx_app_t app, const gpuest_approx_params_t *params, uint64_t seed,
                                        gpuest_approx_dataset_t **out, gpuest_error_t *err);
void gpuest_approx_dataset_destroy(gpuest_approx_dataset_t *ds);
/* log10 of the condition number of the generated matrix as stored (float32), measured with
 * GSL: its SVD when the side is at most GPUEST_APPROX_SVD_MAX_SIDE, else its symmetric
 * eigensolver (the matrices are symmetric, so singular values = |eigenvalues|).
 * 0 for apps without a matrix factor. */
double gpuest_approx_dataset_log10_cond(const gpuest_approx_dataset_t *ds);
/* 1 if the value above came from the SVD, 0 otherwise. */
int gpuest_approx_dataset_cond_measured(const gpuest_approx_dataset_t *ds);
#define GPUEST_APPROX_SVD_MAX_SIDE 384

/* Runs the application with `bits` truncated mantissa bits (0 = exact) and compares it
 * with the exact run (computed once per dataset and cached). errors[0] is the primary
 * metric, errors[1] the second metric (NaN if the app has none). Errors lie in [0, 1]. */
gpuest_err gpuest_approx_measure(gpuest_approx_dataset_t *ds, int bits, double errors[2], gpuest_error_t *err);

/* ---------------------------------------------------------------- error metrics
 * Every metric is normalized to [0, 1] as in the thesis. */

/* Mean relative error; each element's relative error |a-e|/|e| is capped at 1 (an exact
 * value of 0 counts 0 if the approximation is 0 too, else 1). */
double gpuest_approx_mre(const float *exact, const float *approx, size_t n);
/* Root mean square error divided by the exact output's range (max - min), capped at 1.
 * A constant exact output uses its magnitude instead of the range. */
double gpuest_approx_nrmse(const float *exact, const float *approx, size_t n);
/* max |a - e| / max |e|, capped at 1. */
double gpuest_approx_linf(const float *exact, const float *approx, size_t n);
/* 1 - harmonic mean of pairwise precision and recall of cluster membership: pairs of
 * points that share a cluster in the approximate run vs. in the exact run. Labels in [0, k). */
double gpuest_approx_cluster_error(const int *exact, const int *approx, size_t n, int k);

/* ---------------------------------------------------------------- collection */

typedef struct {
    int datasets;
    uint64_t seed;
    long size_min, size_max;      /* sampled log-uniformly */
    double cond_min, cond_max;    /* sampled uniformly (apps with uses_cond) */
    long constraint_min, constraint_max; /* sampled uniformly (apps with uses_constraint) */
} gpuest_approx_collect_opts_t;

void gpuest_approx_collect_defaults(gpuest_approx_app_t app, gpuest_approx_collect_opts_t *opts);

/* One row of a collected CSV (data/approx/<app>.csv). */
typedef struct {
    uint32_t dataset;      /* index of the dataset within the file */
    uint64_t seed;         /* the dataset's own seed: regenerates it */
    long size;
    double cond_target;    /* the requested log10 condition number (regeneration) */
    double log10_cond;     /* the measured one (the model input) */
    long constraint;
    char metric[16];
    double error;
    int bits;
} gpuest_approx_record_t;

#define GPUEST_APPROX_CSV_COLUMNS 9
extern const char *const gpuest_approx_csv_header[GPUEST_APPROX_CSV_COLUMNS];

/* Runs the application exact and at every level on opts->datasets datasets and writes
 * the CSV atomically. Dataset i's factors and seed come from opts->seed alone. */
gpuest_err gpuest_approx_collect(gpuest_approx_app_t app, const gpuest_approx_collect_opts_t *opts, const char *path,
                                 gpuest_progress_t *progress, gpuest_error_t *err);
/* Reads a collected CSV; *records is malloc'd (caller frees). Errors name path:line. */
gpuest_err gpuest_approx_read_csv(const char *path, gpuest_approx_record_t **records, size_t *count,
                                  gpuest_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
