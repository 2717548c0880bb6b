/* l1c_oracle.c: the per-EP oracle of the compressed L1D's mode, by fork() checkpoints.
 *
 * The simulator is one single-threaded process, so fork() copies its whole state exactly: at the
 * end of an EP of SM s, one child per mode (none, BDI, SC) goes on from that state with s forced
 * into its mode for s's next EP, and reports through a pipe the core cycles from the checkpoint to
 * the end of that EP (256 more L1D accesses of s); then it exits. The other SMs keep the mode they
 * have in the child (their own EP ends there are not labelled). The parent takes the mode of
 * fewest cycles (ties: the lower latency mode, none first) as the label of this EP, writes the
 * SM's features with the three cycle counts, and runs the EP in the labelled mode: the parent's
 * run is the per-EP oracle ("follow the labels"). With '--l1c-continue rule' the labels are
 * rollouts instead: a child departs for its one EP, then LATTE-CC's rule decides for every SM
 * until the horizon; the label is the rule's choice unless another mode was strictly cheaper, and
 * the parent's unlabelled EPs follow the rule. With '--l1c-continue period' (the sixth round,
 * docs/latte-cc.md) an SM is labelled once per period, at the end of its EP 1: four children let
 * the rule decide, or hold none, BDI or SC, for the period's remaining EPs (the other SMs follow
 * the rule), each timed to the end of the period's last EP; the parent follows the label for the
 * period (the period oracle). Children run one at a time. Only
 * 'gpuest simulate --l1c-oracle' installs this; the library sees an EP observer callback only. */
#include "l1c_oracle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "technique/technique.h"

static int child_fd = -1; /* the pipe's write end in a child, -1 in the parent */

int cli_fork_is_child(void) { return child_fd >= 0; }

void cli_fork_report(double cost)
{
    if (child_fd < 0)
        return;
    ssize_t w = write(child_fd, &cost, sizeof cost);
    (void)w; /* a short write reads as a missing cost in the parent */
    _exit(0);
}

static double read_cost(int fd)
{
    double cost;
    size_t got = 0;
    while (got < sizeof cost) {
        ssize_t r = read(fd, (char *)&cost + got, sizeof cost - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return NAN;
        got += (size_t)r;
    }
    return cost;
}

int cli_fork_branch(int n, int *branch, double *cost)
{
    fflush(NULL); /* the children must not write the parent's buffered output again */
    for (int k = 0; k < n; k++) {
        int fd[2];
        if (pipe(fd) != 0)
            return -1;
        pid_t pid = fork();
        if (pid < 0) {
            close(fd[0]);
            close(fd[1]);
            return -1;
        }
        if (pid == 0) {
            close(fd[0]);
            child_fd = fd[1];
            *branch = k;
            return 1;
        }
        close(fd[1]);
        cost[k] = read_cost(fd[0]);
        close(fd[0]);
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    return 0;
}

int cli_fork_label(const double *cost, int n, double margin)
{
    int best = -1;
    for (int k = 0; k < n; k++) {
        if (isnan(cost[k]))
            return -1;
        if (best < 0 || cost[k] < cost[best])
            best = k;
    }
    for (int k = 0; k < best; k++) /* a lower index within the margin of the least cost wins */
        if (cost[k] <= cost[best] * (1.0 + margin))
            return k;
    return best;
}

int cli_fork_label_keep(const double *cost, int n, double margin)
{
    int best = cli_fork_label(cost, n, 0.0);
    if (best <= 0)
        return best;
    return cost[best] < cost[0] * (1.0 - margin) ? best : 0;
}

int cli_fork_label_base(const double *cost, int n, int base)
{
    int best = cli_fork_label(cost, n, 0.0);
    if (best < 0 || base < 0 || base >= n)
        return best;
    return cost[base] <= cost[best] ? base : best;
}

/* ------------------------------------------------------------ the oracle */

/* A compressed mode must be faster than a lower latency one by more than this share to be the
 * label. Why: over one EP the gain of compression is counted at once (capacity), while part of
 * its cost comes later (lines hit in the decompression queue in later EPs, SC lines invalidated
 * at the next period); on fw (a training workload) labels won by SC by under 2 % (1-20 cycles
 * of 1500-9000) made the oracle run slower than the plain L1D. Fixed before any held-out run. */
#define ORACLE_MARGIN 0.02

static const int oracle_modes[GPUEST_L1C_FANN_OUTPUTS] = {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_SC};

typedef struct {
    gpuest_l1c_ep_t ep;
    double cost[GPUEST_L1C_FANN_OUTPUTS];
    int label;        /* an index of oracle_modes, -1: the rule (period labels) */
    double cost_rule; /* period labels: the rule child's cycles */
} oracle_row_t;

typedef struct {
    const char *workload;
    oracle_row_t *rows;
    size_t n, cap;
    int oom;
    /* in a child: the SM whose EP it runs, and the checkpoint's cycle */
    int target_sm, forced;
    uint64_t target_ep, fork_cycle;
    unsigned horizon; /* EPs each child runs in its mode before it reports */
    unsigned every;   /* SM s labels its EP e when (e + s) mod every = 0 and holds the label between */
    int rollout;      /* 1: forked runs and unlabelled EPs continue with the policy's own choice */
    int period;       /* 1: labels held for a period ('--l1c-continue period') */
    double cost_rule; /* period labels: the row being kept's rule child (NAN otherwise) */
    int *held;        /* period labels, in the parent: each SM's held mode, -1 the rule's */
    int nheld;
} oracle_t;

static oracle_t oracle;

static void keep_row(const gpuest_l1c_ep_t *ep, const double *cost, int label)
{
    if (oracle.n == oracle.cap) {
        size_t nc = oracle.cap ? oracle.cap * 2 : 1024;
        oracle_row_t *p = realloc(oracle.rows, nc * sizeof *p);
        if (!p) {
            oracle.oom = 1;
            return;
        }
        oracle.rows = p;
        oracle.cap = nc;
    }
    oracle_row_t *r = &oracle.rows[oracle.n++];
    r->ep = *ep;
    memcpy(r->cost, cost, sizeof r->cost);
    r->label = label;
    r->cost_rule = oracle.cost_rule;
}

static int rule_index(int mode)
{
    for (int k = 0; k < GPUEST_L1C_FANN_OUTPUTS; k++)
        if (oracle_modes[k] == mode)
            return k;
    return -1;
}

/* ------------------------------------------------------------ period labels */

/* A held mode must save more than this share of the period's cycles against the rule child to
 * be the label; otherwise the rule keeps the period (ties and near-ties). Why: a held mode's cost
 * partly lands after the timed window (SC lines invalidated when the next period starts, hits
 * queued at the decompressors in the next EPs), and a policy built to depart from the rule should
 * be taught to only where the gain is clear. Fixed before any label (docs/latte-cc.md, "Sixth
 * round"); not tuned. */
#define PERIOD_MARGIN 0.01

static int *held_slot(int sm)
{
    if (sm >= oracle.nheld) {
        int n = sm + 1 > 2 * oracle.nheld ? sm + 1 : 2 * oracle.nheld;
        int *p = realloc(oracle.held, (size_t)n * sizeof *p);
        if (!p) {
            oracle.oom = 1;
            return NULL;
        }
        for (int i = oracle.nheld; i < n; i++)
            p[i] = -1;
        oracle.held = p;
        oracle.nheld = n;
    }
    return &oracle.held[sm];
}

/* The observer for period labels. pos: the index in its period of the EP that just ended (the
 * feature ep_in_period). A returned mode is the SM's next EP's; -1 leaves it to the rule. */
static int period_ep(const gpuest_l1c_ep_t *ep)
{
    int pos = (int)lround(ep->x[13]);
    if (cli_fork_is_child()) { /* rollout: every other SM follows the rule */
        if (ep->sm != oracle.target_sm)
            return -1;
        if (ep->ep >= oracle.target_ep + (GPUEST_L1C_EPS_PER_PERIOD - 1 - GPUEST_L1C_PERIOD_DECISION_EP))
            cli_fork_report((double)(ep->core_cycle - oracle.fork_cycle)); /* the period's last EP ended */
        return oracle.forced;
    }
    int *held = held_slot(ep->sm);
    if (!held)
        return -1;
    if (pos != GPUEST_L1C_PERIOD_DECISION_EP) {
        if (pos == GPUEST_L1C_EPS_PER_PERIOD - 1 || pos < GPUEST_L1C_PERIOD_DECISION_EP)
            *held = -1; /* the period ends: the rule decides the next one's first EPs */
        return *held;
    }
    /* cost[0]: the rule child; cost[1 + k]: the child holding oracle_modes[k] */
    double cost[1 + GPUEST_L1C_FANN_OUTPUTS];
    int branch = 0;
    oracle.target_sm = ep->sm;
    oracle.target_ep = ep->ep;
    oracle.fork_cycle = ep->core_cycle;
    int rc = cli_fork_branch(1 + GPUEST_L1C_FANN_OUTPUTS, &branch, cost);
    if (rc == 1) {
        oracle.forced = branch == 0 ? -1 : oracle_modes[branch - 1];
        return oracle.forced;
    }
    int label = rc != 0 ? -1 : cli_fork_label_keep(cost, 1 + GPUEST_L1C_FANN_OUTPUTS, PERIOD_MARGIN);
    *held = -1;
    if (label < 0) /* the run ends inside this period (or fork failed): no label, the rule decides */
        return -1;
    oracle.cost_rule = cost[0];
    keep_row(ep, cost + 1, label - 1);
    *held = label > 0 ? oracle_modes[label - 1] : -1;
    return *held;
}

static int oracle_ep(void *ctx, const gpuest_l1c_ep_t *ep)
{
    (void)ctx;
    if (oracle.period)
        return period_ep(ep);
    if (cli_fork_is_child()) { /* the EP this child runs ended: report; others hold their mode */
        if (ep->sm != oracle.target_sm)
            return oracle.rollout ? -1 : ep->mode;
        if (ep->ep >= oracle.target_ep + oracle.horizon)
            cli_fork_report((double)(ep->core_cycle - oracle.fork_cycle));
        return oracle.rollout ? -1 : oracle.forced; /* a rollout deviates for one EP only */
    }
    if ((ep->ep + (uint64_t)ep->sm) % oracle.every != 0)
        return oracle.rollout ? -1 : ep->mode;
    double cost[GPUEST_L1C_FANN_OUTPUTS];
    int branch = 0;
    oracle.target_sm = ep->sm;
    oracle.target_ep = ep->ep;
    oracle.fork_cycle = ep->core_cycle;
    int rc = cli_fork_branch(GPUEST_L1C_FANN_OUTPUTS, &branch, cost);
    if (rc == 1) {
        oracle.forced = oracle_modes[branch];
        return oracle.forced;
    }
    int label = rc != 0                ? -1
                : oracle.rollout ? cli_fork_label_base(cost, GPUEST_L1C_FANN_OUTPUTS, rule_index(ep->choice))
                                 : cli_fork_label(cost, GPUEST_L1C_FANN_OUTPUTS, ORACLE_MARGIN);
    if (label < 0) /* the run ends inside this EP (or fork failed): no label, the policy decides */
        return -1;
    keep_row(ep, cost, label);
    return oracle_modes[label];
}

gpuest_err cli_l1c_oracle_start(const char *workload, unsigned horizon, unsigned every, int rollout,
                                gpuest_error_t *err)
{
    (void)err;
    memset(&oracle, 0, sizeof oracle);
    oracle.rollout = rollout == 1;
    oracle.period = rollout == 2;
    oracle.cost_rule = NAN;
    oracle.workload = workload;
    oracle.horizon = horizon ? horizon : 1;
    oracle.every = every ? every : 1;
    gpuest_l1c_set_ep_observer(oracle_ep, NULL);
    return GPUEST_OK;
}

#define ORACLE_COLS (4 + GPUEST_L1C_FANN_FEATURES + 2 + GPUEST_L1C_FANN_OUTPUTS + 2)

gpuest_err cli_l1c_oracle_finish(const char *path, gpuest_error_t *err)
{
    if (cli_fork_is_child())
        _exit(0); /* the run ended before this child's EP did: the parent reads no cost */
    gpuest_l1c_set_ep_observer(NULL, NULL);
    const char *header[ORACLE_COLS];
    size_t h = 0;
    header[h++] = "workload";
    header[h++] = "sm";
    header[h++] = "ep";
    header[h++] = "core_cycle";
    for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
        header[h++] = gpuest_l1c_fann_feature_names[i];
    header[h++] = "mode";
    header[h++] = "rule_choice";
    header[h++] = "cycles_none";
    header[h++] = "cycles_bdi";
    header[h++] = "cycles_sc";
    if (oracle.period)
        header[h++] = "cycles_rule";
    header[h++] = "label";
    gpuest_err rc = GPUEST_OK;
    if (oracle.oom)
        rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the oracle's rows");
    gpuest_csv_writer_t w;
    int opened = 0;
    if (rc == GPUEST_OK)
        rc = gpuest_csv_writer_open(&w, path, header, h, err);
    opened = rc == GPUEST_OK;
    char buf[ORACLE_COLS][40];
    const char *cells[ORACLE_COLS];
    for (size_t r = 0; rc == GPUEST_OK && r < oracle.n; r++) {
        const oracle_row_t *o = &oracle.rows[r];
        size_t k = 0;
        cells[k++] = oracle.workload;
        snprintf(buf[k], sizeof buf[k], "%d", o->ep.sm), cells[k] = buf[k], k++;
        snprintf(buf[k], sizeof buf[k], "%llu", (unsigned long long)o->ep.ep), cells[k] = buf[k], k++;
        snprintf(buf[k], sizeof buf[k], "%llu", (unsigned long long)o->ep.core_cycle), cells[k] = buf[k], k++;
        for (int i = 0; i < GPUEST_L1C_FANN_FEATURES; i++)
            gpuest_fmt_double(buf[k], sizeof buf[k], o->ep.x[i]), cells[k] = buf[k], k++;
        snprintf(buf[k], sizeof buf[k], "%d", o->ep.mode), cells[k] = buf[k], k++;
        snprintf(buf[k], sizeof buf[k], "%d", o->ep.choice), cells[k] = buf[k], k++;
        for (int i = 0; i < GPUEST_L1C_FANN_OUTPUTS; i++)
            gpuest_fmt_double(buf[k], sizeof buf[k], o->cost[i]), cells[k] = buf[k], k++;
        if (oracle.period)
            gpuest_fmt_double(buf[k], sizeof buf[k], o->cost_rule), cells[k] = buf[k], k++;
        snprintf(buf[k], sizeof buf[k], "%d", o->label < 0 ? -1 : oracle_modes[o->label]), cells[k] = buf[k], k++;
        rc = gpuest_csv_write_row(&w, cells, err);
    }
    if (rc == GPUEST_OK)
        rc = gpuest_csv_writer_commit(&w, err);
    else if (opened)
        gpuest_csv_writer_abort(&w);
    free(oracle.rows);
    free(oracle.held);
    memset(&oracle, 0, sizeof oracle);
    return rc;
}
