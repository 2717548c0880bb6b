/* algo_bpc.c: Bit-Plane Compression (Kim et al., ISCA 2016) on the whole line.
 *
 * W = line_bytes / 4 words. Base word: 001 zero (3), 010 + 4 (7), 011 + 8 (11),
 * 000 + 16 (19), 1 + 32 (33). Deltas d_i = w_{i+1} - w_i exactly (33-bit),
 * bit planes DBP[k] (W-1 bits, bit i = bit k of d_i), DBX[32] = DBP[32],
 * DBX[k] = DBP[k] ^ DBP[k+1]; the 33 DBX symbols from k = 32 down to 0:
 *   001 zero run of 1 | 01 + 5 bits (len - 2) zero run of 2..33 |
 *   00010 DBX != 0 and DBP = 0 | 00011 all ones | 00000 + 5 single one |
 *   00001 + 5 two adjacent ones (position of the lower) | 1 + (W-1) raw.
 * 128 bytes is the paper's case; 64 and 32 bytes use the same codes on 15- or
 * 7-bit planes (position fields stay 5 bits). */
#include "../compress_int.h"

CZ_HOT void bpc_base(uint32_t w0, gpuest_bitwriter_t *w)
{
    int32_t s = (int32_t)w0;
    if (w0 == 0)
        cz_put(w, 1u, 3);
    else if (s >= -8 && s < 8)
        cz_put(w, 2u << 4 | (w0 & 0xFu), 7);
    else if (s >= -128 && s < 128)
        cz_put(w, 3u << 8 | (w0 & 0xFFu), 11);
    else if (s >= -32768 && s < 32768)
        cz_put(w, 0u << 16 | (w0 & 0xFFFFu), 19);
    else {
        cz_put(w, 1u, 1);
        cz_put(w, w0, 32);
    }
}

CZ_HOT void bpc_run(gpuest_bitwriter_t *w, unsigned run)
{
    if (run == 1)
        cz_put(w, 1u, 3);
    else if (run > 1)
        cz_put(w, 1u << 5 | (run - 2u), 7);
}

/* Trailing zeros of a non-zero word (one instruction with the builtin; the
 * bit loop was a sixth of the encoder's time). */
static inline int ctz32(uint32_t x)
{
#if defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}


CZ_HOT void bpc_encode_body(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    unsigned nw = (unsigned)(c->line_bytes / 4), nd = nw - 1;
    uint32_t words[32], dbp[33];
    for (unsigned i = 0; i < nw; i++)
        words[i] = cz_load32(line + 4 * i);
    bpc_base(words[0], w);
    uint32_t sign = 0;
    for (unsigned i = 0; i < 32; i++) {
        if (i < nd) {
            int64_t d = (int64_t)(int32_t)words[i + 1] - (int64_t)(int32_t)words[i];
            dbp[i] = (uint32_t)d;
            sign |= (uint32_t)(((uint64_t)d >> 32) & 1u) << i;
        } else {
            dbp[i] = 0;
        }
    }
    cz_transpose32(dbp);
    dbp[32] = sign;
    uint32_t full = cz_mask32(nd);
    unsigned run = 0;
    for (int k = 32; k >= 0; k--) {
        uint32_t x = k == 32 ? dbp[32] : dbp[k] ^ dbp[k + 1];
        if (x == 0) {
            run++;
            continue;
        }
        bpc_run(w, run);
        run = 0;
        if (cz_at_limit(w))
            return;
        if (dbp[k] == 0) {
            cz_put(w, 2u, 5);
        } else if (x == full) {
            cz_put(w, 3u, 5);
        } else if ((x & (x - 1u)) == 0) {
            cz_put(w, (uint32_t)ctz32(x), 10);
        } else {
            int p = ctz32(x);
            if (x == 3u << p)
                cz_put(w, 1u << 5 | (uint32_t)p, 10);
            else {
                cz_put(w, 1u, 1);
                cz_put(w, x, nd);
            }
        }
    }
    bpc_run(w, run);
}

static void bpc_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    bpc_encode_body(c, line, &lw);
    CZ_LOCAL_DONE(lw, w);
}

static gpuest_err bpc_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    unsigned nw = (unsigned)(c->line_bytes / 4), nd = nw - 1;
    uint32_t dbp[33] = {0}, w0;
    if (cz_get(r, 1)) {
        w0 = cz_get(r, 32);
    } else {
        unsigned p = cz_get(r, 2);
        static const unsigned width[4] = {16, 0, 4, 8};
        w0 = p == 1 ? 0u : cz_get(r, width[p]);
        if (p != 1) {
            uint32_t half = UINT32_C(1) << (width[p] - 1);
            w0 = (w0 ^ half) - half;
        }
    }
    uint32_t full = cz_mask32(nd), prev = 0; /* prev = DBP[k+1] */
    int k = 32;
    while (k >= 0) {
        uint32_t x;
        if (cz_get(r, 1)) {
            x = cz_get(r, nd);
        } else if (cz_get(r, 1)) { /* 01: run of 2..33 */
            unsigned run = cz_get(r, 5) + 2u;
            if ((int)run > k + 1 || r->overflow)
                return cz_corrupt(err, c, "BPC zero run past plane 0");
            for (unsigned i = 0; i < run; i++, k--)
                dbp[k] = prev; /* DBX = 0: DBP[k] = DBP[k+1] */
            continue;
        } else if (cz_get(r, 1)) { /* 001: run of 1 */
            dbp[k] = prev;
            k--;
            continue;
        } else {
            unsigned q = cz_get(r, 2);
            if (q == 2) { /* DBP[k] = 0 */
                if (k == 32)
                    return cz_corrupt(err, c, "BPC zero-plane code on the sign plane");
                dbp[k] = 0;
                prev = 0;
                k--;
                continue;
            }
            if (q == 3) {
                x = full;
            } else {
                unsigned pos = cz_get(r, 5);
                if (pos + q >= nd)
                    return cz_corrupt(err, c, "BPC bit position outside the plane");
                x = (q ? 3u : 1u) << pos;
            }
        }
        if (r->overflow)
            return cz_corrupt(err, c, "truncated");
        dbp[k] = x ^ (k == 32 ? 0u : prev);
        prev = dbp[k];
        k--;
    }
    /* the sign plane is implied by the low 32 bits mod 2^32; rebuild the words */
    cz_transpose32(dbp);
    uint32_t v = w0;
    cz_store32(line, v);
    for (unsigned i = 0; i < nd; i++) {
        v += dbp[i];
        cz_store32(line + 4 * (i + 1), v);
    }
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_bpc = {
    .name = "bpc",
    .desc = "Bit-Plane Compression (delta, bit planes, xor, run-length and patterns)",
    .compress_latency = 11,   /* packet compression thesis Table 6.5 */
    .decompress_latency = 11, /* Table 6.5 and LATTE-CC Table I */
    .flags = 0,
    .encode = bpc_encode,
    .decode = bpc_decode,
};
