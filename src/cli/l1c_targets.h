/* l1c_targets.h: the rule-relative training targets of LATTE-CC's FANN mode selector with
 * asymmetric spans taken from the training labels (docs/latte-cc.md, "Seventh round"). */
#ifndef GPUEST_CLI_L1C_TARGETS_H
#define GPUEST_CLI_L1C_TARGETS_H

#include <stddef.h>

#include "core/core.h"

/* The target of one output for a saving s (share of the rule's cycles that the mode saves;
 * negative: it costs more): 0.5 + s / (2 gain_span) for s >= 0, 0.5 + s / (2 loss_span) for s < 0,
 * clamped to [0, 1]. Both spans > 0. */
double cli_l1c_rule_target(double saving, double gain_span, double loss_span);

/* The spans of --spans p99: over every (row, output) pair of rows x nout costs (cost[i * nout + k])
 * against the rule's cost crule[i] (rows with crule <= 0 are skipped), gain = the 99th percentile
 * (nearest rank) of the positive savings and loss = that of |s| over the negative ones. A side
 * without any saving keeps fallback. Returns GPUEST_ENOMEM on allocation failure. */
gpuest_err cli_l1c_spans_p99(const double *cost, const double *crule, size_t rows, int nout, double fallback,
                             double *gain, double *loss, gpuest_error_t *err);

#endif
