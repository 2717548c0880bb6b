/* import_int.h: internals of the import module (option lists, cache strings, the result being built). */
#ifndef GPUEST_IMPORT_INT_H
#define GPUEST_IMPORT_INT_H

#include "import.h"

/* ------------------------------------------------------------ option files */
/* One "-name value" pair (name without the dash) or one BookSim "key = value;". */
typedef struct {
    char *name;
    char *value;
    int line;
    int used; /* set when a mapping consumed it */
} imp_option_t;

typedef struct {
    imp_option_t *v;
    size_t n, cap;
} imp_options_t;

/* GPGPU-Sim option file: tokens split on white space, '#' comments, double-quoted
 * values (which may span lines; white space inside them is dropped, as in the
 * GTX480 file's two-line DRAM timing string). A later option replaces an earlier
 * one of the same name, as GPGPU-Sim does. */
gpuest_err imp_gpgpusim_parse(const char *text, const char *origin, imp_options_t *out, gpuest_error_t *err);
/* BookSim file: "key = value;" statements, '//' comments. */
gpuest_err imp_booksim_parse(const char *text, const char *origin, imp_options_t *out, gpuest_error_t *err);
imp_option_t *imp_options_find(imp_options_t *o, const char *name);
void imp_options_free(imp_options_t *o);

/* ------------------------------------------------------------ cache strings
 * [S:|N:]<sets>:<line>:<assoc>,<rep>:<wr>:<alloc>:<wr_alloc>[:<index>],<mshr>:<entries>:<merge>,<mq>[:<n>][,...] */
typedef struct {
    int sectored; /* "S:" prefix (Accel-Sim) */
    int sets, line_bytes, assoc;
    char rep, wr, alloc, wr_alloc, index; /* index 0 when absent */
    char mshr_type;
    int mshr_entries, mshr_merge;
    int miss_queue;
    int extra_fields; /* fields after the miss queue (Accel-Sim's port widths), not modelled */
} imp_cache_t;

/* what names the option in messages ("gpgpusim.config:42: -gpgpu_cache:dl1"). */
gpuest_err imp_cache_parse(const char *s, const char *what, imp_cache_t *out, gpuest_error_t *err);

/* ------------------------------------------------------------ the result */
struct gpuest_import_s {
    gpuest_config_t cfg;
    gpuest_import_mapped_t *mapped;
    size_t num_mapped, cap_mapped;
    gpuest_import_ignored_t *ignored;
    size_t num_ignored, cap_ignored;
    char config_path[512];
    char icnt_path[512];
};

/* Sets section.key = value (range-checked by the config module, errors naming
 * origin:line) and records where it came from. */
gpuest_err imp_set(gpuest_import_t *imp, const char *section, const char *key, const char *value, const char *origin,
                   int line, const char *option, gpuest_error_t *err);
gpuest_err imp_set_int(gpuest_import_t *imp, const char *section, const char *key, long value, const char *origin,
                       int line, const char *option, gpuest_error_t *err);
/* Records an option (or part) that is read but not modelled; why may be NULL. */
gpuest_err imp_ignore(gpuest_import_t *imp, const char *option, const char *origin, int line, const char *why);

/* Maps the GPGPU-Sim options (imp->cfg already holds the base preset). */
gpuest_err imp_map_gpgpusim(gpuest_import_t *imp, imp_options_t *opts, const char *origin, gpuest_error_t *err);
/* Maps a BookSim / GPGPU-Sim interconnect file. */
gpuest_err imp_map_icnt(gpuest_import_t *imp, imp_options_t *opts, const char *origin, gpuest_error_t *err);

#endif
