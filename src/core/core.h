/* core.h: errors, seeded RNG, progress reporting, atomic files and CSV I/O shared by every module. */
#ifndef GPUEST_CORE_H
#define GPUEST_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUEST_VERSION_MAJOR 0
#define GPUEST_VERSION_MINOR 1
#define GPUEST_VERSION_PATCH 0
#define GPUEST_VERSION_STRING "0.1.0"
const char *gpuest_version(void);

/* ---------------------------------------------------------------- errors
 * Every library function that can fail returns a gpuest_err (0 = success) and,
 * when given a non-NULL gpuest_error_t, fills a message naming what was wrong
 * (file:line and the expectation for bad input). Values are pinned. */
#define GPUEST_ERR_LIST(X)                                                                                             \
    X(GPUEST_OK, 0, "success")                                                                                         \
    X(GPUEST_EINVAL, 1, "invalid argument or value")                                                                   \
    X(GPUEST_EPARSE, 2, "malformed input")                                                                             \
    X(GPUEST_ERANGE, 3, "value out of range")                                                                          \
    X(GPUEST_ENOKEY, 4, "unknown key or name")                                                                         \
    X(GPUEST_EIO, 5, "input/output error")                                                                             \
    X(GPUEST_ENOMEM, 6, "out of memory")                                                                               \
    X(GPUEST_ECORRUPT, 7, "corrupt data")                                                                              \
    X(GPUEST_EMISMATCH, 8, "round trip or consistency check failed")                                                   \
    X(GPUEST_EBUSY, 9, "resource busy, retry later")                                                                   \
    X(GPUEST_ESATURATED, 10, "system saturated")                                                                       \
    X(GPUEST_EUNSUPPORTED, 11, "not supported")                                                                        \
    X(GPUEST_EDEADLOCK, 12, "no progress (deadlock)")

typedef enum {
#define GPUEST_ERR_ENUM(name, value, text) name = value,
    GPUEST_ERR_LIST(GPUEST_ERR_ENUM)
#undef GPUEST_ERR_ENUM
} gpuest_err;

#define GPUEST_ERROR_MSG_MAX 1024

/* Caller-owned error report; code mirrors the returned status. */
typedef struct {
    gpuest_err code;
    char msg[GPUEST_ERROR_MSG_MAX];
} gpuest_error_t;

const char *gpuest_strerror(gpuest_err code);
const char *gpuest_errname(gpuest_err code);

/* Records code and a printf-style message in err (if non-NULL); returns code so
 * callers can write `return gpuest_fail(err, GPUEST_EPARSE, "...")`. */
gpuest_err gpuest_fail(gpuest_error_t *err, gpuest_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
gpuest_err gpuest_vfail(gpuest_error_t *err, gpuest_err code, const char *fmt, va_list ap);
void gpuest_error_clear(gpuest_error_t *err);

/* Process exit status for a failed command: 2 for bad input (EINVAL, EPARSE,
 * ERANGE, ENOKEY, ECORRUPT, EUNSUPPORTED), 1 for everything else. Used only by the CLI. */
int gpuest_exit_code(gpuest_err code);

#define GPUEST_TRY(expr)                                                                                               \
    do {                                                                                                               \
        gpuest_err gpuest_try_rc_ = (expr);                                                                            \
        if (gpuest_try_rc_ != GPUEST_OK)                                                                               \
            return gpuest_try_rc_;                                                                                     \
    } while (0)

/* ---------------------------------------------------------------- RNG
 * One seeded generator (GSL mt19937) per run; every random choice in a run
 * draws from the generator handed to it, so one seed gives bit-identical output.
 * Independent streams for sub-components are derived with gpuest_rng_fork. */
typedef struct gpuest_rng_s gpuest_rng_t;

gpuest_err gpuest_rng_create(uint64_t seed, gpuest_rng_t **out);
void gpuest_rng_destroy(gpuest_rng_t *rng);
/* splitmix64's finalizer: a well-mixed 64-bit value of x (no state; the same x, the same value).
 * For spreading keys (packet ids over route choices, addresses over hashed channels). */
static inline uint64_t gpuest_mix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}
/* New generator seeded from rng's next draw and a stream tag; deterministic. */
gpuest_err gpuest_rng_fork(gpuest_rng_t *rng, uint64_t stream, gpuest_rng_t **out);
double gpuest_rng_uniform(gpuest_rng_t *rng);             /* [0, 1) */
double gpuest_rng_uniform_pos(gpuest_rng_t *rng);         /* (0, 1) */
uint64_t gpuest_rng_below(gpuest_rng_t *rng, uint64_t n); /* [0, n), n >= 1 */
uint32_t gpuest_rng_u32(gpuest_rng_t *rng);
uint64_t gpuest_rng_u64(gpuest_rng_t *rng);
double gpuest_rng_gaussian(gpuest_rng_t *rng, double sigma);
int gpuest_rng_bernoulli(gpuest_rng_t *rng, double p);
/* The underlying gsl_rng, for gsl_ran_* distributions (type-erased to keep GSL
 * headers out of this one). Cast to gsl_rng *. */
void *gpuest_rng_gsl(gpuest_rng_t *rng);

/* ---------------------------------------------------------------- progress
 * A progress bar drawn on a stream only when that stream is a terminal. Library
 * code receives a gpuest_progress_t * that may be NULL (then it is silent). */
typedef struct gpuest_progress_s gpuest_progress_t;

/* Returns NULL (silence) when stream is not a terminal or on allocation failure. */
gpuest_progress_t *gpuest_progress_create(FILE *stream, const char *label, uint64_t total);
/* Creates a bar even if stream is not a terminal (tests). */
gpuest_progress_t *gpuest_progress_create_forced(FILE *stream, const char *label, uint64_t total);
void gpuest_progress_set_unit(gpuest_progress_t *p, const char *unit); /* shown as rate "<n> unit/s" */
void gpuest_progress_update(gpuest_progress_t *p, uint64_t done);
/* A second counter shown as its own rate (e.g. simulated cycles beside
 * instructions done): "<aux/s> aux_unit/s". */
void gpuest_progress_set_aux_unit(gpuest_progress_t *p, const char *unit);
void gpuest_progress_update_aux(gpuest_progress_t *p, uint64_t done, uint64_t aux);
void gpuest_progress_finish(gpuest_progress_t *p); /* ends the line and frees */
/* Also shows "done/total" (e.g. sweep points) after the percentage. */
void gpuest_progress_show_count(gpuest_progress_t *p);

/* ---------------------------------------------------------------- packet size
 * The one packet-size rule of the project, used by the simulator, the model and
 * `gpuest compress` alike (noc.header_bytes, noc.flit_bytes):
 *   header_bytes == 0: the header is a head flit of its own, then the payload:
 *                      1 + ceil(payload_bits / (8 * flit_bytes));
 *   header_bytes  > 0: the header shares the flits with the payload:
 *                      ceil((8 * header_bytes + payload_bits) / (8 * flit_bytes)),
 * and never fewer than one flit. flit_bytes < 1 counts as 1. */
int gpuest_packet_flits(uint64_t payload_bits, int flit_bytes, int header_bytes);

/* ---------------------------------------------------------------- files
 * Output is written to "<path>.tmp.<pid>" and renamed on commit, so a failed
 * command never leaves a half-written result. */
typedef struct {
    FILE *fp;
    char *final_path;
    char *tmp_path;
} gpuest_outfile_t;

gpuest_err gpuest_outfile_open(gpuest_outfile_t *f, const char *path, int binary, gpuest_error_t *err);
gpuest_err gpuest_outfile_commit(gpuest_outfile_t *f, gpuest_error_t *err); /* fclose + rename */
void gpuest_outfile_abort(gpuest_outfile_t *f);                             /* fclose + unlink */

/* Reads a whole file into a malloc'd buffer (NUL-terminated for convenience). */
gpuest_err gpuest_read_file(const char *path, unsigned char **data, size_t *size, gpuest_error_t *err);
/* Reads a configuration file as text (malloc'd, NUL-terminated), refusing a NUL byte inside it
 * (the text would silently end there): the error names the line of the NUL. */
gpuest_err gpuest_read_config_text(const char *path, char **text, gpuest_error_t *err);
/* Copies the line at *p into buf (cap bytes) without its newline and cuts a '//' comment (BookSim
 * style files), then moves *p past the newline. -1, copying nothing, when the line needs cap bytes or more. */
int gpuest_next_line_uncommented(const char **p, char *buf, size_t cap);

/* malloc'd copy of s (free() it); NULL when out of memory. */
char *gpuest_strdup(const char *s);

/* ---------------------------------------------------------------- CSV (libcsv)
 * Writer: fields are quoted by libcsv only where needed. */
typedef struct {
    gpuest_outfile_t out;
    size_t columns; /* fixed by the header row */
    int failed;
} gpuest_csv_writer_t;

gpuest_err gpuest_csv_writer_open(gpuest_csv_writer_t *w, const char *path, const char *const *header, size_t columns,
                                  gpuest_error_t *err);
/* Writes one row of exactly w->columns fields. */
gpuest_err gpuest_csv_write_row(gpuest_csv_writer_t *w, const char *const *fields, gpuest_error_t *err);
gpuest_err gpuest_csv_writer_commit(gpuest_csv_writer_t *w, gpuest_error_t *err);
void gpuest_csv_writer_abort(gpuest_csv_writer_t *w);
/* Formats a double for CSV: shortest round-trippable form ("%.17g" trimmed). */
void gpuest_fmt_double(char *buf, size_t cap, double v);

/* Reader: calls row_cb for every record with its 1-based line number. The first
 * record (the header) is passed too; row_cb returns non-OK to stop, and that
 * status is returned. Malformed CSV gives GPUEST_EPARSE naming path:line. */
#define GPUEST_CSV_MAX_FIELDS 4096 /* a record with more is refused (ERANGE) before they are stored */
typedef gpuest_err (*gpuest_csv_row_cb)(void *ctx, size_t line, const char *const *fields, size_t nfields,
                                        gpuest_error_t *err);
gpuest_err gpuest_csv_read(const char *path, gpuest_csv_row_cb row_cb, void *ctx, gpuest_error_t *err);

/* Strict number parsing (whole string must be consumed). */
gpuest_err gpuest_parse_i64(const char *s, int64_t *out);
gpuest_err gpuest_parse_u64(const char *s, uint64_t *out);
gpuest_err gpuest_parse_double(const char *s, double *out);

/* Levenshtein distance, for "did you mean" suggestions. */
size_t gpuest_edit_distance(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
