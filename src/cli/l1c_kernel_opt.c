/* l1c_kernel_opt.c: Kernel-OPT, the per-launch oracle of the compressed L1D's mode, as a policy
 * of 'gpuest simulate' (technique.l1_compression = kernel_opt).
 *
 * LATTE-CC's Kernel-OPT runs each kernel in the mode (none, static BDI, static SC) that is fastest
 * for it. The simulator is one single-threaded process, so fork() copies its whole state exactly
 * (the same checkpoint as the per-EP oracle, l1c_oracle.c): when the simulator asks its source for
 * the next launch, this wrapper forks one copy per mode, one after the other; copy k sets every
 * SM's L1D to mode k, runs the launch to its end (or to the run's instruction / cycle limit), and
 * reports the launch's core cycles through a pipe: the next time it asks for a launch it is told
 * the workload is done, so the simulation ends there and the launch is its last kernel row. The
 * parent then sets the mode of fewest cycles (ties: the simpler mode, none before BDI before SC)
 * and runs the launch itself. The run is deterministic, so the parent's launch takes exactly the
 * winner's cycles, and its L2, DRAM and SC code books then carry the chosen modes' history.
 *
 * Why at next_launch: the simulator flushes the L1D at every launch, so a launch's start is the
 * one moment a whole-launch mode choice is clean; and next_launch is a callback the CLI already
 * owns (the source), so the library needs only a way to set the mode (gpuest_technique_set_l1c_mode)
 * and nothing of fork or pipes. Cost: every launch runs four times (three copies and the parent). */
#include "l1c_kernel_opt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "l1c_oracle.h"

const int cli_kopt_modes[CLI_KOPT_MODES] = {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_SC};
static const char *const kopt_names[CLI_KOPT_MODES] = {"none", "bdi", "sc"};
static const char *const policy_names[CLI_KOPT_MODES] = {"none", "static_bdi", "static_sc"};

static struct {
    gpuest_err (*inner_next)(void *ctx, gpuest_launch_t *launch, int *done, gpuest_error_t *err);
    gpuest_sim_opts_t *so;
    gpuest_technique_set_t *techs;
    cli_kopt_launch_t *launches;
    size_t n, cap;
    int in_child; /* 1 in a forked copy: its launch is running; the next request ends the run */
} kopt;

static gpuest_err keep_launch(const gpuest_launch_t *l, const double *cycles, int choice, gpuest_error_t *err)
{
    if (kopt.n == kopt.cap) {
        size_t nc = kopt.cap ? kopt.cap * 2 : 16;
        cli_kopt_launch_t *p = realloc(kopt.launches, nc * sizeof *p);
        if (!p)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for kernel_opt's launches");
        kopt.launches = p;
        kopt.cap = nc;
    }
    cli_kopt_launch_t *k = &kopt.launches[kopt.n++];
    snprintf(k->kernel, sizeof k->kernel, "%s", l->name);
    memcpy(k->cycles, cycles, sizeof k->cycles);
    k->choice = choice;
    return GPUEST_OK;
}

static gpuest_err kopt_next_launch(void *ctx, gpuest_launch_t *launch, int *done, gpuest_error_t *err)
{
    if (kopt.in_child) { /* this copy's launch ended: no further launch, the run ends here */
        *done = 1;
        return GPUEST_OK;
    }
    GPUEST_TRY(kopt.inner_next(ctx, launch, done, err));
    if (*done)
        return GPUEST_OK;
    double cycles[CLI_KOPT_MODES];
    int branch = 0;
    int rc = cli_fork_branch(CLI_KOPT_MODES, &branch, cycles);
    if (rc < 0)
        return gpuest_fail(err, GPUEST_EIO, "technique.l1_compression = kernel_opt: fork or pipe failed at launch %u",
                           launch->index);
    if (rc == 1) {
        kopt.in_child = 1;
        if (kopt.so)
            kopt.so->progress = NULL; /* only the parent draws the bar */
        gpuest_error_t cerr;
        if (gpuest_technique_set_l1c_mode(kopt.techs, cli_kopt_modes[branch], &cerr) != GPUEST_OK)
            _exit(1); /* the parent reads a missing cost */
        return GPUEST_OK;
    }
    int choice = cli_fork_label(cycles, CLI_KOPT_MODES, 0.0);
    if (choice < 0) {
        int k = 0;
        while (k < CLI_KOPT_MODES - 1 && !isnan(cycles[k]))
            k++;
        return gpuest_fail(err, GPUEST_EIO,
                           "technique.l1_compression = kernel_opt: the run of launch %u (%s) in mode %s ended "
                           "without reporting its cycles (technique.l1_compression = %s shows why)",
                           launch->index, launch->name, kopt_names[k], policy_names[k]);
    }
    GPUEST_TRY(keep_launch(launch, cycles, choice, err));
    return gpuest_technique_set_l1c_mode(kopt.techs, cli_kopt_modes[choice], err);
}

void cli_kopt_prepare(void)
{
    gpuest_l1c_set_launch_driver(1);
}

gpuest_err cli_kopt_start(gpuest_sim_source_t *src, gpuest_sim_opts_t *so, gpuest_technique_set_t *techs,
                          gpuest_error_t *err)
{
    (void)err;
    free(kopt.launches);
    memset(&kopt, 0, sizeof kopt);
    kopt.inner_next = src->next_launch;
    kopt.so = so;
    kopt.techs = techs;
    src->next_launch = kopt_next_launch;
    return GPUEST_OK;
}

void cli_kopt_child_end(gpuest_err rc, const gpuest_sim_result_t *r)
{
    if (!kopt.in_child)
        return;
    if (rc == GPUEST_OK && r->num_kernels > 0)
        cli_fork_report((double)r->kernels[r->num_kernels - 1].cycles); /* ends the process */
    _exit(1); /* the run failed: the parent reads a missing cost and says which launch */
}

size_t cli_kopt_count(void)
{
    return kopt.n;
}

const cli_kopt_launch_t *cli_kopt_launch(size_t i)
{
    return i < kopt.n ? &kopt.launches[i] : NULL;
}

void cli_kopt_print(FILE *out)
{
    for (size_t i = 0; i < kopt.n; i++) {
        const cli_kopt_launch_t *k = &kopt.launches[i];
        fprintf(out, "kernel_opt launch %zu %s: none %.0f bdi %.0f sc %.0f -> %s\n", i, k->kernel, k->cycles[0],
                k->cycles[1], k->cycles[2], kopt_names[k->choice]);
    }
}

void cli_kopt_stop(void)
{
    gpuest_l1c_set_launch_driver(0);
    free(kopt.launches);
    memset(&kopt, 0, sizeof kopt);
}
