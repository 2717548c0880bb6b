/* l1c_kernel_opt.h: technique.l1_compression = kernel_opt in 'gpuest simulate': at every launch
 * the simulation forks one copy per mode (none, BDI, SC), each runs the launch to its end in its
 * mode and reports its cycles; the run goes on with the launch in the fastest mode. */
#ifndef GPUEST_CLI_L1C_KERNEL_OPT_H
#define GPUEST_CLI_L1C_KERNEL_OPT_H

#include <stdio.h>

#include "sim/sim.h"
#include "technique/technique.h"

#define CLI_KOPT_MODES 3 /* none, BDI, SC: the paper's Kernel-OPT candidates */
extern const int cli_kopt_modes[CLI_KOPT_MODES];

typedef struct {
    char kernel[GPUEST_WL_NAME_MAX];
    double cycles[CLI_KOPT_MODES]; /* the launch's core cycles in each mode (forked runs) */
    int choice;                    /* index into cli_kopt_modes: fewest cycles, ties to the simpler mode */
} cli_kopt_launch_t;

/* cli_kopt_prepare before gpuest_technique_set_create (kernel_opt's create refuses without it). */
void cli_kopt_prepare(void);
/* Installs Kernel-OPT on src (its next_launch is wrapped; src->ctx is kept) for one simulation
 * with techs and so (a forked copy stops its progress
 * bar). Process-wide, one simulation at a time. */
gpuest_err cli_kopt_start(gpuest_sim_source_t *src, gpuest_sim_opts_t *so, gpuest_technique_set_t *techs,
                          gpuest_error_t *err);
/* After gpuest_sim_run: in a forked copy, reports the cycles of its launch (the run's last kernel)
 * and ends the process; in the parent returns at once. */
void cli_kopt_child_end(gpuest_err rc, const gpuest_sim_result_t *r);
/* The launches decided so far (parent). */
size_t cli_kopt_count(void);
const cli_kopt_launch_t *cli_kopt_launch(size_t i);
/* One line per launch: 'kernel_opt launch K NAME: none C bdi C sc C -> MODE'. */
void cli_kopt_print(FILE *out);
/* Removes the wrapper's state (the source itself is the caller's). */
void cli_kopt_stop(void);

#endif
