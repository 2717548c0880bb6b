/* cli.h: shared helpers of the gpuest program's subcommands (the only code that prints). */
#ifndef GPUEST_CLI_H
#define GPUEST_CLI_H

#include <stdio.h>

#include "config/config.h"
#include "core/core.h"

/* Subcommand entry point: argv[0] is the subcommand name. Returns the exit code. */
typedef int (*cli_command_fn)(int argc, char **argv);

/* Prints "gpuest <cmd>: <message>" to stderr and returns the exit code for code. */
int cli_report(const char *cmd, gpuest_err code, const gpuest_error_t *err);
/* Prints a usage error to stderr and returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------ options
 * A small option scanner: "--name value", "--name=value" and "--flag". */
typedef struct {
    int argc;
    char **argv;
    int index;         /* next argument to read */
    const char *cmd;   /* subcommand name for messages */
    const char *name;  /* option just read, without dashes, or NULL for a positional */
    const char *value; /* its inline value ("--name=value") or the positional */
    int inline_value;
} cli_args_t;

void cli_args_init(cli_args_t *a, int argc, char **argv, const char *cmd);
/* Advances; returns 0 at the end. Sets name (option) or value (positional). */
int cli_args_next(cli_args_t *a);
/* The value of the current option (inline or the next argument); NULL + message if missing. */
const char *cli_args_value(cli_args_t *a);
int cli_args_is(const cli_args_t *a, const char *name);
/* 1 when a is a positional argument or an option named in names (NULL-terminated). */
int cli_args_known(const cli_args_t *a, const char *const *names);
/* Parse helpers that print a usage error naming the option; return 0 on success. */
int cli_parse_int(const char *cmd, const char *opt, const char *s, long min, long max, long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max, double *out);
int cli_parse_u64(const char *cmd, const char *opt, const char *s, unsigned long long *out);

/* ------------------------------------------------------------ configuration options
 * Every command that takes a machine accepts: --preset P, --config FILE,
 * --set section.key=value (repeatable). cli_config_option consumes one of them
 * (returns 1 if it did, 0 if the option is not a config option, -1 on error
 * after printing). cli_config_finish validates. */
typedef struct {
    gpuest_config_t cfg;
    int have_base; /* a preset or file was given */
} cli_config_t;

void cli_config_init(cli_config_t *c, const char *default_preset);
int cli_config_option(cli_config_t *c, cli_args_t *a);
/* Validates, then checks the techniques against what cmd runs (a technique that is on but
 * unsupported there is an error naming its key, exit 2). 0 ok, else the exit code. */
int cli_config_finish(cli_config_t *c, const char *cmd);
/* Folder of the trained models: ./models, else the source tree's. */
const char *cli_model_dir(void);
#define CLI_CONFIG_HELP                                                                                                \
    "  --preset P             machine preset (listed by 'gpuest config presets')\n"                                   \
    "  --config FILE          INI file (may name a preset in [preset] name = P)\n"                                     \
    "  --set SECTION.KEY=V    override one key (repeatable)\n"

/* ------------------------------------------------------------ tables
 * Rows of string cells printed as an aligned text table, and optionally as CSV. */
typedef struct {
    size_t columns;
    const char **header;
    char **cells; /* rows * columns owned strings */
    size_t rows, cap;
} cli_table_t;

int cli_table_init(cli_table_t *t, const char *const *header, size_t columns);
/* Adds a row of printf-formatted cells: fmt has one conversion per column separated by '\t'. */
int cli_table_add(cli_table_t *t, const char *const *cells);
int cli_table_addf(cli_table_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_table_print(const cli_table_t *t, FILE *out);
/* Writes header + rows to path atomically; returns 0 or prints and returns exit code. */
int cli_table_write_csv(const cli_table_t *t, const char *path, const char *cmd);
void cli_table_free(cli_table_t *t);
/* For commands writing several files: the table written to path's temporary file but not yet
 * renamed into place (w); commit each with cli_csv_commit once every output is staged, or
 * gpuest_csv_writer_abort them all. Returns 0 or prints and returns the exit code (nothing left). */
int cli_table_stage_csv(const cli_table_t *t, const char *path, const char *cmd, gpuest_csv_writer_t *w);
int cli_csv_commit(gpuest_csv_writer_t *w, const char *cmd);

/* Progress bar on stderr when it is a terminal, else NULL. */
gpuest_progress_t *cli_progress(const char *label, unsigned long long total);

/* Checks, before any long work, that an output file can be created: its folder exists, is a folder
 * and is writable. Returns 0, or prints "gpuest CMD: --OPT PATH: ..." and returns 2 (a bad option
 * value: the command would otherwise run for minutes and then fail, or commit some of its outputs
 * and not the others). path NULL: nothing to check. */
int cli_check_output(const char *cmd, const char *opt, const char *path);
/* The same for a folder that files will be written into (--model-dir). */
int cli_check_output_dir(const char *cmd, const char *opt, const char *dir);

#endif
