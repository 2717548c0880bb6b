/* compress_int.h: private helpers of the compress module (inline bit I/O, word access, bit transpose). */
#ifndef GPUEST_COMPRESS_INT_H
#define GPUEST_COMPRESS_INT_H

#include <string.h>

#include "compress.h"

/* Hot encoder pieces must inline into the function that owns the local bit
 * writer (CZ_LOCAL_WRITER), or the writer's state goes through memory. */
#if defined(__GNUC__)
#define CZ_HOT static inline __attribute__((always_inline))
#else
#define CZ_HOT static inline
#endif

/* ------------------------------------------------------------ words (little-endian, spec section 0) */
static inline uint32_t cz_load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void cz_store32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint64_t cz_load64(const uint8_t *p)
{
    return (uint64_t)cz_load32(p) | (uint64_t)cz_load32(p + 4) << 32;
}

static inline void cz_store64(uint8_t *p, uint64_t v)
{
    cz_store32(p, (uint32_t)v);
    cz_store32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t cz_mask32(unsigned n)
{
    return n >= 32 ? UINT32_MAX : (UINT32_C(1) << n) - 1u;
}

static inline int cz_popcount32(uint32_t x)
{
    /* SWAR count (the builtin becomes a library call without -mpopcnt) */
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* Leading zeros of a non-zero word. */
static inline int cz_clz32(uint32_t x)
{
#if defined(__GNUC__)
    return __builtin_clz(x);
#else
    int n = 0;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* ------------------------------------------------------------ big-endian 64-bit access */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void cz_store_be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}

static inline uint64_t cz_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
#else
static inline void cz_store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static inline uint64_t cz_load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}
#endif

/* ------------------------------------------------------------ bit writer (MSB first)
 * Hot encoders copy the writer into a local (CZ_LOCAL_WRITER) so that the
 * compiler keeps its state in registers: byte stores may alias *w. */
#define CZ_LOCAL_WRITER(local, w) gpuest_bitwriter_t local = *(w)
#define CZ_LOCAL_DONE(local, w) (*(w) = (local))

static inline void cz_put(gpuest_bitwriter_t *w, uint32_t v, unsigned n)
{
    /* acc keeps the pending bits in its low nacc (< 64) bits; full 64-bit words
     * are stored big-endian. Only a completed word is stored, so a stream never
     * touches more than ceil(bits / 8) bytes. */
    uint64_t x = v & cz_mask32(n);
    if (w->nacc + n < 64) {
        w->acc = (w->acc << n) | x;
        w->nacc += n;
        return;
    }
    unsigned room = 64u - w->nacc, rest = n - room; /* 1 <= room <= 32 */
    uint64_t out = (w->acc << room) | (x >> rest);
    if (w->pos + 8 <= w->cap) {
        cz_store_be64(w->buf + w->pos, out);
    } else {
        w->overflow = 1;
    }
    w->pos += 8;
    w->acc = x;
    w->nacc = rest;
}

static inline void cz_put64(gpuest_bitwriter_t *w, uint64_t v, unsigned n)
{
    /* n <= 64: one store per 64 bits, like cz_put */
    if (n <= 32) {
        cz_put(w, (uint32_t)v, n);
        return;
    }
    if (n < 64)
        v &= (UINT64_C(1) << n) - 1u;
    if (w->nacc + n < 64) {
        w->acc = (w->acc << n) | v;
        w->nacc += n;
        return;
    }
    unsigned room = 64u - w->nacc, rest = n - room; /* 1 <= room <= 64, rest < 64 */
    uint64_t out = (w->nacc ? w->acc << room : 0u) | (v >> rest);
    if (w->pos + 8 <= w->cap)
        cz_store_be64(w->buf + w->pos, out);
    else
        w->overflow = 1;
    w->pos += 8;
    w->acc = v;
    w->nacc = rest;
}

static inline uint32_t cz_wbits(const gpuest_bitwriter_t *w)
{
    return (uint32_t)(w->pos * 8u + w->nacc);
}

/* True when the encoder may stop: it has reached the writer's limit (its
 * output can only grow, so the line goes raw). The size is still exact. */
static inline int cz_at_limit(const gpuest_bitwriter_t *w)
{
    return w->limit && cz_wbits(w) >= w->limit;
}

/* The encoder proved its full output would reach the limit and stops here. */
static inline void cz_give_up(gpuest_bitwriter_t *w)
{
    w->gave_up = 1;
}

/* ------------------------------------------------------------ bit reader (MSB first) */
static inline uint32_t cz_peek(const gpuest_bitreader_t *r, unsigned n)
{
    /* Gathers the next n (<= 32) bits, zero beyond the stream end. */
    uint32_t byte = r->pos >> 3;
    uint32_t nbytes = (r->nbits + 7u) >> 3;
    uint64_t x = 0;
    if (byte + 8 <= nbytes) {
        x = cz_load_be64(r->buf + byte);
    } else {
        for (unsigned i = 0; i < 8; i++)
            x = x << 8 | (byte + i < nbytes ? r->buf[byte + i] : 0u);
    }
    x <<= (r->pos & 7u);
    return n == 0 ? 0u : (uint32_t)(x >> (64u - n));
}

static inline uint32_t cz_get(gpuest_bitreader_t *r, unsigned n)
{
    if (n > r->nbits - r->pos || r->pos > r->nbits) {
        r->overflow = 1;
        r->pos = r->nbits;
        return 0;
    }
    uint32_t v = cz_peek(r, n);
    r->pos += n;
    return v;
}

static inline uint64_t cz_get64(gpuest_bitreader_t *r, unsigned n)
{
    if (n > 32) {
        uint64_t hi = cz_get(r, n - 32);
        return hi << 32 | cz_get(r, 32);
    }
    return cz_get(r, n);
}

/* ------------------------------------------------------------ pair-packed transpose
 * p[i] holds row i in its low and row i + 16 in its high 32 bits. Afterwards
 * p[i] holds the transposed rows i and i + 16 the same way (the transpose is
 * its own inverse, so the decoder uses it too). */
#define CZ_SWAP(a, b, j, m)                                                                                           \
    do {                                                                                                               \
        uint64_t t_ = (((a) >> (j)) ^ (b)) & (m);                                                                      \
        (b) ^= t_;                                                                                                     \
        (a) ^= t_ << (j);                                                                                              \
    } while (0)

CZ_HOT void cz_transpose_pairs(uint64_t p[16])
{
    /* stage 16 swaps fields inside each 64-bit word: bits 16..31 <-> 32..47 */
    for (unsigned i = 0; i < 16; i++) {
        uint64_t t = ((p[i] >> 16) ^ p[i]) & UINT64_C(0x00000000FFFF0000);
        p[i] ^= t ^ (t << 16);
    }
    /* stages 8, 4, 2, 1 written out with constant bounds so that the compiler
     * can unroll / vectorize them */
    for (unsigned i = 0; i < 8; i++)
        CZ_SWAP(p[i], p[i + 8], 8, UINT64_C(0x00FF00FF00FF00FF));
    for (unsigned i = 0; i < 4; i++) {
        CZ_SWAP(p[i], p[i + 4], 4, UINT64_C(0x0F0F0F0F0F0F0F0F));
        CZ_SWAP(p[i + 8], p[i + 12], 4, UINT64_C(0x0F0F0F0F0F0F0F0F));
    }
    for (unsigned i = 0; i < 2; i++) {
        CZ_SWAP(p[i], p[i + 2], 2, UINT64_C(0x3333333333333333));
        CZ_SWAP(p[i + 4], p[i + 6], 2, UINT64_C(0x3333333333333333));
        CZ_SWAP(p[i + 8], p[i + 10], 2, UINT64_C(0x3333333333333333));
        CZ_SWAP(p[i + 12], p[i + 14], 2, UINT64_C(0x3333333333333333));
    }
    for (unsigned i = 0; i < 16; i += 2)
        CZ_SWAP(p[i], p[i + 1], 1, UINT64_C(0x5555555555555555));
}
#undef CZ_SWAP

/* In place 32x32 transpose: afterwards bit i of a[k] is the old bit k of a[i]
 * (bit planes of 32 words, and back). */
CZ_HOT void cz_transpose32(uint32_t a[32])
{
    uint64_t p[16];
    for (unsigned i = 0; i < 16; i++)
        p[i] = a[i] | (uint64_t)a[i + 16] << 32;
    cz_transpose_pairs(p);
    for (unsigned i = 0; i < 16; i++) {
        a[i] = (uint32_t)p[i];
        a[i + 16] = (uint32_t)(p[i] >> 32);
    }
}

/* Shared error for truncated / inconsistent streams. */
gpuest_err cz_corrupt(gpuest_error_t *err, const gpuest_codec_t *c, const char *what);

/* Per-algorithm vtables (impl/). */
extern const gpuest_compress_algo_t gpuest_algo_none, gpuest_algo_bdi, gpuest_algo_fpc, gpuest_algo_cpack,
    gpuest_algo_bpc, gpuest_algo_sc2, gpuest_algo_dpc, gpuest_algo_dsm, gpuest_algo_dsm_approx;

/* SC2 internals used by its codec. */
int cz_sc2_decode_word(const gpuest_sc2_book_t *b, gpuest_bitreader_t *r, uint32_t *v);

/* DPC / DSM unit coders shared with DF-TRUC and DSM+APPROX. */
void cz_dpc_encode_words(const uint32_t *words, unsigned nwords, gpuest_bitwriter_t *w);
int cz_dpc_decode_words(gpuest_bitreader_t *r, uint32_t *words, unsigned nwords);
void cz_dsm_encode_line(const uint8_t *line, size_t bytes, gpuest_bitwriter_t *w);
int cz_dsm_decode_line(gpuest_bitreader_t *r, uint8_t *line, size_t bytes);

#endif
