/* test_core.c: errors, seeded RNG determinism, atomic files, CSV round trip, strict parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/core.h"

static void test_errors(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    assert_int_equal(gpuest_fail(&err, GPUEST_EPARSE, "%s:%d: bad", "f.csv", 7), GPUEST_EPARSE);
    assert_string_equal(err.msg, "f.csv:7: bad");
    assert_string_equal(gpuest_errname(GPUEST_ERANGE), "GPUEST_ERANGE");
    assert_int_equal(gpuest_exit_code(GPUEST_EPARSE), 2);
    assert_int_equal(gpuest_exit_code(GPUEST_EIO), 1);
    assert_int_equal(gpuest_exit_code(GPUEST_EUNSUPPORTED), 2); /* e.g. topology = torus in a BookSim file */
    assert_int_equal(gpuest_exit_code(GPUEST_EDEADLOCK), 1);
    assert_int_equal(gpuest_exit_code(GPUEST_OK), 0);
    assert_int_equal(gpuest_edit_distance("assoc", "asoc"), 1);
    assert_int_equal(gpuest_edit_distance("kitten", "sitting"), 3);
}

static void test_rng_is_deterministic(void **state)
{
    (void)state;
    gpuest_rng_t *a, *b, *c;
    assert_int_equal(gpuest_rng_create(42, &a), GPUEST_OK);
    assert_int_equal(gpuest_rng_create(42, &b), GPUEST_OK);
    assert_int_equal(gpuest_rng_create(43, &c), GPUEST_OK);
    int differs = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = gpuest_rng_u64(a), y = gpuest_rng_u64(b), z = gpuest_rng_u64(c);
        assert_true(x == y);
        differs |= x != z;
    }
    assert_true(differs);
    /* below(n) stays in range and hits every value of a small range. */
    int seen[7] = {0};
    for (int i = 0; i < 7000; i++) {
        uint64_t v = gpuest_rng_below(a, 7);
        assert_true(v < 7);
        seen[v]++;
    }
    for (int i = 0; i < 7; i++)
        assert_true(seen[i] > 800 && seen[i] < 1200);
    for (int i = 0; i < 7000; i++)
        gpuest_rng_below(b, 7); /* keep b in step with a */
    gpuest_rng_t *fa, *fb;
    assert_int_equal(gpuest_rng_fork(a, 3, &fa), GPUEST_OK);
    assert_int_equal(gpuest_rng_fork(b, 3, &fb), GPUEST_OK);
    assert_true(gpuest_rng_u64(fa) == gpuest_rng_u64(fb));
    gpuest_rng_destroy(fa);
    gpuest_rng_destroy(fb);
    gpuest_rng_destroy(a);
    gpuest_rng_destroy(b);
    gpuest_rng_destroy(c);
}

static void tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/core_%s_%d", GPUEST_BINARY_DIR, name, (int)getpid());
}

static void test_outfile_atomic(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "atomic.txt");
    gpuest_outfile_t f;
    gpuest_error_t err;
    assert_int_equal(gpuest_outfile_open(&f, path, 0, &err), GPUEST_OK);
    fputs("half", f.fp);
    assert_int_equal(access(path, F_OK), -1); /* nothing under the final name yet */
    gpuest_outfile_abort(&f);
    assert_int_equal(access(path, F_OK), -1); /* aborted: still nothing */
    assert_int_equal(gpuest_outfile_open(&f, path, 0, &err), GPUEST_OK);
    fputs("whole", f.fp);
    assert_int_equal(gpuest_outfile_commit(&f, &err), GPUEST_OK);
    unsigned char *data;
    size_t size;
    assert_int_equal(gpuest_read_file(path, &data, &size, &err), GPUEST_OK);
    assert_int_equal(size, 5);
    assert_memory_equal(data, "whole", 5);
    free(data);
    unlink(path);
    assert_int_equal(gpuest_outfile_open(&f, "/nonexistent-dir/x.csv", 0, &err), GPUEST_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.csv"));
}

typedef struct {
    char cells[8][4][64];
    size_t rows;
    size_t lines[8];
} csv_sink;

static gpuest_err collect_row(void *ctx, size_t line, const char *const *fields, size_t n, gpuest_error_t *err)
{
    csv_sink *s = ctx;
    if (n != 4)
        return gpuest_fail(err, GPUEST_EPARSE, "line %zu: expected 4 fields, got %zu", line, n);
    for (size_t i = 0; i < n; i++)
        snprintf(s->cells[s->rows][i], 64, "%s", fields[i]);
    s->lines[s->rows++] = line;
    return GPUEST_OK;
}

static void test_csv_round_trip(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "rt.csv");
    const char *header[] = {"name", "value", "text", "empty"};
    const char *row1[] = {"a", "1.5", "comma, and \"quotes\"", ""};
    const char *row2[] = {"b", "-2", "multi\nline", "x"};
    gpuest_csv_writer_t w;
    gpuest_error_t err;
    assert_int_equal(gpuest_csv_writer_open(&w, path, header, 4, &err), GPUEST_OK);
    assert_int_equal(gpuest_csv_write_row(&w, row1, &err), GPUEST_OK);
    assert_int_equal(gpuest_csv_write_row(&w, row2, &err), GPUEST_OK);
    assert_int_equal(gpuest_csv_writer_commit(&w, &err), GPUEST_OK);
    csv_sink sink = {0};
    assert_int_equal(gpuest_csv_read(path, collect_row, &sink, &err), GPUEST_OK);
    assert_int_equal(sink.rows, 3);
    assert_string_equal(sink.cells[1][2], "comma, and \"quotes\"");
    assert_string_equal(sink.cells[1][3], "");
    assert_string_equal(sink.cells[2][2], "multi\nline");
    assert_int_equal(sink.lines[0], 1);
    assert_int_equal(sink.lines[1], 2);
    assert_int_equal(sink.lines[2], 3);
    /* A malformed file names its line. */
    FILE *f = fopen(path, "w");
    fputs("a,b,c,d\n1,2,3,4\n1,\"2\"x,3,4\n", f);
    fclose(f);
    memset(&sink, 0, sizeof sink);
    assert_int_equal(gpuest_csv_read(path, collect_row, &sink, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, ":3:"));
    f = fopen(path, "w");
    fputs("a,b,c,d\n1,2,3\n", f);
    fclose(f);
    memset(&sink, 0, sizeof sink);
    assert_int_equal(gpuest_csv_read(path, collect_row, &sink, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, "line 2: expected 4 fields, got 3"));
    unlink(path);
}

static void test_parsing_and_formatting(void **state)
{
    (void)state;
    int64_t i;
    uint64_t u;
    double d;
    assert_int_equal(gpuest_parse_i64("-12", &i), GPUEST_OK);
    assert_true(i == -12);
    assert_int_equal(gpuest_parse_i64("0x10", &i), GPUEST_OK);
    assert_true(i == 16);
    assert_int_equal(gpuest_parse_i64("12abc", &i), GPUEST_EPARSE);
    assert_int_equal(gpuest_parse_i64("", &i), GPUEST_EPARSE);
    assert_int_equal(gpuest_parse_u64("-1", &u), GPUEST_EPARSE);
    assert_int_equal(gpuest_parse_i64("99999999999999999999", &i), GPUEST_ERANGE);
    assert_int_equal(gpuest_parse_double("2.5e3", &d), GPUEST_OK);
    assert_true(d == 2500.0);
    assert_int_equal(gpuest_parse_double("2.5x", &d), GPUEST_EPARSE);
    char buf[64];
    double values[] = {0.1, 1.0 / 3.0, 1400.0, 6.02214076e23, -0.0};
    for (size_t k = 0; k < 5; k++) {
        gpuest_fmt_double(buf, sizeof buf, values[k]);
        assert_true(strtod(buf, NULL) == values[k]);
    }
    gpuest_fmt_double(buf, sizeof buf, 0.1);
    assert_string_equal(buf, "0.1");
}

/* gpuest_strdup gives an independent, equal copy (the empty string included). */
static void test_strdup_copies(void **state)
{
    (void)state;
    char src[] = "mesh56, \"quoted\"";
    char *d = gpuest_strdup(src);
    assert_non_null(d);
    assert_ptr_not_equal(d, src);
    assert_string_equal(d, "mesh56, \"quoted\"");
    src[0] = 'X'; /* the copy does not follow the original */
    assert_int_equal(d[0], 'm');
    free(d);
    d = gpuest_strdup("");
    assert_non_null(d);
    assert_int_equal(d[0], '\0');
    free(d);
}

static void test_progress_draws_only_when_forced(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_null(gpuest_progress_create(f, "x", 10)); /* a file is not a terminal */
    gpuest_progress_t *p = gpuest_progress_create_forced(f, "sim", 10);
    assert_non_null(p);
    gpuest_progress_update(p, 5);
    gpuest_progress_finish(p);
    rewind(f);
    char buf[256] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    assert_true(n > 0);
    assert_non_null(strstr(buf, "100.0%"));
    fclose(f);
    gpuest_progress_update(NULL, 1); /* NULL is silent, not a crash */
    gpuest_progress_finish(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_rng_is_deterministic),
        cmocka_unit_test(test_outfile_atomic),
        cmocka_unit_test(test_csv_round_trip),
        cmocka_unit_test(test_parsing_and_formatting),
        cmocka_unit_test(test_progress_draws_only_when_forced),
        cmocka_unit_test(test_strdup_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
