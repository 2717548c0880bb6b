/* test_compress_cli.c: the 'gpuest compress' command run as a user would: CSV columns and values, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/core.h"
#include "run_program.h"

static char out[1 << 16];

static void tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/cz_cli_%d_%s", GPUEST_BINARY_DIR, (int)getpid(), name);
}

/* Two 128-byte lines: all zeros, then the int32 words 0..31 (little-endian). */
static void two_lines(uint8_t *d)
{
    memset(d, 0, 256);
    for (int i = 0; i < 32; i++)
        d[128 + 4 * i] = (uint8_t)i;
}

typedef struct {
    size_t rows;
    char header[512];
    char row[16][512]; /* fields joined by ',' */
} csv_t;

static gpuest_err collect(void *ctx, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    (void)line;
    (void)err;
    csv_t *c = ctx;
    char *dst = c->rows == 0 && c->header[0] == '\0' ? c->header : c->row[c->rows++];
    dst[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strcat(dst, f[i]);
        if (i + 1 < n)
            strcat(dst, ",");
    }
    return GPUEST_OK;
}

static void test_csv_values(void **state)
{
    (void)state;
    char bin[256], csvp[256], args[1024];
    tmp_path(bin, sizeof bin, "two.bin");
    tmp_path(csvp, sizeof csvp, "two.csv");
    uint8_t d[256];
    two_lines(d);
    test_write_bytes(bin, d, sizeof d);
    snprintf(args, sizeof args, "compress %s --csv %s", bin, csvp);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "dsm_approx"));
    csv_t c;
    memset(&c, 0, sizeof c);
    assert_int_equal(gpuest_csv_read(csvp, collect, &c, NULL), GPUEST_OK);
    assert_string_equal(c.header, "algorithm,lines,input_bytes,compressed_bits,compression_ratio,flits_in,flits_out,"
                                  "compression_rate,lines_compressed,roundtrip_ok");
    assert_int_equal(c.rows, 9);
    /* header 0: a head flit of its own + the data (the simulator's rule).
     * none: 2 x (1 + 1024 / 128) = 18 flits */
    assert_string_equal(c.row[0], "none,2,256,2048,1,18,18,0,0,1");
    /* bdi: zero line 8 bits (1 + 1 flits) + 0..31 360 bits (1 + 3): 368 bits, 6 flits, rate 12/18 */
    assert_string_equal(c.row[1], "bdi,2,256,368,5.565217391304348,18,6,0.6666666666666666,2,1");
    /* dpc: 65 + 220 = 285 bits; payloads 64 and 219 (the C bit is a header bit, as for every
     * algorithm): 1 + 1 and 1 + 2 flits, rate 13/18 */
    assert_string_equal(c.row[6], "dpc,2,256,285,7.185964912280702,18,5,0.7222222222222222,2,1");
    /* bpc: 10 + 15 bits, 1 + 1 flits each */
    assert_string_equal(c.row[4], "bpc,2,256,25,81.92,18,4,0.7777777777777778,2,1");
    /* a 16-byte header and 32-byte flits: raw = ceil((128 + 1024) / 256) = 5 flits per line,
     * dpc payloads (128 + 64) -> 1 and (128 + 219) -> 2 */
    snprintf(args, sizeof args, "compress %s --algo dpc --flit 32 --header 16 --csv %s", bin, csvp);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(gpuest_csv_read(csvp, collect, &c, NULL), GPUEST_OK);
    assert_int_equal(c.rows, 1);
    assert_string_equal(c.row[0], "dpc,2,256,285,7.185964912280702,10,3,0.7,2,1");
    /* 64-byte lines: 4 lines */
    snprintf(args, sizeof args, "compress %s --algo bdi --line 64 --csv %s", bin, csvp);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(gpuest_csv_read(csvp, collect, &c, NULL), GPUEST_OK);
    assert_true(strncmp(c.row[0], "bdi,4,256,", 10) == 0);
    unlink(bin);
    unlink(csvp);
}

static void test_approx_option(void **state)
{
    (void)state;
    char bin[256], csvp[256], args[1024];
    tmp_path(bin, sizeof bin, "flt.bin");
    tmp_path(csvp, sizeof csvp, "flt.csv");
    /* words 0x3F800000 + 17 i: DSM 382 bits; with 12 approximated bits every segment is uniform (2 x 41) */
    uint8_t d[128];
    for (int i = 0; i < 32; i++) {
        uint32_t v = 0x3F800000u + 17u * (uint32_t)i;
        memcpy(d + 4 * i, &v, 4); /* the test host is little-endian like the format */
    }
    test_write_bytes(bin, d, sizeof d);
    snprintf(args, sizeof args, "compress %s --algo dsm_approx --float --approx-bits 12 --csv %s", bin, csvp);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    csv_t c;
    memset(&c, 0, sizeof c);
    assert_int_equal(gpuest_csv_read(csvp, collect, &c, NULL), GPUEST_OK);
    assert_true(strncmp(c.row[0], "dsm_approx,1,128,82,", 20) == 0);
    snprintf(args, sizeof args, "compress %s --algo dsm_approx --csv %s", bin, csvp);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(gpuest_csv_read(csvp, collect, &c, NULL), GPUEST_OK);
    assert_true(strncmp(c.row[0], "dsm_approx,1,128,382,", 21) == 0); /* no --float: lossless */
    unlink(bin);
    unlink(csvp);
}

static void test_errors(void **state)
{
    (void)state;
    char path[256], args[1024];
    uint8_t d[300] = {0};
    tmp_path(path, sizeof path, "empty.bin");
    test_write_bytes(path, d, 0);
    snprintf(args, sizeof args, "compress %s", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "is empty"));
    unlink(path);
    tmp_path(path, sizeof path, "odd.bin");
    test_write_bytes(path, d, 300);
    snprintf(args, sizeof args, "compress %s", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "not a multiple of the 128-byte line size"));
    snprintf(args, sizeof args, "compress %s --line 32 --algo lz4", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "unknown compression algorithm 'lz4'; valid names are none, bdi"));
    snprintf(args, sizeof args, "compress %s --line 96", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    snprintf(args, sizeof args, "compress %s --approx-bits 4", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "needs --float"));
    assert_int_equal(run_gpuest("compress", out, sizeof out), 2);
    assert_int_equal(run_gpuest("compress --help", out, sizeof out), 0);
    assert_non_null(strstr(out, "usage: gpuest compress"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_values),
        cmocka_unit_test(test_approx_option),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
