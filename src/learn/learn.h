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

/* The round limits every evaluation asks besides its log-uniform draws. */
#define GPUEST_LEARN_APPROX_NROUND 5
extern const double gpuest_learn_approx_round_limits[GPUEST_LEARN_APPROX_NROUND];

/* A tolerant check, reported beside the strict one: error <= limit * (1 + tolerance). */
#define GPUEST_LEARN_APPROX_TOLERANCE 0.01
int gpuest_learn_approx_within(double error, double limit);

/* The label of a (dataset, limit) query: the largest level whose measured error is at most
 * the limit (strictly, no tolerance), or 0 bits when even 4 bits exceed it. As a function of
 * the limit it is a step function. */
int gpuest_learn_approx_label(const gpuest_learn_approx_set_t *s, double limit);

/* The 4 network inputs: log2 of the size, log10 condition number, constraint, and the
 * log-odds of the limit, log10(max(E, 1e-9)) - log10(max(1 - E, 1e-4)). */
void gpuest_learn_approx_features(double size, double log10_cond, double constraint, double error, double x[4]);

/* Which factors a network sees besides the limit (thesis 5.1 chose them per application:
 * Kmeans size and clusters, Gaussian the condition number, LUD the size, others none).
 * A factor left out is fed as a constant. */
enum {
    GPUEST_LEARN_INPUT_SIZE = 1,
    GPUEST_LEARN_INPUT_COND = 2,
    GPUEST_LEARN_INPUT_CONSTRAINT = 4,
    GPUEST_LEARN_INPUT_ALL = 7,
};

typedef struct {
    unsigned hidden;
    unsigned epochs_rprop, epochs_incremental;
    double learning_rate;      /* incremental back-propagation (thesis: 0.01) */
    double margin;             /* extra factor on the estimated errors: a level is answered only
                                * for limits >= margin x its estimate (1 = none, the default) */
    double threshold;          /* decision threshold tau in (0, 1): the network's probability that a
                                * level is safe must be >= tau at the limit and every larger one;
                                * train() stores it, calibrate() replaces it */
    unsigned inputs;           /* GPUEST_LEARN_INPUT_* mask (the limit is always an input) */
    unsigned limits_per_set;   /* training: limits drawn log-uniformly per dataset */
    uint64_t seed;
} gpuest_learn_approx_opts_t;

void gpuest_learn_approx_defaults(gpuest_learn_approx_opts_t *o);

typedef struct {
    gpuest_learn_algo_t algo;  /* the algorithm kept */
    double train_accuracy;     /* share of training (query, level) outputs on the right side of 0.5 */
    double train_accuracy_other; /* the same for the other algorithm's network */
    double mse;
    size_t rows;               /* training queries */
} gpuest_learn_approx_report_t;

/* Trains one network with 5 sigmoid outputs, output l = the probability that level l's error is
 * within the limit. Queries per dataset: limits drawn log-uniformly (opts->limits_per_set) from a
 * tenth of the smallest positive error to the largest, the round limits, and every measured
 * positive error and 3 % below it (the steps of the label). Target of output l: error[l] <= limit.
 * Trained with RPROP and incremental back-propagation from the same seeded weights, keeping the
 * one more often right on its training queries (ties: lower MSE). Metadata stored: threshold,
 * margin, inputs, the smallest 4-bit error, the largest error and the worst error of every level
 * (worst_4 ... worst_20, the lookup baseline). */
gpuest_err gpuest_learn_approx_train(const gpuest_learn_approx_set_t *sets, size_t nsets,
                                     const gpuest_learn_approx_opts_t *o, gpuest_learn_net_t **out,
                                     gpuest_learn_approx_report_t *report, gpuest_error_t *err);

/* Warnings of a prediction (bit mask): the query lies outside what the network was trained on. */
enum {
    GPUEST_LEARN_WARN_SIZE = 1,
    GPUEST_LEARN_WARN_COND = 2,
    GPUEST_LEARN_WARN_CONSTRAINT = 4,
    GPUEST_LEARN_WARN_ERROR_LOW = 8,   /* limit below every 4-bit error seen in training */
    GPUEST_LEARN_WARN_ERROR_HIGH = 16,
};

/* The network's error estimate for every level at these factors: est[l] is the smallest limit
 * from which the network rates level l safe with probability >= p at that limit and at every
 * larger one (0: safe even at a zero limit; at most 1, the largest normalized error, where every
 * level is safe). p <= 0 takes the model's own
 * threshold and multiplies by its margin: the limits from which predict answers each level.
 * p = 0.5 gives the median estimate of the error. */
void gpuest_learn_approx_errors(const gpuest_learn_net_t *net, double size, double log10_cond, double constraint,
                                double p, double est[GPUEST_LEARN_APPROX_LEVELS]);

/* Largest safe number of bits for a user limit (0 = do not approximate): the largest level
 * whose conservative estimate (gpuest_learn_approx_errors with p <= 0) is at most the limit.
 * Monotone in the limit by construction. */
int gpuest_learn_approx_predict(const gpuest_learn_net_t *net, double size, double log10_cond, double constraint,
                                double max_error, unsigned *warnings);

/* The per-application lookup baseline stored with a model: the largest level whose worst
 * training error is at most the limit (0 if none). */
int gpuest_learn_approx_lookup(const gpuest_learn_net_t *net, double max_error);

/* Re-runs dataset s at `bits` and returns its real error (eval's violation check). */
typedef gpuest_err (*gpuest_learn_approx_rerun_fn)(void *ctx, const gpuest_learn_approx_set_t *s, int bits,
                                                  double *error, gpuest_error_t *err);

typedef struct {
    size_t datasets, folds, queries;
    size_t correct, violations, strict_violations, safe_but_low;
    double accuracy, violation_rate;   /* violation: real error not within the limit (1 % tolerance) */
    double strict_violation_rate;      /* real error > limit, no tolerance: the figure the targets use */
    size_t reruns;             /* application runs made for the violation check */
} gpuest_learn_approx_eval_t;

/* The queries of an evaluation: for every dataset, `per_set` limits drawn log-uniformly between
 * the smallest positive and the largest error measured over all the sets (a generator seeded
 * with `seed`), then the round limits. limits has nsets * (per_set + GPUEST_LEARN_APPROX_NROUND)
 * entries, dataset-major. */
gpuest_err gpuest_learn_approx_draw_limits(const gpuest_learn_approx_set_t *sets, size_t nsets, unsigned per_set,
                                           uint64_t seed, double *limits, gpuest_error_t *err);

/* Held-out evaluation of a trained model on datasets it never saw, at the limits drawn above:
 * accuracy (answer == label) and violations of the network (net_out) and of the lookup
 * baseline (lookup_out, may be NULL). Real errors come from rerun (or the stored ones if NULL).
 * progress (may be NULL) counts the datasets done. */
gpuest_err gpuest_learn_approx_test(const gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets,
                                    size_t nsets, unsigned per_set, uint64_t seed,
                                    gpuest_learn_approx_rerun_fn rerun, void *ctx,
                                    gpuest_learn_approx_eval_t *net_out, gpuest_learn_approx_eval_t *lookup_out,
                                    gpuest_progress_t *progress, gpuest_error_t *err);

/* Chooses the model's threshold on a validation set (neither training nor test data): the
 * smallest tau of a fixed grid whose strict violation rate on the validation queries (limits
 * drawn with `seed`) is at most max_violation; the largest grid value if none is. Stores it in
 * the model and returns it with its validation figures. */
gpuest_err gpuest_learn_approx_calibrate(gpuest_learn_net_t *net, const gpuest_learn_approx_set_t *sets, size_t nsets,
                                         unsigned per_set, uint64_t seed, double max_violation, double *threshold,
                                         gpuest_learn_approx_eval_t *valid_out, gpuest_error_t *err);

/* k-fold cross-validation with folds split by dataset: for each fold a network is trained on
 * the other folds (threshold from o) and tested on the held-out fold as gpuest_learn_approx_test
 * does (limits drawn with o->seed, per_set per dataset). */
gpuest_err gpuest_learn_approx_eval(const gpuest_learn_approx_set_t *sets, size_t nsets, unsigned folds,
                                    const gpuest_learn_approx_opts_t *o, gpuest_learn_approx_rerun_fn rerun,
                                    void *ctx, gpuest_learn_approx_eval_t *out, gpuest_progress_t *progress,
                                    gpuest_error_t *err);

/* Loads an approximation predictor (gpuest_learn_net_load with its shape) and checks the metadata
 * its decisions read (inputs, threshold, margin): ECORRUPT naming the scaling file's line. */
gpuest_err gpuest_learn_approx_load(const char *net_path, const char *scale_path, gpuest_learn_net_t **out,
                                    gpuest_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
