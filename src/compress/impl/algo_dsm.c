/* algo_dsm.c: Data Segment Matching and DSM+APPROX (packet compression thesis sections 4 and 5).
 *
 * A unit is 64 bytes (16 words; a 128-byte line is two units, as the thesis
 * runs two DSM units in parallel; a 32-byte line is one unit of 8 words). The
 * nibble remap puts nibble p of every word side by side: segment p (p = 0 is
 * the least significant nibble) holds nibble p of words 0..W-1 (word i in bits
 * 4i..4i+3 of the segment, written most significant bit first), so a 64-byte
 * unit gives 8 segments of 8 bytes (the compression resolution).
 * Unit stream: C = 1, 8 encoding-status bits (segments 7 down to 0; 1 = all
 * nibbles equal), then per segment (same order) its nibble (4 bits) or its raw
 * 4W bits. When not smaller than the unit: C = 0 + the raw words.
 * Size = 1 + 8 + sum(4 | 4W), else 1 + 32W.
 * DSM+APPROX first zeroes the configured low mantissa bits of the fp32 words
 * that lie in an approximable range (codec.c), then runs DSM unchanged. */
#include "../compress_int.h"

/* In place 8x8 nibble transpose of 8 words: afterwards nibble i of a[p] is
 * the old nibble p of a[i] (the nibble remap of 8 words). */
CZ_HOT void nib_transpose8(uint32_t a[8])
{
    static const uint32_t m[3] = {0x0000FFFFu, 0x00FF00FFu, 0x0F0F0F0Fu};
    unsigned j = 4;
    for (int s = 0; s < 3; s++, j >>= 1) {
        for (unsigned i = 0; i < 8; i = ((i | j) + 1u) & ~j) {
            uint32_t t = ((a[i] >> (4u * j)) ^ a[i + j]) & m[s];
            a[i + j] ^= t;
            a[i] ^= t << (4u * j);
        }
    }
}

/* Segment p of a unit of nw (8 or 16) words: nibble p of word i at bits 4i..4i+3. */
CZ_HOT void dsm_segments(const uint32_t *words, unsigned nw, uint64_t seg[8])
{
    uint32_t lo[8], hi[8] = {0};
    memcpy(lo, words, 8 * sizeof *lo);
    nib_transpose8(lo);
    if (nw > 8) {
        memcpy(hi, words + 8, 8 * sizeof *hi);
        nib_transpose8(hi);
    }
    for (unsigned p = 0; p < 8; p++)
        seg[p] = (uint64_t)hi[p] << 32 | lo[p];
}

CZ_HOT void dsm_encode_unit(const uint8_t *u, unsigned nw, gpuest_bitwriter_t *w)
{
    uint32_t words[16], diff = 0;
    for (unsigned i = 0; i < nw; i++) {
        words[i] = cz_load32(u + 4 * i);
        diff |= words[i] ^ words[0];
    }
    unsigned es = 0, nu = 0;
    for (unsigned p = 0; p < 8; p++) {
        if (((diff >> (4 * p)) & 0xFu) == 0) {
            es |= 1u << p;
            nu++;
        }
    }
    unsigned size = 9u + 4u * nu + (8u - nu) * 4u * nw;
    if (size >= 1u + 32u * nw) {
        cz_put(w, 0u, 1);
        for (unsigned i = 0; i + 1 < nw; i += 2)
            cz_put64(w, (uint64_t)words[i] << 32 | words[i + 1], 64);
        return;
    }
    cz_put(w, 1u << 8 | es, 9);
    uint64_t seg[8] = {0};
    if (nu < 8)
        dsm_segments(words, nw, seg);
    for (int p = 7; p >= 0; p--) {
        if ((es >> p) & 1u)
            cz_put(w, (words[0] >> (4u * (unsigned)p)) & 0xFu, 4);
        else
            cz_put64(w, seg[p], 4u * nw);
    }
}

static int dsm_decode_unit(gpuest_bitreader_t *r, uint8_t *u, unsigned nw)
{
    if (!cz_get(r, 1)) {
        for (unsigned i = 0; i < nw; i++)
            cz_store32(u + 4 * i, cz_get(r, 32));
        return !r->overflow;
    }
    unsigned es = cz_get(r, 8);
    uint32_t lo[8], hi[8];
    for (int p = 7; p >= 0; p--) {
        uint64_t seg;
        if ((es >> p) & 1u)
            seg = cz_get(r, 4) * UINT64_C(0x1111111111111111);
        else
            seg = cz_get64(r, 4u * nw);
        lo[p] = (uint32_t)seg;
        hi[p] = (uint32_t)(seg >> 32);
    }
    if (r->overflow)
        return 0;
    nib_transpose8(lo);
    for (unsigned i = 0; i < 8; i++)
        cz_store32(u + 4 * i, lo[i]);
    if (nw > 8) {
        nib_transpose8(hi);
        for (unsigned i = 0; i < 8; i++)
            cz_store32(u + 32 + 4 * i, hi[i]);
    }
    return 1;
}

CZ_HOT void dsm_encode_line_body(const uint8_t *line, size_t bytes, gpuest_bitwriter_t *w)
{
    size_t unit = bytes > 64 ? 64 : bytes;
    for (size_t off = 0; off < bytes; off += unit)
        dsm_encode_unit(line + off, (unsigned)(unit / 4), w);
}

void cz_dsm_encode_line(const uint8_t *line, size_t bytes, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    dsm_encode_line_body(line, bytes, &lw);
    CZ_LOCAL_DONE(lw, w);
}

int cz_dsm_decode_line(gpuest_bitreader_t *r, uint8_t *line, size_t bytes)
{
    size_t unit = bytes > 64 ? 64 : bytes;
    for (size_t off = 0; off < bytes; off += unit)
        if (!dsm_decode_unit(r, line + off, (unsigned)(unit / 4)))
            return 0;
    return 1;
}

static void dsm_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    cz_dsm_encode_line(line, c->line_bytes, w);
}

static gpuest_err dsm_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    if (!cz_dsm_decode_line(r, line, c->line_bytes))
        return cz_corrupt(err, c, "truncated DSM stream");
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_dsm = {
    .name = "dsm",
    .desc = "Data Segment Matching (nibble remap, 8-byte same-nibble segments), 64-byte units",
    .compress_latency = 2, /* packet compression thesis Table 6.5 */
    .decompress_latency = 1,
    .flags = GPUEST_COMPRESS_SELF_FLAG,
    .encode = dsm_encode,
    .decode = dsm_decode,
};

const gpuest_compress_algo_t gpuest_algo_dsm_approx = {
    .name = "dsm_approx",
    .desc = "DSM after zeroing low fp32 mantissa bits in approximable ranges (lossy there only)",
    .compress_latency = 4, /* Table 6.5: approximation unit (2) + compressor (2) */
    .decompress_latency = 1,
    .flags = GPUEST_COMPRESS_SELF_FLAG | GPUEST_COMPRESS_LOSSY,
    .encode = dsm_encode,
    .decode = dsm_decode,
};
