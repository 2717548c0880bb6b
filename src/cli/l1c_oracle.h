/* l1c_oracle.h: the per-EP oracle of the compressed L1D's mode ('gpuest simulate --l1c-oracle'):
 * labels for the FANN mode selector, measured by running every mode from one forked checkpoint. */
#ifndef GPUEST_CLI_L1C_ORACLE_H
#define GPUEST_CLI_L1C_ORACLE_H

#include <stddef.h>

#include "core/core.h"

/* A checkpoint by fork(): forks n children one after the other. In child k it returns 1 with
 * *branch = k (the child goes on from the parent's exact state and must end with
 * cli_fork_report); in the parent it returns 0 once every child has reported, with cost[k] the
 * number child k reported (NAN when it ended without reporting); -1 when fork or pipe failed. */
int cli_fork_branch(int n, int *branch, double *cost);
/* In a child of cli_fork_branch: sends cost to the parent and ends the child (_exit). Elsewhere it
 * does nothing. */
void cli_fork_report(double cost);
int cli_fork_is_child(void);
/* The label: the lowest index whose cost is at most (1 + margin) x the least cost (ties and
 * near-ties go to the lower latency mode); -1 when a cost is missing (NAN). */
int cli_fork_label(const double *cost, int n, double margin);
/* The label of a rollout: base (the rule's own choice) unless another index is strictly cheaper;
 * then the cheapest (ties among those: the lower index); -1 when a cost is missing. */
int cli_fork_label_base(const double *cost, int n, int base);
/* The label of a period (cost[0]: the rule's child, cost[1..n-1]: the held modes): the cheapest
 * held index only if it is cheaper than cost[0] x (1 - margin), else 0 (the rule keeps ties and
 * near-ties; ties among the held: the lower index); -1 when a cost is missing. */
int cli_fork_label_keep(const double *cost, int n, double margin);

/* Installs the oracle for one simulation (workload names the CSV rows): at every EP end of every
 * SM it forks one child per mode (none, BDI, SC), each runs that SM's next `horizon` EPs in its
 * mode and reports their cycles; the least-cycles mode is the label and the run goes on in it
 * for one EP (then labels again). every > 1 labels only SM s's EPs e with (e + s) mod every = 0
 * and keeps each label until the next (a cheaper oracle for training data). */
/* rollout = 1 ('--l1c-continue rule'): each forked run deviates for its one EP only, then the
 * policy (LATTE-CC's rule) decides again, for that SM and for every other SM, until `horizon` EPs
 * of the SM are timed; the label is the rule's own choice unless another mode was strictly
 * cheaper; unlabelled EPs of the parent follow the rule instead of holding the last label. */
/* rollout = 2 ('--l1c-continue period'): one label per period of each SM, at the end of its EP
 * GPUEST_L1C_PERIOD_DECISION_EP: children run the rule, or hold none, BDI, SC, to the period's
 * end (the other SMs follow the rule); the parent holds the label for the period. The CSV gets a
 * column cycles_rule and label -1 where the rule keeps the period. horizon and every are unused. */
gpuest_err cli_l1c_oracle_start(const char *workload, unsigned horizon, unsigned every, int rollout,
                                gpuest_error_t *err);
/* After the simulation: in a child (the run ended before its EP did) reports nothing and exits;
 * in the parent writes the rows to path (atomically) and removes the oracle. */
gpuest_err cli_l1c_oracle_finish(const char *path, gpuest_error_t *err);

#endif
