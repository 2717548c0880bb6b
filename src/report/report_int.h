/* report_int.h: internals of the report module (a growable string, shared helpers). */
#ifndef GPUEST_REPORT_INT_H
#define GPUEST_REPORT_INT_H

#include "report.h"

/* Growable NUL-terminated text; oom is sticky (checked once at the end). */
typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} rbuf_t;

void rbuf_printf(rbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rbuf_puts(rbuf_t *b, const char *s);
/* Appends s with &, <, >, " escaped for HTML. */
void rbuf_html(rbuf_t *b, const char *s);
void rbuf_free(rbuf_t *b);
/* Hands the text over (caller frees); NULL after an allocation failure. */
char *rbuf_take(rbuf_t *b);

/* Shortest text that reads back to the same double ("%.17g" trimmed). */
void rep_fmt(char *buf, size_t cap, double v);

/* 1 for the swept key that holds a noc point's offered rate: gpuest sweep's
 * "traffic.rate", or any key ending in "injection_rate". */
int rep_is_rate_key(const char *key);

/* The technique that marks a baseline point. */
#define REP_BASELINE_TECHNIQUE "none"

/* gnuplot's view of the figure: the script with DATAFILE replaced by data_path and
 * the terminal lines for the output's extension. */
gpuest_err rep_gnuplot_script(const gpuest_figure_t *fig, const char *data_path, const char *out_path, rbuf_t *out,
                              gpuest_error_t *err);

#endif
