/* algo_cpack.c: C-Pack with zero-line detection (CPACK+Z; Chen et al. TVLSI 2010, LATTE-CC Table I).
 *
 * Line stream: 1 bit Z (1 = the whole line is zero, nothing follows), then one
 * C-Pack unit per 64 bytes (a 128-byte line is two units). Per 32-bit word, in
 * order, against a per-unit dictionary (16 entries, FIFO, empty at the unit start):
 *   zzzz 00 (2)   mmmm 10 + idx4 (6)   zzzx 1101 + byte (12)
 *   mmmx 1110 + idx4 + byte (16)   mmxx 1100 + idx4 + halfword (24)   xxxx 01 + word (34)
 * The cheapest pattern over all entries wins (lowest index on ties); xxxx,
 * mmxx and mmmx push the word into the dictionary (paper variant), so the
 * decoder keeps the same dictionary in step. */
#include "../compress_int.h"

#define CPACK_DICT GPUEST_CPACK_DICT_ENTRIES

typedef gpuest_cpack_dict_t cpack_dict_t;

CZ_HOT void dict_push(cpack_dict_t *d, uint32_t v)
{
    d->e[d->next] = v;
    d->next = (d->next + 1u) % CPACK_DICT;
    if (d->n < CPACK_DICT)
        d->n++;
}

/* Encodes unit bytes against the dictionary *dp (updated in place). */
CZ_HOT void cpack_encode_words(const uint8_t *u, size_t unit, cpack_dict_t *dp, gpuest_bitwriter_t *w)
{
    cpack_dict_t d = *dp;
    for (size_t i = 0; i < unit && !cz_at_limit(w); i += 4) {
        uint32_t v = cz_load32(u + i);
        if (v == 0) {
            cz_put(w, 0u, 2);
            continue;
        }
        /* best match: 3 = full, 2 = upper 24 bits, 1 = upper 16 bits */
        int best = 0;
        unsigned idx = 0;
        for (unsigned j = 0; j < d.n && best < 3; j++) {
            uint32_t x = v ^ d.e[j];
            int m = x == 0 ? 3 : (x >> 8) == 0 ? 2 : (x >> 16) == 0 ? 1 : 0;
            if (m > best) {
                best = m;
                idx = j;
            }
        }
        if (best == 3) {
            cz_put(w, 2u << 4 | idx, 6);
        } else if ((v >> 8) == 0) {
            cz_put(w, 0xDu << 8 | v, 12);
        } else if (best == 2) {
            cz_put(w, 0xEu << 12 | idx << 8 | (v & 0xFFu), 16);
            dict_push(&d, v);
        } else if (best == 1) {
            cz_put(w, 0xCu << 20 | idx << 16 | (v & 0xFFFFu), 24);
            dict_push(&d, v);
        } else {
            cz_put(w, 1u, 2);
            cz_put(w, v, 32);
            dict_push(&d, v);
        }
    }
    *dp = d;
}

CZ_HOT void cpack_encode_unit(const uint8_t *u, size_t unit, gpuest_bitwriter_t *w)
{
    cpack_dict_t d = {{0}, 0, 0}; /* per-unit dictionary, empty at the unit start */
    cpack_encode_words(u, unit, &d, w);
}

static int cpack_decode_words(gpuest_bitreader_t *r, uint8_t *u, size_t unit, cpack_dict_t *dp)
{
    cpack_dict_t d = *dp;
    for (size_t i = 0; i < unit; i += 4) {
        uint32_t v;
        unsigned p = cz_get(r, 2), idx;
        if (p == 0) {
            v = 0;
        } else if (p == 1) {
            v = cz_get(r, 32);
            dict_push(&d, v);
        } else if (p == 2) {
            idx = cz_get(r, 4);
            if (idx >= d.n)
                return 0;
            v = d.e[idx];
        } else {
            unsigned q = cz_get(r, 2);
            if (q == 1) {
                v = cz_get(r, 8);
            } else if (q == 3) {
                return 0; /* 1111 is not a C-Pack code */
            } else {
                idx = cz_get(r, 4);
                if (idx >= d.n)
                    return 0;
                if (q == 2)
                    v = (d.e[idx] & 0xFFFFFF00u) | cz_get(r, 8);
                else
                    v = (d.e[idx] & 0xFFFF0000u) | cz_get(r, 16);
                dict_push(&d, v);
            }
        }
        if (r->overflow)
            return 0;
        cz_store32(u + i, v);
    }
    *dp = d;
    return 1;
}

static int cpack_decode_unit(gpuest_bitreader_t *r, uint8_t *u, size_t unit)
{
    cpack_dict_t d = {{0}, 0, 0};
    return cpack_decode_words(r, u, unit, &d);
}

CZ_HOT void cpack_encode_body(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    uint64_t any = 0;
    for (size_t i = 0; i < c->line_bytes; i += 8)
        any |= cz_load64(line + i);
    cz_put(w, any == 0, 1);
    if (any == 0)
        return;
    size_t unit = c->line_bytes > 64 ? 64 : c->line_bytes;
    for (size_t off = 0; off < c->line_bytes && !cz_at_limit(w); off += unit)
        cpack_encode_unit(line + off, unit, w);
}

static void cpack_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    cpack_encode_body(c, line, &lw);
    CZ_LOCAL_DONE(lw, w);
}

static gpuest_err cpack_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    if (cz_get(r, 1)) {
        memset(line, 0, c->line_bytes);
        return GPUEST_OK;
    }
    size_t unit = c->line_bytes > 64 ? 64 : c->line_bytes;
    for (size_t off = 0; off < c->line_bytes; off += unit)
        if (!cpack_decode_unit(r, line + off, unit))
            return cz_corrupt(err, c, "bad C-Pack code or dictionary index");
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_cpack = {
    .name = "cpack",
    .desc = "C-Pack with zero-line detection (CPACK+Z), 64-byte units",
    .compress_latency = 16,  /* packet compression thesis Table 6.5 */
    .decompress_latency = 9, /* Table 6.5 (LATTE-CC Table I: 8) */
    .flags = 0,
    .encode = cpack_encode,
    .decode = cpack_decode,
};

/* ------------------------------------------------------------ persistent dictionary (packet C-Pack) */
void gpuest_cpack_dict_init(gpuest_cpack_dict_t *d)
{
    memset(d, 0, sizeof *d);
}

static int line_is_zero(const uint8_t *line, size_t bytes)
{
    uint64_t any = 0;
    for (size_t i = 0; i < bytes; i += 8)
        any |= cz_load64(line + i);
    return any == 0;
}

void gpuest_cpack_dict_encode(gpuest_cpack_dict_t *d, const uint8_t *line, size_t bytes, gpuest_bitwriter_t *w)
{
    int zero = line_is_zero(line, bytes);
    cz_put(w, (uint32_t)zero, 1);
    if (!zero)
        cpack_encode_words(line, bytes, d, w);
}

gpuest_err gpuest_cpack_dict_decode(gpuest_cpack_dict_t *d, gpuest_bitreader_t *r, uint8_t *line, size_t bytes,
                                    gpuest_error_t *err)
{
    if (cz_get(r, 1)) {
        memset(line, 0, bytes);
        return GPUEST_OK;
    }
    if (!cpack_decode_words(r, line, bytes, d) || r->overflow)
        return gpuest_fail(err, GPUEST_ECORRUPT, "packet C-Pack stream is corrupt: bad code or dictionary index");
    return GPUEST_OK;
}

unsigned gpuest_cpack_dict_diff(const gpuest_cpack_dict_t *a, const gpuest_cpack_dict_t *b)
{
    unsigned n = 0;
    for (unsigned i = 0; i < b->n; i++)
        n += i >= a->n || a->e[i] != b->e[i];
    return n;
}
