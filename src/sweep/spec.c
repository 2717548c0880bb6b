/* spec.c: the sweep spec, an INI file read with inih ([sweep], [set], [axes], [noc]; docs/sweep.md).
 * Every error names the spec file and line. */
#include <ctype.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

/* Largest list an axis or a [sweep] list may hold (a stepped range is expanded into one). */
#define MAX_LIST 4096

const char *gpuest_sweep_mode_name(gpuest_sweep_mode_t m)
{
    static const char *const names[] = {"estimate", "sample", "simulate", "noc"};
    return (unsigned)m < 4 ? names[m] : "?";
}

gpuest_err gpuest_sweep_mode_parse(const char *s, gpuest_sweep_mode_t *out)
{
    for (int m = 0; m < 4; m++)
        if (strcmp(s, gpuest_sweep_mode_name((gpuest_sweep_mode_t)m)) == 0) {
            *out = (gpuest_sweep_mode_t)m;
            return GPUEST_OK;
        }
    return GPUEST_EINVAL;
}

void gpuest_sweep_hash_hex(const char *text, char out[17])
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ------------------------------------------------------------ lists */

static void list_free(gpuest_sweep_list_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

static gpuest_err list_push(char ***items, int *n, const char *s, size_t len, gpuest_error_t *err)
{
    if (*n >= MAX_LIST)
        return gpuest_fail(err, GPUEST_ERANGE, "more than %d values", MAX_LIST);
    char **grown = realloc(*items, (size_t)(*n + 1) * sizeof *grown);
    char *copy = malloc(len + 1);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            *items = grown;
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    memcpy(copy, s, len);
    copy[len] = '\0';
    grown[*n] = copy;
    *items = grown;
    (*n)++;
    return GPUEST_OK;
}

/* Splits a comma-separated value into trimmed, non-empty items. */
static gpuest_err split_commas(const char *value, char ***items, int *n, gpuest_error_t *err)
{
    const char *p = value;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (len == 0)
            return gpuest_fail(err, GPUEST_EPARSE, "empty item in the list '%s'", value);
        GPUEST_TRY(list_push(items, n, p, len, err));
        if (!end)
            return GPUEST_OK;
        p = end + 1;
    }
}

/* ------------------------------------------------------------ ranges
 * "lo..hi" (continuous), "lo..hi step S" (lo, lo+S, ... <= hi), "lo..hi times F" (lo, lo*F, ...),
 * "lo..hi count N" (N evenly spaced values, ends included). */

static int parse_num(const char *s, size_t len, double *out, int *is_int)
{
    char buf[64];
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (gpuest_parse_double(buf, out) != GPUEST_OK || !isfinite(*out))
        return 0;
    if (is_int)
        *is_int = strspn(buf, "+-0123456789") == len;
    return 1;
}

/* Range values to 12 significant digits: 0.05 + 1 x 0.1 is the 0.15 the user meant, not
 * 0.15000000000000002 (the step's binary rounding). */
static void fmt_value(char *buf, size_t cap, double v, int integer)
{
    if (integer)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.12g", v);
}

static gpuest_err parse_range(const char *value, const char *dots, gpuest_sweep_axis_t *a, gpuest_error_t *err)
{
    int lo_int, hi_int;
    const char *rest = dots + 2;
    const char *word = rest;
    while (*word && !isspace((unsigned char)*word))
        word++;
    if (!parse_num(value, (size_t)(dots - value), &a->lo, &lo_int) ||
        !parse_num(rest, (size_t)(word - rest), &a->hi, &hi_int))
        return gpuest_fail(err, GPUEST_EPARSE, "range '%s': expected LO..HI with numbers", value);
    if (a->hi < a->lo)
        return gpuest_fail(err, GPUEST_ERANGE, "range '%s': HI is below LO", value);
    a->integer = lo_int && hi_int;
    while (isspace((unsigned char)*word))
        word++;
    if (*word == '\0') {
        a->continuous = 1;
        return GPUEST_OK;
    }
    char kind[16];
    double arg;
    int arg_int, used = 0;
    if (sscanf(word, "%15s %n", kind, &used) != 1 || !parse_num(word + used, strlen(word + used), &arg, &arg_int))
        return gpuest_fail(err, GPUEST_EPARSE, "range '%s': expected 'step S', 'times F' or 'count N' after LO..HI",
                           value);
    int integer = a->integer;
    double v[MAX_LIST];
    int n = 0;
    if (strcmp(kind, "step") == 0) {
        if (arg <= 0)
            return gpuest_fail(err, GPUEST_ERANGE, "range '%s': the step must be above 0", value);
        integer = integer && arg_int;
        for (double x = a->lo; x <= a->hi * (1 + 1e-12) && n < MAX_LIST; x = a->lo + n * arg)
            v[n++] = x;
    } else if (strcmp(kind, "times") == 0) {
        if (arg <= 1 || a->lo <= 0)
            return gpuest_fail(err, GPUEST_ERANGE, "range '%s': 'times F' needs F > 1 and LO > 0", value);
        for (double x = a->lo; x <= a->hi * (1 + 1e-12) && n < MAX_LIST; x *= arg)
            v[n++] = integer ? round(x) : x;
    } else if (strcmp(kind, "count") == 0) {
        if (!arg_int || arg < 1 || arg > MAX_LIST)
            return gpuest_fail(err, GPUEST_ERANGE, "range '%s': 'count N' needs an integer N in 1..%d", value, MAX_LIST);
        n = (int)arg;
        for (int i = 0; i < n; i++)
            v[i] = n == 1 ? a->lo : a->lo + (a->hi - a->lo) * i / (n - 1);
        integer = integer && (n == 1 || fmod(a->hi - a->lo, n - 1) == 0);
    } else {
        return gpuest_fail(err, GPUEST_EPARSE, "range '%s': unknown '%s' (expected step, times or count)", value, kind);
    }
    if (n >= MAX_LIST)
        return gpuest_fail(err, GPUEST_ERANGE, "range '%s': more than %d values", value, MAX_LIST);
    for (int i = 0; i < n; i++) {
        char buf[64];
        fmt_value(buf, sizeof buf, v[i], integer);
        GPUEST_TRY(list_push(&a->values, &a->nvalues, buf, strlen(buf), err));
    }
    return GPUEST_OK;
}

static gpuest_err parse_axis(const char *key, const char *value, int line, gpuest_sweep_axis_t *a,
                             gpuest_error_t *err)
{
    memset(a, 0, sizeof *a);
    if (strlen(key) >= sizeof a->key || !strchr(key, '.'))
        return gpuest_fail(err, GPUEST_EPARSE, "axis '%s': expected SECTION.KEY", key);
    snprintf(a->key, sizeof a->key, "%s", key);
    a->line = line;
    const char *dots = strstr(value, "..");
    if (dots && !strchr(value, ','))
        return parse_range(value, dots, a, err);
    return split_commas(value, &a->values, &a->nvalues, err);
}

/* ------------------------------------------------------------ INI handler */

typedef struct {
    gpuest_sweep_spec_t *spec;
    const char *text;
    int line;
    gpuest_error_t *err;
    gpuest_err status;
    char seen[64][GPUEST_SWEEP_KEY_MAX + 16]; /* "section.key" of [sweep] and [noc], to refuse repeats */
    int nseen;
} spec_state;

static char *read_line(char *str, int num, void *stream)
{
    spec_state *st = stream;
    if (st->status != GPUEST_OK || *st->text == '\0')
        return NULL;
    const char *nl = strchr(st->text, '\n');
    size_t len = nl ? (size_t)(nl - st->text) + 1 : strlen(st->text);
    st->line++;
    if (len >= (size_t)num) {
        st->status = gpuest_fail(st->err, GPUEST_EPARSE, "%s:%d: line longer than %d characters", st->spec->origin,
                                 st->line, num - 2);
        return NULL;
    }
    memcpy(str, st->text, len);
    str[len] = '\0';
    st->text += len;
    return str;
}

static gpuest_err set_list(gpuest_sweep_list_t *l, const char *value, int line, gpuest_error_t *err)
{
    list_free(l);
    l->line = line;
    return split_commas(value, &l->items, &l->n, err);
}

static gpuest_err on_sweep_key(spec_state *st, const char *name, const char *value)
{
    gpuest_sweep_spec_t *s = st->spec;
    gpuest_error_t *err = st->err;
    int64_t i64;
    if (strcmp(name, "preset") == 0) {
        if (strlen(value) >= sizeof s->preset)
            return gpuest_fail(err, GPUEST_EINVAL, "preset name too long");
        snprintf(s->preset, sizeof s->preset, "%s", value);
    } else if (strcmp(name, "config") == 0) {
        const char *slash = strrchr(s->origin, '/');
        if (value[0] == '/' || !slash)
            snprintf(s->config_file, sizeof s->config_file, "%s", value);
        else
            snprintf(s->config_file, sizeof s->config_file, "%.*s/%s", (int)(slash - s->origin), s->origin, value);
    } else if (strcmp(name, "mode") == 0) {
        if (gpuest_sweep_mode_parse(value, &s->mode) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_EINVAL, "mode '%s' (expected estimate, sample, simulate or noc)", value);
        s->mode_given = 1;
    } else if (strcmp(name, "design") == 0) {
        static const char *const names[] = {"grid", "random", "lhs", "sobol"};
        int found = -1;
        for (int d = 0; d < 4; d++)
            if (strcmp(value, names[d]) == 0)
                found = d;
        if (found < 0)
            return gpuest_fail(err, GPUEST_EINVAL, "design '%s' (expected grid, random, lhs or sobol)", value);
        s->design = (gpuest_sweep_design_t)found;
        s->design_line = st->line;
    } else if (strcmp(name, "points") == 0) {
        if (gpuest_parse_i64(value, &i64) != GPUEST_OK || i64 < 1 || i64 > 1000000)
            return gpuest_fail(err, GPUEST_ERANGE, "points '%s' (expected an integer in 1..1000000)", value);
        s->points = (long)i64;
    } else if (strcmp(name, "seed") == 0) {
        if (gpuest_parse_u64(value, &s->design_seed) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_EINVAL, "seed '%s' (expected an unsigned integer)", value);
    } else if (strcmp(name, "confidence") == 0) {
        if (gpuest_parse_double(value, &s->confidence) != GPUEST_OK || !(s->confidence > 0 && s->confidence < 1))
            return gpuest_fail(err, GPUEST_ERANGE, "confidence '%s' (expected a number in (0, 1))", value);
    } else if (strcmp(name, "calibrations") == 0) {
        snprintf(s->calibrations, sizeof s->calibrations, "%s", value);
    } else if (strcmp(name, "workloads") == 0) {
        return set_list(&s->workloads, value, st->line, err);
    } else if (strcmp(name, "scales") == 0) {
        return set_list(&s->scales, value, st->line, err);
    } else if (strcmp(name, "seeds") == 0) {
        gpuest_sweep_axis_t a;
        GPUEST_TRY(parse_axis("sweep.seeds", value, st->line, &a, err));
        if (a.continuous) {
            free(a.values);
            return gpuest_fail(err, GPUEST_EPARSE, "seeds '%s': expected a list or a range with a step", value);
        }
        list_free(&s->seeds);
        s->seeds.items = a.values;
        s->seeds.n = a.nvalues;
        s->seeds.line = st->line;
        for (int i = 0; i < a.nvalues; i++) {
            uint64_t u;
            if (gpuest_parse_u64(a.values[i], &u) != GPUEST_OK)
                return gpuest_fail(err, GPUEST_EINVAL, "seed '%s' (expected an unsigned integer)", a.values[i]);
        }
    } else if (strcmp(name, "techniques") == 0) {
        return set_list(&s->techniques, value, st->line, err);
    } else {
        return gpuest_fail(err, GPUEST_ENOKEY,
                           "unknown key '%s' in [sweep] (valid: preset, config, mode, design, points, seed, "
                           "confidence, calibrations, workloads, scales, seeds, techniques)",
                           name);
    }
    return GPUEST_OK;
}

static gpuest_err on_noc_key(spec_state *st, const char *name, const char *value)
{
    gpuest_sweep_spec_t *s = st->spec;
    int64_t i64;
    if (strcmp(name, "traffic") == 0) {
        if (strcmp(value, "uniform") && strcmp(value, "transpose") && strcmp(value, "hotspot") && strcmp(value, "gpu"))
            return gpuest_fail(st->err, GPUEST_EINVAL, "traffic '%s' (expected uniform, transpose, hotspot or gpu)",
                               value);
        snprintf(s->traffic, sizeof s->traffic, "%s", value);
    } else if (strcmp(name, "packet_flits") == 0 || strcmp(name, "sample_period") == 0) {
        if (gpuest_parse_i64(value, &i64) != GPUEST_OK || i64 < 1 || i64 > 1000000)
            return gpuest_fail(st->err, GPUEST_ERANGE, "%s '%s' (expected an integer in 1..1000000)", name, value);
        *(strcmp(name, "packet_flits") == 0 ? &s->packet_flits : &s->sample_period) = (int)i64;
    } else if (strcmp(name, "rate") == 0) {
        if (gpuest_parse_double(value, &s->rate) != GPUEST_OK || !(s->rate > 0 && s->rate <= 1))
            return gpuest_fail(st->err, GPUEST_ERANGE, "rate '%s' (expected a number in (0, 1])", value);
    } else {
        return gpuest_fail(st->err, GPUEST_ENOKEY,
                           "unknown key '%s' in [noc] (valid: traffic, rate, packet_flits, sample_period)", name);
    }
    return GPUEST_OK;
}

static gpuest_err on_entry(spec_state *st, const char *section, const char *name, const char *value)
{
    gpuest_sweep_spec_t *s = st->spec;
    char full[GPUEST_SWEEP_KEY_MAX + 16];
    snprintf(full, sizeof full, "%s.%s", section, name);
    for (int i = 0; i < st->nseen; i++)
        if (strcmp(st->seen[i], full) == 0)
            return gpuest_fail(st->err, GPUEST_EPARSE, "'%s' given twice", name);
    if (st->nseen < 64)
        snprintf(st->seen[st->nseen++], sizeof st->seen[0], "%s", full);
    if (strcmp(section, "sweep") == 0)
        return on_sweep_key(st, name, value);
    if (strcmp(section, "noc") == 0)
        return on_noc_key(st, name, value);
    if (strcmp(section, "set") == 0) {
        char assign[GPUEST_SWEEP_KEY_MAX + GPUEST_SWEEP_VALUE_MAX + 2];
        if (!strchr(name, '.'))
            return gpuest_fail(st->err, GPUEST_EPARSE, "[set] key '%s': expected SECTION.KEY = VALUE", name);
        int len = snprintf(assign, sizeof assign, "%s=%s", name, value);
        GPUEST_TRY(list_push(&s->sets.items, &s->sets.n, assign, (size_t)len, st->err));
        int *grown = realloc(s->set_lines, (size_t)s->sets.n * sizeof *grown);
        if (!grown)
            return gpuest_fail(st->err, GPUEST_ENOMEM, "out of memory");
        s->set_lines = grown;
        s->set_lines[s->sets.n - 1] = st->line;
        return GPUEST_OK;
    }
    if (strcmp(section, "axes") == 0) {
        for (int i = 0; i < s->naxes; i++)
            if (strcmp(s->axes[i].key, name) == 0)
                return gpuest_fail(st->err, GPUEST_EPARSE, "axis '%s' given twice (first on line %d)", name,
                                   s->axes[i].line);
        if (s->naxes >= GPUEST_SWEEP_MAX_AXES)
            return gpuest_fail(st->err, GPUEST_ERANGE, "more than %d axes", GPUEST_SWEEP_MAX_AXES);
        gpuest_err rc = parse_axis(name, value, st->line, &s->axes[s->naxes], st->err);
        s->naxes++; /* counted even on failure so that free releases its values */
        return rc;
    }
    return gpuest_fail(st->err, GPUEST_ENOKEY, "unknown section [%s] (valid: sweep, set, axes, noc)", section);
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
    spec_state *st = user;
    if (st->status != GPUEST_OK)
        return 0;
    gpuest_error_t inner;
    gpuest_error_clear(&inner);
    gpuest_error_t *outer = st->err;
    st->err = &inner; /* the handlers' messages get the file:line prefix here */
    gpuest_err rc = on_entry(st, section, name, value);
    st->err = outer;
    if (rc != GPUEST_OK)
        st->status = gpuest_fail(st->err, rc, "%s:%d: %s", st->spec->origin, st->line, inner.msg);
    return rc == GPUEST_OK;
}

/* Cross-key checks once the whole file is read. */
static gpuest_err check_spec(gpuest_sweep_spec_t *s, gpuest_error_t *err)
{
    if (s->preset[0] == '\0' && s->config_file[0] == '\0')
        return gpuest_fail(err, GPUEST_EINVAL, "%s: [sweep] needs 'preset = P' or 'config = FILE'", s->origin);
    for (int i = 0; i < s->naxes; i++) {
        const gpuest_sweep_axis_t *a = &s->axes[i];
        if (a->continuous && s->design == GPUEST_SWEEP_GRID)
            return gpuest_fail(err, GPUEST_EINVAL,
                               "%s:%d: axis '%s' is a continuous range; a grid design needs a list or "
                               "'LO..HI step S' / 'count N'",
                               s->origin, a->line, a->key);
    }
    if (s->design != GPUEST_SWEEP_GRID && s->points == 0)
        return gpuest_fail(err, GPUEST_EINVAL, "%s:%d: a random, lhs or sobol design needs 'points = N'", s->origin,
                           s->design_line);
    if (s->design == GPUEST_SWEEP_SOBOL && s->naxes > 40)
        return gpuest_fail(err, GPUEST_ERANGE, "%s:%d: a sobol design takes at most 40 axes (%d given)", s->origin,
                           s->design_line, s->naxes);
    if (s->design == GPUEST_SWEEP_GRID && s->points != 0)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: 'points' applies to random, lhs and sobol designs, not to a grid",
                           s->origin);
    return GPUEST_OK;
}

/* Defaults of the [sweep] lists that were left out. */
static gpuest_err default_lists(gpuest_sweep_spec_t *s, gpuest_error_t *err)
{
    if (s->workloads.n == 0)
        GPUEST_TRY(set_list(&s->workloads, "hotspot", 0, err));
    if (s->scales.n == 0)
        GPUEST_TRY(set_list(&s->scales, "small", 0, err));
    if (s->seeds.n == 0)
        GPUEST_TRY(set_list(&s->seeds, "1", 0, err));
    if (s->techniques.n == 0)
        GPUEST_TRY(set_list(&s->techniques, "none", 0, err));
    return GPUEST_OK;
}

gpuest_err gpuest_sweep_spec_parse(const char *text, const char *origin, gpuest_sweep_spec_t *spec,
                                   gpuest_error_t *err)
{
    memset(spec, 0, sizeof *spec);
    snprintf(spec->origin, sizeof spec->origin, "%s", origin ? origin : "spec");
    spec->text = gpuest_strdup(text);
    if (!spec->text)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    gpuest_sweep_hash_hex(text, spec->hash);
    spec->confidence = 0.95;
    spec->design_seed = 1;
    snprintf(spec->traffic, sizeof spec->traffic, "uniform");
    spec->rate = 0.1;
    spec->sample_period = 10000; /* as gpuest noc */
    spec_state st = {.spec = spec, .text = text, .err = err};
    int rc = ini_parse_stream(read_line, &st, on_ini, &st);
    gpuest_err e = st.status;
    if (e == GPUEST_OK && rc > 0)
        e = gpuest_fail(err, GPUEST_EPARSE, "%s:%d: malformed line (expected '[section]', 'key = value' or a ';' comment)",
                        spec->origin, rc);
    if (e == GPUEST_OK && rc < 0)
        e = gpuest_fail(err, GPUEST_EIO, "%s: cannot parse", spec->origin);
    if (e == GPUEST_OK)
        e = check_spec(spec, err);
    if (e == GPUEST_OK)
        e = default_lists(spec, err);
    if (e != GPUEST_OK)
        gpuest_sweep_spec_free(spec);
    return e;
}

gpuest_err gpuest_sweep_spec_load(const char *path, gpuest_sweep_spec_t *spec, gpuest_error_t *err)
{
    unsigned char *data;
    size_t size;
    memset(spec, 0, sizeof *spec);
    GPUEST_TRY(gpuest_read_file(path, &data, &size, err));
    if (memchr(data, '\0', size)) {
        free(data);
        return gpuest_fail(err, GPUEST_EPARSE, "%s: binary data (a NUL byte) in a sweep spec", path);
    }
    gpuest_err rc = gpuest_sweep_spec_parse((const char *)data, path, spec, err);
    free(data);
    return rc;
}

void gpuest_sweep_spec_free(gpuest_sweep_spec_t *spec)
{
    free(spec->text);
    spec->text = NULL;
    list_free(&spec->workloads);
    list_free(&spec->scales);
    list_free(&spec->seeds);
    list_free(&spec->techniques);
    list_free(&spec->sets);
    free(spec->set_lines);
    spec->set_lines = NULL;
    for (int i = 0; i < spec->naxes; i++) {
        for (int j = 0; j < spec->axes[i].nvalues; j++)
            free(spec->axes[i].values[j]);
        free(spec->axes[i].values);
    }
    spec->naxes = 0;
}
