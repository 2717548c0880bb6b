/* target_calib.c: calibration files of the estimator (src/study/calib_file.c), as `gpuest estimate`
 * reads them. A file that loads must survive write -> read -> write unchanged: the writer prints every
 * field the parser accepted, so a second pass that differs means a field was read or printed wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "study/study.h"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)(len > 0 ? len : 0) + 1);
    *n = buf ? fread(buf, 1, (size_t)(len > 0 ? len : 0), f) : 0;
    fclose(f);
    return buf;
}

int gpuest_fuzz_calib(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write(0, "in.cal", data, size);
    const char *names[] = {path, NULL};
    gpuest_calibration_t *c = calloc(2, sizeof *c);
    if (!c)
        return 0;
    gpuest_error_t err;
    gpuest_err rc = gpuest_calibration_read(path, &c[0], &err);
    fuzz_check_error("calib", rc, &err, names);
    if (rc != GPUEST_OK) {
        free(c);
        return 0;
    }
    const char *out1 = fuzz_write(1, "out1.cal", "", 0), *out2 = fuzz_write(2, "out2.cal", "", 0);
    if (gpuest_calibration_write(&c[0], out1, &err) != GPUEST_OK)
        fuzz_finding("calib", "a loaded calibration cannot be written: %s", err.msg);
    if (gpuest_calibration_read(out1, &c[1], &err) != GPUEST_OK)
        fuzz_finding("calib", "a written calibration does not load again: %s", err.msg);
    if (gpuest_calibration_write(&c[1], out2, &err) != GPUEST_OK)
        fuzz_finding("calib", "a reloaded calibration cannot be written: %s", err.msg);
    size_t n1 = 0, n2 = 0;
    char *t1 = slurp(out1, &n1), *t2 = slurp(out2, &n2);
    if (!t1 || !t2 || n1 != n2 || memcmp(t1, t2, n1) != 0)
        fuzz_finding("calib", "write -> read -> write changed the file (%zu vs %zu bytes)", n1, n2);
    free(t1);
    free(t2);
    free(c);
    return 0;
}
