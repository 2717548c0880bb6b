/* cli_study.h: options shared by calibrate, estimate and validate. */
#ifndef GPUEST_CLI_STUDY_H
#define GPUEST_CLI_STUDY_H

#include "cli.h"
#include "study/study.h"

typedef struct {
    cli_config_t cc;
    const char *workload;
    gpuest_scale_t scale;
    unsigned long long seed;
    const char *calib_dir; /* folder of calibration files */
    const char *calib_file; /* explicit file (overrides the folder) */
    const char *csv;
    double confidence;
    long points;
    const char *batch;
    const char *truth_csv; /* validate: stored detailed runs */
    int simulate_missing;  /* validate: points absent from truth_csv are run in detail */
    const char *techniques; /* validate: compression algorithms to validate, "bdi,dsm" (NULL: none) */
    int refit;             /* calibrate: refit the runs of the existing file */
    int phases;            /* calibrate --refit --phases: measure the kernel phases (one baseline run) */
    int pool_scoreboard;   /* estimate, validate --pool-form scoreboard (study/pool_form.c); 0: token */
    int pool_setres;       /* estimate, validate --pool-setres on | off (default): WarpPool relieves the L1's set reservations */
    int l1_fill_timing;    /* estimate, validate --l1-fill-timing on | off (default): compressed-L1 walk fills timed */
    int workload_given, scale_given; /* --workload, --scale on the command line (not the defaults) */
} cli_study_opts_t;

void cli_study_init(cli_study_opts_t *o);
/* Consumes one option; 1 used, 0 not ours, -1 error (printed). */
int cli_study_option(cli_study_opts_t *o, cli_args_t *a, const char *cmd);
/* Parses the command line of calibrate, estimate or validate into o and resolves the machine.
 * Returns -1 when the command should go on; otherwise the exit code (0 after printing help with
 * help(stdout), 2 after a usage or configuration error, already printed). */
int cli_study_parse(cli_study_opts_t *o, int argc, char **argv, const char *cmd, void (*help)(FILE *out));
/* Calibration file path for o (explicit, or <dir>/<preset>-<workload>-<scale>.cal). */
void cli_study_calib_path(const cli_study_opts_t *o, char *buf, size_t cap);
/* Reads the calibration of o into c (path: cap bytes, filled with its path) and warns when it is
 * stale. Returns 0, or the exit code after printing the error (a missing file also prints the
 * calibrate command that makes it). A calibration of another workload or scale than --workload /
 * --scale (or than its file name says) is refused; with --calibration FILE and neither option,
 * o takes the file's workload and scale, so the technique transforms walk the calibrated workload. */
int cli_study_load(cli_study_opts_t *o, const char *cmd, gpuest_calibration_t *c, char *path, size_t cap);
/* One warning line on stderr when calibration c (read from path) was fitted on another simulator
 * generation or another machine than its preset in this build; the command goes on. */
void cli_study_warn_stale(const char *cmd, const char *path, const gpuest_calibration_t *c);
#define CLI_STUDY_HELP                                                                                               \
    "  --workload W           workload generator (default hotspot)\n"                                              \
    "  --scale S              tiny, small (default) or default\n"                                                  \
    "  --seed N               input seed (default 1)\n"                                                            \
    "  --calibrations DIR     calibration folder (default models/calibrations)\n"                                  \
    "  --calibration FILE     one calibration file\n"                                                  \
    "  --pool-form F          estimate, validate: WarpPool on a token-form calibration by the token\n"         \
    "                         form (token, the default) or the scoreboard fit kept beside it (scoreboard)\n"         \
    "  --pool-setres on|off   estimate, validate: WarpPool scales the L1's measured set-reservation\n"         \
    "                         blocking by the replayed L1's relief (on) or leaves it (off, the default)\n"     \
    "  --l1-fill-timing on|off estimate, validate: the compressed-L1 walk lands a fill after the\n"             \
    "                         baseline's miss latency in its SM's reads (on) or at its warp's next turn\n"      \
    "                         only (off, the default)\n"

#endif
