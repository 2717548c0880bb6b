/* codec.c: the algorithm registry, the codec front end (raw fallback, sizes), flits, latencies and bit I/O. */
#include <stdio.h>
#include <string.h>

#include "compress_int.h"

const gpuest_compress_algo_t *const gpuest_compress_algos[] = {
    &gpuest_algo_none, &gpuest_algo_bdi, &gpuest_algo_fpc, &gpuest_algo_cpack,      &gpuest_algo_bpc,
    &gpuest_algo_sc2,  &gpuest_algo_dpc, &gpuest_algo_dsm, &gpuest_algo_dsm_approx, NULL,
};

#define MAX_ALGOS 32

const char *const *gpuest_compress_name_list(void)
{
    static const char *names[MAX_ALGOS + 1];
    if (!names[0]) {
        size_t n = 0;
        for (size_t i = 0; gpuest_compress_algos[i] && n < MAX_ALGOS; i++)
            names[n++] = gpuest_compress_algos[i]->name;
        names[n] = NULL;
    }
    return names;
}

const char *gpuest_compress_names(void)
{
    static char buf[MAX_ALGOS * 16];
    if (!buf[0]) {
        size_t len = 0;
        for (size_t i = 0; gpuest_compress_algos[i] && len < sizeof buf; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "", gpuest_compress_algos[i]->name);
    }
    return buf;
}

gpuest_err gpuest_compress_lookup(const char *name, const gpuest_compress_algo_t **out, gpuest_error_t *err)
{
    for (size_t i = 0; gpuest_compress_algos[i]; i++) {
        if (name && strcmp(gpuest_compress_algos[i]->name, name) == 0) {
            *out = gpuest_compress_algos[i];
            return GPUEST_OK;
        }
    }
    *out = NULL;
    return gpuest_fail(err, GPUEST_ENOKEY, "unknown compression algorithm '%s'; valid names are %s",
                       name ? name : "(null)", gpuest_compress_names());
}

int gpuest_compress_latency(const gpuest_compress_algo_t *a, int override)
{
    return override >= 0 ? override : a->compress_latency;
}

int gpuest_decompress_latency(const gpuest_compress_algo_t *a, int override)
{
    return override >= 0 ? override : a->decompress_latency;
}


gpuest_err cz_corrupt(gpuest_error_t *err, const gpuest_codec_t *c, const char *what)
{
    return gpuest_fail(err, GPUEST_ECORRUPT, "%s stream for a %zu-byte line is corrupt: %s", c->algo->name,
                       c->line_bytes, what);
}

/* ------------------------------------------------------------ codec */
gpuest_err gpuest_codec_init(gpuest_codec_t *c, const gpuest_compress_algo_t *a, const gpuest_codec_opts_t *opts,
                             gpuest_error_t *err)
{
    if (!a || !opts)
        return gpuest_fail(err, GPUEST_EINVAL, "codec: algorithm and options are required");
    if (opts->line_bytes != 32 && opts->line_bytes != 64 && opts->line_bytes != 128)
        return gpuest_fail(err, GPUEST_EINVAL, "codec %s: line size %zu bytes, expected 32, 64 or 128", a->name,
                           opts->line_bytes);
    if ((a->flags & GPUEST_COMPRESS_NEEDS_BOOK) && !opts->sc2_book)
        return gpuest_fail(err, GPUEST_EINVAL, "codec %s: needs an SC2 code book (build one from a sampled VFT)",
                           a->name);
    c->algo = a;
    c->line_bytes = opts->line_bytes;
    c->sc2_book = opts->sc2_book;
    c->amap = opts->amap;
    return GPUEST_OK;
}

int gpuest_codec_is_compressed(const gpuest_codec_t *c, uint32_t nbits)
{
    return nbits < c->line_bytes * 8u;
}

uint32_t gpuest_codec_payload_bits(const gpuest_codec_t *c, uint32_t nbits)
{
    uint32_t raw = (uint32_t)c->line_bytes * 8u;
    uint32_t payload = nbits;
    if ((c->algo->flags & GPUEST_COMPRESS_SELF_FLAG) && nbits > 0)
        payload = nbits - 1u; /* the leading C bit moves into the header */
    return payload < raw ? payload : raw;
}

/* Runs the encoder into buf (cap bytes) and applies the raw fallback;
 * returns the stream length in bits, sets *overflow when buf was too small. */
static uint32_t codec_encode(const gpuest_codec_t *c, uint64_t addr, const uint8_t *line, uint8_t *buf, size_t cap,
                             int *overflow)
{
    uint8_t approx[GPUEST_COMPRESS_MAX_LINE];
    gpuest_bitwriter_t w;
    gpuest_bitwriter_init(&w, buf, cap);
    uint32_t raw = (uint32_t)c->line_bytes * 8u;
    if (!(c->algo->flags & GPUEST_COMPRESS_SELF_FLAG))
        w.limit = raw; /* the raw fallback makes anything longer moot */
    if ((c->algo->flags & GPUEST_COMPRESS_LOSSY) && c->amap && c->amap->count) {
        gpuest_compress_amap_apply(c->amap, addr, line, approx, c->line_bytes);
        line = approx;
    }
    c->algo->encode(c, line, &w);
    uint32_t bits = cz_wbits(&w);
    if (!(c->algo->flags & GPUEST_COMPRESS_SELF_FLAG) && (bits >= raw || w.gave_up)) {
        *overflow = cap < c->line_bytes;
        if (!*overflow)
            memcpy(buf, line, c->line_bytes);
        return raw;
    }
    *overflow = gpuest_bitwriter_finish(&w, NULL, NULL) != GPUEST_OK;
    return bits;
}

uint32_t gpuest_codec_size_bits(const gpuest_codec_t *c, uint64_t addr, const uint8_t *line)
{
    uint8_t scratch[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    int overflow;
    return codec_encode(c, addr, line, scratch, sizeof scratch, &overflow);
}

gpuest_err gpuest_codec_compress(const gpuest_codec_t *c, uint64_t addr, const uint8_t *line, uint8_t *out, size_t cap,
                                 uint32_t *nbits, gpuest_error_t *err)
{
    int overflow;
    uint32_t bits;
    if (cap >= GPUEST_COMPRESS_MAX_STREAM_BYTES) {
        bits = codec_encode(c, addr, line, out, cap, &overflow); /* common case: no copy */
    } else {
        uint8_t scratch[GPUEST_COMPRESS_MAX_STREAM_BYTES];
        bits = codec_encode(c, addr, line, scratch, sizeof scratch, &overflow);
        if (!overflow && (bits + 7u) / 8u <= cap)
            memcpy(out, scratch, (bits + 7u) / 8u);
        else if (!overflow)
            return gpuest_fail(err, GPUEST_ERANGE, "%s: output needs %u bytes, buffer holds %zu", c->algo->name,
                               (bits + 7u) / 8u, cap);
    }
    if (overflow)
        return gpuest_fail(err, GPUEST_ERANGE, "%s: encoding exceeded the %zu-byte buffer", c->algo->name,
                           cap < GPUEST_COMPRESS_MAX_STREAM_BYTES ? (size_t)GPUEST_COMPRESS_MAX_STREAM_BYTES : cap);
    *nbits = bits;
    return GPUEST_OK;
}

gpuest_err gpuest_codec_decompress(const gpuest_codec_t *c, const uint8_t *in, uint32_t nbits, uint8_t *line,
                                   gpuest_error_t *err)
{
    uint32_t raw = (uint32_t)c->line_bytes * 8u;
    if (!(c->algo->flags & GPUEST_COMPRESS_SELF_FLAG)) {
        if (nbits == raw) {
            memcpy(line, in, c->line_bytes);
            return GPUEST_OK;
        }
        if (nbits > raw)
            return cz_corrupt(err, c, "longer than the raw line");
    }
    if (nbits > GPUEST_COMPRESS_MAX_STREAM_BYTES * 8u)
        return cz_corrupt(err, c, "longer than any encoding");
    gpuest_bitreader_t r;
    gpuest_bitreader_init(&r, in, nbits);
    GPUEST_TRY(c->algo->decode(c, &r, line, err));
    if (r.overflow)
        return cz_corrupt(err, c, "truncated");
    if (r.pos != nbits)
        return cz_corrupt(err, c, "trailing bits after the last word");
    return GPUEST_OK;
}

/* ------------------------------------------------------------ public bit I/O */
void gpuest_bitwriter_init(gpuest_bitwriter_t *w, uint8_t *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->pos = 0;
    w->acc = 0;
    w->nacc = 0;
    w->overflow = 0;
    w->limit = 0;
    w->gave_up = 0;
}

void gpuest_bitwriter_put(gpuest_bitwriter_t *w, uint32_t v, unsigned n)
{
    if (n > 32) {
        w->overflow = 1;
        return;
    }
    cz_put(w, v, n);
}

uint32_t gpuest_bitwriter_bits(const gpuest_bitwriter_t *w)
{
    return cz_wbits(w);
}

gpuest_err gpuest_bitwriter_finish(gpuest_bitwriter_t *w, uint32_t *nbits, gpuest_error_t *err)
{
    uint32_t bits = cz_wbits(w);
    size_t tail = (w->nacc + 7u) / 8u;
    if (tail) {
        uint64_t left = w->acc << (64u - w->nacc); /* pending bits at the top, zero padded */
        if (w->pos + tail <= w->cap) {
            for (size_t i = 0; i < tail; i++)
                w->buf[w->pos + i] = (uint8_t)(left >> (56 - 8 * i));
        } else {
            w->overflow = 1;
        }
    }
    if (nbits)
        *nbits = bits;
    if (w->overflow)
        return gpuest_fail(err, GPUEST_ERANGE, "bit stream of %u bits does not fit in %zu bytes", bits, w->cap);
    return GPUEST_OK;
}

void gpuest_bitreader_init(gpuest_bitreader_t *r, const uint8_t *buf, uint32_t nbits)
{
    r->buf = buf;
    r->nbits = nbits;
    r->pos = 0;
    r->overflow = 0;
}

uint32_t gpuest_bitreader_get(gpuest_bitreader_t *r, unsigned n)
{
    if (n > 32) {
        r->overflow = 1;
        return 0;
    }
    return cz_get(r, n);
}
