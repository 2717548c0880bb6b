/* fuzz_util.c: scratch files, input splitting and the error contract shared by the fuzz targets. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "workload/workload.h"

static char g_dir[256];

static void remove_dir(void)
{
    DIR *d = opendir(g_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", g_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(g_dir);
}

const char *fuzz_dir(void)
{
    if (g_dir[0])
        return g_dir;
    /* /dev/shm keeps the millions of small writes off the disk where it exists. */
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/gpuest-fuzz-XXXXXX", base);
    if (!mkdtemp(g_dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(remove_dir);
    return g_dir;
}

const char *fuzz_write(int slot, const char *name, const void *data, size_t n)
{
    static char paths[4][512];
    char *path = paths[slot & 3];
    snprintf(path, sizeof paths[0], "%s/%s", fuzz_dir(), name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (n && fwrite(data, 1, n, fp) != n) || fclose(fp) != 0) {
        perror(path);
        abort();
    }
    return path;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

int fuzz_split(const uint8_t *data, size_t size, size_t *first_len, const uint8_t **rest, size_t *rest_len)
{
    const uint8_t *nul = size ? memchr(data, '\0', size) : NULL;
    if (!nul) {
        *first_len = size;
        *rest = data + size;
        *rest_len = 0;
        return 0;
    }
    *first_len = (size_t)(nul - data);
    *rest = nul + 1;
    *rest_len = size - *first_len - 1;
    return 1;
}

void fuzz_finding(const char *target, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz %s: ", target);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void fuzz_check_error(const char *target, gpuest_err rc, const gpuest_error_t *err, const char *const *names)
{
    if (rc == GPUEST_OK)
        return;
    if (getenv("GPUEST_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz %s: rejected (%s): %s\n", target, gpuest_errname(rc), err->msg);
    if (gpuest_exit_code(rc) != 2)
        fuzz_finding(target, "bad input reported as %s (exit status %d, expected 2): %s", gpuest_errname(rc),
                     gpuest_exit_code(rc), err->msg);
    if (err->code != rc)
        fuzz_finding(target, "returned %s but the message records %s: %s", gpuest_errname(rc),
                     gpuest_errname(err->code), err->msg);
    for (size_t i = 0; names[i]; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(err->msg, names[i], n) == 0 && (err->msg[n] == ':' || err->msg[n] == ' ' || err->msg[n] == '\0'))
            return;
    }
    fuzz_finding(target, "the message does not start with the input's name (%s): %s", names[0], err->msg);
}

void fuzz_walk_workload(const char *target, gpuest_workload_t *wl)
{
    gpuest_error_t err;
    for (int launches = 0; launches < 64; launches++) {
        gpuest_launch_t l;
        int done = 0;
        if (gpuest_workload_next_launch(wl, &l, &done, &err) != GPUEST_OK)
            fuzz_finding(target, "a loaded trace fails to launch: %s", err.msg);
        if (done)
            break;
        uint64_t warps = (uint64_t)l.num_ctas * l.warps_per_cta;
        for (uint64_t w = 0; w < warps && w < 4096; w++) {
            gpuest_warp_t *warp;
            if (gpuest_warp_open(wl, (uint32_t)(w / l.warps_per_cta), (uint32_t)(w % l.warps_per_cta), &warp, &err) !=
                GPUEST_OK)
                fuzz_finding(target, "a loaded trace fails to open a warp: %s", err.msg);
            gpuest_inst_t in;
            gpuest_line_req_t reqs[GPUEST_COALESCE_MAX];
            while (gpuest_warp_next(warp, &in, &err) == GPUEST_OK && in.kind != GPUEST_INST_END)
                gpuest_coalesce(&in, reqs);
            gpuest_warp_close(warp);
        }
        if (gpuest_workload_end_launch(wl, &err) != GPUEST_OK)
            fuzz_finding(target, "a loaded trace fails to end a launch: %s", err.msg);
    }
}
