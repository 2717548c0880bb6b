/* test_compress_fuzz.c: seeded round trips of synthetic lines through one algorithm (or all, briefly),
 * plus decoding of damaged streams (must fail cleanly or decode, never crash).
 *
 * Usage: test_compress_fuzz [ALGO [LINES]]. Without arguments every algorithm
 * runs 20000 lines; ctest runs one entry per algorithm with 10^6 lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compress/compress.h"

#define SEED 20240611u

static const char *g_algo; /* NULL: all */
static unsigned long g_lines = 20000;

static size_t line_size_of(unsigned long i)
{
    static const size_t sizes[5] = {128, 128, 128, 64, 32};
    return sizes[i % 5];
}

/* Approximable ranges over the address space the fuzz walks (addr = i * 128). */
static void make_amap(gpuest_compress_amap_t *m)
{
    gpuest_compress_amap_init(m);
    static const int bits[4] = {4, 8, 12, 20};
    for (int r = 0; r < 4; r++) {
        uint64_t start = (uint64_t)r * 0x4000000u + 0x100u * (uint64_t)r + 4u * (uint64_t)r;
        assert_int_equal(gpuest_compress_amap_add(m, start, start + 0x1000000u + 12u, bits[r], NULL), GPUEST_OK);
    }
}

/* Checks that dec differs from orig only in the allowed low mantissa bits of approximable words. */
static void check_approx(const gpuest_compress_amap_t *m, uint64_t addr, const uint8_t *orig, const uint8_t *dec,
                         size_t n)
{
    uint8_t want[GPUEST_COMPRESS_MAX_LINE];
    gpuest_compress_amap_apply(m, addr, orig, want, n);
    assert_memory_equal(want, dec, n);
    for (size_t i = 0; i < n; i += 4) {
        uint32_t a, b;
        memcpy(&a, orig + i, 4);
        memcpy(&b, dec + i, 4);
        int bits = gpuest_compress_amap_bits(m, addr + i);
        uint32_t allowed = bits ? (UINT32_C(1) << bits) - 1u : 0u;
        if ((a ^ b) & ~allowed)
            fail_msg("word at 0x%llx changed outside its %d approximable bits", (unsigned long long)(addr + i), bits);
    }
}

/* DF-TRUC and DF-MAN: critical sectors come back exactly; DF-TRUC zeroes the
 * rest, DF-MAN returns either the original or zeros there, and is never
 * larger than plain DPC of the original. */
static void check_df(const uint8_t *line, unsigned mask)
{
    uint8_t out[GPUEST_COMPRESS_MAX_STREAM_BYTES], dec[128];
    uint32_t nbits, plain;
    gpuest_error_t err;
    static const uint8_t zero[32];
    for (int mode = 0; mode < 2; mode++) {
        if (gpuest_dpc_df_compress((gpuest_df_mode)mode, mask, line, out, sizeof out, &nbits, &err) != GPUEST_OK ||
            gpuest_dpc_df_decompress((gpuest_df_mode)mode, mask, out, nbits, dec, &err) != GPUEST_OK)
            fail_msg("DF mode %d mask %u: %s", mode, mask, err.msg);
        for (unsigned s = 0; s < 4; s++) {
            if (mask & (1u << s))
                assert_memory_equal(line + 32 * s, dec + 32 * s, 32);
            else if (mode == GPUEST_DF_TRUC)
                assert_memory_equal(zero, dec + 32 * s, 32);
            else if (memcmp(zero, dec + 32 * s, 32) != 0)
                assert_memory_equal(line + 32 * s, dec + 32 * s, 32);
        }
        if (mode == GPUEST_DF_MAN) {
            assert_int_equal(gpuest_dpc_df_compress(GPUEST_DF_MAN, 15, line, out, sizeof out, &plain, &err), GPUEST_OK);
            assert_true(nbits <= plain);
        } else {
            unsigned words = 8u * ((mask & 1u) + (mask >> 1 & 1u) + (mask >> 2 & 1u) + (mask >> 3 & 1u));
            assert_true(nbits <= 1u + 32u * words);
        }
    }
}

static void run_algo(const gpuest_compress_algo_t *a, unsigned long lines)
{
    gpuest_rng_t *rng;
    gpuest_error_t err;
    assert_int_equal(gpuest_rng_create(SEED ^ (uint64_t)strlen(a->name) * 7919u, &rng), GPUEST_OK);
    gpuest_sc2_vft_t *vft;
    gpuest_sc2_book_t *book;
    assert_int_equal(gpuest_sc2_vft_create(&vft, &err), GPUEST_OK);
    assert_int_equal(gpuest_sc2_book_create(&book, &err), GPUEST_OK);
    gpuest_compress_amap_t amap;
    make_amap(&amap);

    gpuest_codec_t codec[3];
    for (int s = 0; s < 3; s++) {
        gpuest_codec_opts_t o = {(size_t)32 << s, book, &amap};
        assert_int_equal(gpuest_codec_init(&codec[s], a, &o, &err), GPUEST_OK);
    }
    const unsigned long period = 50000; /* SC2: rebuild the book from the VFT every period */
    uint8_t line[GPUEST_COMPRESS_MAX_LINE], dec[GPUEST_COMPRESS_MAX_LINE];
    uint8_t out[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    unsigned long compressed = 0, bad_ok = 0;
    for (unsigned long i = 0; i < lines; i++) {
        size_t n = line_size_of(i);
        const gpuest_codec_t *c = &codec[n == 32 ? 0 : n == 64 ? 1 : 2];
        gpuest_data_kind kind = (gpuest_data_kind)((i / 5) % GPUEST_DATA_KINDS);
        gpuest_data_fill(rng, kind, line, n);
        uint64_t addr = (uint64_t)i * 128u;
        if (i % 4 == 0)
            gpuest_sc2_vft_sample(vft, line, n);
        if (i % period == period / 10)
            assert_int_equal(gpuest_sc2_book_build_from_vft(book, vft, &err), GPUEST_OK);

        uint32_t nbits = 0;
        if (gpuest_codec_compress(c, addr, line, out, sizeof out, &nbits, &err) != GPUEST_OK)
            fail_msg("%s line %lu: %s", a->name, i, err.msg);
        assert_int_equal(nbits, gpuest_codec_size_bits(c, addr, line));
        uint32_t raw = (uint32_t)n * 8u;
        uint32_t limit = (a->flags & GPUEST_COMPRESS_SELF_FLAG) ? raw + (n > 64 ? 2u : 1u) : raw;
        if (nbits > limit || nbits == 0)
            fail_msg("%s line %lu: %u bits for a %zu-byte line", a->name, i, nbits, n);
        compressed += gpuest_codec_is_compressed(c, nbits);
        memset(dec, 0xA5, sizeof dec);
        if (gpuest_codec_decompress(c, out, nbits, dec, &err) != GPUEST_OK)
            fail_msg("%s line %lu (%s, %zu B): %s", a->name, i, gpuest_data_kind_name(kind), n, err.msg);
        if (a->flags & GPUEST_COMPRESS_LOSSY)
            check_approx(&amap, addr, line, dec, n);
        else if (memcmp(line, dec, n) != 0)
            fail_msg("%s line %lu (%s, %zu B): round trip mismatch", a->name, i, gpuest_data_kind_name(kind), n);

        if (n == 128 && i % 4 == 0 && strcmp(a->name, "dpc") == 0) /* data filtering, every 4th line */
            check_df(line, (unsigned)(i % 15) + 1u);
        if (i % 16 == 3) { /* damage the stream: flip a bit, or cut it short */
            uint32_t bit = (uint32_t)gpuest_rng_below(rng, nbits);
            uint32_t len = nbits;
            if (i % 32 == 3)
                out[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
            else
                len = bit;
            bad_ok += gpuest_codec_decompress(c, out, len, dec, &err) == GPUEST_OK;
        }
    }
    /* every algorithm except none compresses the zero lines at least */
    if (strcmp(a->name, "none") != 0)
        assert_true(compressed >= lines / GPUEST_DATA_KINDS / 2);
    else
        assert_int_equal(compressed, 0);
    (void)bad_ok;
    gpuest_sc2_book_destroy(book);
    gpuest_sc2_vft_destroy(vft);
    gpuest_rng_destroy(rng);
}

static void test_fuzz(void **state)
{
    (void)state;
    for (size_t k = 0; gpuest_compress_algos[k]; k++) {
        const gpuest_compress_algo_t *a = gpuest_compress_algos[k];
        if (g_algo && strcmp(g_algo, a->name) != 0)
            continue;
        run_algo(a, g_lines);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        const gpuest_compress_algo_t *a;
        gpuest_error_t err;
        if (gpuest_compress_lookup(argv[1], &a, &err) != GPUEST_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        g_algo = argv[1];
        g_lines = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000ul;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fuzz)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
