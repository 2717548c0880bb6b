/* target_decode.c: every decompressor of src/compress fed arbitrary bytes (one target per algorithm).
 *
 * Input: byte 0 picks the line size (32, 64 or 128), byte 1's low 3 bits are dropped from the end
 * of the stream (so streams of every bit length occur), the rest is the stream, passed in a buffer
 * of exactly its size so any read past it is caught. A decoder must reject the stream (ECORRUPT
 * with a message naming the algorithm) or decode it; a decoded line must then survive its own round
 * trip (compress, decompress: the same line; dsm_approx: the line with its approximable words
 * truncated), which is what any line promises. */
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "fuzz.h"

/* One fixed code book for sc2: common values, as a sampled VFT would give. */
static const gpuest_sc2_book_t *sc2_book(void)
{
    static gpuest_sc2_book_t *book;
    if (!book) {
        static const uint32_t values[] = {0u, 1u, 0xffffffffu, 0x3f800000u, 2u, 0x80000000u, 0x40000000u, 4u};
        static const uint32_t freqs[] = {400u, 90u, 60u, 40u, 30u, 9u, 5u, 2u};
        gpuest_error_t err;
        if (gpuest_sc2_book_create(&book, &err) != GPUEST_OK ||
            gpuest_sc2_book_build(book, values, freqs, 8, 7u, &err) != GPUEST_OK)
            fuzz_finding("decode_sc2", "cannot build the code book: %s", err.msg);
    }
    return book;
}

/* Approximable ranges for dsm_approx: part of the first line, all of the second. */
static const gpuest_compress_amap_t *approx_map(void)
{
    static gpuest_compress_amap_t map;
    static int ready;
    if (!ready) {
        gpuest_compress_amap_init(&map);
        if (gpuest_compress_amap_add(&map, 16, 80, 8, NULL) != GPUEST_OK ||
            gpuest_compress_amap_add(&map, 128, 256, 20, NULL) != GPUEST_OK)
            fuzz_finding("decode_dsm_approx", "cannot build the approximation map");
        ready = 1;
    }
    return &map;
}

/* Splits the input into line size, stream copy (exact size) and bit count. */
static uint8_t *take_stream(const uint8_t *data, size_t size, size_t *line_bytes, uint32_t *nbits)
{
    static const size_t sizes[3] = {32, 64, 128};
    *line_bytes = sizes[data[0] % 3];
    size_t n = size - 2;
    if (n > GPUEST_COMPRESS_MAX_STREAM_BYTES + 8)
        n = GPUEST_COMPRESS_MAX_STREAM_BYTES + 8; /* longer ones are rejected by length alone */
    uint32_t drop = data[1] & 7u;
    *nbits = n * 8 > drop ? (uint32_t)(n * 8 - drop) : 0;
    uint8_t *stream = malloc(n ? n : 1);
    if (!stream)
        abort();
    memcpy(stream, data + 2, n);
    return stream;
}

static int fuzz_decode(const char *target, const char *algo_name, const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const gpuest_compress_algo_t *algo;
    gpuest_error_t err;
    if (gpuest_compress_lookup(algo_name, &algo, &err) != GPUEST_OK)
        fuzz_finding(target, "%s", err.msg);
    size_t line_bytes;
    uint32_t nbits;
    uint8_t *stream = take_stream(data, size, &line_bytes, &nbits);
    gpuest_codec_opts_t opts = {.line_bytes = line_bytes, .sc2_book = sc2_book(), .amap = approx_map()};
    gpuest_codec_t codec;
    if (gpuest_codec_init(&codec, algo, &opts, &err) != GPUEST_OK)
        fuzz_finding(target, "%s", err.msg);
    uint8_t line[GPUEST_COMPRESS_MAX_LINE];
    gpuest_err rc = gpuest_codec_decompress(&codec, stream, nbits, line, &err);
    free(stream);
    if (rc != GPUEST_OK) {
        const char *names[] = {algo_name, NULL};
        if (rc != GPUEST_ECORRUPT)
            fuzz_finding(target, "a bad stream gave %s, expected ECORRUPT: %s", gpuest_errname(rc), err.msg);
        fuzz_check_error(target, rc, &err, names);
        return 0;
    }
    /* The decoded line round-trips (the address picks the approximable range for dsm_approx). */
    uint64_t addr = (uint64_t)(data[1] >> 3 & 1) * 128u;
    uint8_t want[GPUEST_COMPRESS_MAX_LINE], out[GPUEST_COMPRESS_MAX_STREAM_BYTES], back[GPUEST_COMPRESS_MAX_LINE];
    if (algo->flags & GPUEST_COMPRESS_LOSSY)
        gpuest_compress_amap_apply(opts.amap, addr, line, want, line_bytes);
    else
        memcpy(want, line, line_bytes);
    uint32_t bits2;
    if (gpuest_codec_compress(&codec, addr, line, out, sizeof out, &bits2, &err) != GPUEST_OK ||
        gpuest_codec_decompress(&codec, out, bits2, back, &err) != GPUEST_OK)
        fuzz_finding(target, "a decoded line does not round-trip: %s", err.msg);
    if (memcmp(want, back, line_bytes) != 0)
        fuzz_finding(target, "a decoded line comes back different after compress + decompress");
    return 0;
}

#define DECODE_TARGET(algo)                                                                                            \
    int gpuest_fuzz_decode_##algo(const uint8_t *data, size_t size)                                                    \
    {                                                                                                                  \
        return fuzz_decode("decode_" #algo, #algo, data, size);                                                        \
    }
DECODE_TARGET(none)
DECODE_TARGET(bdi)
DECODE_TARGET(fpc)
DECODE_TARGET(cpack)
DECODE_TARGET(bpc)
DECODE_TARGET(sc2)
DECODE_TARGET(dpc)
DECODE_TARGET(dsm)
DECODE_TARGET(dsm_approx)

/* DPC with data filtering (128-byte lines): byte 0 picks the mode and the sector mask. */
int gpuest_fuzz_decode_dpc_df(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    gpuest_df_mode mode = (data[0] & 0x10) ? GPUEST_DF_MAN : GPUEST_DF_TRUC;
    unsigned mask = 1u + (data[0] & 15u) % 15u; /* 1..15: the mask travels in the reply, never from the stream */
    size_t line_bytes;
    uint32_t nbits;
    uint8_t *stream = take_stream(data, size, &line_bytes, &nbits);
    uint8_t line[128], out[GPUEST_COMPRESS_MAX_STREAM_BYTES], back[128];
    gpuest_error_t err;
    gpuest_err rc = gpuest_dpc_df_decompress(mode, mask, stream, nbits, line, &err);
    free(stream);
    if (rc != GPUEST_OK) {
        const char *names[] = {"dpc", NULL};
        fuzz_check_error("decode_dpc_df", rc, &err, names);
        return 0;
    }
    uint32_t bits2;
    if (gpuest_dpc_df_compress(mode, mask, line, out, sizeof out, &bits2, &err) != GPUEST_OK ||
        gpuest_dpc_df_decompress(mode, mask, out, bits2, back, &err) != GPUEST_OK)
        fuzz_finding("decode_dpc_df", "a decoded line does not round-trip: %s", err.msg);
    for (unsigned s = 0; s < 4; s++)
        if ((mode == GPUEST_DF_TRUC || (mask & (1u << s))) && memcmp(line + 32 * s, back + 32 * s, 32) != 0)
            fuzz_finding("decode_dpc_df", "sector %u comes back different after compress + decompress", s);
    return 0;
}
