/* run_program.c: running a program under test through popen, and writing test input files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_program.h"

int test_run_program(const char *program, const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", program, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t len = fread(out, 1, cap - 1, p);
    out[len] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

void test_write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* The whole file in a malloc'd buffer; fails the test when it cannot be read. */
static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, len = 0;
    unsigned char *d = malloc(cap);
    assert_non_null(d);
    size_t got;
    while ((got = fread(d + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            d = realloc(d, cap *= 2);
            assert_non_null(d);
        }
    }
    assert_int_equal(ferror(f), 0);
    fclose(f);
    *n = len;
    return d;
}

void test_assert_same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *da = read_all(a, &na), *db = read_all(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(da, db, na);
    free(da);
    free(db);
}

int test_files_equal(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *da = read_all(a, &na), *db = read_all(b, &nb);
    int same = na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

void test_scratch_make(char *root, size_t cap, const char *parent, const char *name)
{
    snprintf(root, cap, "%s/%s_%d", parent, name, (int)getpid());
    struct stat st;
    if (mkdir(root, 0777) != 0 && (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)))
        fail_msg("cannot create the scratch folder %s", root);
}

int test_scratch_remove(const char *root)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}
