/* cmd_approx.c: the 'approx' subcommand: collect error datasets, train, predict bits, run apps, evaluate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "approx/approx.h"
#include "cli.h"
#include "commands.h"
#include "learn/learn.h"

#define CMD "approx"
#define NLEV GPUEST_APPROX_NLEVELS

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpuest approx <collect|train|predict|run|eval> [options]\n"
            "Approximation-bit predictor of DSM+APPROX (packet compression thesis, 5.1 and 6.5):\n"
            "FP applications run with the N lowest mantissa bits truncated on every access to\n"
            "approximable global memory, their errors, and one neural network per application\n"
            "that picks the largest N keeping the error under a limit.\n\n"
            "  collect --app A [--datasets N] [--seed S] [--size-min X --size-max Y] [--out FILE]\n"
            "      runs A exact and at 4/8/12/16/20 bits on N generated datasets;\n"
            "      writes data/approx/A.csv (dataset,seed,size,cond_target,log10_cond,constraint,\n"
            "      metric,error,bits)\n"
            "  train [--app A|all] [--seed S] [--valid-dir DIR] [--inputs thesis|all]\n"
            "      trains models/approx-A.net (+ approx-A.scale.csv) from data/approx/A.csv and\n"
            "      chooses its decision threshold on the validation datasets in DIR\n"
            "      (default data/approx/valid), never on test data\n"
            "  predict --app A --size S [--cond C] [--constraint K] --max-error E\n"
            "      prints the estimated error at every level, then the largest safe number of\n"
            "      bits (last line; 0 = do not approximate)\n"
            "  run --app A --size S [--cond C] [--constraint K] --bits N --seed X\n"
            "      runs A once on a fresh dataset; prints the measured error (last line)\n"
            "  eval [--app A|all] [--data-dir DIR] [--seed S] [--limits N] [--no-rerun] [--csv FILE]\n"
            "      tests the trained models on the datasets in DIR (collect them with a seed\n"
            "      never used in training): N limits per dataset drawn log-uniformly between the\n"
            "      smallest and largest measured errors (seed S) plus 1e-4, 1e-3, 1e-2, 0.05\n"
            "      and 0.1; accuracy and violation rate of the network and of the lookup\n"
            "      baseline, rerunning the application at the answered bits\n"
            "  eval --folds K [--app A|all] [--seed S] ...\n"
            "      k-fold cross-validation on the training datasets instead (folds by dataset)\n\n"
            "common options:\n"
            "  --data-dir DIR     where the CSVs live (default data/approx)\n"
            "  --model-dir DIR    where the models live (default models)\n"
            "  --margin M         train: answer a level only for limits >= M x its estimate\n"
            "                     (default 1)\n"
            "  --threshold T      train: fixed decision threshold in (0, 1) instead of the\n"
            "                     one chosen on the validation datasets; eval --folds: the\n"
            "                     threshold of the fold networks (default 0.9)\n"
            "  --hidden H, --epochs E  train/eval --folds: hidden neurons (default 32) and\n"
            "                     RPROP epochs (default 2000)\n"
            "  --inputs thesis|all  train/eval --folds: the factors the network sees besides the\n"
            "                     limit (default all: size, and the condition\n"
            "                     number or cluster count where the application has one)\n"
            "applications: kmeans lud gaussian atax bicg 2dconv scalarprod srad2 hybridsort\n"
            "--size is the side length for lud, gaussian, atax, bicg, 2dconv and srad2, the\n"
            "instance count for kmeans, elements per vector for scalarprod and elements for\n"
            "hybridsort; --cond is the log10 condition number (lud, gaussian); --constraint is\n"
            "the cluster count (kmeans).\n");
}

typedef struct {
    const char *sub, *app, *out, *csv;
    const char *data_dir, *model_dir, *valid_dir, *inputs;
    long datasets, folds, bits, constraint, size_min, size_max, size, limits, hidden, epochs;
    double cond, max_error, margin, threshold; /* threshold 0: chosen on the validation data */
    unsigned long long seed;
    int have_seed, have_size, have_cond, have_constraint, have_bits, have_max_error, no_rerun;
} opts_t;

/* The default folders are relative to the working directory; when gpuest runs
 * elsewhere they fall back to the source tree it was built from (the shipped
 * datasets and trained models). A folder given on the command line is kept. */
static const char *default_dir(const char *dir, const char *relative_default, const char *source_tree_dir)
{
    if (strcmp(dir, relative_default) != 0 || access(relative_default, F_OK) == 0)
        return dir;
    return access(source_tree_dir, F_OK) == 0 ? source_tree_dir : dir;
}

static int parse_opts(int argc, char **argv, opts_t *o)
{
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    memset(o, 0, sizeof *o);
    o->data_dir = "data/approx";
    o->model_dir = "models";
    o->valid_dir = "data/approx/valid";
    o->limits = 20;
    o->seed = 1;
    while (cli_args_next(&a)) {
        const char *v;
        if (!a.name) {
            if (o->sub)
                return cli_usage_error(CMD, "unexpected argument '%s'", a.value);
            o->sub = a.value;
            continue;
        }
        if (cli_args_is(&a, "help") || cli_args_is(&a, "h")) {
            usage(stdout);
            return -1;
        }
        if (cli_args_is(&a, "no-rerun")) {
            o->no_rerun = 1;
            continue;
        }
        if (!(v = cli_args_value(&a)))
            return 2;
        int rc = 0;
        if (cli_args_is(&a, "app"))
            o->app = v;
        else if (cli_args_is(&a, "out"))
            o->out = v;
        else if (cli_args_is(&a, "csv"))
            o->csv = v;
        else if (cli_args_is(&a, "data-dir"))
            o->data_dir = v;
        else if (cli_args_is(&a, "model-dir"))
            o->model_dir = v;
        else if (cli_args_is(&a, "valid-dir"))
            o->valid_dir = v;
        else if (cli_args_is(&a, "inputs")) {
            if (strcmp(v, "thesis") != 0 && strcmp(v, "all") != 0)
                return cli_usage_error(CMD, "--inputs must be 'thesis' or 'all', got '%s'", v);
            o->inputs = v;
        }
        else if (cli_args_is(&a, "hidden"))
            rc = cli_parse_int(CMD, a.name, v, 1, 64, &o->hidden);
        else if (cli_args_is(&a, "epochs"))
            rc = cli_parse_int(CMD, a.name, v, 1, 100000, &o->epochs);
        else if (cli_args_is(&a, "limits"))
            rc = cli_parse_int(CMD, a.name, v, 1, 10000, &o->limits);
        else if (cli_args_is(&a, "datasets"))
            rc = cli_parse_int(CMD, a.name, v, 1, 100000, &o->datasets);
        else if (cli_args_is(&a, "folds"))
            rc = cli_parse_int(CMD, a.name, v, 2, 1000, &o->folds);
        else if (cli_args_is(&a, "bits"))
            rc = cli_parse_int(CMD, a.name, v, 0, 23, &o->bits), o->have_bits = 1;
        else if (cli_args_is(&a, "constraint"))
            rc = cli_parse_int(CMD, a.name, v, 0, 1000000, &o->constraint), o->have_constraint = 1;
        else if (cli_args_is(&a, "size"))
            rc = cli_parse_int(CMD, a.name, v, 1, 1L << 30, &o->size), o->have_size = 1;
        else if (cli_args_is(&a, "size-min"))
            rc = cli_parse_int(CMD, a.name, v, 1, 1L << 30, &o->size_min);
        else if (cli_args_is(&a, "size-max"))
            rc = cli_parse_int(CMD, a.name, v, 1, 1L << 30, &o->size_max);
        else if (cli_args_is(&a, "cond"))
            rc = cli_parse_double(CMD, a.name, v, GPUEST_APPROX_COND_MIN, GPUEST_APPROX_COND_MAX, &o->cond),
            o->have_cond = 1;
        else if (cli_args_is(&a, "max-error"))
            rc = cli_parse_double(CMD, a.name, v, 0.0, 1.0, &o->max_error), o->have_max_error = 1;
        else if (cli_args_is(&a, "margin"))
            rc = cli_parse_double(CMD, a.name, v, 1.0, 100.0, &o->margin);
        else if (cli_args_is(&a, "threshold")) {
            rc = cli_parse_double(CMD, a.name, v, 0.01, 0.99, &o->threshold);
        }
        else if (cli_args_is(&a, "seed"))
            rc = cli_parse_u64(CMD, a.name, v, &o->seed), o->have_seed = 1;
        else
            return cli_usage_error(CMD, "unknown option --%s", a.name);
        if (rc)
            return rc;
    }
    if (!o->sub)
        return cli_usage_error(CMD, "missing the action: collect, train, predict, run or eval");
    o->data_dir = default_dir(o->data_dir, "data/approx", GPUEST_SOURCE_DIR "/data/approx");
    o->model_dir = default_dir(o->model_dir, "models", GPUEST_SOURCE_DIR "/models");
    o->valid_dir = default_dir(o->valid_dir, "data/approx/valid", GPUEST_SOURCE_DIR "/data/approx/valid");
    return 0;
}

static int find_app(const char *name, gpuest_approx_app_t *app)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    if (!name)
        return cli_usage_error(CMD, "--app is required");
    gpuest_err rc = gpuest_approx_find(name, app, &err);
    return rc == GPUEST_OK ? 0 : cli_report(CMD, rc, &err);
}

/* Apps named by --app: one, or all nine when absent or "all". */
static int app_list(const char *name, gpuest_approx_app_t *apps, int *n)
{
    *n = 0;
    if (!name || strcmp(name, "all") == 0) {
        for (int i = 0; i < GPUEST_APPROX_NAPPS; i++)
            apps[(*n)++] = (gpuest_approx_app_t)i;
        return 0;
    }
    *n = 1;
    return find_app(name, &apps[0]);
}

static void path_of(char *buf, size_t cap, const char *dir, const char *prefix, const char *name, const char *suffix)
{
    snprintf(buf, cap, "%s/%s%s%s", dir, prefix, name, suffix);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ------------------------------------------------------------ collect */

static int do_collect(const opts_t *o)
{
    gpuest_approx_app_t app;
    int rc = find_app(o->app, &app);
    if (rc)
        return rc;
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    gpuest_approx_collect_opts_t c;
    gpuest_approx_collect_defaults(app, &c);
    if (o->datasets)
        c.datasets = (int)o->datasets;
    c.seed = o->seed;
    if (o->size_min)
        c.size_min = o->size_min;
    if (o->size_max)
        c.size_max = o->size_max;
    char path[4096];
    if (o->out)
        snprintf(path, sizeof path, "%s", o->out);
    else
        path_of(path, sizeof path, o->data_dir, "", in->name, ".csv");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_progress_t *bar = cli_progress(in->name, (unsigned long long)c.datasets);
    double t0 = now_s();
    gpuest_err e = gpuest_approx_collect(app, &c, path, bar, &err);
    gpuest_progress_finish(bar);
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    printf("%s: %d datasets, sizes %ld-%ld (%s), %.1f s -> %s\n", in->name, c.datasets, c.size_min, c.size_max,
           in->size_meaning, now_s() - t0, path);
    return 0;
}

/* ------------------------------------------------------------ CSV -> predictor sets */

typedef struct {
    gpuest_approx_app_t app;
    gpuest_learn_approx_set_t *sets;
    uint64_t *seeds;           /* per set: regeneration seed */
    double *cond_target;       /* per set: requested log10 condition number */
    size_t n;
} app_sets_t;

static void app_sets_free(app_sets_t *s)
{
    free(s->sets);
    free(s->seeds);
    free(s->cond_target);
    memset(s, 0, sizeof *s);
}

/* Groups the rows of the primary metric by dataset; every dataset must have all levels. */
static gpuest_err load_sets(gpuest_approx_app_t app, const char *path, app_sets_t *out, gpuest_error_t *err)
{
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    gpuest_approx_record_t *r = NULL;
    size_t nr = 0;
    memset(out, 0, sizeof *out);
    out->app = app;
    GPUEST_TRY(gpuest_approx_read_csv(path, &r, &nr, err));
    uint32_t maxds = 0;
    for (size_t i = 0; i < nr; i++)
        maxds = r[i].dataset > maxds ? r[i].dataset : maxds;
    size_t cap = (size_t)maxds + 1;
    out->sets = calloc(cap, sizeof *out->sets);
    out->seeds = calloc(cap, sizeof *out->seeds);
    out->cond_target = calloc(cap, sizeof *out->cond_target);
    unsigned char *seen = calloc(cap * NLEV, 1);
    if (!out->sets || !out->seeds || !out->cond_target || !seen) {
        free(r), free(seen), app_sets_free(out);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < nr; i++) {
        if (strcmp(r[i].metric, in->metric) != 0)
            continue;
        int l = 0;
        while (l < NLEV && gpuest_approx_levels[l] != r[i].bits)
            l++;
        if (l == NLEV)
            continue;
        gpuest_learn_approx_set_t *s = &out->sets[r[i].dataset];
        s->dataset = r[i].dataset;
        s->size = (double)r[i].size;
        s->log10_cond = r[i].log10_cond;
        s->constraint = (double)r[i].constraint;
        s->error[l] = r[i].error;
        out->seeds[r[i].dataset] = r[i].seed;
        out->cond_target[r[i].dataset] = r[i].cond_target;
        seen[(size_t)r[i].dataset * NLEV + (size_t)l] = 1;
    }
    free(r);
    /* Compact to the datasets present; all five levels required. */
    size_t n = 0;
    gpuest_err rc = GPUEST_OK;
    for (size_t d = 0; d < cap && rc == GPUEST_OK; d++) {
        int count = 0;
        for (int l = 0; l < NLEV; l++)
            count += seen[d * NLEV + (size_t)l];
        if (count == 0)
            continue;
        if (count != NLEV) {
            rc = gpuest_fail(err, GPUEST_EPARSE, "%s: dataset %zu lacks some of the 4/8/12/16/20-bit rows for metric %s",
                             path, d, in->metric);
            break;
        }
        out->sets[n] = out->sets[d];
        out->seeds[n] = out->seeds[d];
        out->cond_target[n] = out->cond_target[d];
        n++;
    }
    free(seen);
    out->n = n;
    if (rc == GPUEST_OK && n == 0)
        rc = gpuest_fail(err, GPUEST_EPARSE, "%s: no rows for metric %s", path, in->metric);
    if (rc != GPUEST_OK)
        app_sets_free(out);
    return rc;
}

/* ------------------------------------------------------------ train */

/* The decision threshold is the one constant chosen on data: on the validation datasets, the
 * smallest threshold whose strict violation rate there is at most this (half the 2 % target,
 * leaving room for the difference between validation and test datasets). */
#define VALID_MAX_VIOLATION 0.01
/* Threshold of the k-fold networks (no validation split inside a fold). */
#define FOLD_THRESHOLD 0.9

static unsigned thesis_inputs(gpuest_approx_app_t app)
{
    switch (app) {
    case GPUEST_APPROX_KMEANS:
        return GPUEST_LEARN_INPUT_SIZE | GPUEST_LEARN_INPUT_CONSTRAINT;
    case GPUEST_APPROX_GAUSSIAN:
        return GPUEST_LEARN_INPUT_COND;
    case GPUEST_APPROX_LUD:
        return GPUEST_LEARN_INPUT_SIZE;
    default:
        return 0;
    }
}

/* The factors the network sees: every factor of the application (the default; measured
 * better than or as good as the thesis' choice on the validation datasets, docs/approx.md),
 * or with --inputs thesis the thesis' choice. */
static unsigned inputs_of(const opts_t *o, gpuest_approx_app_t app)
{
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    if (o->inputs && strcmp(o->inputs, "thesis") == 0)
        return thesis_inputs(app);
    return GPUEST_LEARN_INPUT_SIZE | (in->uses_cond ? GPUEST_LEARN_INPUT_COND : 0u) |
           (in->uses_constraint ? GPUEST_LEARN_INPUT_CONSTRAINT : 0u);
}

static void learn_opts(const opts_t *o, gpuest_approx_app_t app, gpuest_learn_approx_opts_t *lo)
{
    gpuest_learn_approx_defaults(lo);
    lo->seed = o->seed;
    if (o->margin > 0.0)
        lo->margin = o->margin;
    lo->threshold = o->threshold > 0.0 ? o->threshold : (o->folds ? FOLD_THRESHOLD : 0.5);
    lo->inputs = inputs_of(o, app);
    if (o->hidden)
        lo->hidden = (unsigned)o->hidden;
    if (o->epochs)
        lo->epochs_rprop = (unsigned)o->epochs;
}

static const char *inputs_name(unsigned inputs)
{
    static const char *const names[8] = {"limit",      "size+limit",      "cond+limit",      "size+cond+limit",
                                         "clusters+limit", "size+clusters+limit", "cond+clusters+limit",
                                         "size+cond+clusters+limit"};
    return names[inputs & 7u];
}

static int do_train(const opts_t *o)
{
    gpuest_approx_app_t apps[GPUEST_APPROX_NAPPS];
    int napps, rc = app_list(o->app, apps, &napps);
    if (rc)
        return rc;
    static const char *const header[] = {"app",       "datasets",  "inputs",         "queries",
                                         "algorithm", "train_acc", "valid_datasets", "threshold",
                                         "valid_acc", "valid_strict_viol", "seconds"};
    cli_table_t t;
    cli_table_init(&t, header, 11);
    for (int i = 0; i < napps && rc == 0; i++) {
        const gpuest_approx_info_t *in = gpuest_approx_info(apps[i]);
        char data[4096], valid[4096], net_path[4096], scale_path[4096];
        path_of(data, sizeof data, o->data_dir, "", in->name, ".csv");
        path_of(valid, sizeof valid, o->valid_dir, "", in->name, ".csv");
        path_of(net_path, sizeof net_path, o->model_dir, "approx-", in->name, ".net");
        path_of(scale_path, sizeof scale_path, o->model_dir, "approx-", in->name, ".scale.csv");
        gpuest_error_t err;
        gpuest_error_clear(&err);
        app_sets_t s, v;
        memset(&v, 0, sizeof v);
        double t0 = now_s();
        gpuest_err e = load_sets(apps[i], data, &s, &err);
        /* Without a fixed --threshold, the validation datasets must be there. */
        if (e == GPUEST_OK && !(o->threshold > 0.0))
            e = load_sets(apps[i], valid, &v, &err);
        gpuest_learn_approx_opts_t lo;
        learn_opts(o, apps[i], &lo);
        gpuest_learn_net_t *net = NULL;
        gpuest_learn_approx_report_t rep;
        gpuest_learn_approx_eval_t val;
        memset(&val, 0, sizeof val);
        double threshold = lo.threshold;
        if (e == GPUEST_OK)
            e = gpuest_learn_approx_train(s.sets, s.n, &lo, &net, &rep, &err);
        if (e == GPUEST_OK && v.n > 0)
            e = gpuest_learn_approx_calibrate(net, v.sets, v.n, (unsigned)o->limits, o->seed, VALID_MAX_VIOLATION,
                                              &threshold, &val, &err);
        if (e == GPUEST_OK)
            e = gpuest_learn_net_save(net, net_path, scale_path, &err);
        if (e == GPUEST_OK)
            cli_table_addf(&t, "%s\t%zu\t%s\t%zu\t%s\t%.4f\t%zu\t%.3g\t%.4f\t%.4f\t%.1f", in->name, s.n,
                           inputs_name(lo.inputs), rep.rows, gpuest_learn_algo_name(rep.algo), rep.train_accuracy,
                           v.n, threshold, val.accuracy, val.strict_violation_rate, now_s() - t0);
        int missing_data = s.n == 0 || (!(o->threshold > 0.0) && v.n == 0);
        gpuest_learn_net_destroy(net);
        app_sets_free(&v);
        if (e != GPUEST_OK) {
            rc = cli_report(CMD, e, &err);
            if (missing_data)
                fprintf(stderr, "(training needs %s and, unless --threshold is given, validation datasets %s: "
                                "see train/approx_collect.sh)\n", data, valid);
        }
        app_sets_free(&s);
    }
    if (rc == 0)
        cli_table_print(&t, stdout);
    cli_table_free(&t);
    return rc;
}

/* ------------------------------------------------------------ predict / run */

static int check_factors(const opts_t *o, gpuest_approx_app_t app, gpuest_approx_params_t *p)
{
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    if (!o->have_size)
        return cli_usage_error(CMD, "--size is required");
    if (in->uses_cond && !o->have_cond)
        return cli_usage_error(CMD, "%s needs --cond (log10 condition number)", in->name);
    if (in->uses_constraint && !o->have_constraint)
        return cli_usage_error(CMD, "%s needs --constraint (cluster count)", in->name);
    if (!in->uses_cond && o->have_cond)
        fprintf(stderr, "gpuest %s: warning: %s has no matrix factor; --cond ignored\n", CMD, in->name);
    if (!in->uses_constraint && o->have_constraint)
        fprintf(stderr, "gpuest %s: warning: %s has no constraint; --constraint ignored\n", CMD, in->name);
    p->size = o->size;
    p->log10_cond = in->uses_cond ? o->cond : 0.0;
    p->constraint = in->uses_constraint ? o->constraint : 0;
    return 0;
}

static void print_warnings(unsigned w, const gpuest_learn_net_t *net)
{
    static const struct {
        unsigned bit;
        size_t input;
        const char *what;
    } ws[] = {{GPUEST_LEARN_WARN_SIZE, 0, "size"}, {GPUEST_LEARN_WARN_COND, 1, "log10 condition number"},
              {GPUEST_LEARN_WARN_CONSTRAINT, 2, "constraint"}};
    for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
        if (!(w & ws[i].bit))
            continue;
        double lo, hi;
        gpuest_learn_net_input_range(net, ws[i].input, &lo, &hi);
        if (ws[i].input == 0)
            lo = exp2(lo), hi = exp2(hi);
        fprintf(stderr, "gpuest %s: warning: %s is outside the trained range [%g, %g]; the answer is an extrapolation\n",
                CMD, ws[i].what, lo, hi);
    }
    if (w & GPUEST_LEARN_WARN_ERROR_LOW)
        fprintf(stderr, "gpuest %s: warning: --max-error is below every error measured at 4 bits in training\n",
                CMD);
    if (w & GPUEST_LEARN_WARN_ERROR_HIGH)
        fprintf(stderr, "gpuest %s: warning: --max-error is above every error seen in training\n", CMD);
}

static int do_predict(const opts_t *o)
{
    gpuest_approx_app_t app;
    gpuest_approx_params_t p;
    int rc = find_app(o->app, &app);
    if (rc || (rc = check_factors(o, app, &p)))
        return rc;
    if (!o->have_max_error)
        return cli_usage_error(CMD, "--max-error is required");
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    char net_path[4096], scale_path[4096];
    path_of(net_path, sizeof net_path, o->model_dir, "approx-", in->name, ".net");
    path_of(scale_path, sizeof scale_path, o->model_dir, "approx-", in->name, ".scale.csv");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_learn_net_t *net = NULL;
    gpuest_err e = gpuest_learn_approx_load(net_path, scale_path, &net, &err);
    if (e != GPUEST_OK) {
        int code = cli_report(CMD, e, &err);
        fprintf(stderr, "(train the model with 'gpuest approx collect --app %s' and 'gpuest approx train --app %s')\n",
                in->name, in->name);
        return code;
    }
    if (p.size < in->size_min || p.size > in->size_max)
        fprintf(stderr, "gpuest %s: warning: %s accepts sizes %ld-%ld\n", CMD, in->name, in->size_min, in->size_max);
    unsigned w = 0;
    int bits = gpuest_learn_approx_predict(net, (double)p.size, p.log10_cond, (double)p.constraint, o->max_error, &w);
    double median[NLEV], from[NLEV], threshold = 0.5;
    gpuest_learn_approx_errors(net, (double)p.size, p.log10_cond, (double)p.constraint, 0.5, median);
    gpuest_learn_approx_errors(net, (double)p.size, p.log10_cond, (double)p.constraint, 0.0, from);
    gpuest_learn_net_get_meta(net, "threshold", &threshold);
    print_warnings(w, net);
    gpuest_learn_net_destroy(net);
    printf("app %s, size %ld, log10 cond %g, constraint %ld, max error %g (metric %s)\n", in->name, p.size,
           p.log10_cond, p.constraint, o->max_error, in->metric);
    /* The answer's level and the next one up: the network's median error estimate and the
     * limit from which it answers that level (probability of being safe >= threshold). */
    int l0 = bits / 4 - 1;
    for (int l = l0 < 0 ? 0 : l0; l <= l0 + 1 && l < NLEV; l++) {
        char m[32], f[32];
        snprintf(m, sizeof m, "%.3g", median[l]);
        snprintf(f, sizeof f, "%.3g", from[l]);
        printf("%2d bits: estimated error %s (median), answered for limits >= %s (threshold %.3g)%s\n",
               gpuest_approx_levels[l], m, f, threshold, l == l0 ? "  <- answer" : "");
    }
    printf("%d\n", bits);
    return 0;
}

static int do_run(const opts_t *o)
{
    gpuest_approx_app_t app;
    gpuest_approx_params_t p;
    int rc = find_app(o->app, &app);
    if (rc || (rc = check_factors(o, app, &p)))
        return rc;
    if (!o->have_bits)
        return cli_usage_error(CMD, "--bits is required");
    if (!o->have_seed)
        return cli_usage_error(CMD, "--seed is required");
    const gpuest_approx_info_t *in = gpuest_approx_info(app);
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_approx_dataset_t *ds = NULL;
    gpuest_err e = gpuest_approx_dataset_create(app, &p, o->seed, &ds, &err);
    double errors[2] = {0, 0};
    if (e == GPUEST_OK)
        e = gpuest_approx_measure(ds, (int)o->bits, errors, &err);
    if (e != GPUEST_OK) {
        gpuest_approx_dataset_destroy(ds);
        return cli_report(CMD, e, &err);
    }
    printf("app %s, size %ld, log10 cond %.4f (measured), constraint %ld, bits %ld, seed %llu\n", in->name, p.size,
           gpuest_approx_dataset_log10_cond(ds), p.constraint, o->bits, o->seed);
    if (in->metric2)
        printf("%s %.17g\n", in->metric2, errors[1]);
    printf("%s %.17g\n", in->metric, errors[0]);
    printf("%.17g\n", errors[0]);
    gpuest_approx_dataset_destroy(ds);
    return 0;
}

/* ------------------------------------------------------------ eval */

/* The dataset last regenerated is kept: eval asks for several levels of one dataset in a row,
 * and the exact run is cached inside it. */
typedef struct {
    const app_sets_t *s;
    gpuest_approx_dataset_t *ds;
    size_t idx;
} rerun_ctx;

static gpuest_err rerun_app(void *p, const gpuest_learn_approx_set_t *set, int bits, double *error,
                            gpuest_error_t *err)
{
    rerun_ctx *c = p;
    const app_sets_t *s = c->s;
    size_t i = (size_t)(set - s->sets);
    if (!c->ds || c->idx != i) {
        gpuest_approx_dataset_destroy(c->ds);
        c->ds = NULL;
        gpuest_approx_params_t prm = {(long)set->size, s->cond_target[i], (long)set->constraint};
        GPUEST_TRY(gpuest_approx_dataset_create(s->app, &prm, s->seeds[i], &c->ds, err));
        c->idx = i;
    }
    double e[2];
    GPUEST_TRY(gpuest_approx_measure(c->ds, bits, e, err));
    *error = e[0];
    return GPUEST_OK;
}

/* k-fold cross-validation on the training datasets (eval --folds K). */
static int do_eval_folds(const opts_t *o, const gpuest_approx_app_t *apps, int napps)
{
    static const char *const header[] = {"app", "datasets", "folds", "queries", "accuracy", "strict_violation_rate",
                                         "violation_rate", "safe_below_label", "reruns", "seconds"};
    cli_table_t t;
    cli_table_init(&t, header, 10);
    int rc = 0;
    for (int i = 0; i < napps && rc == 0; i++) {
        const gpuest_approx_info_t *in = gpuest_approx_info(apps[i]);
        char data[4096];
        path_of(data, sizeof data, o->data_dir, "", in->name, ".csv");
        gpuest_error_t err;
        gpuest_error_clear(&err);
        app_sets_t s;
        double t0 = now_s();
        gpuest_err e = load_sets(apps[i], data, &s, &err);
        if (e != GPUEST_OK) {
            rc = cli_report(CMD, e, &err);
            break;
        }
        gpuest_learn_approx_opts_t lo;
        learn_opts(o, apps[i], &lo);
        lo.limits_per_set = (unsigned)o->limits;
        gpuest_learn_approx_eval_t r;
        rerun_ctx ctx = {&s, NULL, 0};
        unsigned folds = (unsigned)o->folds;
        if (folds > s.n)
            folds = (unsigned)s.n;
        gpuest_progress_t *bar = cli_progress(in->name, folds);
        e = gpuest_learn_approx_eval(s.sets, s.n, folds, &lo, o->no_rerun ? NULL : rerun_app, &ctx, &r, bar, &err);
        gpuest_progress_finish(bar);
        gpuest_approx_dataset_destroy(ctx.ds);
        app_sets_free(&s);
        if (e != GPUEST_OK) {
            rc = cli_report(CMD, e, &err);
            break;
        }
        cli_table_addf(&t, "%s\t%zu\t%zu\t%zu\t%.4f\t%.4f\t%.4f\t%zu\t%zu\t%.1f", in->name, r.datasets, r.folds,
                       r.queries, r.accuracy, r.strict_violation_rate, r.violation_rate, r.safe_but_low, r.reruns,
                       now_s() - t0);
    }
    if (rc == 0 && o->csv)
        rc = cli_table_write_csv(&t, o->csv, CMD);
    if (rc == 0)
        cli_table_print(&t, stdout);
    cli_table_free(&t);
    return rc;
}

/* Sums of the pooled 'all' row. */
typedef struct {
    size_t datasets, queries, ok, strict, ok_lookup, strict_lookup;
} pooled_t;

static void add_row(cli_table_t *t, const char *name, size_t datasets, size_t queries, double acc, double strict,
                    double lacc, double lstrict, const gpuest_learn_approx_eval_t *r, double seconds)
{
    if (r)
        cli_table_addf(t, "%s\t%zu\t%zu\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%zu\t%.1f", name, datasets, queries, acc, strict,
                       r->violation_rate, lacc, lstrict, r->reruns, seconds);
    else
        cli_table_addf(t, "%s\t%zu\t%zu\t%.4f\t%.4f\t\t%.4f\t%.4f\t\t", name, datasets, queries, acc, strict, lacc,
                       lstrict);
}

/* Held-out test of the trained models on datasets they never saw (eval). */
static int do_eval(const opts_t *o)
{
    gpuest_approx_app_t apps[GPUEST_APPROX_NAPPS];
    int napps, rc = app_list(o->app, apps, &napps);
    if (rc)
        return rc;
    if (o->folds)
        return do_eval_folds(o, apps, napps);
    static const char *const header[] = {"app",        "datasets",          "queries",
                                         "net_accuracy", "net_strict_violation", "net_violation_1pct",
                                         "lookup_accuracy", "lookup_strict_violation", "reruns", "seconds"};
    cli_table_t t;
    cli_table_init(&t, header, 10);
    pooled_t all = {0};
    for (int i = 0; i < napps && rc == 0; i++) {
        const gpuest_approx_info_t *in = gpuest_approx_info(apps[i]);
        char data[4096], net_path[4096], scale_path[4096];
        path_of(data, sizeof data, o->data_dir, "", in->name, ".csv");
        path_of(net_path, sizeof net_path, o->model_dir, "approx-", in->name, ".net");
        path_of(scale_path, sizeof scale_path, o->model_dir, "approx-", in->name, ".scale.csv");
        gpuest_error_t err;
        gpuest_error_clear(&err);
        app_sets_t s;
        memset(&s, 0, sizeof s);
        gpuest_learn_net_t *net = NULL;
        double t0 = now_s();
        gpuest_err e = gpuest_learn_approx_load(net_path, scale_path, &net, &err);
        if (e == GPUEST_OK)
            e = load_sets(apps[i], data, &s, &err);
        gpuest_learn_approx_eval_t r, lk;
        rerun_ctx ctx = {&s, NULL, 0};
        if (e == GPUEST_OK) {
            gpuest_progress_t *bar = cli_progress(in->name, s.n);
            e = gpuest_learn_approx_test(net, s.sets, s.n, (unsigned)o->limits, o->seed,
                                         o->no_rerun ? NULL : rerun_app, &ctx, &r, &lk, bar, &err);
            gpuest_progress_finish(bar);
        }
        gpuest_approx_dataset_destroy(ctx.ds);
        gpuest_learn_net_destroy(net);
        app_sets_free(&s);
        if (e != GPUEST_OK) {
            rc = cli_report(CMD, e, &err);
            break;
        }
        add_row(&t, in->name, r.datasets, r.queries, r.accuracy, r.strict_violation_rate, lk.accuracy,
                lk.strict_violation_rate, &r, now_s() - t0);
        all.datasets += r.datasets, all.queries += r.queries, all.ok += r.correct;
        all.strict += r.strict_violations, all.ok_lookup += lk.correct, all.strict_lookup += lk.strict_violations;
    }
    /* The CSV has one row per application; the printed table adds the pooled 'all' row. */
    if (rc == 0 && o->csv)
        rc = cli_table_write_csv(&t, o->csv, CMD);
    if (rc == 0 && napps > 1 && all.queries > 0) {
        double q = (double)all.queries;
        add_row(&t, "all", all.datasets, all.queries, (double)all.ok / q, (double)all.strict / q,
                (double)all.ok_lookup / q, (double)all.strict_lookup / q, NULL, 0.0);
    }
    if (rc == 0)
        cli_table_print(&t, stdout);
    cli_table_free(&t);
    return rc;
}

int cli_cmd_approx(int argc, char **argv)
{
    opts_t o;
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (strcmp(o.sub, "collect") == 0)
        return do_collect(&o);
    if (strcmp(o.sub, "train") == 0)
        return do_train(&o);
    if (strcmp(o.sub, "predict") == 0)
        return do_predict(&o);
    if (strcmp(o.sub, "run") == 0)
        return do_run(&o);
    if (strcmp(o.sub, "eval") == 0)
        return do_eval(&o);
    return cli_usage_error(CMD, "unknown action '%s' (expected collect, train, predict, run or eval)", o.sub);
}
