/* fileio.c: atomic output files (temp + rename), whole-file reads, strict number parsing. */
#include "core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *gpuest_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

gpuest_err gpuest_outfile_open(gpuest_outfile_t *f, const char *path, int binary, gpuest_error_t *err)
{
    memset(f, 0, sizeof *f);
    size_t n = strlen(path) + 32;
    f->final_path = gpuest_strdup(path);
    f->tmp_path = malloc(n);
    if (!f->final_path || !f->tmp_path) {
        free(f->final_path);
        free(f->tmp_path);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory opening %s", path);
    }
    snprintf(f->tmp_path, n, "%s.tmp.%ld", path, (long)getpid());
    f->fp = fopen(f->tmp_path, binary ? "wb" : "w");
    if (!f->fp) {
        gpuest_err rc = gpuest_fail(err, GPUEST_EIO, "%s: cannot write: %s", path, strerror(errno));
        free(f->final_path);
        free(f->tmp_path);
        memset(f, 0, sizeof *f);
        return rc;
    }
    return GPUEST_OK;
}

static void outfile_release(gpuest_outfile_t *f)
{
    free(f->final_path);
    free(f->tmp_path);
    memset(f, 0, sizeof *f);
}

gpuest_err gpuest_outfile_commit(gpuest_outfile_t *f, gpuest_error_t *err)
{
    if (!f->fp)
        return gpuest_fail(err, GPUEST_EINVAL, "output file is not open");
    int write_failed = ferror(f->fp);
    int close_failed = fclose(f->fp) != 0;
    f->fp = NULL;
    if (write_failed || close_failed) {
        unlink(f->tmp_path);
        gpuest_err rc = gpuest_fail(err, GPUEST_EIO, "%s: write failed", f->final_path);
        outfile_release(f);
        return rc;
    }
    if (rename(f->tmp_path, f->final_path) != 0) {
        gpuest_err rc =
            gpuest_fail(err, GPUEST_EIO, "%s: cannot rename from temporary file: %s", f->final_path, strerror(errno));
        unlink(f->tmp_path);
        outfile_release(f);
        return rc;
    }
    outfile_release(f);
    return GPUEST_OK;
}

void gpuest_outfile_abort(gpuest_outfile_t *f)
{
    if (f->fp) {
        fclose(f->fp);
        unlink(f->tmp_path);
    }
    outfile_release(f);
}

gpuest_err gpuest_read_file(const char *path, unsigned char **data, size_t *size, gpuest_error_t *err)
{
    *data = NULL;
    *size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gpuest_fail(err, GPUEST_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(fp);
        return gpuest_fail(err, GPUEST_ENOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (len == cap) {
            cap *= 2;
            unsigned char *grown = realloc(buf, cap + 1);
            if (!grown) {
                free(buf);
                fclose(fp);
                return gpuest_fail(err, GPUEST_ENOMEM, "%s: out of memory", path);
            }
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    int failed = ferror(fp);
    fclose(fp);
    if (failed) {
        free(buf);
        return gpuest_fail(err, GPUEST_EIO, "%s: read error", path);
    }
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return GPUEST_OK;
}

gpuest_err gpuest_parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return GPUEST_EPARSE;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno == ERANGE)
        return GPUEST_ERANGE;
    if (*end != '\0')
        return GPUEST_EPARSE;
    *out = v;
    return GPUEST_OK;
}

gpuest_err gpuest_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return GPUEST_EPARSE;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno == ERANGE)
        return GPUEST_ERANGE;
    if (*end != '\0')
        return GPUEST_EPARSE;
    *out = v;
    return GPUEST_OK;
}

gpuest_err gpuest_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return GPUEST_EPARSE;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == ERANGE)
        return GPUEST_ERANGE;
    if (*end != '\0')
        return GPUEST_EPARSE;
    *out = v;
    return GPUEST_OK;
}

void gpuest_fmt_double(char *buf, size_t cap, double v)
{
    /* Shortest precision that reads back to the same double. */
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

gpuest_err gpuest_read_config_text(const char *path, char **text, gpuest_error_t *err)
{
    unsigned char *data = NULL;
    size_t size = 0;
    GPUEST_TRY(gpuest_read_file(path, &data, &size, err));
    const unsigned char *nul = memchr(data, '\0', size);
    if (nul) {
        int line = 1;
        for (const unsigned char *p = data; p < nul; p++)
            line += *p == '\n';
        free(data);
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: binary data (a NUL byte) in a configuration file", path, line);
    }
    *text = (char *)data;
    return GPUEST_OK;
}

int gpuest_next_line_uncommented(const char **p, char *buf, size_t cap)
{
    const char *nl = strchr(*p, '\n');
    size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
    if (len >= cap)
        return -1;
    memcpy(buf, *p, len);
    buf[len] = '\0';
    *p += len + (nl ? 1 : 0);
    char *cm = strstr(buf, "//");
    if (cm)
        *cm = '\0';
    return 0;
}
