/* algo_dpc.c: Dual Pattern Compression and its data-filtering variants DF-TRUC / DF-MAN (data-filtering thesis 3.4.1).
 *
 * W = words of the input (32 for a 128-byte line). The remap makes 32 bit
 * planes of W bits (plane k = bit k of every word; bit i of a plane is word
 * i). Stream: C = 1, 32 encoding-status bits (plane 31 first; 1 = the plane is
 * all 0s or all 1s), then the encoded data: the one-bit values of the uniform
 * planes, then the W raw bits of every other plane (each group plane 31
 * first). When that is not smaller than the input: C = 0 and the raw words.
 * Size = 1 + 32 + sum(1 | W), else 1 + 32 W.
 *
 * Speed: the remap is a 32x32 bit transpose done on 16 64-bit words (word i
 * and word i + 16 share p[i], so every stage moves two rows per operation);
 * uniform planes never need the transpose (their values are bits of the AND
 * of all words); whole 32-bit planes / words go out two per 64-bit store. */
#include "../compress_int.h"

/* Appends n 32-bit values, two per 64-bit store; falls back to the checked
 * writer when the buffer might be too small (then it sets overflow). */
CZ_HOT void dpc_put_words32(gpuest_bitwriter_t *w, const uint32_t *v, unsigned n)
{
    unsigned pairs = n / 2u, s = w->nacc, i = 0;
    if (w->pos + 8u * (size_t)pairs <= w->cap) {
        uint8_t *out = w->buf + w->pos;
        if (s == 0) {
            for (; i + 1 < n; i += 2, out += 8)
                cz_store_be64(out, (uint64_t)v[i] << 32 | v[i + 1]);
        } else {
            /* s pending bits stay pending: each pair completes one 64-bit word */
            uint64_t acc = w->acc;
            for (; i + 1 < n; i += 2, out += 8) {
                uint64_t c = (uint64_t)v[i] << 32 | v[i + 1];
                cz_store_be64(out, acc << (64u - s) | c >> s);
                acc = c;
            }
            w->acc = acc;
        }
        w->pos += 8u * (size_t)pairs;
    } else {
        for (; i + 1 < n; i += 2)
            cz_put64(w, (uint64_t)v[i] << 32 | v[i + 1], 64);
    }
    if (i < n)
        cz_put(w, v[i], 32);
}

CZ_HOT void dpc_encode_words_body(const uint32_t *words, unsigned nwords, gpuest_bitwriter_t *w)
{
    uint64_t p[16]; /* no "= {0}": a zeroing loop costs more than the transpose stages */
    for (unsigned i = 0; i < 16; i++)
        p[i] = (i < nwords ? words[i] : 0u) | (i + 16 < nwords ? (uint64_t)words[i + 16] << 32 : 0u);
    uint32_t all_or = 0, all_and = UINT32_MAX;
    for (unsigned i = 0; i < nwords; i++) {
        all_or |= words[i];
        all_and &= words[i];
    }
    uint32_t uni = ~all_or | all_and; /* bit k: plane k is all 0s or all 1s */
    unsigned nu = (unsigned)cz_popcount32(uni);
    unsigned size = 33u + nu + (32u - nu) * nwords;
    if (size >= 1u + 32u * nwords) {
        cz_put(w, 0u, 1);
        dpc_put_words32(w, words, nwords);
        return;
    }
    cz_put64(w, UINT64_C(1) << 32 | uni, 33); /* C = 1, then the status bits */
    if (nu == 32) {                           /* every plane uniform: the values are all_and itself */
        cz_put(w, all_and, 32);
        return;
    }
    cz_transpose_pairs(p); /* the remap: bit i of plane k = bit k of word i */
    /* branch-free walk from plane 31 down (data-dependent loop exits cost more
     * than the fixed 32 steps): collect the uniform planes' values (bits of
     * all_and) and compact the other planes into keep[]. The status and value
     * words are shifted left one bit per plane (constant shifts: variable ones
     * are several micro-ops on x86 without BMI2). */
    uint32_t vals = 0, keep[33], us = uni, as = all_and;
    unsigned n = 0;
    for (unsigned k = 32; k-- > 16;) {
        uint32_t u = us >> 31, bit = as >> 31;
        us <<= 1;
        as <<= 1;
        vals += (vals & (0u - u)) + (bit & u); /* u: vals = 2 vals + bit */
        keep[n] = (uint32_t)(p[k - 16] >> 32);
        n += 1u - u;
    }
    for (unsigned k = 16; k-- > 0;) {
        uint32_t u = us >> 31, bit = as >> 31;
        us <<= 1;
        as <<= 1;
        vals += (vals & (0u - u)) + (bit & u);
        keep[n] = (uint32_t)p[k];
        n += 1u - u;
    }
    cz_put(w, vals, nu);
    if (nwords == 32) {
        dpc_put_words32(w, keep, n);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        cz_put(w, keep[i], nwords);
}

void cz_dpc_encode_words(const uint32_t *words, unsigned nwords, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    if (nwords == 32) /* the 128-byte line: a copy specialized for 32 words */
        dpc_encode_words_body(words, 32, &lw);
    else
        dpc_encode_words_body(words, nwords, &lw);
    CZ_LOCAL_DONE(lw, w);
}

/* n (<= 32) bits of the stream at bit offset b; zeros past the buffer. */
static inline uint32_t dpc_bits_at(const uint8_t *buf, uint32_t nbytes, uint32_t b, unsigned n)
{
    uint32_t byte = b >> 3;
    uint64_t x = 0;
    if (byte + 8u <= nbytes) {
        x = cz_load_be64(buf + byte);
    } else if (nbytes >= 8u && byte < nbytes) {
        /* near the end: the last 8 bytes, moved up so that byte comes first */
        x = cz_load_be64(buf + nbytes - 8u) << (8u * (byte + 8u - nbytes));
    } else {
        for (unsigned i = 0; i < 8; i++)
            x = x << 8 | (byte + i < nbytes ? buf[byte + i] : 0u);
    }
    return (uint32_t)((x << (b & 7u)) >> (64u - n));
}

/* Reads n values of width bits each (8..32) in one go: all or nothing. */
CZ_HOT int dpc_get_run(gpuest_bitreader_t *r, uint32_t *v, unsigned n, unsigned width)
{
    if (r->overflow || r->pos > r->nbits || (uint64_t)n * width > r->nbits - r->pos) {
        r->overflow = 1;
        r->pos = r->nbits;
        return 0;
    }
    uint32_t nbytes = (r->nbits + 7u) >> 3, b = r->pos;
    for (unsigned i = 0; i < n; i++, b += width)
        v[i] = dpc_bits_at(r->buf, nbytes, b, width);
    r->pos = b;
    return 1;
}

CZ_HOT int dpc_decode_words_body(gpuest_bitreader_t *r, uint32_t *words, unsigned nwords)
{
    if (!cz_get(r, 1))
        return dpc_get_run(r, words, nwords, 32);
    uint32_t uni = cz_get(r, 32);
    unsigned nu = (unsigned)cz_popcount32(uni);
    uint32_t vals = cz_get(r, nu), raw[33];
    unsigned n = 32u - nu;
    if (!dpc_get_run(r, raw, n, nwords))
        return 0;
    /* branch-free walk from plane 31 down (constant shifts, as in the
     * encoder): raw planes go to pl[] (uniform planes stay 0 there), the
     * uniform planes' values to ones, which is ORed into every word after the
     * transpose. vt holds the values not yet used at its top. */
    raw[n] = 0; /* read (and discarded) by the walk's last uniform planes */
    uint32_t ones = 0, pl[32], us = uni;
    uint64_t vt = nu ? (uint64_t)vals << (64u - nu) : 0u;
    unsigned j = 0;
    for (unsigned k = 32; k-- > 0;) {
        uint32_t u = us >> 31;
        us <<= 1;
        pl[k] = raw[j] & (u - 1u);
        j += 1u - u;
        ones = ones << 1 | ((uint32_t)(vt >> 63) & u);
        vt += vt & (0u - (uint64_t)u); /* u: next value to the top */
    }
    uint64_t p[16];
    for (unsigned i = 0; i < 16; i++)
        p[i] = pl[i] | (uint64_t)pl[i + 16] << 32;
    cz_transpose_pairs(p);
    for (unsigned i = 0; i < nwords && i < 16; i++)
        words[i] = (uint32_t)p[i] | ones;
    for (unsigned i = 16; i < nwords; i++)
        words[i] = (uint32_t)(p[i - 16] >> 32) | ones;
    return 1;
}

int cz_dpc_decode_words(gpuest_bitreader_t *r, uint32_t *words, unsigned nwords)
{
    if (nwords == 32) /* the 128-byte line: a copy specialized for 32 words */
        return dpc_decode_words_body(r, words, 32);
    return dpc_decode_words_body(r, words, nwords);
}

static void dpc_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    uint32_t words[32];
    unsigned n = (unsigned)(c->line_bytes / 4);
    for (unsigned i = 0; i < n; i++)
        words[i] = cz_load32(line + 4 * i);
    cz_dpc_encode_words(words, n, w);
}

static gpuest_err dpc_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    uint32_t words[32];
    unsigned n = (unsigned)(c->line_bytes / 4);
    if (!cz_dpc_decode_words(r, words, n))
        return cz_corrupt(err, c, "truncated DPC stream");
    for (unsigned i = 0; i < n; i++)
        cz_store32(line + 4 * i, words[i]);
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_dpc = {
    .name = "dpc",
    .desc = "Dual Pattern Compression (32 bit planes, all-0 / all-1 planes in 1 bit)",
    .compress_latency = 2, /* not in the documents: taken equal to DSM (same remap + compare structure) */
    .decompress_latency = 1,
    .flags = GPUEST_COMPRESS_SELF_FLAG,
    .encode = dpc_encode,
    .decode = dpc_decode,
};

/* ------------------------------------------------------------ data filtering */
static gpuest_err df_check(gpuest_df_mode mode, unsigned mask, gpuest_error_t *err)
{
    if (mode != GPUEST_DF_TRUC && mode != GPUEST_DF_MAN)
        return gpuest_fail(err, GPUEST_EINVAL, "dpc data filtering: unknown mode %d", (int)mode);
    if (mask == 0 || mask > 15)
        return gpuest_fail(err, GPUEST_EINVAL, "dpc data filtering: sector mask %u, expected 1..15", mask);
    return GPUEST_OK;
}

static gpuest_err df_emit(gpuest_bitwriter_t *w, uint8_t *out, size_t cap, uint32_t *nbits, gpuest_error_t *err)
{
    uint32_t bits;
    GPUEST_TRY(gpuest_bitwriter_finish(w, &bits, err));
    size_t bytes = (bits + 7u) / 8u;
    if (bytes > cap)
        return gpuest_fail(err, GPUEST_ERANGE, "dpc: output needs %zu bytes, buffer holds %zu", bytes, cap);
    memcpy(out, w->buf, bytes);
    *nbits = bits;
    return GPUEST_OK;
}

gpuest_err gpuest_dpc_df_compress(gpuest_df_mode mode, unsigned mask, const uint8_t line[128], uint8_t *out, size_t cap,
                                  uint32_t *nbits, gpuest_error_t *err)
{
    GPUEST_TRY(df_check(mode, mask, err));
    uint8_t scratch[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    gpuest_bitwriter_t w;
    uint32_t words[32];
    if (mode == GPUEST_DF_TRUC) {
        unsigned n = 0;
        for (unsigned s = 0; s < 4; s++)
            if (mask & (1u << s))
                for (unsigned i = 0; i < 8; i++)
                    words[n++] = cz_load32(line + 32 * s + 4 * i);
        gpuest_bitwriter_init(&w, scratch, sizeof scratch);
        cz_dpc_encode_words(words, n, &w);
        return df_emit(&w, out, cap, nbits, err);
    }
    /* DF-MAN: encode the original and the zero-filled copy, keep the smaller */
    uint8_t alt[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    gpuest_bitwriter_t w2;
    for (unsigned i = 0; i < 32; i++)
        words[i] = cz_load32(line + 4 * i);
    gpuest_bitwriter_init(&w, scratch, sizeof scratch);
    cz_dpc_encode_words(words, 32, &w);
    for (unsigned i = 0; i < 32; i++)
        if (!(mask & (1u << (i / 8))))
            words[i] = 0;
    gpuest_bitwriter_init(&w2, alt, sizeof alt);
    cz_dpc_encode_words(words, 32, &w2);
    return df_emit(cz_wbits(&w2) < cz_wbits(&w) ? &w2 : &w, out, cap, nbits, err);
}

gpuest_err gpuest_dpc_df_decompress(gpuest_df_mode mode, unsigned mask, const uint8_t *in, uint32_t nbits,
                                    uint8_t line[128], gpuest_error_t *err)
{
    GPUEST_TRY(df_check(mode, mask, err));
    unsigned n = mode == GPUEST_DF_TRUC ? 8u * (unsigned)cz_popcount32(mask) : 32u;
    uint32_t words[32];
    gpuest_bitreader_t r;
    gpuest_bitreader_init(&r, in, nbits);
    if (!cz_dpc_decode_words(&r, words, n) || r.pos != nbits)
        return gpuest_fail(err, GPUEST_ECORRUPT, "dpc %s stream of %u bits for mask 0x%x is corrupt",
                           mode == GPUEST_DF_TRUC ? "DF-TRUC" : "DF-MAN", nbits, mask);
    if (mode == GPUEST_DF_MAN) {
        for (unsigned i = 0; i < 32; i++)
            cz_store32(line + 4 * i, words[i]);
        return GPUEST_OK;
    }
    memset(line, 0, 128);
    unsigned k = 0;
    for (unsigned s = 0; s < 4; s++)
        if (mask & (1u << s))
            for (unsigned i = 0; i < 8; i++)
                cz_store32(line + 32 * s + 4 * i, words[k++]);
    return GPUEST_OK;
}
