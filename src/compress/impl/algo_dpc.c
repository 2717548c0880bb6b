/* algo_dpc.c: Dual Pattern Compression and its data-filtering variants DF-TRUC / DF-MAN (data-filtering thesis 3.4.1).
 *
 * W = words of the input (32 for a 128-byte line). The remap makes 32 bit
 * planes of W bits (plane k = bit k of every word; bit i of a plane is word
 * i). Stream: C = 1, 32 encoding-status bits (plane 31 first; 1 = the plane is
 * all 0s or all 1s), then the encoded data: the one-bit values of the uniform
 * planes, then the W raw bits of every other plane (each group plane 31
 * first). When that is not smaller than the input: C = 0 and the raw words.
 * Size = 1 + 32 + sum(1 | W), else 1 + 32 W. */
#include "../compress_int.h"

CZ_HOT void dpc_encode_words_body(const uint32_t *words, unsigned nwords, gpuest_bitwriter_t *w)
{
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
        for (unsigned i = 0; i + 1 < nwords; i += 2)
            cz_put64(w, (uint64_t)words[i] << 32 | words[i + 1], 64);
        return;
    }
    cz_put64(w, UINT64_C(1) << 32 | uni, 33); /* C = 1, then the status bits */
    if (nu == 32) {                           /* every plane uniform: the values are all_and itself */
        cz_put(w, all_and, 32);
        return;
    }
    /* the remap (bit i of plane k = bit k of word i) */
    uint32_t planes[32] = {0};
    memcpy(planes, words, nwords * sizeof *planes);
    cz_transpose32(planes);
    /* branch-free walk from plane 31 down: collect the uniform planes' values
     * and compact the other planes into keep[] */
    uint32_t vals = 0, keep[33];
    unsigned n = 0;
    for (int k = 31; k >= 0; k--) {
        uint32_t u = (uni >> k) & 1u;
        vals = u ? (vals << 1 | ((all_and >> k) & 1u)) : vals;
        keep[n] = planes[k];
        n += 1u - u;
    }
    cz_put(w, vals, nu);
    unsigned i = 0;
    for (; i + 1 < n; i += 2) /* two planes per write */
        cz_put64(w, (uint64_t)keep[i] << nwords | keep[i + 1], 2u * nwords);
    if (i < n)
        cz_put(w, keep[i], nwords);
}

void cz_dpc_encode_words(const uint32_t *words, unsigned nwords, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    dpc_encode_words_body(words, nwords, &lw);
    CZ_LOCAL_DONE(lw, w);
}

int cz_dpc_decode_words(gpuest_bitreader_t *r, uint32_t *words, unsigned nwords)
{
    if (!cz_get(r, 1)) {
        for (unsigned i = 0; i < nwords; i++)
            words[i] = cz_get(r, 32);
        return !r->overflow;
    }
    uint32_t uni = cz_get(r, 32), planes[32];
    unsigned nu = (unsigned)cz_popcount32(uni);
    uint32_t vals = cz_get(r, nu), full = cz_mask32(nwords);
    for (int k = 0; k < 32; k++) { /* the lowest uniform plane's value is the last bit */
        if ((uni >> k) & 1u) {
            planes[k] = (vals & 1u) ? full : 0u;
            vals >>= 1;
        }
    }
    for (int k = 31; k >= 0; k--)
        if (!((uni >> k) & 1u))
            planes[k] = cz_get(r, nwords);
    if (r->overflow)
        return 0;
    cz_transpose32(planes);
    memcpy(words, planes, nwords * sizeof *words);
    return 1;
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
