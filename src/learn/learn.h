/* learn.h: FANN neural-network wrappers (scaling, training, k-fold by group, save/load) and
 * the approximation-bit predictor of the packet compression thesis (section 5.1). */
#ifndef GPUEST_LEARN_H
#define GPUEST_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h" /* gpuest_err, gpuest_error_t, gpuest_rng_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ generic part */

/* A training set: rows of n_in inputs and n_out targets, and the group (dataset) each
 * row comes from, so that folds never split a group. Row-major, owned. */
typedef struct {
    size_t n_in, n_out;
    size_t rows, cap;
    double *x;         /* rows * n_in raw (unscaled) inputs */
    double *y;         /* rows * n_out targets in [0, 1] */
    uint32_t *group;   /* rows */
} gpuest_learn_data_t;

void gpuest_learn_data_init(gpuest_learn_data_t *d, size_t n_in, size_t n_out);
gpuest_err gpuest_learn_data_add(gpuest_learn_data_t *d, const double *x, const double *y, uint32_t group);
void gpuest_learn_data_free(gpuest_learn_data_t *d);

typedef enum {
    GPUEST_LEARN_RPROP,        /* FANN_TRAIN_RPROP (batch, adaptive steps) */
    GPUEST_LEARN_INCREMENTAL,  /* FANN_TRAIN_INCREMENTAL: back-propagation after every row */
} gpuest_learn_algo_t;

const char *gpuest_learn_algo_name(gpuest_learn_algo_t a);

typedef struct {
    gpuest_learn_algo_t algo;
    unsigned hidden;           /* neurons in the single hidden layer */
    unsigned epochs;           /* maximum epochs */
    double learning_rate;      /* incremental only (the thesis used 0.01) */
    double target_mse;         /* stop early below this mean square error */
    uint64_t seed;             /* initial weights and row order */
} gpuest_learn_train_opts_t;

void gpuest_learn_train_defaults(gpuest_learn_train_opts_t *o);

/* A trained network with its input scaling (min-max of the training inputs to [-1, 1])
 * and a few named numbers (metadata saved with it). */
typedef struct gpuest_learn_net_s gpuest_learn_net_t;

gpuest_err gpuest_learn_train(const gpuest_learn_data_t *d, const gpuest_learn_train_opts_t *o,
                              gpuest_learn_net_t **out, gpuest_error_t *err);
void gpuest_learn_net_destroy(gpuest_learn_net_t *net);
size_t gpuest_learn_net_inputs(const gpuest_learn_net_t *net);
size_t gpuest_learn_net_outputs(const gpuest_learn_net_t *net);
/* Runs the network on raw inputs x (scaled inside); y receives n_out outputs. */
void gpuest_learn_net_run(const gpuest_learn_net_t *net, const double *x, double *y);
/* Mean square error over a data set. */
double gpuest_learn_net_mse(const gpuest_learn_net_t *net, const gpuest_learn_data_t *d);
/* Input ranges seen in training (raw values). */
void gpuest_learn_net_input_range(const gpuest_learn_net_t *net, size_t i, double *min, double *max);

/* Metadata: up to GPUEST_LEARN_META_MAX named numbers (name: [a-z0-9_], < 32 chars). */
#define GPUEST_LEARN_META_MAX 32
gpuest_err gpuest_learn_net_set_meta(gpuest_learn_net_t *net, const char *name, double value);
/* Returns 1 and sets *value if present, else 0. */
int gpuest_learn_net_get_meta(const gpuest_learn_net_t *net, const char *name, double *value);

/* Saves the network (FANN's format) to net_path and its scaling + metadata + a checksum
 * of the network file (CSV) to scale_path; both written atomically. */
gpuest_err gpuest_learn_net_save(const gpuest_learn_net_t *net, const char *net_path, const char *scale_path,
                                 gpuest_error_t *err);
/* Loads a pair written by save. A missing file, a damaged one (bad header, checksum
 * mismatch, FANN refusing it) or one with another shape than n_in x n_out gives a
 * clear error naming the file; FANN's own messages are kept off stderr. */
gpuest_err gpuest_learn_net_load(const char *net_path, const char *scale_path, size_t n_in, size_t n_out,
                                 gpuest_learn_net_t **out, gpuest_error_t *err);

/* Assigns every row to one of k folds so that all rows of a group share a fold; groups are
 * shuffled with the seed and dealt round-robin (fold sizes differ by at most one group).
 * fold_of_row has d->rows entries. k must be in [2, number of groups]. */
gpuest_err gpuest_learn_kfold(const gpuest_learn_data_t *d, unsigned k, uint64_t seed, unsigned *fold_of_row,
                              gpuest_error_t *err);

/* ================================================================ approximation-bit predictor */

/* One dataset of an application as the predictor sees it: its factors and the error
 * measured at each approximation level (4, 8, 12, 16, 20 bits). */
#define GPUEST_LEARN_APPROX_LEVELS 5
extern const int gpuest_learn_approx_bits[GPUEST_LEARN_APPROX_LEVELS];

typedef struct {
    uint32_t dataset;
    double size, log10_cond, constraint;
    double error[GPUEST_LEARN_APPROX_LEVELS];
} gpuest_learn_approx_set_t;

/* Errors that differ by less than this (relative) are the same error: an error is within a
 * limit when error <= limit * (1 + tolerance). It only matters where errors saturate (two
 * levels at 0.8701 and 0.8705); error bands of neighbouring levels lie ~16x apart. */
#define GPUEST_LEARN_APPROX_TOLERANCE 0.01
int gpuest_learn_approx_within(double error, double limit);

/* The label of a (dataset, limit) query: the largest level whose measured error is within
 * the limit, or 0 bits when even 4 bits exceed it. */
int gpuest_learn_approx_label(const gpuest_learn_approx_set_t *s, double limit);

/* The 4 network inputs (thesis: size, log10 condition number, constraint, error), made
 * friendlier to the network: log2 of the size and the log-odds of the error,
 * log10(max(E, 1e-9)) - log10(max(1 - E, 1e-4)). */
void gpuest_learn_approx_features(double size, double log10_cond, double constraint, double error, double x[4]);

typedef struct {
    unsigned hidden;
    unsigned epochs_rprop, epochs_incremental;
    double learning_rate;      /* incremental back-propagation (thesis: 0.01) */
    double margin;             /* conservative factor: predict(E) = min(class(E), class(E / margin));
                                * 1 = off (the default: it cost more accuracy than it saved) */
    double confidence;         /* step-down rule, 0 = off: an answer whose output is below this, or
                                * whose next lower level scores at least this times its output,
                                * is replaced by that lower level (per application, see approx.h) */
    uint64_t seed;
} gpuest_learn_approx_opts_t;

void gpuest_learn_approx_defaults(gpuest_learn_approx_opts_t *o);

typedef struct {
    gpuest_learn_algo_t algo;  /* the algorithm kept */
    double train_accuracy;     /* of the kept network on its training queries */
    double train_accuracy_other; /* of the other algorithm's network */
    double mse;
} gpuest_learn_approx_report_t;

/* Trains one network on queries built from every dataset and level: limits at the level's
 * measured error (the thesis' rows), a quarter of it and twice it, each with the one-hot of
 * its label as target; with RPROP and with incremental back-propagation, keeping the one with
 * the higher accuracy on the thesis' rows (ties: lower MSE). Stores the margin, the confidence
 * (if on), the smallest 4-bit error and the largest error as metadata (the scaling keeps the
 * factor ranges). */
gpuest_err gpuest_learn_approx_train(const gpuest_learn_approx_set_t *sets, size_t nsets,
                                     const gpuest_learn_approx_opts_t *o, gpuest_learn_net_t **out,
                                     gpuest_learn_approx_report_t *report, gpuest_error_t *err);

/* Warnings of a prediction (bit mask): the query lies outside what the network was trained on. */
enum {
    GPUEST_LEARN_WARN_SIZE = 1,
    GPUEST_LEARN_WARN_COND = 2,
    GPUEST_LEARN_WARN_CONSTRAINT = 4,
    GPUEST_LEARN_WARN_ERROR_LOW = 8,   /* limit below every trained error: 4 bits may be too many */
    GPUEST_LEARN_WARN_ERROR_HIGH = 16,
};

/* Largest safe number of bits for a user limit (0 = do not approximate). */
int gpuest_learn_approx_predict(const gpuest_learn_net_t *net, double size, double log10_cond, double constraint,
                                double max_error, unsigned *warnings);

/* Re-runs dataset s at `bits` and returns its real error (eval's violation check). */
typedef gpuest_err (*gpuest_learn_approx_rerun_fn)(void *ctx, const gpuest_learn_approx_set_t *s, int bits,
                                                  double *error, gpuest_error_t *err);

typedef struct {
    size_t datasets, folds, queries;
    size_t correct, violations, strict_violations, safe_but_low;
    double accuracy, violation_rate;   /* violation: real error not within the limit */
    double strict_violation_rate;      /* real error > limit, no tolerance */
    size_t reruns;             /* application runs made for the violation check */
} gpuest_learn_approx_eval_t;

/* k-fold cross-validation with folds split by dataset: for each fold a network is trained on
 * the other folds and queried with the held-out datasets' levels (limit = measured error).
 * Accuracy = share of queries answered with the label; violation = share whose real error at
 * the predicted bits (from rerun, or the stored measurement if rerun is NULL) is not within
 * the limit (gpuest_learn_approx_within); strict violation = real error > limit. */
gpuest_err gpuest_learn_approx_eval(const gpuest_learn_approx_set_t *sets, size_t nsets, unsigned folds,
                                    const gpuest_learn_approx_opts_t *o, gpuest_learn_approx_rerun_fn rerun,
                                    void *ctx, gpuest_learn_approx_eval_t *out, gpuest_progress_t *progress,
                                    gpuest_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
