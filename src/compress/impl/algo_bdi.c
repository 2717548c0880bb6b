/* algo_bdi.c: Base-Delta-Immediate (Pekhimenko et al.; LATTE-CC Table I) on 32- or 64-byte units.
 *
 * Unit stream: 4-bit encoding, then
 *   0000 zeros: nothing;  0001 repeated 8-byte value: the value (64 bits);
 *   BkΔd: base (8k bits), then per k-byte element 1 select bit (1 = delta from
 *   the base, 0 = immediate from the implicit zero base) + a d-byte signed delta;
 *   1111 raw unit.
 * Size of BkΔd = 4 + 8k + N(8d + 1) (the spec's "+MASK+ENC4" accounting: every
 * bit the decoder needs). Deltas are signed and modular in k bytes (paper /
 * gem5 semantics). A 128-byte line is two independent 64-byte units. */
#include "../compress_int.h"

enum { BDI_ZEROS = 0, BDI_REP = 1, BDI_RAW = 15 };

typedef struct {
    unsigned code, k, d; /* encoding, base bytes, delta bytes */
} bdi_enc_t;

static const bdi_enc_t bdi_encs[7] = {
    {0, 0, 0}, {2, 8, 1}, {3, 8, 2}, {4, 8, 4}, {5, 4, 1}, {6, 4, 2}, {7, 2, 1},
};

/* Candidate order by size (ascending; ties by encoding code) for 32- and 64-byte units. */
static const unsigned bdi_order32[6] = {1, 4, 2, 6, 5, 3}; /* 104 108 136 164 172 200 */
static const unsigned bdi_order64[6] = {1, 4, 2, 5, 6, 3}; /* 140 180 204 308 308 332 */

static inline uint64_t wmask(unsigned bits)
{
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1u;
}

static void store_k(uint8_t *p, unsigned k, uint64_t v)
{
    switch (k) {
    case 8:
        cz_store64(p, v);
        break;
    case 4:
        cz_store32(p, (uint32_t)v);
        break;
    default:
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
        break;
    }
}

/* The unit as 8-, 4- and 2-byte values (little-endian), loaded once. */
typedef struct {
    uint64_t v8[8], v4[16], v2[32];
} bdi_view_t;

static const uint64_t *view_of(const bdi_view_t *vw, unsigned k)
{
    return k == 8 ? vw->v8 : k == 4 ? vw->v4 : vw->v2;
}

/* x (a wb-bit value) fits in db bits signed iff x + 2^(db-1) mod 2^wb < 2^db (db < wb). */
static inline int fits(uint64_t x, uint64_t half, uint64_t lim, uint64_t wm)
{
    return ((x + half) & wm) < lim;
}

/* Finds the base under the two-base rule; returns 0 when some value fits neither base. */
CZ_HOT int bdi_try(const uint64_t *v, unsigned n, unsigned wb, unsigned db, uint64_t *base)
{
    uint64_t wm = wmask(wb), half = UINT64_C(1) << (db - 1), lim = UINT64_C(1) << db, b = 0;
    int have = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t x = v[i];
        if (fits(x, half, lim, wm))
            continue;
        if (!have) {
            b = x;
            have = 1;
        } else if (!fits(x - b, half, lim, wm)) {
            return 0;
        }
    }
    *base = b;
    return 1;
}

CZ_HOT void bdi_encode_unit(const uint8_t *u, size_t unit, gpuest_bitwriter_t *w)
{
    bdi_view_t vw;
    unsigned n8 = (unsigned)(unit / 8);
    uint64_t all_or = 0, diff = 0;
    for (unsigned i = 0; i < n8; i++) {
        uint64_t x = cz_load64(u + 8 * i);
        vw.v8[i] = x;
        all_or |= x;
        diff |= x ^ vw.v8[0];
        vw.v4[2 * i] = (uint32_t)x;
        vw.v4[2 * i + 1] = x >> 32;
    }
    int have_v2 = 0;
    if (all_or == 0) {
        cz_put(w, BDI_ZEROS, 4);
        return;
    }
    if (diff == 0) {
        cz_put(w, BDI_REP, 4);
        cz_put64(w, vw.v8[0], 64);
        return;
    }
    const unsigned *order = unit == 32 ? bdi_order32 : bdi_order64;
    for (int c = 0; c < 6; c++) {
        const bdi_enc_t *e = &bdi_encs[order[c]];
        unsigned wb = 8u * e->k, db = 8u * e->d, n = (unsigned)(unit / e->k);
        if (e->k == 2 && !have_v2) {
            for (unsigned i = 0; i < 2 * n8; i++) {
                vw.v2[2 * i] = vw.v4[i] & 0xFFFFu;
                vw.v2[2 * i + 1] = vw.v4[i] >> 16;
            }
            have_v2 = 1;
        }
        const uint64_t *v = view_of(&vw, e->k);
        uint64_t base;
        if (!bdi_try(v, n, wb, db, &base))
            continue;
        uint64_t wm = wmask(wb), half = UINT64_C(1) << (db - 1), lim = UINT64_C(1) << db, dm = wmask(db);
        cz_put(w, e->code, 4);
        cz_put64(w, base, wb);
        for (unsigned i = 0; i < n; i++) {
            int imm = fits(v[i], half, lim, wm);
            uint64_t sel = imm ? 0u : UINT64_C(1) << db; /* select bit in front of the delta */
            cz_put64(w, sel | ((imm ? v[i] : v[i] - base) & dm), db + 1u);
        }
        return;
    }
    /* A raw unit costs 4 + 8U bits. Give up only when the line can no longer
     * beat the raw line: with two 64-byte units, a raw half next to a
     * compressible one still wins (4 + 512 + 4 + x < 1024). */
    if (w->limit && cz_wbits(w) + 4u + 8u * (uint32_t)unit >= w->limit) {
        cz_give_up(w);
        return;
    }
    cz_put(w, BDI_RAW, 4);
    for (size_t i = 0; i < unit; i += 4)
        cz_put(w, cz_load32(u + i), 32);
}

static int bdi_decode_unit(gpuest_bitreader_t *r, uint8_t *u, size_t unit)
{
    unsigned code = cz_get(r, 4);
    if (code == BDI_ZEROS) {
        memset(u, 0, unit);
        return 1;
    }
    if (code == BDI_REP) {
        uint64_t v = cz_get64(r, 64);
        for (size_t i = 0; i < unit; i += 8)
            cz_store64(u + i, v);
        return 1;
    }
    if (code == BDI_RAW) {
        for (size_t i = 0; i < unit; i += 4)
            cz_store32(u + i, cz_get(r, 32));
        return 1;
    }
    if (code < 2 || code > 7)
        return 0;
    const bdi_enc_t *e = &bdi_encs[code - 1];
    unsigned wb = 8u * e->k, db = 8u * e->d;
    uint64_t base = cz_get64(r, wb);
    uint64_t half = UINT64_C(1) << (db - 1);
    for (size_t i = 0; i < unit; i += e->k) {
        unsigned sel = cz_get(r, 1);
        uint64_t d = cz_get64(r, db);
        uint64_t v = (d ^ half) - half; /* sign-extend */
        if (sel)
            v += base;
        store_k(u + i, e->k, v & wmask(wb));
    }
    return 1;
}

CZ_HOT void bdi_encode_body(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    size_t unit = c->line_bytes > 64 ? 64 : c->line_bytes;
    for (size_t off = 0; off < c->line_bytes && !w->gave_up; off += unit)
        bdi_encode_unit(line + off, unit, w);
}

static void bdi_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    bdi_encode_body(c, line, &lw);
    CZ_LOCAL_DONE(lw, w);
}

static gpuest_err bdi_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    size_t unit = c->line_bytes > 64 ? 64 : c->line_bytes;
    for (size_t off = 0; off < c->line_bytes; off += unit)
        if (!bdi_decode_unit(r, line + off, unit))
            return cz_corrupt(err, c, "unknown BDI encoding");
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_bdi = {
    .name = "bdi",
    .desc = "Base-Delta-Immediate, 64-byte units",
    .compress_latency = 2,   /* packet compression thesis Table 6.5 */
    .decompress_latency = 1, /* Table 6.5 (LATTE-CC Table I: 2) */
    .flags = 0,
    .encode = bdi_encode,
    .decode = bdi_decode,
};
