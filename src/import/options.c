/* options.c: splits GPGPU-Sim option files and BookSim files into (name, value, line) lists. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

static gpuest_err options_put(imp_options_t *o, const char *name, size_t name_len, const char *value, size_t value_len,
                              int line, gpuest_error_t *err)
{
    for (size_t i = 0; i < o->n; i++) /* a later option replaces an earlier one */
        if (strlen(o->v[i].name) == name_len && strncmp(o->v[i].name, name, name_len) == 0) {
            char *nv = malloc(value_len + 1);
            if (!nv)
                return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            memcpy(nv, value, value_len);
            nv[value_len] = '\0';
            free(o->v[i].value);
            o->v[i].value = nv;
            o->v[i].line = line;
            return GPUEST_OK;
        }
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        imp_option_t *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        o->v = v;
        o->cap = cap;
    }
    imp_option_t *e = &o->v[o->n];
    e->name = malloc(name_len + 1);
    e->value = malloc(value_len + 1);
    if (!e->name || !e->value) {
        free(e->name);
        free(e->value);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    memcpy(e->name, name, name_len);
    e->name[name_len] = '\0';
    memcpy(e->value, value, value_len);
    e->value[value_len] = '\0';
    e->line = line;
    e->used = 0;
    o->n++;
    return GPUEST_OK;
}

imp_option_t *imp_options_find(imp_options_t *o, const char *name)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->v[i].name, name) == 0)
            return &o->v[i];
    return NULL;
}

void imp_options_free(imp_options_t *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->v[i].name);
        free(o->v[i].value);
    }
    free(o->v);
    memset(o, 0, sizeof *o);
}

/* One token of a GPGPU-Sim file: its text (quotes removed, white space inside
 * quotes dropped) and the line it starts on. */
typedef struct {
    char buf[4096];
    size_t len;
    int line;
} token_t;

/* Reads the next token at *p (advancing *p and *line); 0 at the end of the text. */
static gpuest_err next_token(const char **p, int *line, const char *origin, token_t *t, int *got, gpuest_error_t *err)
{
    const char *s = *p;
    *got = 0;
    for (;;) {
        while (*s && isspace((unsigned char)*s)) {
            if (*s == '\n')
                (*line)++;
            s++;
        }
        if (*s != '#')
            break;
        while (*s && *s != '\n')
            s++;
    }
    if (!*s) {
        *p = s;
        return GPUEST_OK;
    }
    t->len = 0;
    t->line = *line;
    while (*s && !isspace((unsigned char)*s) && *s != '#') {
        if (*s == '"') {
            int open_line = *line;
            s++;
            while (*s && *s != '"') {
                if (*s == '\n')
                    (*line)++;
                if (!isspace((unsigned char)*s)) {
                    if (t->len + 1 >= sizeof t->buf)
                        return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: value longer than %zu characters", origin,
                                           open_line, sizeof t->buf - 1);
                    t->buf[t->len++] = *s;
                }
                s++;
            }
            if (!*s)
                return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: quoted value is never closed (expected '\"')", origin,
                                   open_line);
            s++;
            continue;
        }
        if (t->len + 1 >= sizeof t->buf)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: token longer than %zu characters", origin, *line,
                               sizeof t->buf - 1);
        t->buf[t->len++] = *s++;
    }
    t->buf[t->len] = '\0';
    *p = s;
    *got = 1;
    return GPUEST_OK;
}

/* "-name": a dash and then a letter (so "-1" is a value). */
static int is_option_name(const token_t *t)
{
    return t->len >= 2 && t->buf[0] == '-' && isalpha((unsigned char)t->buf[1]);
}

gpuest_err imp_gpgpusim_parse(const char *text, const char *origin, imp_options_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text;
    int line = 1;
    token_t name, value;
    for (;;) {
        int got = 0;
        gpuest_err rc = next_token(&p, &line, origin, &name, &got, err);
        if (rc != GPUEST_OK || !got) {
            if (rc != GPUEST_OK)
                imp_options_free(out);
            return rc;
        }
        if (!is_option_name(&name)) {
            imp_options_free(out);
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: expected an option '-name value', found '%s'", origin,
                               name.line, name.buf);
        }
        rc = next_token(&p, &line, origin, &value, &got, err);
        if (rc == GPUEST_OK && (!got || is_option_name(&value)))
            rc = gpuest_fail(err, GPUEST_EPARSE, "%s:%d: option %s has no value (expected '%s VALUE')", origin,
                             name.line, name.buf, name.buf);
        if (rc == GPUEST_OK)
            rc = options_put(out, name.buf + 1, name.len - 1, value.buf, value.len, name.line, err);
        if (rc != GPUEST_OK) {
            imp_options_free(out);
            return rc;
        }
    }
}

static void trim_span(const char **b, const char **e)
{
    while (*b < *e && isspace((unsigned char)**b))
        (*b)++;
    while (*e > *b && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* One BookSim line (comment removed): statements "key = value" separated by ';'. */
static gpuest_err booksim_line(const char *s, const char *origin, int line, imp_options_t *out, gpuest_error_t *err)
{
    while (*s) {
        const char *semi = strchr(s, ';');
        const char *end = semi ? semi : s + strlen(s);
        const char *b = s, *e = end;
        trim_span(&b, &e);
        if (b < e) {
            const char *eq = memchr(b, '=', (size_t)(e - b));
            if (!semi)
                return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: statement does not end in ';' (expected 'key = value;')",
                                   origin, line);
            if (!eq)
                return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: expected 'key = value;'", origin, line);
            const char *kb = b, *ke = eq, *vb = eq + 1, *ve = e;
            trim_span(&kb, &ke);
            trim_span(&vb, &ve);
            if (kb == ke || vb == ve)
                return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: expected 'key = value;' (empty key or value)", origin,
                                   line);
            GPUEST_TRY(options_put(out, kb, (size_t)(ke - kb), vb, (size_t)(ve - vb), line, err));
        }
        s = semi ? semi + 1 : end;
    }
    return GPUEST_OK;
}

gpuest_err imp_booksim_parse(const char *text, const char *origin, imp_options_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    int line = 0;
    const char *p = text;
    char buf[4096];
    while (*p) {
        line++;
        if (gpuest_next_line_uncommented(&p, buf, sizeof buf) != 0) {
            imp_options_free(out);
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: line longer than %zu characters", origin, line,
                               sizeof buf - 1);
        }
        gpuest_err rc = booksim_line(buf, origin, line, out, err);
        if (rc != GPUEST_OK) {
            imp_options_free(out);
            return rc;
        }
    }
    return GPUEST_OK;
}
