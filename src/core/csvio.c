/* csvio.c: every CSV read and written goes through libcsv here. */
#include "core.h"

#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ writer */

/* Plain fields are written as they are; libcsv quotes the others (separators,
 * quotes, line breaks, or blanks at either end that a reader could trim). */
static int needs_quotes(const char *f, size_t len)
{
    if (len == 0)
        return 0;
    if (f[0] == ' ' || f[0] == '\t' || f[len - 1] == ' ' || f[len - 1] == '\t')
        return 1;
    return strpbrk(f, ",\"\r\n") != NULL;
}

gpuest_err gpuest_csv_writer_open(gpuest_csv_writer_t *w, const char *path, const char *const *header, size_t columns,
                                  gpuest_error_t *err)
{
    memset(w, 0, sizeof *w);
    GPUEST_TRY(gpuest_outfile_open(&w->out, path, 0, err));
    w->columns = columns;
    gpuest_err rc = gpuest_csv_write_row(w, header, err);
    if (rc != GPUEST_OK)
        gpuest_csv_writer_abort(w);
    return rc;
}

gpuest_err gpuest_csv_write_row(gpuest_csv_writer_t *w, const char *const *fields, gpuest_error_t *err)
{
    for (size_t i = 0; i < w->columns; i++) {
        if (i > 0)
            fputc(',', w->out.fp);
        const char *f = fields[i] ? fields[i] : "";
        size_t len = strlen(f);
        if (needs_quotes(f, len)) {
            if (csv_fwrite(w->out.fp, f, len) != 0)
                w->failed = 1;
        } else if (len > 0 && fwrite(f, 1, len, w->out.fp) != len) {
            w->failed = 1;
        }
    }
    fputc('\n', w->out.fp);
    if (w->failed || ferror(w->out.fp))
        return gpuest_fail(err, GPUEST_EIO, "%s: write failed", w->out.final_path);
    return GPUEST_OK;
}

gpuest_err gpuest_csv_writer_commit(gpuest_csv_writer_t *w, gpuest_error_t *err)
{
    return gpuest_outfile_commit(&w->out, err);
}

void gpuest_csv_writer_abort(gpuest_csv_writer_t *w)
{
    gpuest_outfile_abort(&w->out);
}

/* ------------------------------------------------------------ reader */

typedef struct {
    const char *path;
    gpuest_csv_row_cb cb;
    void *ctx;
    gpuest_error_t *err;
    gpuest_err status;
    char **fields;
    size_t nfields, cap;
    size_t line;     /* line of the record being built */
    size_t cur_line; /* current physical line while scanning */
    int record_started;
} csv_read_state;

static void on_field(void *data, size_t len, void *p)
{
    csv_read_state *st = p;
    if (st->status != GPUEST_OK)
        return;
    if (!st->record_started) {
        st->record_started = 1;
        st->line = st->cur_line;
    }
    if (memchr(data, '\0', len)) { /* the field's text would end there silently */
        st->status =
            gpuest_fail(st->err, GPUEST_EPARSE, "%s:%zu: binary data (a NUL byte) in a field", st->path, st->line);
        return;
    }
    if (st->nfields == GPUEST_CSV_MAX_FIELDS) {
        st->status = gpuest_fail(st->err, GPUEST_ERANGE, "%s:%zu: more than the limit of %d fields in one record",
                                 st->path, st->line, GPUEST_CSV_MAX_FIELDS);
        return;
    }
    if (st->nfields == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 16;
        char **grown = realloc(st->fields, cap * sizeof *grown);
        if (!grown) {
            st->status = gpuest_fail(st->err, GPUEST_ENOMEM, "%s: out of memory", st->path);
            return;
        }
        st->fields = grown;
        st->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        st->status = gpuest_fail(st->err, GPUEST_ENOMEM, "%s: out of memory", st->path);
        return;
    }
    memcpy(copy, data, len);
    copy[len] = '\0';
    st->fields[st->nfields++] = copy;
}

static void free_fields(csv_read_state *st)
{
    for (size_t i = 0; i < st->nfields; i++)
        free(st->fields[i]);
    st->nfields = 0;
}

static void on_record(int term, void *p)
{
    (void)term;
    csv_read_state *st = p;
    if (st->status == GPUEST_OK && st->nfields > 0) {
        st->status = st->cb(st->ctx, st->line, (const char *const *)st->fields, st->nfields, st->err);
    }
    free_fields(st);
    st->record_started = 0;
}

gpuest_err gpuest_csv_read(const char *path, gpuest_csv_row_cb row_cb, void *ctx, gpuest_error_t *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gpuest_fail(err, GPUEST_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct csv_parser parser;
    if (csv_init(&parser, CSV_STRICT | CSV_APPEND_NULL) != 0) {
        fclose(fp);
        return gpuest_fail(err, GPUEST_ENOMEM, "%s: cannot create CSV parser", path);
    }
    csv_read_state st = {.path = path, .cb = row_cb, .ctx = ctx, .err = err, .cur_line = 1};
    char buf[1 << 14];
    size_t got;
    while (st.status == GPUEST_OK && (got = fread(buf, 1, sizeof buf, fp)) > 0) {
        /* Feed line by line so errors can name the physical line. */
        size_t start = 0;
        for (size_t i = 0; i < got && st.status == GPUEST_OK; i++) {
            if (buf[i] != '\n')
                continue;
            if (csv_parse(&parser, buf + start, i + 1 - start, on_field, on_record, &st) != i + 1 - start) {
                st.status = gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: malformed CSV (%s)", path, st.cur_line,
                                        csv_strerror(csv_error(&parser)));
            }
            st.cur_line++;
            start = i + 1;
        }
        if (st.status == GPUEST_OK && start < got &&
            csv_parse(&parser, buf + start, got - start, on_field, on_record, &st) != got - start) {
            st.status = gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: malformed CSV (%s)", path, st.cur_line,
                                    csv_strerror(csv_error(&parser)));
        }
    }
    if (st.status == GPUEST_OK && ferror(fp))
        st.status = gpuest_fail(err, GPUEST_EIO, "%s: read error", path);
    if (st.status == GPUEST_OK && csv_fini(&parser, on_field, on_record, &st) != 0)
        st.status = gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: malformed CSV at end of file (%s)", path, st.cur_line,
                                csv_strerror(csv_error(&parser)));
    free_fields(&st);
    free(st.fields);
    csv_free(&parser);
    fclose(fp);
    return st.status;
}
