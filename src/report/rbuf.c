/* rbuf.c: a growable text buffer for data files, scripts and the HTML page. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static int reserve(rbuf_t *b, size_t extra)
{
    if (b->oom)
        return 0;
    if (b->len + extra + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return 0;
    }
    b->s = s;
    b->cap = cap;
    return 1;
}

void rbuf_printf(rbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void rbuf_puts(rbuf_t *b, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void rbuf_html(rbuf_t *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            rbuf_puts(b, "&amp;");
            break;
        case '<':
            rbuf_puts(b, "&lt;");
            break;
        case '>':
            rbuf_puts(b, "&gt;");
            break;
        case '"':
            rbuf_puts(b, "&quot;");
            break;
        default:
            if (reserve(b, 1)) {
                b->s[b->len++] = *s;
                b->s[b->len] = '\0';
            }
        }
    }
}

void rbuf_free(rbuf_t *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

char *rbuf_take(rbuf_t *b)
{
    if (b->oom) {
        rbuf_free(b);
        return NULL;
    }
    if (!b->s && !reserve(b, 0))
        return NULL;
    if (b->len == 0)
        b->s[0] = '\0';
    char *s = b->s;
    memset(b, 0, sizeof *b);
    return s;
}

void rep_fmt(char *buf, size_t cap, double v)
{
    for (int prec = 1; prec <= 17; prec++) { /* the shortest form that reads back exactly */
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}
