/* error.c: status codes, messages and the CLI exit-code mapping. */
#include "core.h"

#include <stdio.h>
#include <string.h>

const char *gpuest_version(void)
{
    return GPUEST_VERSION_STRING;
}

const char *gpuest_strerror(gpuest_err code)
{
    switch (code) {
#define GPUEST_ERR_TEXT(name, value, text)                                                                             \
    case name:                                                                                                         \
        return text;
        GPUEST_ERR_LIST(GPUEST_ERR_TEXT)
#undef GPUEST_ERR_TEXT
    }
    return "unknown error";
}

const char *gpuest_errname(gpuest_err code)
{
    switch (code) {
#define GPUEST_ERR_NAME(name, value, text)                                                                             \
    case name:                                                                                                         \
        return #name;
        GPUEST_ERR_LIST(GPUEST_ERR_NAME)
#undef GPUEST_ERR_NAME
    }
    return "GPUEST_E?";
}

gpuest_err gpuest_vfail(gpuest_error_t *err, gpuest_err code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

gpuest_err gpuest_fail(gpuest_error_t *err, gpuest_err code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gpuest_vfail(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void gpuest_error_clear(gpuest_error_t *err)
{
    if (err) {
        err->code = GPUEST_OK;
        err->msg[0] = '\0';
    }
}

int gpuest_exit_code(gpuest_err code)
{
    switch (code) {
    case GPUEST_OK:
        return 0;
    case GPUEST_EINVAL:
    case GPUEST_EPARSE:
    case GPUEST_ERANGE:
    case GPUEST_ENOKEY:
    case GPUEST_ECORRUPT:
    case GPUEST_EUNSUPPORTED: /* a value the user asked for that gpuest does not model */
        return 2;
    default:
        return 1;
    }
}

size_t gpuest_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (lb > 255)
        lb = 255;
    size_t row[256];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = (a[i - 1] == b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}
