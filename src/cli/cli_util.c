/* cli_util.c: option scanning, error reporting, configuration options, tables. */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "technique/technique.h" /* gpuest_technique_validate: the modes each command runs */

int cli_report(const char *cmd, gpuest_err code, const gpuest_error_t *err)
{
    const char *msg = (err && err->msg[0]) ? err->msg : gpuest_strerror(code);
    fprintf(stderr, "gpuest %s: error: %s\n", cmd, msg);
    return gpuest_exit_code(code);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpuest %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'gpuest %s --help')\n", cmd);
    va_end(ap);
    return 2;
}

/* ------------------------------------------------------------ options */

void cli_args_init(cli_args_t *a, int argc, char **argv, const char *cmd)
{
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->index = 1;
    a->cmd = cmd;
}

int cli_args_next(cli_args_t *a)
{
    static char name_buf[128];
    if (a->index >= a->argc)
        return 0;
    const char *arg = a->argv[a->index++];
    a->inline_value = 0;
    if (arg[0] == '-' && arg[1] != '\0' && !(arg[1] >= '0' && arg[1] <= '9')) {
        const char *n = arg + 1;
        if (*n == '-')
            n++;
        const char *eq = strchr(n, '=');
        size_t len = eq ? (size_t)(eq - n) : strlen(n);
        if (len >= sizeof name_buf)
            len = sizeof name_buf - 1;
        memcpy(name_buf, n, len);
        name_buf[len] = '\0';
        a->name = name_buf;
        a->value = eq ? eq + 1 : NULL;
        a->inline_value = eq != NULL;
    } else {
        a->name = NULL;
        a->value = arg;
    }
    return 1;
}

const char *cli_args_value(cli_args_t *a)
{
    if (a->inline_value)
        return a->value;
    if (a->index >= a->argc) {
        cli_usage_error(a->cmd, "option --%s needs a value", a->name);
        return NULL;
    }
    return a->argv[a->index++];
}

int cli_args_is(const cli_args_t *a, const char *name)
{
    return a->name && strcmp(a->name, name) == 0;
}

int cli_args_known(const cli_args_t *a, const char *const *names)
{
    if (!a->name)
        return 1;
    for (size_t i = 0; names[i]; i++)
        if (strcmp(a->name, names[i]) == 0)
            return 1;
    return 0;
}

int cli_parse_int(const char *cmd, const char *opt, const char *s, long min, long max, long *out)
{
    int64_t v;
    if (!s || gpuest_parse_i64(s, &v) != GPUEST_OK) {
        cli_usage_error(cmd, "--%s expects an integer, got '%s'", opt, s ? s : "");
        return 2;
    }
    if (v < min || v > max) {
        cli_usage_error(cmd, "--%s = %lld is out of range [%ld, %ld]", opt, (long long)v, min, max);
        return 2;
    }
    *out = (long)v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max, double *out)
{
    double v;
    if (!s || gpuest_parse_double(s, &v) != GPUEST_OK) {
        cli_usage_error(cmd, "--%s expects a number, got '%s'", opt, s ? s : "");
        return 2;
    }
    if (!(v >= min && v <= max)) {
        cli_usage_error(cmd, "--%s = %g is out of range [%g, %g]", opt, v, min, max);
        return 2;
    }
    *out = v;
    return 0;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *s, unsigned long long *out)
{
    uint64_t v;
    if (!s || gpuest_parse_u64(s, &v) != GPUEST_OK) {
        cli_usage_error(cmd, "--%s expects a non-negative integer, got '%s'", opt, s ? s : "");
        return 2;
    }
    *out = v;
    return 0;
}

/* ------------------------------------------------------------ configuration options */

void cli_config_init(cli_config_t *c, const char *default_preset)
{
    memset(c, 0, sizeof *c);
    gpuest_config_preset(&c->cfg, default_preset, NULL);
}

int cli_config_option(cli_config_t *c, cli_args_t *a)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc;
    if (cli_args_is(a, "preset")) {
        const char *v = cli_args_value(a);
        if (!v)
            return -1;
        rc = gpuest_config_preset(&c->cfg, v, &err);
        c->have_base = 1;
    } else if (cli_args_is(a, "config")) {
        const char *v = cli_args_value(a);
        if (!v)
            return -1;
        rc = gpuest_config_load_file(&c->cfg, v, &err);
        c->have_base = 1;
    } else if (cli_args_is(a, "set")) {
        const char *v = cli_args_value(a);
        if (!v)
            return -1;
        rc = gpuest_config_set(&c->cfg, v, "--set", &err);
    } else {
        return 0;
    }
    if (rc != GPUEST_OK) {
        cli_report(a->cmd, rc, &err);
        return -1;
    }
    return 1;
}

/* What each command runs with its machine, for the technique checks. */
static unsigned command_modes(const char *cmd)
{
    if (strcmp(cmd, "simulate") == 0)
        return GPUEST_TECH_MODE_SIM;
    if (strcmp(cmd, "run") == 0) /* its model is the open NoC model at the simulated load: no transform */
        return GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL | GPUEST_TECH_MODE_NOC;
    if (strcmp(cmd, "noc") == 0)
        return GPUEST_TECH_MODE_NOC;
    if (strcmp(cmd, "estimate") == 0)
        return GPUEST_TECH_MODE_MODEL;
    return GPUEST_TECH_MODE_CHECK;
}

int cli_config_finish(cli_config_t *c, const char *cmd)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = gpuest_config_validate(&c->cfg, &err);
    if (rc == GPUEST_OK)
        rc = gpuest_technique_validate(&c->cfg, command_modes(cmd), &err);
    if (rc != GPUEST_OK)
        return cli_report(cmd, rc, &err);
    return 0;
}

const char *cli_model_dir(void)
{
    if (access("models", F_OK) == 0 || access(GPUEST_SOURCE_DIR "/models", F_OK) != 0)
        return "models";
    return GPUEST_SOURCE_DIR "/models";
}

/* ------------------------------------------------------------ tables */

int cli_table_init(cli_table_t *t, const char *const *header, size_t columns)
{
    memset(t, 0, sizeof *t);
    t->columns = columns;
    t->header = (const char **)header;
    return 0;
}

int cli_table_add(cli_table_t *t, const char *const *cells)
{
    if (t->rows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **grown = realloc(t->cells, cap * t->columns * sizeof *grown);
        if (!grown)
            return -1;
        t->cells = grown;
        t->cap = cap;
    }
    for (size_t i = 0; i < t->columns; i++)
        t->cells[t->rows * t->columns + i] = gpuest_strdup(cells[i] ? cells[i] : "");
    t->rows++;
    return 0;
}

int cli_table_addf(cli_table_t *t, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    const char *cells[64] = {0};
    size_t n = 0;
    char *p = line;
    while (n < t->columns && n < 64) {
        cells[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return cli_table_add(t, cells);
}

/* A number, possibly signed, with a unit suffix such as '%' or 'x', or a dash. */
static int looks_numeric(const char *cell)
{
    if (strcmp(cell, "-") == 0)
        return 1;
    char *end;
    strtod(cell, &end);
    return end != cell && (*end == '\0' || strcmp(end, "%") == 0 || strcmp(end, "x") == 0);
}

void cli_table_print(const cli_table_t *t, FILE *out)
{
    size_t width[64] = {0};
    size_t cols = t->columns < 64 ? t->columns : 64;
    for (size_t c = 0; c < cols; c++) {
        width[c] = strlen(t->header[c]);
        for (size_t r = 0; r < t->rows; r++) {
            size_t w = strlen(t->cells[r * t->columns + c]);
            if (w > width[c])
                width[c] = w;
        }
    }
    for (size_t c = 0; c < cols; c++)
        fprintf(out, "%s%-*s", c ? "  " : "", (int)width[c], t->header[c]);
    fputc('\n', out);
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            const char *cell = t->cells[r * t->columns + c];
            /* numbers line up on the right, words on the left */
            fprintf(out, looks_numeric(cell) ? "%s%*s" : "%s%-*s", c ? "  " : "", (int)width[c], cell);
        }
        fputc('\n', out);
    }
}

int cli_table_stage_csv(const cli_table_t *t, const char *path, const char *cmd, gpuest_csv_writer_t *w)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = gpuest_csv_writer_open(w, path, t->header, t->columns, &err);
    if (rc != GPUEST_OK)
        return cli_report(cmd, rc, &err);
    for (size_t r = 0; rc == GPUEST_OK && r < t->rows; r++)
        rc = gpuest_csv_write_row(w, (const char *const *)&t->cells[r * t->columns], &err);
    if (rc != GPUEST_OK) {
        gpuest_csv_writer_abort(w);
        return cli_report(cmd, rc, &err);
    }
    return 0;
}

int cli_csv_commit(gpuest_csv_writer_t *w, const char *cmd)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = gpuest_csv_writer_commit(w, &err);
    return rc == GPUEST_OK ? 0 : cli_report(cmd, rc, &err);
}

int cli_table_write_csv(const cli_table_t *t, const char *path, const char *cmd)
{
    gpuest_csv_writer_t w;
    int rc = cli_table_stage_csv(t, path, cmd, &w);
    return rc != 0 ? rc : cli_csv_commit(&w, cmd);
}

void cli_table_free(cli_table_t *t)
{
    for (size_t i = 0; i < t->rows * t->columns; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

gpuest_progress_t *cli_progress(const char *label, unsigned long long total)
{
    return gpuest_progress_create(stderr, label, total);
}

/* ------------------------------------------------------------ outputs checked before the work */

int cli_check_output_dir(const char *cmd, const char *opt, const char *dir)
{
    if (!dir)
        return 0;
    struct stat st;
    if (stat(dir, &st) != 0)
        return cli_usage_error(cmd, "--%s %s: expected an existing folder (%s)", opt, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cli_usage_error(cmd, "--%s %s: expected a folder, not a file", opt, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_usage_error(cmd, "--%s %s: expected a folder this user can write into", opt, dir);
    return 0;
}

int cli_check_output(const char *cmd, const char *opt, const char *path)
{
    if (!path)
        return 0;
    if (path[0] == '\0')
        return cli_usage_error(cmd, "--%s: expected a file name, got an empty one", opt);
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (slash && slash[1] == '\0')
        return cli_usage_error(cmd, "--%s %s: expected a file name, got a folder", opt, path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_usage_error(cmd, "--%s %s: expected a file name, got a folder", opt, path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_usage_error(cmd, "--%s %s: expected a file in an existing folder (the folder %s does not exist)",
                               opt, path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_usage_error(cmd, "--%s %s: expected a file in a folder this user can write into (%s)", opt, path,
                               dir);
    return 0;
}
