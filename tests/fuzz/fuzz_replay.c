/* fuzz_replay.c: runs fuzz targets on every file of their corpus, without a fuzzing engine, so the
 * normal test suite (ctest, project compiler, ASan + UBSan in Debug) catches regressions.
 *
 * Usage: fuzz_replay TARGET [FILE|DIR ...]   (default: tests/fuzz/corpus/TARGET)
 *        fuzz_replay --list
 * Exit 0 when every input ran; a finding aborts (the sanitizers or the target report it). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

typedef struct {
    const char *name;
    int (*fn)(const uint8_t *data, size_t size);
} target_t;

static const target_t targets[] = {
#define GPUEST_FUZZ_ENTRY(name) {#name, gpuest_fuzz_##name},
    GPUEST_FUZZ_TARGETS(GPUEST_FUZZ_ENTRY)
#undef GPUEST_FUZZ_ENTRY
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const target_t *t, const char *path)
{
    unsigned char *data;
    size_t size;
    gpuest_error_t err;
    if (gpuest_read_file(path, &data, &size, &err) != GPUEST_OK) {
        fprintf(stderr, "fuzz_replay: %s\n", err.msg);
        return 1;
    }
    /* An exact-size copy, so reading one byte past the input is caught as under libFuzzer. */
    unsigned char *exact = malloc(size ? size : 1);
    if (!exact)
        abort();
    memcpy(exact, data, size);
    free(data);
    t->fn(exact, size);
    free(exact);
    return 0;
}

/* Runs every regular file of dir in name order; returns the count run, or -1. */
static long run_dir(const target_t *t, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names)
                abort();
        }
        names[n++] = gpuest_strdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    long ran = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(t, path) != 0)
                ran = -1;
            else if (ran >= 0)
                ran++;
        }
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    size_t count = sizeof targets / sizeof targets[0];
    if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < count; i++)
            printf("%s\n", targets[i].name);
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_replay TARGET [FILE|DIR ...] | --list\n");
        return 2;
    }
    const target_t *t = NULL;
    for (size_t i = 0; i < count; i++)
        if (strcmp(targets[i].name, argv[1]) == 0)
            t = &targets[i];
    if (!t) {
        fprintf(stderr, "fuzz_replay: unknown target '%s' (see --list)\n", argv[1]);
        return 2;
    }
    long total = 0;
    if (argc == 2) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", GPUEST_SOURCE_DIR, t->name);
        total = run_dir(t, dir);
        if (total == 0) {
            fprintf(stderr, "fuzz_replay: %s: empty corpus\n", dir);
            return 1;
        }
    } else {
        for (int i = 2; i < argc && total >= 0; i++) {
            struct stat st;
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
                long r = run_dir(t, argv[i]);
                total = r < 0 ? -1 : total + r;
            } else {
                total = run_file(t, argv[i]) == 0 ? total + 1 : -1;
            }
        }
    }
    if (total < 0)
        return 1;
    printf("fuzz_replay %s: %ld inputs, no finding\n", t->name, total);
    return 0;
}
