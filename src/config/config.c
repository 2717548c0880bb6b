/* config.c: setting keys from INI files and --set overrides, validation, printing. */
#include <ini.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "schema.h"

/* ------------------------------------------------------------ messages */

static const char *closest_key(const char *section, const char *key, char *buf, size_t cap)
{
    size_t best = (size_t)-1;
    const config_key *best_key = NULL;
    for (size_t i = 0; i < config_key_count; i++) {
        const config_key *k = &config_keys[i];
        size_t d = gpuest_edit_distance(key, k->key);
        if (strcmp(k->section, section) != 0)
            d += 2; /* prefer keys of the named section */
        if (d < best) {
            best = d;
            best_key = k;
        }
    }
    if (!best_key)
        return NULL;
    snprintf(buf, cap, "%s.%s", best_key->section, best_key->key);
    return buf;
}

/* "origin:line: " or "origin: " prefix for messages. */
static void where(char *buf, size_t cap, const char *origin, int line)
{
    if (line > 0)
        snprintf(buf, cap, "%s:%d", origin ? origin : "config", line);
    else
        snprintf(buf, cap, "%s", origin ? origin : "config");
}

static int known_section(const char *section)
{
    for (size_t i = 0; config_sections[i]; i++)
        if (strcmp(config_sections[i], section) == 0)
            return 1;
    return 0;
}

static void list_names(char *buf, size_t cap, const char *const *names)
{
    buf[0] = '\0';
    for (size_t i = 0; names[i]; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", names[i]);
    }
}

/* ------------------------------------------------------------ provenance */

static void record_origin(gpuest_config_t *cfg, size_t key_index, const char *origin, int line)
{
    gpuest_config_origin_t *o = &cfg->origin;
    if (key_index >= GPUEST_CONFIG_MAX_KEYS || !origin)
        return;
    int slot = -1;
    for (int i = 0; i < GPUEST_CONFIG_MAX_SOURCES; i++) {
        if (o->sources[i][0] == '\0') {
            snprintf(o->sources[i], sizeof o->sources[i], "%s", origin);
            slot = i;
            break;
        }
        if (strcmp(o->sources[i], origin) == 0) {
            slot = i;
            break;
        }
    }
    if (slot < 0)
        slot = GPUEST_CONFIG_MAX_SOURCES - 1; /* more origins than slots: name the last one */
    o->key_source[key_index] = (unsigned char)(slot + 1);
    o->key_line[key_index] = line;
}

const char *gpuest_config_key_origin(const gpuest_config_t *cfg, const char *section, const char *key, char *buf,
                                     size_t cap)
{
    const config_key *k = config_find_key(section, key);
    size_t idx = k ? (size_t)(k - config_keys) : GPUEST_CONFIG_MAX_KEYS;
    if (idx >= GPUEST_CONFIG_MAX_KEYS || cfg->origin.key_source[idx] == 0) {
        snprintf(buf, cap, "preset %s", cfg->name);
    } else {
        const char *src = cfg->origin.sources[cfg->origin.key_source[idx] - 1];
        where(buf, cap, src, cfg->origin.key_line[idx]);
    }
    return buf;
}

/* ------------------------------------------------------------ setting one key */

static gpuest_err set_int(gpuest_config_t *cfg, const config_key *k, const char *value, const char *at,
                          gpuest_error_t *err)
{
    int64_t v;
    gpuest_err rc = gpuest_parse_i64(value, &v);
    if (rc == GPUEST_EPARSE)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: %s.%s = '%s' is not an integer (expected %g..%g)", at, k->section,
                           k->key, value, k->min, k->max);
    if (rc != GPUEST_OK || (double)v < k->min || (double)v > k->max)
        return gpuest_fail(err, GPUEST_ERANGE, "%s: %s.%s = %s is out of range (allowed %g..%g)", at, k->section,
                           k->key, value, k->min, k->max);
    *(int *)((char *)cfg + k->offset) = (int)v;
    return GPUEST_OK;
}

static gpuest_err set_double(gpuest_config_t *cfg, const config_key *k, const char *value, const char *at,
                             gpuest_error_t *err)
{
    double v;
    gpuest_err rc = gpuest_parse_double(value, &v);
    if (rc == GPUEST_EPARSE || (rc == GPUEST_OK && !isfinite(v)))
        return gpuest_fail(err, GPUEST_EINVAL, "%s: %s.%s = '%s' is not a number (expected %g..%g)", at, k->section,
                           k->key, value, k->min, k->max);
    if (rc != GPUEST_OK || v < k->min || v > k->max)
        return gpuest_fail(err, GPUEST_ERANGE, "%s: %s.%s = %s is out of range (allowed %g..%g)", at, k->section,
                           k->key, value, k->min, k->max);
    *(double *)((char *)cfg + k->offset) = v;
    return GPUEST_OK;
}

static gpuest_err set_named(gpuest_config_t *cfg, const config_key *k, const char *value, const char *at,
                            gpuest_error_t *err)
{
    const char *const *allowed = config_key_names(k);
    for (size_t i = 0; allowed[i]; i++) {
        if (strcmp(allowed[i], value) == 0) {
            if (k->type == KEY_ENUM)
                *(int *)((char *)cfg + k->offset) = (int)i;
            else
                snprintf((char *)cfg + k->offset, GPUEST_NAME_MAX, "%s", value);
            return GPUEST_OK;
        }
    }
    char names[512];
    list_names(names, sizeof names, allowed);
    return gpuest_fail(err, GPUEST_EINVAL, "%s: %s.%s = '%s' is not allowed (expected one of: %s)", at, k->section,
                       k->key, value, names);
}

static gpuest_err set_int_list(gpuest_config_t *cfg, const config_key *k, const char *value, const char *at,
                               gpuest_error_t *err)
{
    int *items = (int *)((char *)cfg + k->offset);
    int count = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", value);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", {}\t", &save); tok; tok = strtok_r(NULL, ", {}\t", &save)) {
        int64_t v;
        if (gpuest_parse_i64(tok, &v) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_EINVAL,
                               "%s: %s.%s: '%s' is not an integer (expected a comma-separated list)", at, k->section,
                               k->key, tok);
        if ((double)v < k->min || (double)v > k->max)
            return gpuest_fail(err, GPUEST_ERANGE, "%s: %s.%s: item %s is out of range (allowed %g..%g)", at,
                               k->section, k->key, tok, k->min, k->max);
        if (count == GPUEST_MAX_MCS)
            return gpuest_fail(err, GPUEST_ERANGE, "%s: %s.%s: more than %d items", at, k->section, k->key,
                               GPUEST_MAX_MCS);
        items[count++] = (int)v;
    }
    cfg->noc.num_mc_nodes = count; /* the only list key */
    return GPUEST_OK;
}

gpuest_err gpuest_config_set_key(gpuest_config_t *cfg, const char *section, const char *key, const char *value,
                                 const char *origin, int line, gpuest_error_t *err)
{
    char at[512];
    where(at, sizeof at, origin, line);
    if (strcmp(section, "preset") == 0) {
        if (strcmp(key, "name") != 0)
            return gpuest_fail(err, GPUEST_ENOKEY, "%s: unknown key 'preset.%s' (did you mean 'preset.name'?)", at,
                               key);
        gpuest_error_t inner;
        if (gpuest_config_preset(cfg, value, &inner) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_ENOKEY, "%s: %s", at, inner.msg);
        return GPUEST_OK;
    }
    const config_key *k = config_find_key(section, key);
    if (!k) {
        char suggestion[128];
        if (!known_section(section)) {
            char sections[256];
            list_names(sections, sizeof sections, config_sections);
            return gpuest_fail(err, GPUEST_ENOKEY, "%s: unknown section [%s] (valid sections: %s; closest key: %s)", at,
                               section, sections, closest_key(section, key, suggestion, sizeof suggestion));
        }
        return gpuest_fail(err, GPUEST_ENOKEY, "%s: unknown key '%s.%s' (did you mean '%s'?)", at, section, key,
                           closest_key(section, key, suggestion, sizeof suggestion));
    }
    gpuest_err rc = GPUEST_EINVAL;
    switch (k->type) {
    case KEY_INT:
        rc = set_int(cfg, k, value, at, err);
        break;
    case KEY_DOUBLE:
        rc = set_double(cfg, k, value, at, err);
        break;
    case KEY_ENUM:
    case KEY_NAME:
        rc = set_named(cfg, k, value, at, err);
        break;
    case KEY_INT_LIST:
        rc = set_int_list(cfg, k, value, at, err);
        break;
    }
    if (rc == GPUEST_OK)
        record_origin(cfg, (size_t)(k - config_keys), origin, line);
    return rc;
}

gpuest_err gpuest_config_set(gpuest_config_t *cfg, const char *assignment, const char *origin, gpuest_error_t *err)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = strchr(assignment, '.');
    if (!eq || !dot || dot > eq)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: '%s' is not of the form section.key=value",
                           origin ? origin : "--set", assignment);
    char section[64], key[64];
    size_t slen = (size_t)(dot - assignment), klen = (size_t)(eq - dot - 1);
    if (slen == 0 || slen >= sizeof section || klen == 0 || klen >= sizeof key)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: '%s' is not of the form section.key=value",
                           origin ? origin : "--set", assignment);
    memcpy(section, assignment, slen);
    section[slen] = '\0';
    memcpy(key, dot + 1, klen);
    key[klen] = '\0';
    return gpuest_config_set_key(cfg, section, key, eq + 1, origin ? origin : "--set", 0, err);
}

/* ------------------------------------------------------------ INI loading (inih) */

typedef struct {
    gpuest_config_t *cfg;
    const char *origin;
    const char *text; /* remaining text fed to inih line by line */
    int line;         /* lines handed to inih so far = current line */
    int keys_seen;    /* keys applied before a [preset] entry are an error */
    gpuest_error_t *err;
    gpuest_err status;
} ini_load_state;

/* A "[name]" header on this line: checks the name here, where the header's own line is known (inih
 * reports sections only with their first key, and not at all when they hold none). */
static int check_section_header(ini_load_state *st, const char *line)
{
    while (*line == ' ' || *line == '\t' || *line == '\r')
        line++;
    if (*line != '[')
        return 1;
    const char *end = strchr(line + 1, ']');
    if (!end) {
        st->status =
            gpuest_fail(st->err, GPUEST_EPARSE, "%s:%d: malformed line (expected '[section]')", st->origin, st->line);
        return 0;
    }
    char name[64];
    size_t len = (size_t)(end - line - 1);
    if (len >= sizeof name)
        len = sizeof name - 1;
    memcpy(name, line + 1, len);
    name[len] = '\0';
    if (known_section(name))
        return 1;
    char sections[256];
    list_names(sections, sizeof sections, config_sections);
    st->status = gpuest_fail(st->err, GPUEST_ENOKEY, "%s:%d: unknown section [%s] (valid sections: %s)", st->origin,
                             st->line, name, sections);
    return 0;
}

/* inih reader: hands out one line at a time so the handler knows its line. A line longer than
 * inih's buffer is refused here: inih would split it and count the pieces as lines. */
static char *read_line(char *str, int num, void *stream)
{
    ini_load_state *st = stream;
    if (st->status != GPUEST_OK || !st->text || *st->text == '\0')
        return NULL;
    const char *nl = strchr(st->text, '\n');
    size_t len = nl ? (size_t)(nl - st->text) + 1 : strlen(st->text);
    st->line++;
    if (len >= (size_t)num) {
        st->status =
            gpuest_fail(st->err, GPUEST_EPARSE, "%s:%d: line longer than %d characters", st->origin, st->line, num - 2);
        return NULL;
    }
    memcpy(str, st->text, len);
    str[len] = '\0';
    st->text += len;
    return check_section_header(st, str) ? str : NULL;
}

static int on_ini_entry(void *user, const char *section, const char *name, const char *value)
{
    ini_load_state *st = user;
    if (st->status != GPUEST_OK)
        return 0;
    if (strcmp(section, "preset") == 0 && strcmp(name, "name") == 0 && st->keys_seen > 0) {
        st->status = gpuest_fail(st->err, GPUEST_EINVAL,
                                 "%s:%d: [preset] must come before every other key (it replaces the whole machine)",
                                 st->origin, st->line);
        return 0;
    }
    st->status = gpuest_config_set_key(st->cfg, section, name, value, st->origin, st->line, st->err);
    if (st->status == GPUEST_OK && strcmp(section, "preset") != 0)
        st->keys_seen++;
    return st->status == GPUEST_OK;
}

gpuest_err gpuest_config_load_string(gpuest_config_t *cfg, const char *text, const char *origin, gpuest_error_t *err)
{
    ini_load_state st = {.cfg = cfg, .origin = origin ? origin : "config", .text = text, .err = err};
    int rc = ini_parse_stream(read_line, &st, on_ini_entry, &st);
    if (st.status != GPUEST_OK)
        return st.status;
    if (rc > 0)
        return gpuest_fail(err, GPUEST_EPARSE,
                           "%s:%d: malformed line (expected '[section]', 'key = value' or a ';' comment)", st.origin,
                           rc);
    if (rc < 0)
        return gpuest_fail(err, GPUEST_EIO, "%s: cannot parse", st.origin);
    return GPUEST_OK;
}

gpuest_err gpuest_config_load_file(gpuest_config_t *cfg, const char *path, gpuest_error_t *err)
{
    char *data;
    GPUEST_TRY(gpuest_read_config_text(path, &data, err));
    gpuest_err rc = gpuest_config_load_string(cfg, data, path, err);
    free(data);
    return rc;
}

/* ------------------------------------------------------------ printing and comparing */

static void write_value(const gpuest_config_t *cfg, const config_key *k, FILE *out)
{
    const char *p = (const char *)cfg + k->offset;
    switch (k->type) {
    case KEY_INT:
        fprintf(out, "%d", *(const int *)p);
        break;
    case KEY_DOUBLE: {
        char buf[64];
        gpuest_fmt_double(buf, sizeof buf, *(const double *)p);
        fputs(buf, out);
        break;
    }
    case KEY_ENUM:
        fputs(k->names[*(const int *)p], out);
        break;
    case KEY_NAME:
        fputs(p, out);
        break;
    case KEY_INT_LIST:
        for (int i = 0; i < cfg->noc.num_mc_nodes; i++)
            fprintf(out, "%s%d", i ? "," : "", cfg->noc.mc_nodes[i]);
        break;
    }
}

gpuest_err gpuest_config_write_ini(const gpuest_config_t *cfg, FILE *out)
{
    fprintf(out, "; gpuest configuration (gpuest %s)\n", gpuest_version());
    if (gpuest_preset_description(cfg->name)) {
        fprintf(out, "; %s\n[preset]\nname = %s\n", gpuest_preset_description(cfg->name), cfg->name);
    }
    const char *section = "";
    for (size_t i = 0; i < config_key_count; i++) {
        const config_key *k = &config_keys[i];
        if (k->type == KEY_INT_LIST && cfg->noc.num_mc_nodes == 0)
            continue; /* an empty list is the default; inih cannot carry an empty value portably */
        if (strcmp(section, k->section) != 0) {
            section = k->section;
            fprintf(out, "\n[%s]\n", section);
        }
        fprintf(out, "; %s\n%s = ", k->help, k->key);
        write_value(cfg, k, out);
        fputc('\n', out);
    }
    return ferror(out) ? GPUEST_EIO : GPUEST_OK;
}

int gpuest_config_equal(const gpuest_config_t *a, const gpuest_config_t *b)
{
    if (strcmp(a->name, b->name) != 0)
        return 0;
    for (size_t i = 0; i < config_key_count; i++) {
        const config_key *k = &config_keys[i];
        const char *pa = (const char *)a + k->offset, *pb = (const char *)b + k->offset;
        switch (k->type) {
        case KEY_INT:
        case KEY_ENUM:
            if (*(const int *)pa != *(const int *)pb)
                return 0;
            break;
        case KEY_DOUBLE:
            if (*(const double *)pa != *(const double *)pb)
                return 0;
            break;
        case KEY_NAME:
            if (strcmp(pa, pb) != 0)
                return 0;
            break;
        case KEY_INT_LIST:
            if (a->noc.num_mc_nodes != b->noc.num_mc_nodes ||
                memcmp(a->noc.mc_nodes, b->noc.mc_nodes, (size_t)a->noc.num_mc_nodes * sizeof(int)) != 0)
                return 0;
            break;
        }
    }
    return 1;
}
