/* figure_int.h: what the figure builders share (sorted string sets, number and string formatting). */
#ifndef GPUEST_REPORT_FIGURE_INT_H
#define GPUEST_REPORT_FIGURE_INT_H

#include "report_int.h"

/* A small set of strings: index by insertion until sorted. */
typedef struct {
    char **v;
    size_t n;
} rep_strset_t;

/* Index of str, added when absent; -1 when out of memory. */
long rep_strset_add(rep_strset_t *s, const char *str);
long rep_strset_find(const rep_strset_t *s, const char *str); /* -1 when absent */
void rep_strset_sort(rep_strset_t *s);
void rep_strset_free(rep_strset_t *s);

/* Six significant digits: the numbers of every data file. */
void rep_fmt6(char *buf, size_t cap, double v);
/* Appends s as a gnuplot double-quoted string. */
void rep_gp_quote(rbuf_t *b, const char *s);
/* Hands data and script over to out (rows: its data rows); ENOMEM when either buffer failed. */
gpuest_err rep_fig_finish(gpuest_figure_t *out, rbuf_t *data, rbuf_t *script, size_t rows, gpuest_error_t *err);

/* The builders, one per figure (spec already checked for its kind). */
gpuest_err rep_fig_ipc_bars(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                            gpuest_error_t *err);
gpuest_err rep_fig_latency_injection(const gpuest_rdb_t *db, gpuest_figure_t *out, gpuest_error_t *err);
gpuest_err rep_fig_stat_vs_key(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                               gpuest_error_t *err);
gpuest_err rep_fig_est_vs_sim(const gpuest_rdb_t *db, const gpuest_figure_spec_t *spec, gpuest_figure_t *out,
                              gpuest_error_t *err);

#endif
