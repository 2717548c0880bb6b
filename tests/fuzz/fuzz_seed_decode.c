/* fuzz_seed_decode.c: writes the seed corpora of the decode_* fuzz targets: real encodings of
 * synthetic lines of every data kind and line size, in the targets' input layout
 * (byte 0: line size 0/1/2 -> 32/64/128, byte 1: bits dropped from the last byte, then the stream).
 * Usage: fuzz_seed_decode OUTDIR  (writes OUTDIR/decode_<algo>/seed-*) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compress/compress.h"

static void write_seed(const char *dir, const char *algo, int n, uint8_t size_code, uint32_t nbits, const uint8_t *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/decode_%s", dir, algo);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/decode_%s/seed-%02d", dir, algo, n);
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(1);
    }
    uint8_t head[2] = {size_code, (uint8_t)((8u - nbits % 8u) % 8u)};
    fwrite(head, 1, 2, fp);
    fwrite(s, 1, (nbits + 7) / 8, fp);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seed_decode OUTDIR\n");
        return 2;
    }
    gpuest_rng_t *rng;
    gpuest_error_t err;
    gpuest_sc2_book_t *book;
    static const uint32_t values[] = {0u, 1u, 0xffffffffu, 0x3f800000u, 2u, 0x80000000u, 0x40000000u, 4u};
    static const uint32_t freqs[] = {400u, 90u, 60u, 40u, 30u, 9u, 5u, 2u};
    gpuest_compress_amap_t map;
    gpuest_compress_amap_init(&map);
    if (gpuest_rng_create(20261126u, &rng) != GPUEST_OK || gpuest_sc2_book_create(&book, &err) != GPUEST_OK ||
        gpuest_sc2_book_build(book, values, freqs, 8, 7u, &err) != GPUEST_OK ||
        gpuest_compress_amap_add(&map, 16, 80, 8, NULL) != GPUEST_OK ||
        gpuest_compress_amap_add(&map, 128, 256, 20, NULL) != GPUEST_OK)
        return 1;
    for (size_t a = 0; gpuest_compress_algos[a]; a++) {
        const gpuest_compress_algo_t *algo = gpuest_compress_algos[a];
        int n = 0;
        for (int kind = 0; kind < GPUEST_DATA_KINDS; kind++)
            for (uint8_t sc = 0; sc < 3; sc++) {
                gpuest_codec_opts_t opts = {.line_bytes = (size_t)32 << sc, .sc2_book = book, .amap = &map};
                gpuest_codec_t c;
                uint8_t line[128], out[GPUEST_COMPRESS_MAX_STREAM_BYTES];
                uint32_t nbits;
                gpuest_data_fill(rng, (gpuest_data_kind)kind, line, opts.line_bytes);
                if (gpuest_codec_init(&c, algo, &opts, &err) != GPUEST_OK ||
                    gpuest_codec_compress(&c, 0, line, out, sizeof out, &nbits, &err) != GPUEST_OK)
                    return 1;
                write_seed(argv[1], algo->name, n++, sc, nbits, out);
            }
    }
    int n = 0;
    for (int mode = 0; mode < 2; mode++)
        for (int kind = 0; kind < GPUEST_DATA_KINDS; kind++) {
            unsigned mask = 1u + (unsigned)(kind * 2 + mode) % 15u;
            uint8_t line[128], out[GPUEST_COMPRESS_MAX_STREAM_BYTES];
            uint32_t nbits;
            gpuest_data_fill(rng, (gpuest_data_kind)kind, line, 128);
            if (gpuest_dpc_df_compress((gpuest_df_mode)mode, mask, line, out, sizeof out, &nbits, &err) != GPUEST_OK)
                return 1;
            /* byte 0 of the dpc_df layout: bit 4 the mode, low bits (mask - 1) */
            write_seed(argv[1], "dpc_df", n++, (uint8_t)((mode << 4) | (mask - 1)), nbits, out);
        }
    gpuest_sc2_book_destroy(book);
    gpuest_rng_destroy(rng);
    return 0;
}
