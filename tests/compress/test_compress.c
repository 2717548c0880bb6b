/* test_compress.c: hand-checked compressed sizes per algorithm, bit I/O, registry, flits, latencies,
 * SC2 code books, DPC data filtering, DSM+APPROX and malformed streams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compress/compress.h"

/* ------------------------------------------------------------ helpers */
static void put32(uint8_t *line, size_t i, uint32_t v)
{
    line[4 * i] = (uint8_t)v;
    line[4 * i + 1] = (uint8_t)(v >> 8);
    line[4 * i + 2] = (uint8_t)(v >> 16);
    line[4 * i + 3] = (uint8_t)(v >> 24);
}

static void fill32(uint8_t *line, size_t words, uint32_t v)
{
    for (size_t i = 0; i < words; i++)
        put32(line, i, v);
}

static void iota32(uint8_t *line, size_t words, uint32_t start, uint32_t step)
{
    for (size_t i = 0; i < words; i++)
        put32(line, i, start + step * (uint32_t)i);
}

static const gpuest_compress_algo_t *algo(const char *name)
{
    const gpuest_compress_algo_t *a = NULL;
    assert_int_equal(gpuest_compress_lookup(name, &a, NULL), GPUEST_OK);
    return a;
}

/* Compressed size through the full codec, after checking the round trip and
 * that the fast size path agrees with the real stream. */
static uint32_t size_of_opts(const char *name, const uint8_t *line, size_t bytes, const gpuest_sc2_book_t *book,
                             const gpuest_compress_amap_t *amap, uint64_t addr)
{
    gpuest_codec_t c;
    gpuest_error_t err;
    gpuest_codec_opts_t o = {bytes, book, amap};
    assert_int_equal(gpuest_codec_init(&c, algo(name), &o, &err), GPUEST_OK);
    uint8_t out[GPUEST_COMPRESS_MAX_STREAM_BYTES], dec[GPUEST_COMPRESS_MAX_LINE];
    uint32_t nbits = 0;
    assert_int_equal(gpuest_codec_compress(&c, addr, line, out, sizeof out, &nbits, &err), GPUEST_OK);
    assert_int_equal(nbits, gpuest_codec_size_bits(&c, addr, line));
    assert_int_equal(gpuest_codec_decompress(&c, out, nbits, dec, &err), GPUEST_OK);
    if (!(c.algo->flags & GPUEST_COMPRESS_LOSSY))
        assert_memory_equal(line, dec, bytes);
    return nbits;
}

static uint32_t size_of(const char *name, const uint8_t *line, size_t bytes)
{
    return size_of_opts(name, line, bytes, NULL, NULL, 0);
}

/* ------------------------------------------------------------ registry, flits, latencies */
static void test_registry(void **state)
{
    (void)state;
    const char *names[] = {"none", "bdi", "fpc", "cpack", "bpc", "sc2", "dpc", "dsm", "dsm_approx"};
    size_t n = 0;
    while (gpuest_compress_algos[n])
        n++;
    assert_int_equal(n, 9);
    for (size_t i = 0; i < 9; i++)
        assert_string_equal(gpuest_compress_algos[i]->name, names[i]);
    gpuest_error_t err;
    const gpuest_compress_algo_t *a = (const void *)1;
    assert_int_equal(gpuest_compress_lookup("lz4", &a, &err), GPUEST_ENOKEY);
    assert_null(a);
    assert_non_null(strstr(err.msg, "'lz4'"));
    assert_non_null(strstr(err.msg, "valid names are none, bdi, fpc, cpack, bpc, sc2, dpc, dsm, dsm_approx"));

    gpuest_codec_t c;
    gpuest_codec_opts_t o = {96, NULL, NULL};
    assert_int_equal(gpuest_codec_init(&c, algo("bdi"), &o, &err), GPUEST_EINVAL);
    o.line_bytes = 128;
    assert_int_equal(gpuest_codec_init(&c, algo("sc2"), &o, &err), GPUEST_EINVAL); /* no book */
}

/* A 128-byte line is two 64-byte BDI units: a raw half next to a compressible
 * one costs 4 + 512 (raw unit) + the other unit, not the raw line's 1024 bits.
 * Catches an encoder that gives up on the whole line at its first raw unit. */
static void test_bdi_half_raw_line(void **state)
{
    (void)state;
    uint8_t line[128];
    memset(line, 0, 64); /* zero unit: 4 bits */
    uint32_t x = 0x9E3779B9u;
    for (size_t i = 16; i < 32; i++) { /* no base fits these: raw unit */
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        put32(line, i, x);
    }
    assert_int_equal(size_of("bdi", line, 128), 4 + 4 + 512);
    /* and the other way round: raw first, then a B8D1 unit of 140 bits */
    uint8_t swapped[128];
    memcpy(swapped, line + 64, 64);
    for (size_t i = 0; i < 8; i++) {
        uint64_t v = UINT64_C(0x1000000000) + i;
        memcpy(swapped + 64 + 8 * i, &v, 8); /* little-endian host, as every test here */
    }
    assert_int_equal(size_of("bdi", swapped, 128), 4 + 512 + 140);
    /* two raw halves: the raw line */
    memcpy(swapped + 64, line + 64, 64);
    assert_int_equal(size_of("bdi", swapped, 128), 1024);
}

/* Packet C-Pack: the dictionary outlives the line. 32 copies of one word cost 1 (Z) + 34 (xxxx)
 * + 31 x 6 (mmmm) = 221 bits with a fresh dictionary, and 1 + 32 x 6 = 193 once the word is in
 * it; a receiver with its own persistent copy decodes both exactly. */
static void test_cpack_persistent_dictionary(void **state)
{
    (void)state;
    uint8_t line[128], dec[128], buf[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    fill32(line, 32, 0x12345678u);
    gpuest_cpack_dict_t tx, rx, empty;
    gpuest_cpack_dict_init(&tx);
    gpuest_cpack_dict_init(&rx);
    gpuest_cpack_dict_init(&empty);
    uint32_t want[2] = {221, 193};
    for (int k = 0; k < 2; k++) {
        gpuest_bitwriter_t w;
        gpuest_bitwriter_init(&w, buf, sizeof buf);
        gpuest_cpack_dict_encode(&tx, line, 128, &w);
        uint32_t nbits = 0;
        assert_int_equal(gpuest_bitwriter_finish(&w, &nbits, NULL), GPUEST_OK);
        assert_int_equal(nbits, want[k]);
        gpuest_bitreader_t r;
        gpuest_bitreader_init(&r, buf, nbits);
        memset(dec, 0xAB, sizeof dec);
        assert_int_equal(gpuest_cpack_dict_decode(&rx, &r, dec, 128, NULL), GPUEST_OK);
        assert_int_equal(r.pos, nbits);
        assert_memory_equal(dec, line, 128);
    }
    /* a receiver that missed the first line needs one entry to catch up */
    assert_int_equal(gpuest_cpack_dict_diff(&empty, &tx), 1);
    assert_int_equal(gpuest_cpack_dict_diff(&rx, &tx), 0);
    /* a stale receiver decodes garbage or fails: the sync is needed */
    gpuest_bitwriter_t w;
    gpuest_bitwriter_init(&w, buf, sizeof buf);
    gpuest_cpack_dict_encode(&tx, line, 128, &w);
    uint32_t nbits = 0;
    assert_int_equal(gpuest_bitwriter_finish(&w, &nbits, NULL), GPUEST_OK);
    gpuest_bitreader_t r;
    gpuest_bitreader_init(&r, buf, nbits);
    assert_int_equal(gpuest_cpack_dict_decode(&empty, &r, dec, 128, NULL), GPUEST_ECORRUPT);
}

/* The flag rule: DSM and DPC's own leading C bit is the header bit every algorithm gets. */
static void test_payload_flag_rule(void **state)
{
    (void)state;
    uint8_t line[128];
    memset(line, 0, sizeof line);
    gpuest_codec_t c;
    gpuest_codec_opts_t o = {128, NULL, NULL};
    assert_int_equal(gpuest_codec_init(&c, algo("dpc"), &o, NULL), GPUEST_OK);
    assert_int_equal(gpuest_codec_payload_bits(&c, gpuest_codec_size_bits(&c, 0, line)), 64); /* 65 - C */
    assert_int_equal(gpuest_codec_payload_bits(&c, 1025), 1024); /* raw: C = 0 + the line */
    assert_int_equal(gpuest_codec_init(&c, algo("dsm"), &o, NULL), GPUEST_OK);
    /* two all-zero halves: 2 x (1 + 8 + 8 x 4) = 82 bits, the first C bit in the header */
    assert_int_equal(gpuest_codec_size_bits(&c, 0, line), 82);
    assert_int_equal(gpuest_codec_payload_bits(&c, 82), 81);
    assert_int_equal(gpuest_codec_init(&c, algo("bdi"), &o, NULL), GPUEST_OK);
    assert_int_equal(gpuest_codec_payload_bits(&c, gpuest_codec_size_bits(&c, 0, line)), 8); /* no C bit */
}

static void test_flits_and_latencies(void **state)
{
    (void)state;
    /* the shared rule (core.h): header_bytes 0 = a head flit of its own */
    assert_int_equal(gpuest_packet_flits(1024, 16, 0), 9);  /* 1 + 1024 / 128 */
    assert_int_equal(gpuest_packet_flits(1025, 16, 0), 10); /* 1 + ceil(1025 / 128) */
    assert_int_equal(gpuest_packet_flits(220, 16, 0), 3);   /* 1 + ceil(220 / 128) */
    assert_int_equal(gpuest_packet_flits(220, 16, 8), 3);   /* ceil((64 + 220) / 128) */
    assert_int_equal(gpuest_packet_flits(0, 32, 0), 1);     /* a data-less packet is its head flit */
    assert_int_equal(gpuest_packet_flits(0, 32, 16), 1);
    assert_int_equal(gpuest_packet_flits(1, 32, 0), 2);
    assert_int_equal(gpuest_packet_flits(1024, 32, 16), 5); /* ceil((128 + 1024) / 256), fermi with a header */
    /* packet compression thesis Table 6.5 */
    assert_int_equal(gpuest_compress_latency(algo("bdi"), -1), 2);
    assert_int_equal(gpuest_decompress_latency(algo("bdi"), -1), 1);
    assert_int_equal(gpuest_compress_latency(algo("fpc"), -1), 3);
    assert_int_equal(gpuest_decompress_latency(algo("fpc"), -1), 5);
    assert_int_equal(gpuest_compress_latency(algo("cpack"), -1), 16);
    assert_int_equal(gpuest_decompress_latency(algo("cpack"), -1), 9);
    assert_int_equal(gpuest_compress_latency(algo("bpc"), -1), 11);
    assert_int_equal(gpuest_decompress_latency(algo("bpc"), -1), 11);
    assert_int_equal(gpuest_compress_latency(algo("dsm"), -1), 2);
    assert_int_equal(gpuest_decompress_latency(algo("dsm"), -1), 1);
    assert_int_equal(gpuest_compress_latency(algo("dsm_approx"), -1), 4);
    assert_int_equal(gpuest_decompress_latency(algo("dsm_approx"), -1), 1);
    /* LATTE-CC IV-C: SC 6 / 14 */
    assert_int_equal(gpuest_compress_latency(algo("sc2"), -1), 6);
    assert_int_equal(gpuest_decompress_latency(algo("sc2"), -1), 14);
    /* overrides from technique.compress_latency / decompress_latency */
    assert_int_equal(gpuest_compress_latency(algo("bdi"), 7), 7);
    assert_int_equal(gpuest_decompress_latency(algo("bpc"), 0), 0);
}

/* ------------------------------------------------------------ bit streams */
static void test_bit_io(void **state)
{
    (void)state;
    uint8_t buf[8];
    gpuest_bitwriter_t w;
    gpuest_bitwriter_init(&w, buf, sizeof buf);
    gpuest_bitwriter_put(&w, 0x5, 3); /* 101 */
    gpuest_bitwriter_put(&w, 0xDEADBEEF, 32);
    gpuest_bitwriter_put(&w, 0x1, 1);
    uint32_t nbits;
    assert_int_equal(gpuest_bitwriter_finish(&w, &nbits, NULL), GPUEST_OK);
    assert_int_equal(nbits, 36);
    /* 101 11011110 10101101 10111110 11101111 1 -> bytes */
    assert_int_equal(buf[0], 0xBB);
    assert_int_equal(buf[1], 0xD5);
    assert_int_equal(buf[2], 0xB7);
    assert_int_equal(buf[3], 0xDD);
    assert_int_equal(buf[4], 0xF0);
    gpuest_bitreader_t r;
    gpuest_bitreader_init(&r, buf, nbits);
    assert_int_equal(gpuest_bitreader_get(&r, 3), 5);
    assert_int_equal(gpuest_bitreader_get(&r, 32), 0xDEADBEEF);
    assert_int_equal(gpuest_bitreader_get(&r, 1), 1);
    assert_int_equal(r.overflow, 0);
    assert_int_equal(gpuest_bitreader_get(&r, 1), 0);
    assert_int_equal(r.overflow, 1);

    /* capacity is enforced */
    uint8_t small[2] = {0, 0};
    gpuest_bitwriter_init(&w, small, sizeof small);
    gpuest_bitwriter_put(&w, 0xFFFF, 16);
    gpuest_bitwriter_put(&w, 0x1, 1);
    gpuest_error_t err;
    assert_int_equal(gpuest_bitwriter_finish(&w, &nbits, &err), GPUEST_ERANGE);
}

/* ------------------------------------------------------------ hand-checked sizes
 * All lines are 128 bytes (32 little-endian words) unless stated. */
static void test_sizes_none(void **state)
{
    (void)state;
    uint8_t l[128];
    fill32(l, 32, 0);
    assert_int_equal(size_of("none", l, 128), 1024); /* raw, even when zero */
    assert_int_equal(size_of("none", l, 64), 512);
    iota32(l, 8, 1, 1);
    assert_int_equal(size_of("none", l, 32), 256);
}

static void test_sizes_bdi(void **state)
{
    (void)state;
    uint8_t l[128];
    /* zero line: two 64-byte units of encoding 0000 only: 4 + 4 */
    fill32(l, 32, 0);
    assert_int_equal(size_of("bdi", l, 128), 8);
    /* one repeated 8-byte value: per unit 4 + 64 */
    for (size_t i = 0; i < 16; i++) {
        put32(l, 2 * i, 0x55667788u);
        put32(l, 2 * i + 1, 0x11223344u);
    }
    assert_int_equal(size_of("bdi", l, 128), 2 * 68);
    /* 0, 1, ..., 31 as int32: 8-byte values differ by 2^32 + 2 (B8 fails); as 4-byte
     * values every word is an immediate (fits a signed byte), so B4Δ1: per unit
     * 4 + 32 (base, charged) + 16 * (1 + 8) = 180 */
    iota32(l, 32, 0, 1);
    assert_int_equal(size_of("bdi", l, 128), 360);
    /* 16 pointers 0x00007f0000001000 + 8i: per unit 8 values, all deltas <= 56
     * from the first: B8Δ1 = 4 + 64 + 8 * 9 = 140 */
    for (size_t i = 0; i < 16; i++) {
        put32(l, 2 * i, 0x00001000u + 8u * (uint32_t)i);
        put32(l, 2 * i + 1, 0x00007f00u);
    }
    assert_int_equal(size_of("bdi", l, 128), 280);
    /* 64-byte line of -1, 300, 301, ..., 314 (int32): -1 is an immediate, 300 the base,
     * deltas 0..14 (B4Δ1): 4 + 32 + 16 * 9 = 180 */
    put32(l, 0, 0xFFFFFFFFu);
    iota32(l + 4, 15, 300, 1);
    assert_int_equal(size_of("bdi", l, 64), 180);
    /* random-looking unit: 1111 + 512 per unit = 1032 >= 1024: raw fallback */
    for (size_t i = 0; i < 32; i++)
        put32(l, i, 0x9E3779B9u * (uint32_t)(i + 1) ^ 0x5bd1e995u * (uint32_t)(i * i));
    assert_int_equal(size_of("bdi", l, 128), 1024);
}

static void test_sizes_fpc(void **state)
{
    (void)state;
    uint8_t l[128];
    /* 0x00000004 is a 4-bit sign-extended word: 3 + 4 bits each */
    fill32(l, 32, 4);
    assert_int_equal(size_of("fpc", l, 128), 32 * 7);
    /* zero line: per 64-byte unit runs of 8 + 8 zeros, 6 bits each */
    fill32(l, 32, 0);
    assert_int_equal(size_of("fpc", l, 128), 24);
    /* unit 1: raw 0x12345678 (35), -128 (SE8: 11), 0x00010000 (low half zero: 19),
     * 0xABABABAB (repeated bytes: 11), 12 zeros (runs 8 + 4: 12) = 88;
     * unit 2: 16 zeros = 12. Total 100. */
    put32(l, 0, 0x12345678u);
    put32(l, 1, 0xFFFFFF80u);
    put32(l, 2, 0x00010000u);
    put32(l, 3, 0xABABABABu);
    assert_int_equal(size_of("fpc", l, 128), 100);
    /* two halfwords that are sign-extended bytes, hi = -16, lo = 127: 3 + 16 each */
    fill32(l, 32, 0xFFF0007Fu);
    assert_int_equal(size_of("fpc", l, 128), 32 * 19);
    /* 32-byte line: 0x7FFF (SE16, 19) then 7 zeros (one run, 6) */
    fill32(l, 8, 0);
    put32(l, 0, 0x7FFFu);
    assert_int_equal(size_of("fpc", l, 32), 25);
}

static void test_sizes_cpack(void **state)
{
    (void)state;
    uint8_t l[128];
    /* zero line: the Z bit alone */
    fill32(l, 32, 0);
    assert_int_equal(size_of("cpack", l, 128), 1);
    /* one repeated word: Z = 0, per unit xxxx (34) then 15 mmmm (6) = 124 */
    fill32(l, 32, 0x12345678u);
    assert_int_equal(size_of("cpack", l, 128), 1 + 2 * 124);
    /* unit 1: zzzx 0xAB (12), xxxx 0x12345678 (34), mmmx 0x123456FF (16),
     * mmxx 0x1234ABCD (24), 12 zzzz (24) = 110; unit 2: 16 zzzz = 32. */
    fill32(l, 32, 0);
    put32(l, 0, 0x000000ABu);
    put32(l, 1, 0x12345678u);
    put32(l, 2, 0x123456FFu);
    put32(l, 3, 0x1234ABCDu);
    assert_int_equal(size_of("cpack", l, 128), 1 + 110 + 32);
    /* a word matching an earlier mmmx insert fully: 0x123456FF again is mmmm (6) */
    put32(l, 4, 0x123456FFu);
    assert_int_equal(size_of("cpack", l, 128), 1 + 110 - 2 + 6 + 32);
}

static void test_sizes_bpc(void **state)
{
    (void)state;
    uint8_t l[128];
    /* 0..31: base 0 (3), deltas all 1 -> DBX[32..1] zero (run of 32: 7),
     * DBX[0] = DBP[0] = all ones (5): 15 (spec vector int32_iota) */
    iota32(l, 32, 0, 1);
    assert_int_equal(size_of("bpc", l, 128), 15);
    /* zero line: base 3 + one run of 33 planes 7 */
    fill32(l, 32, 0);
    assert_int_equal(size_of("bpc", l, 128), 10);
    /* 16 zeros then 16 ones: base 3, run of 32 (7), DBX[0] has the single bit 15 (10) */
    fill32(l + 64, 16, 1);
    assert_int_equal(size_of("bpc", l, 128), 20);
    /* one repeated wide word: raw base 33 + run of 33 (7) */
    fill32(l, 32, 0x12345678u);
    assert_int_equal(size_of("bpc", l, 128), 40);
    /* 64-byte line (15-bit planes): 100, 101, ..., 115: base SE8 (11) + run 32 (7) + all ones (5) */
    iota32(l, 16, 100, 1);
    assert_int_equal(size_of("bpc", l, 64), 23);
}

static void test_sizes_sc2(void **state)
{
    (void)state;
    gpuest_sc2_book_t *b;
    gpuest_error_t err;
    assert_int_equal(gpuest_sc2_book_create(&b, &err), GPUEST_OK);
    /* A 8, B 4, C 2, escape 2. Huffman: escape + C -> 4; B (leaf first on ties) + 4 -> 8;
     * A + 8 -> 16. Lengths: A 1, B 2, escape 3, C 3. */
    const uint32_t vals[3] = {0x11111111u, 0x22222222u, 0x33333333u};
    const uint32_t freqs[3] = {8, 4, 2};
    assert_int_equal(gpuest_sc2_book_build(b, vals, freqs, 3, 2, &err), GPUEST_OK);
    assert_int_equal(gpuest_sc2_book_word_bits(b, vals[0]), 1);
    assert_int_equal(gpuest_sc2_book_word_bits(b, vals[1]), 2);
    assert_int_equal(gpuest_sc2_book_word_bits(b, vals[2]), 3);
    assert_int_equal(gpuest_sc2_book_escape_len(b), 3);
    assert_int_equal(gpuest_sc2_book_word_bits(b, 0xDEADBEEFu), 35);
    uint8_t l[128];
    /* 16 A + 8 B + 4 C + 4 escaped words: 16 + 16 + 12 + 4 * 35 = 184 */
    for (size_t i = 0; i < 32; i++)
        put32(l, i, i < 16 ? vals[0] : i < 24 ? vals[1] : i < 28 ? vals[2] : 0xDEAD0000u + (uint32_t)i);
    assert_int_equal(size_of_opts("sc2", l, 128, b, NULL, 0), 184);
    /* 32 A: 32 bits */
    fill32(l, 32, vals[0]);
    assert_int_equal(size_of_opts("sc2", l, 128, b, NULL, 0), 32);
    /* 32 unknown words: 32 * 35 = 1120 >= 1024: raw */
    iota32(l, 32, 0x40000000u, 3);
    assert_int_equal(size_of_opts("sc2", l, 128, b, NULL, 0), 1024);
    /* the book's canonical codes: A = 0, B = 10, escape = 110, C = 111 */
    gpuest_codec_t c;
    gpuest_codec_opts_t o = {32, b, NULL};
    assert_int_equal(gpuest_codec_init(&c, algo("sc2"), &o, &err), GPUEST_OK);
    put32(l, 0, vals[0]);
    put32(l, 1, vals[1]);
    put32(l, 2, vals[2]);
    put32(l, 3, 0x01020304u);
    fill32(l + 16, 4, vals[0]);
    uint8_t out[64];
    uint32_t nbits;
    assert_int_equal(gpuest_codec_compress(&c, 0, l, out, sizeof out, &nbits, &err), GPUEST_OK);
    assert_int_equal(nbits, 1 + 2 + 3 + 35 + 4);
    /* 0 10 111 110 00000001 00000010 00000011 00000100 0000 */
    assert_int_equal(out[0], 0x5F); /* 0101 1111 */
    assert_int_equal(out[1], 0x00); /* 0 + 0000000 */
    assert_int_equal(out[2], 0x81); /* 1 0000001 */

    /* rebuild from a sampled VFT: counts and the miss-driven escape */
    gpuest_sc2_vft_t *v;
    assert_int_equal(gpuest_sc2_vft_create(&v, &err), GPUEST_OK);
    fill32(l, 32, 7);
    gpuest_sc2_vft_sample(v, l, 128);
    assert_int_equal(gpuest_sc2_vft_count(v, 7), 32);
    assert_int_equal(gpuest_sc2_vft_size(v), 1);
    assert_int_equal(gpuest_sc2_book_build_from_vft(b, v, &err), GPUEST_OK);
    assert_int_equal(gpuest_sc2_book_word_bits(b, 7), 1); /* two symbols: 7 and escape */
    assert_int_equal(size_of_opts("sc2", l, 128, b, NULL, 0), 32);
    /* 12-bit counters: saturating at 4095 halves everything */
    for (int k = 0; k < 130; k++)
        gpuest_sc2_vft_sample(v, l, 128); /* 32 * 131 = 4192 words of 7 */
    assert_true(gpuest_sc2_vft_count(v, 7) <= GPUEST_SC2_COUNTER_MAX);
    assert_true(gpuest_sc2_vft_count(v, 7) >= 2047);
    /* a full table turns new values into misses */
    gpuest_sc2_vft_reset(v);
    for (uint32_t k = 0; k < 1100; k++) {
        uint8_t w[4] = {(uint8_t)k, (uint8_t)(k >> 8), 0, 0};
        gpuest_sc2_vft_sample(v, w, 4);
    }
    assert_int_equal(gpuest_sc2_vft_size(v), GPUEST_SC2_VFT_ENTRIES);
    assert_int_equal(gpuest_sc2_vft_misses(v), 1100 - GPUEST_SC2_VFT_ENTRIES);
    assert_int_equal(gpuest_sc2_book_build_from_vft(b, v, &err), GPUEST_OK);
    assert_true(gpuest_sc2_book_escape_len(b) <= GPUEST_SC2_MAX_CODE_LEN);
    /* bad books */
    const uint32_t dup[2] = {5, 5}, f2[2] = {1, 1}, f0[1] = {0};
    assert_int_equal(gpuest_sc2_book_build(b, dup, f2, 2, 1, &err), GPUEST_EINVAL);
    assert_int_equal(gpuest_sc2_book_build(b, dup, f0, 1, 1, &err), GPUEST_EINVAL);
    assert_int_equal(gpuest_sc2_book_build(b, dup, f2, 1, 0, &err), GPUEST_EINVAL);
    gpuest_sc2_vft_destroy(v);
    gpuest_sc2_book_destroy(b);
}

static void test_sc2_length_limit(void **state)
{
    (void)state;
    /* Fibonacci-like frequencies make a 30-deep Huffman tree; the book must cap it at 16. */
    uint32_t vals[30], freqs[30];
    uint32_t a = 1, b = 1;
    for (int i = 0; i < 30; i++) {
        vals[i] = (uint32_t)i * 1000u;
        freqs[i] = a;
        uint32_t t = a + b;
        a = b;
        b = t;
    }
    gpuest_sc2_book_t *bk;
    assert_int_equal(gpuest_sc2_book_create(&bk, NULL), GPUEST_OK);
    assert_int_equal(gpuest_sc2_book_build(bk, vals, freqs, 30, 1, NULL), GPUEST_OK);
    double kraft = 0;
    for (int i = 0; i < 30; i++) {
        unsigned len = gpuest_sc2_book_word_bits(bk, vals[i]);
        assert_true(len >= 1 && len <= GPUEST_SC2_MAX_CODE_LEN);
        kraft += 1.0 / (double)(1u << len);
    }
    kraft += 1.0 / (double)(1u << gpuest_sc2_book_escape_len(bk));
    assert_true(kraft <= 1.0 + 1e-12);
    uint8_t l[128];
    for (size_t i = 0; i < 32; i++)
        put32(l, i, vals[i % 30]);
    assert_true(size_of_opts("sc2", l, 128, bk, NULL, 0) < 1024);
    gpuest_sc2_book_destroy(bk);
}

static void test_sizes_dpc(void **state)
{
    (void)state;
    uint8_t l[128];
    /* zero line: C + 32 ES + 32 one-bit planes */
    fill32(l, 32, 0);
    assert_int_equal(size_of("dpc", l, 128), 65);
    /* 0..31: planes 5..31 all zero (27 x 1), planes 0..4 raw (5 x 32): 1 + 32 + 27 + 160 */
    iota32(l, 32, 0, 1);
    assert_int_equal(size_of("dpc", l, 128), 220);
    /* 0, 1, 0, 1, ...: plane 0 raw, 31 uniform: 1 + 32 + 31 + 32 */
    for (size_t i = 0; i < 32; i++)
        put32(l, i, (uint32_t)(i & 1));
    assert_int_equal(size_of("dpc", l, 128), 96);
    /* 0, -1, 0, -1: no uniform plane: 33 + 1024 is not smaller: C = 0 + raw */
    for (size_t i = 0; i < 32; i++)
        put32(l, i, (i & 1) ? 0xFFFFFFFFu : 0u);
    assert_int_equal(size_of("dpc", l, 128), 1025);
    /* 64-byte line 0..15: 16-bit planes, planes 0..3 raw: 1 + 32 + 28 + 64 */
    iota32(l, 16, 0, 1);
    assert_int_equal(size_of("dpc", l, 64), 125);
}

static void test_sizes_dsm(void **state)
{
    (void)state;
    uint8_t l[128];
    /* zero line: per 64-byte half C + 8 ES + 8 nibbles */
    fill32(l, 32, 0);
    assert_int_equal(size_of("dsm", l, 128), 2 * 41);
    /* 0..31: half 1 (0..15) nibble 0 varies, nibbles 1..7 uniform: 1 + 8 + 7*4 + 64 = 101;
     * half 2 (16..31) the same (nibble 1 is 1 throughout). */
    iota32(l, 32, 0, 1);
    assert_int_equal(size_of("dsm", l, 128), 202);
    /* 17 i: half 1 (0..255) nibbles 0, 1 vary: 9 + 6*4 + 2*64 = 161;
     * half 2 (272..527) nibbles 0, 1, 2 vary: 9 + 5*4 + 3*64 = 221 */
    iota32(l, 32, 0, 17);
    assert_int_equal(size_of("dsm", l, 128), 382);
    /* every nibble varies: 9 + 8*64 = 521 is not smaller than 1 + 512: raw per half */
    for (size_t i = 0; i < 32; i++)
        put32(l, i, (uint32_t)(i & 1) * 0x11111111u);
    assert_int_equal(size_of("dsm", l, 128), 2 * 513);
    /* 32-byte line, 8 words 0x3F800000 + i: nibble 0 varies (32 bits), 7 uniform: 1 + 8 + 28 + 32 */
    iota32(l, 8, 0x3F800000u, 1);
    assert_int_equal(size_of("dsm", l, 32), 69);
}

static void test_dsm_approx(void **state)
{
    (void)state;
    uint8_t l[128], dec[128], out[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    gpuest_compress_amap_t m;
    gpuest_error_t err;
    /* float-like words 0x3F800000 + 17 i (1.0f plus small mantissa steps) */
    iota32(l, 32, 0x3F800000u, 17);
    assert_int_equal(size_of("dsm", l, 128), 382); /* as the integer case */
    /* no approximable range: identical to DSM */
    gpuest_compress_amap_init(&m);
    assert_int_equal(size_of_opts("dsm_approx", l, 128, NULL, &m, 0x1000), 382);
    /* N = 4 on the whole line: nibble 0 zeroed. Half 1: nibble 1 varies: 9 + 7*4 + 64 = 101;
     * half 2: nibbles 1, 2 vary: 9 + 6*4 + 128 = 161 */
    assert_int_equal(gpuest_compress_amap_add(&m, 0x1000, 0x1080, 4, &err), GPUEST_OK);
    assert_int_equal(size_of_opts("dsm_approx", l, 128, NULL, &m, 0x1000), 262);
    /* N = 12 only over the first half: half 1 fully uniform (41), half 2 unchanged (221) */
    gpuest_compress_amap_init(&m);
    assert_int_equal(gpuest_compress_amap_add(&m, 0x1000, 0x1040, 12, &err), GPUEST_OK);
    assert_int_equal(size_of_opts("dsm_approx", l, 128, NULL, &m, 0x1000), 41 + 221);
    /* the decoded line differs only in the low 12 bits of words 0..15 */
    gpuest_codec_t c;
    gpuest_codec_opts_t o = {128, NULL, &m};
    assert_int_equal(gpuest_codec_init(&c, algo("dsm_approx"), &o, &err), GPUEST_OK);
    uint32_t nbits;
    assert_int_equal(gpuest_codec_compress(&c, 0x1000, l, out, sizeof out, &nbits, &err), GPUEST_OK);
    assert_int_equal(gpuest_codec_decompress(&c, out, nbits, dec, &err), GPUEST_OK);
    for (size_t i = 0; i < 32; i++) {
        uint32_t a, b;
        memcpy(&a, l + 4 * i, 4);
        memcpy(&b, dec + 4 * i, 4);
        if (i < 16)
            assert_int_equal(b, a & ~0xFFFu);
        else
            assert_int_equal(b, a);
    }
    /* a word straddling the range end is not approximated */
    gpuest_compress_amap_init(&m);
    assert_int_equal(gpuest_compress_amap_add(&m, 0x1000, 0x1006, 8, &err), GPUEST_OK);
    assert_int_equal(gpuest_compress_amap_bits(&m, 0x1000), 8);
    assert_int_equal(gpuest_compress_amap_bits(&m, 0x1004), 0);
    /* map validation */
    assert_int_equal(gpuest_compress_amap_add(&m, 0x1004, 0x1010, 8, &err), GPUEST_EINVAL); /* overlap */
    assert_int_equal(gpuest_compress_amap_add(&m, 0x2000, 0x2000, 8, &err), GPUEST_EINVAL);
    assert_int_equal(gpuest_compress_amap_add(&m, 0x2000, 0x3000, 24, &err), GPUEST_EINVAL);
    for (int k = 1; k < GPUEST_COMPRESS_AMAP_MAX; k++)
        assert_int_equal(gpuest_compress_amap_add(&m, 0x10000u * (uint64_t)k, 0x10000u * (uint64_t)k + 64, 4, &err),
                         GPUEST_OK);
    assert_int_equal(gpuest_compress_amap_add(&m, 0x900000, 0x900040, 4, &err), GPUEST_ERANGE);
}

/* ------------------------------------------------------------ DPC data filtering */
static void df_roundtrip(gpuest_df_mode mode, unsigned mask, const uint8_t *l, uint32_t want_bits)
{
    uint8_t out[GPUEST_COMPRESS_MAX_STREAM_BYTES], dec[128];
    uint32_t nbits;
    gpuest_error_t err;
    assert_int_equal(gpuest_dpc_df_compress(mode, mask, l, out, sizeof out, &nbits, &err), GPUEST_OK);
    assert_int_equal(nbits, want_bits);
    assert_int_equal(gpuest_dpc_df_decompress(mode, mask, out, nbits, dec, &err), GPUEST_OK);
    for (unsigned s = 0; s < 4; s++) {
        if (mask & (1u << s))
            assert_memory_equal(l + 32 * s, dec + 32 * s, 32); /* critical sectors exact */
    }
}

static void test_dpc_data_filtering(void **state)
{
    (void)state;
    uint8_t l[128];
    iota32(l, 32, 0, 1);
    /* DF-TRUC "1000" (sector 0): words 0..7, 8-bit planes, planes 0..2 raw:
     * 1 + 32 + 29 + 3 * 8 = 86 */
    df_roundtrip(GPUEST_DF_TRUC, 0x1, l, 86);
    /* two sectors (0 and 3): 16 words 0..7, 24..31 -> planes 0..2 and 3, 4 vary
     * (24..31 have bits 3 and 4 set): 1 + 32 + 27 + 5 * 16 = 140 */
    df_roundtrip(GPUEST_DF_TRUC, 0x9, l, 140);
    /* DF-MAN "1000": zero-filled copy 0..7, 0, ...: planes 0..2 raw: 1 + 32 + 29 + 96 = 158 < 220 */
    df_roundtrip(GPUEST_DF_MAN, 0x1, l, 158);
    /* DF-MAN keeps the original when it is better: all ones is 65 bits, the
     * manipulated copy has no uniform plane (raw 1025) */
    fill32(l, 32, 0xFFFFFFFFu);
    df_roundtrip(GPUEST_DF_MAN, 0x1, l, 65);
    /* full mask is plain DPC */
    iota32(l, 32, 0, 1);
    df_roundtrip(GPUEST_DF_TRUC, 0xF, l, 220);
    gpuest_error_t err;
    uint8_t out[256];
    uint32_t nbits;
    assert_int_equal(gpuest_dpc_df_compress(GPUEST_DF_TRUC, 0, l, out, sizeof out, &nbits, &err), GPUEST_EINVAL);
    assert_int_equal(gpuest_dpc_df_compress(GPUEST_DF_MAN, 16, l, out, sizeof out, &nbits, &err), GPUEST_EINVAL);
    /* DF-TRUC returns zeros in the dropped sectors */
    uint8_t dec[128];
    assert_int_equal(gpuest_dpc_df_compress(GPUEST_DF_TRUC, 0x2, l, out, sizeof out, &nbits, &err), GPUEST_OK);
    assert_int_equal(gpuest_dpc_df_decompress(GPUEST_DF_TRUC, 0x2, out, nbits, dec, &err), GPUEST_OK);
    uint8_t zero[32] = {0};
    assert_memory_equal(dec, zero, 32);
    assert_memory_equal(dec + 64, zero, 32);
}

/* ------------------------------------------------------------ malformed streams */
static void test_corrupt_streams(void **state)
{
    (void)state;
    gpuest_codec_t c;
    gpuest_error_t err;
    gpuest_codec_opts_t o = {128, NULL, NULL};
    uint8_t line[128], out[GPUEST_COMPRESS_MAX_STREAM_BYTES] = {0};
    /* BDI encoding 1000 is unused */
    assert_int_equal(gpuest_codec_init(&c, algo("bdi"), &o, &err), GPUEST_OK);
    out[0] = 0x80;
    assert_int_equal(gpuest_codec_decompress(&c, out, 8, line, &err), GPUEST_ECORRUPT);
    assert_non_null(strstr(err.msg, "bdi"));
    /* longer than the raw line */
    assert_int_equal(gpuest_codec_decompress(&c, out, 1025, line, &err), GPUEST_ECORRUPT);
    /* trailing bits: a zero BDI line is 8 bits, 9 is wrong */
    out[0] = 0x00;
    assert_int_equal(gpuest_codec_decompress(&c, out, 8, line, &err), GPUEST_OK);
    assert_int_equal(gpuest_codec_decompress(&c, out, 9, line, &err), GPUEST_ECORRUPT);
    /* C-Pack referencing an empty dictionary: Z = 0, then 10 + index 0 */
    assert_int_equal(gpuest_codec_init(&c, algo("cpack"), &o, &err), GPUEST_OK);
    out[0] = 0x40; /* 0 10 0000 0 */
    assert_int_equal(gpuest_codec_decompress(&c, out, 7, line, &err), GPUEST_ECORRUPT);
    /* FPC: truncated */
    assert_int_equal(gpuest_codec_init(&c, algo("fpc"), &o, &err), GPUEST_OK);
    out[0] = 0xE0; /* 111 then nothing */
    assert_int_equal(gpuest_codec_decompress(&c, out, 3, line, &err), GPUEST_ECORRUPT);
    /* output capacity too small */
    fill32(line, 32, 0x12345678u);
    uint32_t nbits;
    assert_int_equal(gpuest_codec_compress(&c, 0, line, out, 4, &nbits, &err), GPUEST_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),        cmocka_unit_test(test_flits_and_latencies),
        cmocka_unit_test(test_bit_io),          cmocka_unit_test(test_sizes_none),
        cmocka_unit_test(test_sizes_bdi),       cmocka_unit_test(test_bdi_half_raw_line),
        cmocka_unit_test(test_cpack_persistent_dictionary), cmocka_unit_test(test_payload_flag_rule),
        cmocka_unit_test(test_sizes_fpc),
        cmocka_unit_test(test_sizes_cpack),     cmocka_unit_test(test_sizes_bpc),
        cmocka_unit_test(test_sizes_sc2),       cmocka_unit_test(test_sc2_length_limit),
        cmocka_unit_test(test_sizes_dpc),       cmocka_unit_test(test_sizes_dsm),
        cmocka_unit_test(test_dsm_approx),      cmocka_unit_test(test_dpc_data_filtering),
        cmocka_unit_test(test_corrupt_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
