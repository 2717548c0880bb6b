/* algo_fpc.c: Frequent Pattern Compression (Alameldeen & Wood TR-1500) on 32- or 64-byte units.
 *
 * Every 32-bit word gets a 3-bit prefix and a data field (spec section 2):
 *   000 zero run of 1..8 words (3 bits: length - 1)   001 4-bit sign-extended
 *   010 byte sign-extended    011 halfword sign-extended
 *   100 low halfword zero (high half stored)   101 two halfwords, each a sign-extended byte
 *   110 four identical bytes (one byte)         111 raw word
 * Paper semantics (no gem5 0..127 quirk). Zero runs end at a unit boundary; a
 * 128-byte line is two independent 64-byte units. */
#include "../compress_int.h"

/* w fits in `bits` bits signed iff w + 2^(bits-1) (mod 2^32) < 2^bits */
static inline int se_fits(uint32_t w, unsigned bits)
{
    return w + (UINT32_C(1) << (bits - 1)) < (UINT32_C(1) << bits);
}

static inline int half_is_sbyte(uint32_t h)
{
    return ((h + 0x80u) & 0xFF00u) == 0; /* h is a 16-bit value */
}

CZ_HOT void fpc_encode_word(uint32_t v, gpuest_bitwriter_t *w)
{
    if (se_fits(v, 4)) {
        cz_put(w, 1u << 4 | (v & 0xFu), 7);
    } else if (se_fits(v, 8)) {
        cz_put(w, 2u << 8 | (v & 0xFFu), 11);
    } else if (v == (v & 0xFFu) * 0x01010101u) {
        cz_put(w, 6u << 8 | (v & 0xFFu), 11);
    } else if (se_fits(v, 16)) {
        cz_put(w, 3u << 16 | (v & 0xFFFFu), 19);
    } else if ((v & 0xFFFFu) == 0) {
        cz_put(w, 4u << 16 | (v >> 16), 19);
    } else if (half_is_sbyte(v >> 16) && half_is_sbyte(v & 0xFFFFu)) {
        cz_put(w, 5u << 16 | ((v >> 16) & 0xFFu) << 8 | (v & 0xFFu), 19);
    } else {
        cz_put64(w, UINT64_C(7) << 32 | v, 35);
    }
}

CZ_HOT void fpc_encode_unit(const uint8_t *u, size_t unit, gpuest_bitwriter_t *w)
{
    unsigned run = 0;
    for (size_t i = 0; i < unit; i += 4) {
        uint32_t v = cz_load32(u + i);
        if (v == 0) {
            if (++run == 8) {
                cz_put(w, 7u, 6); /* 000 + (8 - 1) */
                run = 0;
            }
            continue;
        }
        if (run) {
            cz_put(w, run - 1u, 6);
            run = 0;
        }
        fpc_encode_word(v, w);
        if (cz_at_limit(w))
            return;
    }
    if (run)
        cz_put(w, run - 1u, 6);
}

static inline uint32_t sext(uint32_t v, unsigned bits)
{
    uint32_t half = UINT32_C(1) << (bits - 1);
    return (v ^ half) - half;
}

static int fpc_decode_unit(gpuest_bitreader_t *r, uint8_t *u, size_t unit)
{
    size_t i = 0;
    while (i < unit) {
        unsigned prefix = cz_get(r, 3);
        uint32_t v;
        switch (prefix) {
        case 0: {
            size_t n = (cz_get(r, 3) + 1u) * 4u;
            if (n > unit - i)
                return 0;
            memset(u + i, 0, n);
            i += n;
            continue;
        }
        case 1:
            v = sext(cz_get(r, 4), 4);
            break;
        case 2:
            v = sext(cz_get(r, 8), 8);
            break;
        case 3:
            v = sext(cz_get(r, 16), 16);
            break;
        case 4:
            v = cz_get(r, 16) << 16;
            break;
        case 5: {
            uint32_t hi = sext(cz_get(r, 8), 8) & 0xFFFFu, lo = sext(cz_get(r, 8), 8) & 0xFFFFu;
            v = hi << 16 | lo;
            break;
        }
        case 6:
            v = cz_get(r, 8) * 0x01010101u;
            break;
        default:
            v = cz_get(r, 32);
            break;
        }
        if (r->overflow)
            return 0;
        cz_store32(u + i, v);
        i += 4;
    }
    return 1;
}

CZ_HOT void fpc_encode_body(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    size_t unit = c->line_bytes > 64 ? 64 : c->line_bytes;
    for (size_t off = 0; off < c->line_bytes && !cz_at_limit(w); off += unit)
        fpc_encode_unit(line + off, unit, w);
}

static void fpc_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    fpc_encode_body(c, line, &lw);
    CZ_LOCAL_DONE(lw, w);
}

static gpuest_err fpc_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    size_t unit = c->line_bytes > 64 ? 64 : c->line_bytes;
    for (size_t off = 0; off < c->line_bytes; off += unit)
        if (!fpc_decode_unit(r, line + off, unit))
            return cz_corrupt(err, c, "FPC zero run crosses the unit end or stream truncated");
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_fpc = {
    .name = "fpc",
    .desc = "Frequent Pattern Compression, 64-byte units",
    .compress_latency = 3,   /* packet compression thesis Table 6.5 */
    .decompress_latency = 5, /* Table 6.5 and LATTE-CC Table I */
    .flags = 0,
    .encode = fpc_encode,
    .decode = fpc_decode,
};
