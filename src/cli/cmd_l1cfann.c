/* cmd_l1cfann.c: 'gpuest l1c-fann': trains and checks LATTE-CC's FANN mode selector
 * (technique.l1_compression = fann) from the per-EP label CSVs that
 * 'gpuest simulate --l1c-oracle' writes (docs/latte-cc.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "l1c_targets.h"
#include "commands.h"
#include "learn/learn.h"
#include "technique/technique.h"

#define CMD "l1c-fann"
#define NF GPUEST_L1C_FANN_FEATURES
#define NO GPUEST_L1C_FANN_OUTPUTS
#define MAX_FILES 256 /* label files in one --train / --valid / --data list */

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuest l1c-fann <train|eval> [options]\n"
                 "LATTE-CC's FANN mode selector: one network choosing none, BDI or SC at every EP end\n"
                 "from the SM's features; its data are the CSVs of 'gpuest simulate --l1c-oracle'.\n\n"
                 "  train --train F1,F2,... --valid G1,G2,... [--seed S] [--epochs E] [--model-dir DIR]\n"
                 "      trains one network per target (label: one-hot label; cost: each mode's measured\n"
                 "      cycles relative to the best, EPs where all modes tie left out; rule: each mode's\n"
                 "      saving against the rule's choice, used with a decision margin) and hidden size\n"
                 "      4, 8, 16 on the --train files (seed S, default 1), keeps the network (and, for\n"
                 "      rule targets, the margin) of least regret on the --valid files, and writes\n"
                 "      DIR/latte-fann.net and DIR/latte-fann.scale.csv (default DIR: models);\n"
                 "      --target label|cost|rule trains that kind of target only; --range-guard 1: the\n"
                 "      networks decide only inside their training inputs' range, the rule outside it\n"
                 "      (metadata range_guard); --range-guard choose: with and without, chosen on --valid;\n"
                 "      --select mean: the validation regret is the mean of each --valid file's regret\n"
                 "      (default pooled: over all validation EPs together); --hidden N: that hidden size only;\n"
                 "      --margin M: rule targets with that decision margin only (%% of the window's cycles;\n"
                 "      models for a choice on whole validation runs, docs/latte-cc.md \"Fifth round\")\n"
                 "      period labels ('simulate --l1c-continue period', a column cycles_rule) train\n"
                 "      rule targets only (holding each mode for the period against the rule) and the\n"
                 "      model gets the metadata period = 1 (docs/latte-cc.md \"Sixth round\")\n"
                 "      --spans p99: rule targets with a span for gains and one for losses, each the 99th\n"
                 "      percentile of the training labels' savings of that sign (default fixed: 5 %% for\n"
                 "      both, clipping larger losses; metadata rule_span_loss; docs/latte-cc.md \"Seventh round\")\n"
                 "  eval --data F1,F2,... [--model-dir DIR]\n"
                 "      per file: the share of EPs where the network (and LATTE-CC's rule) picks the\n"
                 "      label, and the regret: the cycles its choices lose against the labels' over\n"
                 "      the EPs' forked runs, in %% of the labels' cycles\n");
}

/* Rows of the label files: features, the three measured costs, the label and the rule's choice. */
typedef struct {
    gpuest_learn_data_t d;
    double *cost;   /* rows x NO */
    int *rule;      /* rows: the rule's choice as an output index */
    size_t cap;
    const char *path;
    int col_x[NF], col_cost[NO], col_label, col_rule;
    size_t file_end[MAX_FILES]; /* rows read after each file of the list */
    size_t files;
    /* period labels (sixth round, a column cycles_rule): one row per period of an SM, costs of the
     * three modes held for the period and of the rule (crule); plabel -1 where the rule keeps it */
    int form; /* -1 before the first header, 0 per-EP labels, 1 period labels */
    int col_crule;
    double *crule; /* rows: the rule's cost (per-EP rows: the cost of the rule's choice) */
    int *plabel;   /* rows: the label as an output index, -1 the rule */
    int header_seen; /* the file being read had its header (an empty file has none) */
} rows_t;

static int out_index(int mode) { return mode == GPUEST_L1C_BDI ? 1 : mode == GPUEST_L1C_SC ? 2 : 0; }

static int find_col(const char *const *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i], name) == 0)
            return (int)i;
    return -1;
}

static gpuest_err header_row(rows_t *r, const char *const *f, size_t n, gpuest_error_t *err)
{
    static const char *const cost_names[NO] = {"cycles_none", "cycles_bdi", "cycles_sc"};
    for (int i = 0; i < NF; i++)
        if ((r->col_x[i] = find_col(f, n, gpuest_l1c_fann_feature_names[i])) < 0)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:1: expected a column '%s'", r->path,
                               gpuest_l1c_fann_feature_names[i]);
    for (int i = 0; i < NO; i++)
        if ((r->col_cost[i] = find_col(f, n, cost_names[i])) < 0)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:1: expected a column '%s'", r->path, cost_names[i]);
    if ((r->col_label = find_col(f, n, "label")) < 0 || (r->col_rule = find_col(f, n, "rule_choice")) < 0)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:1: expected columns 'label' and 'rule_choice'", r->path);
    r->col_crule = find_col(f, n, "cycles_rule");
    int form = r->col_crule >= 0;
    if (r->form >= 0 && form != r->form)
        return gpuest_fail(err, GPUEST_EPARSE,
                           "%s:1: %s labels after %s ones: period labels (with a column 'cycles_rule') and "
                           "per-EP labels cannot be mixed in one list",
                           r->path, form ? "period" : "per-EP", form ? "per-EP" : "period");
    r->form = form;
    return GPUEST_OK;
}

static gpuest_err num(const rows_t *r, size_t line, const char *s, double *v, gpuest_error_t *err)
{
    if (gpuest_parse_double(s, v) != GPUEST_OK || !isfinite(*v))
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected a number, got '%s'", r->path, line, s);
    return GPUEST_OK;
}

static gpuest_err data_row(void *ctx, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    rows_t *r = ctx;
    if (line == 1) {
        r->header_seen = 1;
        return header_row(r, f, n, err);
    }
    if (!r->header_seen) /* the header must be line 1: the columns are found by name there */
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected the header on line 1 (a blank line 1?)", r->path,
                           line);
    int last = r->col_label > r->col_crule ? r->col_label : r->col_crule;
    if (n <= (size_t)last)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected %d fields", r->path, line, last + 1);
    double x[NF], y[NO] = {0}, c[NO], label, rule, crule = 0;
    for (int i = 0; i < NF; i++)
        GPUEST_TRY(num(r, line, f[r->col_x[i]], &x[i], err));
    for (int i = 0; i < NO; i++)
        GPUEST_TRY(num(r, line, f[r->col_cost[i]], &c[i], err));
    GPUEST_TRY(num(r, line, f[r->col_label], &label, err));
    GPUEST_TRY(num(r, line, f[r->col_rule], &rule, err));
    /* rule_choice indexes the costs: any other number used to read as none (and one past INT_MAX
     * overflowed the int conversion) */
    if (rule != GPUEST_L1C_NONE && rule != GPUEST_L1C_BDI && rule != GPUEST_L1C_SC)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected a rule_choice 0, 1 or 2, got '%s'", r->path, line,
                           f[r->col_rule]);
    for (int i = 0; i < NO; i++)
        if (c[i] < 0)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected cycles >= 0, got '%s'", r->path, line,
                               f[r->col_cost[i]]);
    if (r->form == 1) {
        GPUEST_TRY(num(r, line, f[r->col_crule], &crule, err));
        if (!(crule > 0)) /* the savings are shares of it (a 0 printed inf / nan savings) */
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected cycles_rule > 0, got '%s'", r->path, line,
                               f[r->col_crule]);
    } else
        crule = c[out_index((int)rule)];
    int rule_keeps = r->form == 1 && label == -1;
    if (!rule_keeps && label != GPUEST_L1C_NONE && label != GPUEST_L1C_BDI && label != GPUEST_L1C_SC)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: expected a label 0, 1 or 2%s", r->path, line,
                           r->form == 1 ? " or -1 (the rule keeps the period)" : "");
    if (!rule_keeps)
        y[out_index((int)label)] = 1.0;
    if (r->d.rows == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 1024;
        double *pc = realloc(r->cost, nc * NO * sizeof *pc);
        if (pc)
            r->cost = pc;
        int *pr = realloc(r->rule, nc * sizeof *pr);
        if (pr)
            r->rule = pr;
        double *pq = realloc(r->crule, nc * sizeof *pq);
        if (pq)
            r->crule = pq;
        int *pl = realloc(r->plabel, nc * sizeof *pl);
        if (pl)
            r->plabel = pl;
        if (!pc || !pr || !pq || !pl)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory reading %s", r->path);
        r->cap = nc;
    }
    memcpy(&r->cost[r->d.rows * NO], c, sizeof c);
    r->rule[r->d.rows] = out_index((int)rule);
    r->crule[r->d.rows] = crule;
    r->plabel[r->d.rows] = rule_keeps ? -1 : out_index((int)label);
    return gpuest_learn_data_add(&r->d, x, y, 0);
}

static void rows_init(rows_t *r)
{
    memset(r, 0, sizeof *r);
    r->form = -1;
    r->col_crule = -1;
    gpuest_learn_data_init(&r->d, NF, NO);
}

static void rows_free(rows_t *r)
{
    gpuest_learn_data_free(&r->d);
    free(r->cost);
    free(r->rule);
    free(r->crule);
    free(r->plabel);
}

/* Reads every file of a comma-separated list into r; no labelled EP at all is an error unless
 * allow_empty (eval: a workload whose runs are too short for the labels' horizon has none). */
static gpuest_err read_list_opt(rows_t *r, const char *list, int allow_empty, gpuest_error_t *err)
{
    char *copy = gpuest_strdup(list);
    if (!copy)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    gpuest_err rc = GPUEST_OK;
    for (char *save = NULL, *p = strtok_r(copy, ",", &save); p && rc == GPUEST_OK; p = strtok_r(NULL, ",", &save)) {
        if (r->files == MAX_FILES) {
            rc = gpuest_fail(err, GPUEST_EINVAL, "more than %d label files in one list", MAX_FILES);
            break;
        }
        r->path = p;
        r->header_seen = 0;
        rc = gpuest_csv_read(p, data_row, r, err);
        if (rc == GPUEST_OK && !r->header_seen) /* an empty file read as a run with no labelled EP */
            rc = gpuest_fail(err, GPUEST_EPARSE, "%s:1: expected the header of 'gpuest simulate --l1c-oracle' "
                                                 "labels (the file is empty)", p);
        r->file_end[r->files++] = r->d.rows;
    }
    r->path = NULL;
    free(copy);
    if (rc == GPUEST_OK && r->d.rows == 0 && !allow_empty)
        rc = gpuest_fail(err, GPUEST_EINVAL, "no labelled EPs in %s", list);
    return rc;
}

static gpuest_err read_list(rows_t *r, const char *list, gpuest_error_t *err)
{
    return read_list_opt(r, list, 0, err);
}

/* Cost targets: output k learns 1 - (c_k - c_min) / (COST_SPAN c_min), clamped to [0, 1], so the
 * largest output marks the mode the network expects to be cheapest and a mode COST_SPAN (5 %) or
 * more slower reads 0. Unlike the one-hot label it tells a mode 0.1 % worse from one 20 % worse,
 * so training weighs each EP by the cycles at stake. EPs where the three modes took the same
 * cycles carry no such information (a third of the 1-EP training labels, 12 % of the 4-EP
 * ones) and are left out; with one-hot labels they all read "none" and taught the network to
 * pick none. The span was fixed before
 * training (the oracle's 2 % margin is inside it) and is not tuned. */
#define COST_SPAN 0.05

static double cost_target(const double *c, int k)
{
    double lo = c[0];
    for (int i = 1; i < NO; i++)
        lo = c[i] < lo ? c[i] : lo;
    double t = lo > 0 ? 1.0 - (c[k] - lo) / (COST_SPAN * lo) : 1.0;
    return t < 0 ? 0 : t;
}

/* Rule-relative targets: output k learns 0.5 + s_k / (2 RULE_SPAN), clamped to [0, 1], with
 * s_k = (c_rule - c_k) / c_rule the share of cycles mode k saves against the mode LATTE-CC's rule
 * chose at this EP (the rule's own output reads 0.5). The network thus learns when, and by how
 * much, departing from the rule pays; gpuest_l1c_fann_decide departs only when the predicted
 * saving exceeds a margin chosen on the validation workloads. EPs where every mode took the same
 * cycles stay in: they teach "no saving". RULE_SPAN is the cost targets' 5 %; on the training
 * rollout labels (looked at before any validation) the savings of the modes the rule did not
 * choose, where positive, have a median of 2.8 % and 70 % of them lie below 5 %. */
#define RULE_SPAN 0.05

static double rule_target(const double *c, double crule, int k, double gain_span, double loss_span)
{
    double sv = crule > 0 ? (crule - c[k]) / crule : 0;
    return cli_l1c_rule_target(sv, gain_span, loss_span);
}

/* gain_span = loss_span = RULE_SPAN: the rounds 3-6 targets; --spans p99: the seventh round's */
static gpuest_err rule_data(const rows_t *r, double gain_span, double loss_span, gpuest_learn_data_t *d,
                            gpuest_error_t *err)
{
    gpuest_learn_data_init(d, NF, NO);
    for (size_t i = 0; i < r->d.rows; i++) {
        double y[NO];
        for (int k = 0; k < NO; k++) /* period rows: against the rule child's cycles */
            y[k] = rule_target(&r->cost[i * NO], r->crule[i], k, gain_span, loss_span);
        if (gpuest_learn_data_add(d, &r->d.x[i * NF], y, 0) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory building rule-relative targets");
    }
    return GPUEST_OK;
}

static gpuest_err cost_data(const rows_t *r, gpuest_learn_data_t *d, gpuest_error_t *err)
{
    gpuest_learn_data_init(d, NF, NO);
    for (size_t i = 0; i < r->d.rows; i++) {
        const double *c = &r->cost[i * NO];
        if (c[0] == c[1] && c[1] == c[2])
            continue;
        double y[NO];
        for (int k = 0; k < NO; k++)
            y[k] = cost_target(c, k);
        if (gpuest_learn_data_add(d, &r->d.x[i * NF], y, 0) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory building cost targets");
    }
    return GPUEST_OK;
}

/* The decision of the fann policy (span 0: the largest output; span > 0: the rule's choice unless
 * the predicted saving exceeds margin). */
static int net_choice(const gpuest_learn_net_t *net, const double *x, int rule, double span, double margin)
{
    double guard = 0;
    if (gpuest_learn_net_get_meta(net, "range_guard", &guard) && guard > 0 && !gpuest_l1c_fann_in_range(net, x))
        return rule;
    double y[NO];
    gpuest_learn_net_run(net, x, y);
    return gpuest_l1c_fann_decide(y, rule, span, margin);
}

typedef struct {
    double agree, regret; /* share of EPs choosing the label; lost cycles in % of the labels' */
} score_t;

/* Period rows (sixth round): the index of the mode the policy holds for the period, -1 for the
 * rule (net NULL: the rule itself); as the fann policy decides (gpuest_l1c_fann_decide_period). */
static int period_choice(const gpuest_learn_net_t *net, const double *x, double span, double margin)
{
    double guard = 0;
    if (!net ||
        (gpuest_learn_net_get_meta(net, "range_guard", &guard) && guard > 0 && !gpuest_l1c_fann_in_range(net, x)))
        return -1;
    double y[NO];
    gpuest_learn_net_run(net, x, y);
    return gpuest_l1c_fann_decide_period(y, span, margin);
}

/* Period rows lo .. hi - 1: the cost of holding index k, the rule's for k = -1. */
static double period_cost(const rows_t *r, size_t i, int k) { return k < 0 ? r->crule[i] : r->cost[i * NO + k]; }

static score_t score_period(const gpuest_learn_net_t *net, const rows_t *r, size_t lo, size_t hi, double span,
                            double margin)
{
    double agree = 0, lost = 0, best = 0;
    for (size_t i = lo; i < hi; i++) {
        int ch = period_choice(net, &r->d.x[i * NF], span, margin);
        agree += ch == r->plabel[i];
        lost += period_cost(r, i, ch) - period_cost(r, i, r->plabel[i]);
        best += period_cost(r, i, r->plabel[i]);
    }
    return (score_t){hi > lo ? agree / (double)(hi - lo) : 0, best > 0 ? 100.0 * lost / best : 0};
}

/* The decision margins tried for rule-relative networks (shares of the labelled window's cycles),
 * fixed with RULE_SPAN before any validation; the one of least validation regret is kept with the
 * model. */
static const double margins[] = {0, 0.0025, 0.005, 0.01, 0.02, 0.03};
#define NMARGIN ((int)(sizeof margins / sizeof margins[0]))

/* Rows lo .. hi - 1 of r; net NULL: LATTE-CC's rule (the rule_choice column). */
static score_t score_rows(const gpuest_learn_net_t *net, const rows_t *r, size_t lo, size_t hi, double span,
                          double margin)
{
    if (r->form == 1)
        return score_period(net, r, lo, hi, span, margin);
    double agree = 0, lost = 0, best = 0;
    for (size_t i = lo; i < hi; i++) {
        const double *c = &r->cost[i * NO];
        int label = 0;
        for (int k = 0; k < NO; k++)
            if (r->d.y[i * NO + k] > 0.5)
                label = k;
        int ch = net ? net_choice(net, &r->d.x[i * NF], r->rule[i], span, margin) : r->rule[i];
        agree += ch == label;
        lost += c[ch] - c[label];
        best += c[label];
    }
    return (score_t){hi > lo ? agree / (double)(hi - lo) : 0, best > 0 ? 100.0 * lost / best : 0};
}

static score_t score(const gpuest_learn_net_t *net, const rows_t *r, double span, double margin)
{
    return score_rows(net, r, 0, r->d.rows, span, margin);
}

/* The mean over r's files (those with labelled EPs) of each file's agreement and regret, so a
 * workload with many EPs does not outvote the others (the fifth round's selection, --select mean). */
static score_t score_mean(const gpuest_learn_net_t *net, const rows_t *r, double span, double margin)
{
    score_t m = {0, 0};
    size_t n = 0;
    for (size_t f = 0, lo = 0; f < r->files; lo = r->file_end[f++]) {
        if (r->file_end[f] == lo)
            continue;
        score_t s = score_rows(net, r, lo, r->file_end[f], span, margin);
        m.agree += s.agree;
        m.regret += s.regret;
        n++;
    }
    if (n) {
        m.agree /= (double)n;
        m.regret /= (double)n;
    }
    return m;
}

/* --range-guard: off, on, or both tried and chosen on validation */
enum { GUARD_OFF, GUARD_ON, GUARD_CHOOSE };

typedef struct {
    const char *train, *valid, *data, *model_dir, *target, *guard_arg, *select, *margin_arg, *spans;
    unsigned long long seed, epochs, hidden;
    int guard, select_mean;
    double margin; /* --margin as a share; < 0: every margin of the list */
} args_t;

static int parse(args_t *o, int argc, char **argv)
{
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        if (!a.name)
            return cli_usage_error(a.cmd, "unexpected argument '%s'", a.value);
        if (cli_args_is(&a, "help")) {
            usage(stdout);
            return -1;
        }
        const char **str = cli_args_is(&a, "train")       ? &o->train
                           : cli_args_is(&a, "valid")     ? &o->valid
                           : cli_args_is(&a, "data")      ? &o->data
                           : cli_args_is(&a, "model-dir") ? &o->model_dir
                           : cli_args_is(&a, "target")    ? &o->target
                           : cli_args_is(&a, "range-guard") ? &o->guard_arg
                           : cli_args_is(&a, "select")    ? &o->select
                           : cli_args_is(&a, "margin")    ? &o->margin_arg
                           : cli_args_is(&a, "spans")     ? &o->spans
                                                          : NULL;
        unsigned long long *n = cli_args_is(&a, "seed")       ? &o->seed
                                : cli_args_is(&a, "epochs")   ? &o->epochs
                                : cli_args_is(&a, "hidden")   ? &o->hidden
                                                              : NULL;
        const char *v;
        if (str) {
            if (!(*str = cli_args_value(&a)))
                return 2;
        } else if (n) {
            if (!(v = cli_args_value(&a)) || cli_parse_u64(a.cmd, a.name, v, n) != 0)
                return 2;
        } else {
            return cli_usage_error(a.cmd, "unknown option --%s (try --help)", a.name);
        }
    }
    if (o->guard_arg) {
        if (strcmp(o->guard_arg, "0") == 0)
            o->guard = GUARD_OFF;
        else if (strcmp(o->guard_arg, "1") == 0)
            o->guard = GUARD_ON;
        else if (strcmp(o->guard_arg, "choose") == 0)
            o->guard = GUARD_CHOOSE;
        else
            return cli_usage_error(CMD, "--range-guard: expected 0, 1 or choose, got '%s'", o->guard_arg);
    }
    if (o->select) {
        if (strcmp(o->select, "mean") != 0 && strcmp(o->select, "pooled") != 0)
            return cli_usage_error(CMD, "--select: expected pooled or mean, got '%s'", o->select);
        o->select_mean = strcmp(o->select, "mean") == 0;
    }
    if (o->spans && strcmp(o->spans, "fixed") != 0 && strcmp(o->spans, "p99") != 0)
        return cli_usage_error(CMD, "--spans: expected fixed or p99, got '%s'", o->spans);
    o->margin = -1;
    if (o->margin_arg) {
        if (cli_parse_double(CMD, "margin", o->margin_arg, 0, 100, &o->margin) != 0)
            return 2;
        o->margin /= 100;
    }
    if (o->hidden > 1000)
        return cli_usage_error(CMD, "--hidden: expected 1 to 1000, got %llu", o->hidden);
    /* the trainer takes an unsigned int: 2^32 + 1 epochs used to train one */
    if (o->epochs < 1 || o->epochs > 1000000)
        return cli_usage_error(CMD, "--epochs %llu: expected 1 to 1000000", o->epochs);
    return 0;
}

static void model_paths(const args_t *o, char *net, char *scale, size_t cap)
{
    snprintf(net, cap, "%s/latte-fann.net", o->model_dir);
    snprintf(scale, cap, "%s/latte-fann.scale.csv", o->model_dir);
}

static int cmd_train(const args_t *o)
{
    if (!o->train || !o->valid)
        return cli_usage_error(CMD, "train needs --train and --valid (try --help)");
    if (cli_check_output_dir(CMD, "model-dir", o->model_dir)) /* before the training, not after it */
        return 2;
    if (o->target && strcmp(o->target, "label") != 0 && strcmp(o->target, "cost") != 0 &&
        strcmp(o->target, "rule") != 0)
        return cli_usage_error(CMD, "--target: expected label, cost or rule, got '%s'", o->target);
    gpuest_error_t err;
    gpuest_error_clear(&err);
    rows_t tr, va;
    rows_init(&tr);
    rows_init(&va);
    gpuest_err rc = read_list(&tr, o->train, &err);
    if (rc == GPUEST_OK)
        rc = read_list(&va, o->valid, &err);
    if (rc == GPUEST_OK && tr.form != va.form)
        rc = gpuest_fail(&err, GPUEST_EINVAL, "--train has %s labels, --valid %s ones: both must be the same form",
                         tr.form ? "period" : "per-EP", va.form ? "period" : "per-EP");
    if (rc == GPUEST_OK && tr.form == 1 && o->target && strcmp(o->target, "rule") != 0)
        rc = gpuest_fail(&err, GPUEST_EINVAL, "period labels train rule-relative targets only (--target rule), "
                                              "not --target %s", o->target);
    gpuest_learn_data_t costd, ruled;
    gpuest_learn_data_init(&costd, NF, NO);
    gpuest_learn_data_init(&ruled, NF, NO);
    if (rc == GPUEST_OK)
        rc = cost_data(&tr, &costd, &err);
    double gain_span = RULE_SPAN, loss_span = RULE_SPAN;
    if (rc == GPUEST_OK && o->spans && strcmp(o->spans, "p99") == 0) {
        rc = cli_l1c_spans_p99(tr.cost, tr.crule, tr.d.rows, NO, RULE_SPAN, &gain_span, &loss_span, &err);
        if (rc == GPUEST_OK)
            printf("rule target spans (p99 of the training savings): gain %.3f %%, loss %.3f %%\n", 100 * gain_span,
                   100 * loss_span);
    }
    if (rc == GPUEST_OK)
        rc = rule_data(&tr, gain_span, loss_span, &ruled, &err);
    static const unsigned hidden[] = {4, 8, 16};
    static const char *const target_names[] = {"label", "cost", "rule"};
    gpuest_learn_data_t *targets[] = {&tr.d, &costd, &ruled};
    gpuest_learn_net_t *best = NULL;
    score_t best_s = {0, 0};
    unsigned best_h = 0;
    int best_t = 0;
    double best_m = 0;
    for (int tg = 0; rc == GPUEST_OK && tg < 3; tg++) {
        if ((o->target && strcmp(o->target, target_names[tg]) != 0) || (tr.form == 1 && tg != 2))
            continue;
        for (size_t h = 0; rc == GPUEST_OK && h < sizeof hidden / sizeof hidden[0]; h++) {
            if (o->hidden && h > 0) /* --hidden: one network per target */
                continue;
            unsigned hid = o->hidden ? (unsigned)o->hidden : hidden[h];
            gpuest_learn_train_opts_t t;
            gpuest_learn_train_defaults(&t);
            t.hidden = hid;
            t.seed = o->seed;
            t.epochs = (unsigned)o->epochs;
            gpuest_learn_net_t *net = NULL;
            rc = gpuest_learn_train(targets[tg], &t, &net, &err);
            if (rc != GPUEST_OK) {
                gpuest_learn_net_destroy(net);
                break;
            }
            double span = tg == 2 ? gain_span : 0, net_m = 0, net_g = 0; /* decisions read gains only */
            score_t net_s = {0, 0};
            int first = 1;
            /* rule targets: every margin, largest first, and within a margin the guard on first, so
             * a tie keeps the more cautious choice (a larger margin, then the guard) */
            for (int mi = tg == 2 && o->margin < 0 ? NMARGIN - 1 : 0; rc == GPUEST_OK && mi >= 0; mi--) {
                for (int g = o->guard == GUARD_OFF ? 0 : 1; rc == GPUEST_OK && g >= (o->guard == GUARD_ON); g--) {
                    double m = tg != 2 ? 0 : o->margin < 0 ? margins[mi] : o->margin;
                    rc = gpuest_learn_net_set_meta(net, "range_guard", g);
                    score_t st = score(net, &tr, span, m);
                    score_t sv = o->select_mean ? score_mean(net, &va, span, m) : score(net, &va, span, m);
                    printf("target %-5s hidden %2u margin %.3f %% guard %d: train agree %.3f regret %.2f %%, valid "
                           "agree %.3f regret %.2f %%\n",
                           target_names[tg], hid, 100 * m, g, st.agree, st.regret, sv.agree, sv.regret);
                    if (first || sv.regret < net_s.regret) {
                        net_s = sv;
                        net_m = m;
                        net_g = g;
                        first = 0;
                    }
                }
            }
            if (rc == GPUEST_OK)
                rc = gpuest_learn_net_set_meta(net, "range_guard", net_g);
            if (rc != GPUEST_OK) {
                gpuest_learn_net_destroy(net);
                break;
            }
            if (!best || net_s.regret < best_s.regret) {
                gpuest_learn_net_destroy(best);
                best = net;
                best_s = net_s;
                best_h = hid;
                best_t = tg;
                best_m = net_m;
            } else {
                gpuest_learn_net_destroy(net);
            }
        }
    }
    gpuest_learn_data_free(&costd);
    gpuest_learn_data_free(&ruled);
    if (rc == GPUEST_OK) {
        score_t rv = o->select_mean ? score_mean(NULL, &va, 0, 0) : score(NULL, &va, 0, 0);
        double g = 0;
        gpuest_learn_net_get_meta(best, "range_guard", &g);
        printf("rule (latte_cc) on valid: agree %.3f regret %.2f %%%s\n", rv.agree, rv.regret,
               o->select_mean ? " (mean over the files)" : "");
        printf("kept: target %s, hidden %u, margin %.3f %%, guard %d, valid regret %.2f %% (%zu training EPs, %zu "
               "validation EPs)\n",
               target_names[best_t], best_h, 100 * best_m, (int)g, best_s.regret, tr.d.rows, va.d.rows);
        char net[4096], scale[4096];
        model_paths(o, net, scale, sizeof net);
        rc = gpuest_learn_net_set_meta(best, "seed", (double)o->seed);
        if (rc == GPUEST_OK)
            rc = gpuest_learn_net_set_meta(best, "cost_target", best_t);
        if (rc == GPUEST_OK)
            rc = gpuest_learn_net_set_meta(best, "rule_span", best_t == 2 ? gain_span : 0);
        if (rc == GPUEST_OK && best_t == 2 && o->spans && strcmp(o->spans, "p99") == 0)
            rc = gpuest_learn_net_set_meta(best, "rule_span_loss", loss_span);
        if (rc == GPUEST_OK)
            rc = gpuest_learn_net_set_meta(best, "margin", best_m);
        if (rc == GPUEST_OK && tr.form == 1) /* old per-EP models have no 'period' and keep deciding per EP */
            rc = gpuest_learn_net_set_meta(best, "period", 1);
        if (rc == GPUEST_OK)
            rc = gpuest_learn_net_save(best, net, scale, &err);
        if (rc == GPUEST_OK)
            printf("wrote %s and %s\n", net, scale);
    }
    gpuest_learn_net_destroy(best);
    rows_free(&tr);
    rows_free(&va);
    return rc == GPUEST_OK ? 0 : cli_report(CMD, rc, &err);
}

/* Period labels: the shares of periods the network leaves to the rule or holds none, BDI, SC,
 * beside the labels' shares, and the mean measured saving of the periods it holds (in % of the
 * rule child's cycles; negative: the held periods cost more than the rule's). */
static void print_period_shares(const gpuest_learn_net_t *net, const rows_t *r, double span, double margin)
{
    double fann[NO + 1] = {0}, label[NO + 1] = {0}, saved = 0, held = 0;
    for (size_t i = 0; i < r->d.rows; i++) {
        int ch = period_choice(net, &r->d.x[i * NF], span, margin);
        fann[ch + 1]++;
        label[r->plabel[i] + 1]++;
        if (ch >= 0) {
            saved += (r->crule[i] - r->cost[i * NO + ch]) / r->crule[i];
            held++;
        }
    }
    double n = r->d.rows ? (double)r->d.rows : 1;
    printf("    periods rule / none / bdi / sc: fann %.0f / %.0f / %.0f / %.0f %%, labels %.0f / %.0f / %.0f / %.0f %%; "
           "fann's held periods save %.2f %% on average\n",
           100 * fann[0] / n, 100 * fann[1] / n, 100 * fann[2] / n, 100 * fann[3] / n, 100 * label[0] / n,
           100 * label[1] / n, 100 * label[2] / n, 100 * label[3] / n, held > 0 ? 100 * saved / held : 0);
}

static int cmd_eval(const args_t *o)
{
    if (!o->data)
        return cli_usage_error(CMD, "eval needs --data (try --help)");
    gpuest_error_t err;
    gpuest_error_clear(&err);
    char net_path[4096], scale_path[4096];
    model_paths(o, net_path, scale_path, sizeof net_path);
    gpuest_learn_net_t *net = NULL;
    gpuest_err rc = gpuest_learn_net_load(net_path, scale_path, NF, NO, &net, &err);
    double span = 0, margin = 0;
    if (rc == GPUEST_OK && !gpuest_learn_net_get_meta(net, "rule_span", &span))
        span = 0;
    if (rc == GPUEST_OK && !gpuest_learn_net_get_meta(net, "margin", &margin))
        margin = 0;
    double period = 0;
    if (rc == GPUEST_OK && !gpuest_learn_net_get_meta(net, "period", &period))
        period = 0;
    char *copy = rc == GPUEST_OK ? gpuest_strdup(o->data) : NULL;
    if (rc == GPUEST_OK && !copy)
        rc = gpuest_fail(&err, GPUEST_ENOMEM, "out of memory");
    int nfiles = 0;
    if (rc == GPUEST_OK && strspn(o->data, ",") < strlen(o->data))
        printf("%-40s %6s %8s %10s %8s %10s\n", "file", "eps", "fann_ok", "fann_regr%", "rule_ok", "rule_regr%");
    for (char *save = NULL, *p = copy ? strtok_r(copy, ",", &save) : NULL; p && rc == GPUEST_OK;
         p = strtok_r(NULL, ",", &save)) {
        rows_t r;
        rows_init(&r);
        nfiles++;
        rc = read_list_opt(&r, p, 1, &err);
        if (rc == GPUEST_OK && r.form >= 0 && (r.form == 1) != (period > 0))
            rc = gpuest_fail(&err, GPUEST_EINVAL, "%s: %s labels, but the model in %s decides %s", p,
                             r.form ? "period" : "per-EP", o->model_dir, period > 0 ? "per period" : "per EP");
        if (rc == GPUEST_OK && r.d.rows == 0)
            printf("%-40s %6d %8s %10s %8s %10s\n", p, 0, "-", "-", "-", "-");
        else if (rc == GPUEST_OK) {
            score_t f = score(net, &r, span, margin), u = score(NULL, &r, 0, 0);
            printf("%-40s %6zu %8.3f %10.2f %8.3f %10.2f\n", p, r.d.rows, f.agree, f.regret, u.agree, u.regret);
            if (r.form == 1)
                print_period_shares(net, &r, span, margin);
        }
        rows_free(&r);
    }
    free(copy);
    gpuest_learn_net_destroy(net);
    if (rc == GPUEST_OK && nfiles == 0) /* "--data ," used to print an empty table and exit 0 */
        return cli_usage_error(CMD, "--data '%s': expected one or more label files, comma-separated", o->data);
    return rc == GPUEST_OK ? 0 : cli_report(CMD, rc, &err);
}

int cli_cmd_l1cfann(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    args_t o = {.model_dir = cli_model_dir(), .seed = 1, .epochs = 1000};
    int prc = parse(&o, argc - 1, argv + 1);
    if (prc)
        return prc < 0 ? 0 : prc;
    /* options of the other action were ignored silently */
    const char *foreign = NULL;
    if (strcmp(argv[1], "train") == 0 && o.data)
        foreign = "--data (eval's)";
    if (strcmp(argv[1], "eval") == 0)
        foreign = o.train ? "--train" : o.valid ? "--valid" : o.target ? "--target" : o.guard_arg ? "--range-guard"
                  : o.select ? "--select" : o.margin_arg ? "--margin" : o.spans ? "--spans" : o.hidden ? "--hidden"
                  : NULL;
    if (foreign)
        return cli_usage_error(CMD, "%s: not an option of '%s'", foreign, argv[1]);
    /* --margin and --spans shape rule targets only */
    if (o.target && strcmp(o.target, "rule") != 0 && (o.margin_arg || (o.spans && strcmp(o.spans, "p99") == 0)))
        return cli_usage_error(CMD, "%s with --target %s: expected --target rule (they shape rule targets only)",
                               o.margin_arg ? "--margin" : "--spans p99", o.target);
    if (strcmp(argv[1], "train") == 0)
        return cmd_train(&o);
    if (strcmp(argv[1], "eval") == 0)
        return cmd_eval(&o);
    return cli_usage_error(CMD, "unknown action '%s' (train or eval)", argv[1]);
}
