/* test_dpc_reference.c: the optimized DPC codec (with DF-TRUC / DF-MAN) and BPC against plain bit-by-bit references.
 *
 * The reference below follows the definition (data-filtering thesis 3.4.1.2
 * and docs/compress.md) one bit at a time, with no transpose tricks: C, 32
 * status bits (plane 31 first), the uniform planes' values, the raw planes
 * (bit i of plane k = bit k of word i, word 0 first), or C = 0 and the raw
 * words. Every stream the library writes must equal it byte for byte (zero
 * padded), and the library's decoder must accept and reject exactly what the
 * reference decoder does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compress/compress.h"

#define SEED 0xD9C0FFEEu

/* ------------------------------------------------------------ reference bit I/O (MSB first) */
typedef struct {
    uint8_t buf[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    uint32_t bits;
} ref_stream_t;

static void ref_put(ref_stream_t *s, uint32_t v, unsigned n)
{
    for (unsigned i = n; i-- > 0;) {
        if ((v >> i) & 1u)
            s->buf[s->bits / 8] |= (uint8_t)(0x80u >> (s->bits % 8));
        s->bits++;
    }
}

/* Reads n bits at *pos of a stream of nbits; returns 0 past the end (and sets *bad). */
static uint32_t ref_get(const uint8_t *buf, uint32_t nbits, uint32_t *pos, unsigned n, int *bad)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        if (*pos >= nbits) {
            *bad = 1;
            return 0;
        }
        v = v << 1 | ((buf[*pos / 8] >> (7 - *pos % 8)) & 1u);
        (*pos)++;
    }
    return v;
}

/* ------------------------------------------------------------ reference DPC */
static uint32_t ref_plane(const uint32_t *words, unsigned nwords, unsigned k)
{
    uint32_t plane = 0;
    for (unsigned i = 0; i < nwords; i++)
        plane |= ((words[i] >> k) & 1u) << i;
    return plane;
}

static void ref_encode(const uint32_t *words, unsigned nwords, ref_stream_t *s)
{
    memset(s, 0, sizeof *s);
    uint32_t full = nwords == 32 ? UINT32_MAX : (UINT32_C(1) << nwords) - 1u;
    unsigned uniform = 0;
    for (unsigned k = 0; k < 32; k++) {
        uint32_t p = ref_plane(words, nwords, k);
        uniform += p == 0 || p == full;
    }
    if (33u + uniform + (32u - uniform) * nwords >= 1u + 32u * nwords) {
        ref_put(s, 0, 1);
        for (unsigned i = 0; i < nwords; i++)
            ref_put(s, words[i], 32);
        return;
    }
    ref_put(s, 1, 1);
    for (unsigned k = 32; k-- > 0;) {
        uint32_t p = ref_plane(words, nwords, k);
        ref_put(s, p == 0 || p == full, 1);
    }
    for (unsigned k = 32; k-- > 0;) {
        uint32_t p = ref_plane(words, nwords, k);
        if (p == 0 || p == full)
            ref_put(s, p == full, 1);
    }
    for (unsigned k = 32; k-- > 0;) {
        uint32_t p = ref_plane(words, nwords, k);
        if (p != 0 && p != full)
            ref_put(s, p, nwords);
    }
}

/* 1 and the words when the stream is exactly one DPC unit of nwords words. */
static int ref_decode(const uint8_t *buf, uint32_t nbits, uint32_t *words, unsigned nwords)
{
    uint32_t pos = 0, status = 0, planes[32] = {0};
    int bad = 0;
    uint32_t full = nwords == 32 ? UINT32_MAX : (UINT32_C(1) << nwords) - 1u;
    if (!ref_get(buf, nbits, &pos, 1, &bad)) {
        for (unsigned i = 0; i < nwords; i++)
            words[i] = ref_get(buf, nbits, &pos, 32, &bad);
        return !bad && pos == nbits;
    }
    for (unsigned k = 32; k-- > 0;)
        status |= ref_get(buf, nbits, &pos, 1, &bad) << k;
    for (unsigned k = 32; k-- > 0;)
        if ((status >> k) & 1u)
            planes[k] = ref_get(buf, nbits, &pos, 1, &bad) ? full : 0u;
    for (unsigned k = 32; k-- > 0;)
        if (!((status >> k) & 1u))
            planes[k] = ref_get(buf, nbits, &pos, nwords, &bad);
    for (unsigned i = 0; i < nwords; i++) {
        words[i] = 0;
        for (unsigned k = 0; k < 32; k++)
            words[i] |= ((planes[k] >> i) & 1u) << k;
    }
    return !bad && pos == nbits;
}

static void load_words(const uint8_t *line, unsigned nwords, uint32_t *words)
{
    for (unsigned i = 0; i < nwords; i++)
        words[i] = (uint32_t)line[4 * i] | (uint32_t)line[4 * i + 1] << 8 | (uint32_t)line[4 * i + 2] << 16 |
                   (uint32_t)line[4 * i + 3] << 24;
}

static void store_words(const uint32_t *words, unsigned nwords, uint8_t *line)
{
    for (unsigned i = 0; i < nwords; i++)
        for (unsigned b = 0; b < 4; b++)
            line[4 * i + b] = (uint8_t)(words[i] >> (8 * b));
}

/* ------------------------------------------------------------ reference BPC (docs/compress.md, spec section 4)
 * Same rule for BPC, whose delta bit planes use the same kind of transpose:
 * written bit by bit from the definition, with the raw-line fallback. */
static void ref_bpc_run(ref_stream_t *s, unsigned run)
{
    if (run == 1)
        ref_put(s, 1, 3); /* 001 */
    else if (run > 1)
        ref_put(s, 1u << 5 | (run - 2u), 7); /* 01 + 5 bits */
}

static void ref_bpc_encode(const uint32_t *words, unsigned nwords, ref_stream_t *s)
{
    memset(s, 0, sizeof *s);
    unsigned nd = nwords - 1;
    int32_t w0 = (int32_t)words[0];
    if (w0 == 0)
        ref_put(s, 1, 3);
    else if (w0 >= -8 && w0 < 8)
        ref_put(s, 2u << 4 | (words[0] & 0xFu), 7);
    else if (w0 >= -128 && w0 < 128)
        ref_put(s, 3u << 8 | (words[0] & 0xFFu), 11);
    else if (w0 >= -32768 && w0 < 32768)
        ref_put(s, words[0] & 0xFFFFu, 19);
    else {
        ref_put(s, 1, 1);
        ref_put(s, words[0], 32);
    }
    uint32_t dbp[33] = {0}; /* dbp[k] bit i = bit k of the 33-bit delta d_i */
    for (unsigned i = 0; i < nd; i++) {
        uint64_t d = (uint64_t)((int64_t)(int32_t)words[i + 1] - (int64_t)(int32_t)words[i]);
        for (unsigned k = 0; k <= 32; k++)
            dbp[k] |= (uint32_t)((d >> k) & 1u) << i;
    }
    uint32_t full = (UINT32_C(1) << nd) - 1u;
    unsigned run = 0;
    for (unsigned k = 33; k-- > 0;) {
        uint32_t x = k == 32 ? dbp[32] : dbp[k] ^ dbp[k + 1];
        if (x == 0) {
            run++;
            continue;
        }
        ref_bpc_run(s, run);
        run = 0;
        unsigned low = 0;
        while (!((x >> low) & 1u))
            low++;
        if (dbp[k] == 0)
            ref_put(s, 2, 5); /* 00010 */
        else if (x == full)
            ref_put(s, 3, 5); /* 00011 */
        else if (x == UINT32_C(1) << low)
            ref_put(s, low, 10); /* 00000 + position */
        else if (x == UINT32_C(3) << low)
            ref_put(s, 1u << 5 | low, 10); /* 00001 + position */
        else {
            ref_put(s, 1, 1);
            ref_put(s, x, nd);
        }
        if (s->bits >= 8u * 4u * nwords) /* the raw line wins; stop before the buffer ends */
            return;
    }
    ref_bpc_run(s, run);
}

/* ------------------------------------------------------------ comparisons */
typedef struct {
    gpuest_codec_t codec[3]; /* 32-, 64-, 128-byte lines */
    gpuest_rng_t *rng;
} fixture_t;

static int setup(void **state)
{
    static fixture_t f;
    const gpuest_compress_algo_t *a;
    gpuest_error_t err;
    if (gpuest_compress_lookup("dpc", &a, &err) != GPUEST_OK || gpuest_rng_create(SEED, &f.rng) != GPUEST_OK)
        return -1;
    for (int s = 0; s < 3; s++) {
        gpuest_codec_opts_t o = {(size_t)32 << s, NULL, NULL};
        if (gpuest_codec_init(&f.codec[s], a, &o, &err) != GPUEST_OK)
            return -1;
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gpuest_rng_destroy(f->rng);
    return 0;
}

/* The damaged copy of a stream must be accepted / rejected as the reference
 * decoder does, with the same words when accepted. */
static void check_damaged(const gpuest_codec_t *c, gpuest_rng_t *rng, const ref_stream_t *ref, unsigned long id)
{
    unsigned nwords = (unsigned)(c->line_bytes / 4);
    uint8_t buf[GPUEST_COMPRESS_MAX_STREAM_BYTES + 1];
    memcpy(buf, ref->buf, sizeof ref->buf);
    uint32_t len = ref->bits;
    switch (gpuest_rng_below(rng, 3)) {
    case 0: { /* flip one bit */
        uint32_t bit = (uint32_t)gpuest_rng_below(rng, len);
        buf[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
        break;
    }
    case 1: /* cut short */
        len = (uint32_t)gpuest_rng_below(rng, len);
        break;
    default: /* longer by up to 40 bits */
        len += 1u + (uint32_t)gpuest_rng_below(rng, 40);
        if (len > 8u * GPUEST_COMPRESS_MAX_STREAM_BYTES)
            len = 8u * GPUEST_COMPRESS_MAX_STREAM_BYTES;
        break;
    }
    uint32_t want[32];
    uint8_t got[128], want_line[128];
    gpuest_error_t err;
    int ref_ok = ref_decode(buf, len, want, nwords);
    int lib_ok = gpuest_codec_decompress(c, buf, len, got, &err) == GPUEST_OK;
    if (ref_ok != lib_ok)
        fail_msg("case %lu: damaged %u-bit stream: reference %s it, library %s it", id, len,
                 ref_ok ? "accepts" : "rejects", lib_ok ? "accepts" : "rejects");
    if (ref_ok) {
        store_words(want, nwords, want_line);
        assert_memory_equal(want_line, got, c->line_bytes);
    }
}

/* One line through the library and the reference: same bits, both decoders agree. */
static void check_line(fixture_t *f, const uint8_t *line, size_t bytes, unsigned long id)
{
    const gpuest_codec_t *c = &f->codec[bytes == 32 ? 0 : bytes == 64 ? 1 : 2];
    unsigned nwords = (unsigned)(bytes / 4);
    uint32_t words[32], back[32];
    ref_stream_t ref;
    load_words(line, nwords, words);
    ref_encode(words, nwords, &ref);

    uint8_t out[GPUEST_COMPRESS_MAX_STREAM_BYTES], dec[128];
    memset(out, 0x5A, sizeof out); /* padding bits must come out zero */
    uint32_t nbits = 0;
    gpuest_error_t err;
    if (gpuest_codec_compress(c, 0, line, out, sizeof out, &nbits, &err) != GPUEST_OK)
        fail_msg("case %lu: %s", id, err.msg);
    if (nbits != ref.bits)
        fail_msg("case %lu (%zu B): %u bits, reference %u", id, bytes, nbits, ref.bits);
    if (memcmp(out, ref.buf, (nbits + 7u) / 8u) != 0)
        fail_msg("case %lu (%zu B): stream differs from the reference", id, bytes);
    assert_int_equal(gpuest_codec_size_bits(c, 0, line), ref.bits);
    /* the reference decodes the library's stream; the library decodes the reference's */
    assert_true(ref_decode(out, nbits, back, nwords));
    assert_memory_equal(words, back, nwords * sizeof *words);
    assert_int_equal(gpuest_codec_decompress(c, ref.buf, ref.bits, dec, &err), GPUEST_OK);
    assert_memory_equal(line, dec, bytes);
    if (id % 4 == 1)
        check_damaged(c, f->rng, &ref, id);
}

/* Lines whose bit planes are each chosen all-0, all-1 or mixed, so that every
 * count of uniform planes (0..32, the raw / compressed boundary included)
 * comes up often; the synthetic data kinds rarely reach most of them. */
static void fill_planes(gpuest_rng_t *rng, uint8_t *line, unsigned nwords, unsigned want_uniform)
{
    uint32_t planes[32], words[32];
    uint32_t full = nwords == 32 ? UINT32_MAX : (UINT32_C(1) << nwords) - 1u;
    uint32_t uni = 0;
    for (unsigned u = 0; u < want_uniform;) { /* want_uniform distinct uniform planes */
        unsigned k = (unsigned)gpuest_rng_below(rng, 32);
        u += !((uni >> k) & 1u);
        uni |= UINT32_C(1) << k;
    }
    for (unsigned k = 0; k < 32; k++) {
        if ((uni >> k) & 1u) {
            planes[k] = gpuest_rng_below(rng, 2) ? full : 0u;
        } else {
            do /* mixed: neither all 0s nor all 1s */
                planes[k] = gpuest_rng_u32(rng) & full;
            while (planes[k] == 0 || planes[k] == full);
        }
    }
    for (unsigned i = 0; i < nwords; i++) {
        words[i] = 0;
        for (unsigned k = 0; k < 32; k++)
            words[i] |= ((planes[k] >> i) & 1u) << k;
    }
    store_words(words, nwords, line);
}

/* The reference itself, checked by hand: words 0..31 have 5 mixed planes
 * (bits 0..4) and 27 all-zero ones: 1 + 32 + 27 + 5 * 32 = 220 bits. Words
 * 0..7 (a 32-byte line): 3 mixed planes, 1 + 32 + 29 + 3 * 8 = 86 bits. */
static void test_reference_by_hand(void **state)
{
    fixture_t *f = *state;
    uint32_t words[32];
    ref_stream_t s;
    for (unsigned i = 0; i < 32; i++)
        words[i] = i;
    ref_encode(words, 32, &s);
    assert_int_equal(s.bits, 220);
    /* C = 1, status 0xFFFFFFE0: bytes 1 1111111 11111111 11111111 1110000 0 ... */
    assert_int_equal(s.buf[0], 0xFF);
    assert_int_equal(s.buf[3], 0xF0);
    ref_encode(words, 8, &s);
    assert_int_equal(s.bits, 86);
    uint8_t line[128];
    store_words(words, 32, line);
    check_line(f, line, 128, 0);
    check_line(f, line, 32, 0);
}

static void test_data_kinds(void **state)
{
    fixture_t *f = *state;
    static const size_t sizes[5] = {128, 128, 128, 64, 32};
    uint8_t line[128];
    for (unsigned long i = 0; i < 150000; i++) {
        size_t n = sizes[i % 5];
        gpuest_data_fill(f->rng, (gpuest_data_kind)((i / 5) % GPUEST_DATA_KINDS), line, n);
        check_line(f, line, n, i);
    }
}

static void test_every_uniform_count(void **state)
{
    fixture_t *f = *state;
    uint8_t line[128];
    unsigned long id = 0;
    for (int rep = 0; rep < 400; rep++)
        for (unsigned bytes = 32; bytes <= 128; bytes *= 2)
            for (unsigned u = 0; u <= 32; u++, id++) {
                fill_planes(f->rng, line, bytes / 4, u);
                check_line(f, line, bytes, id);
            }
}

/* DF-TRUC streams are the reference DPC of the critical sectors' words; DF-MAN
 * streams the shorter of the original's and the zero-filled line's (ties: the
 * original). */
static void test_data_filtering(void **state)
{
    fixture_t *f = *state;
    uint8_t line[128], out[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    gpuest_error_t err;
    for (unsigned long i = 0; i < 12000; i++) {
        if (i % 2)
            gpuest_data_fill(f->rng, (gpuest_data_kind)((i / 2) % GPUEST_DATA_KINDS), line, 128);
        else
            fill_planes(f->rng, line, 32, (unsigned)gpuest_rng_below(f->rng, 33));
        unsigned mask = (unsigned)(i % 15) + 1u;
        uint32_t words[32], crit[32], nbits;
        unsigned n = 0;
        load_words(line, 32, words);
        for (unsigned w = 0; w < 32; w++)
            if (mask & (1u << (w / 8)))
                crit[n++] = words[w];
        ref_stream_t ref, alt;
        ref_encode(crit, n, &ref);
        assert_int_equal(gpuest_dpc_df_compress(GPUEST_DF_TRUC, mask, line, out, sizeof out, &nbits, &err), GPUEST_OK);
        assert_int_equal(nbits, ref.bits);
        assert_memory_equal(out, ref.buf, (nbits + 7u) / 8u);

        ref_encode(words, 32, &ref);
        for (unsigned w = 0; w < 32; w++)
            if (!(mask & (1u << (w / 8))))
                words[w] = 0;
        ref_encode(words, 32, &alt);
        const ref_stream_t *want = alt.bits < ref.bits ? &alt : &ref;
        assert_int_equal(gpuest_dpc_df_compress(GPUEST_DF_MAN, mask, line, out, sizeof out, &nbits, &err), GPUEST_OK);
        assert_int_equal(nbits, want->bits);
        assert_memory_equal(out, want->buf, (nbits + 7u) / 8u);
    }
}

/* BPC: the library's stream equals the reference (or both send the raw line). */
static void test_bpc_matches_reference(void **state)
{
    fixture_t *f = *state;
    const gpuest_compress_algo_t *a;
    gpuest_codec_t codec[3];
    gpuest_error_t err;
    assert_int_equal(gpuest_compress_lookup("bpc", &a, &err), GPUEST_OK);
    for (int s = 0; s < 3; s++) {
        gpuest_codec_opts_t o = {(size_t)32 << s, NULL, NULL};
        assert_int_equal(gpuest_codec_init(&codec[s], a, &o, &err), GPUEST_OK);
    }
    uint8_t line[128], out[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    unsigned long compressed = 0;
    for (unsigned long i = 0; i < 60000; i++) {
        unsigned s = (unsigned)(i % 3), bytes = 32u << s, nwords = bytes / 4;
        if (i % 4 == 3)
            fill_planes(f->rng, line, nwords, (unsigned)gpuest_rng_below(f->rng, 33));
        else
            gpuest_data_fill(f->rng, (gpuest_data_kind)((i / 3) % GPUEST_DATA_KINDS), line, bytes);
        uint32_t words[32], nbits;
        ref_stream_t ref;
        load_words(line, nwords, words);
        ref_bpc_encode(words, nwords, &ref);
        assert_int_equal(gpuest_codec_compress(&codec[s], 0, line, out, sizeof out, &nbits, &err), GPUEST_OK);
        if (ref.bits >= 8u * bytes) { /* raw fallback */
            assert_int_equal(nbits, 8u * bytes);
            assert_memory_equal(out, line, bytes);
            continue;
        }
        compressed++;
        if (nbits != ref.bits || memcmp(out, ref.buf, (nbits + 7u) / 8u) != 0)
            fail_msg("bpc case %lu (%u B): %u bits, reference %u, or different bytes", i, bytes, nbits, ref.bits);
    }
    assert_true(compressed > 20000); /* the comparison ran on compressed streams, not only raw ones */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_by_hand),
        cmocka_unit_test(test_data_kinds),
        cmocka_unit_test(test_every_uniform_count),
        cmocka_unit_test(test_data_filtering),
        cmocka_unit_test(test_bpc_matches_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
