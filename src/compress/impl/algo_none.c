/* algo_none.c: the identity "algorithm": every line travels raw (the baseline). */
#include "../compress_int.h"

static inline void none_encode_body(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    for (size_t i = 0; i < c->line_bytes; i += 4)
        cz_put(w, cz_load32(line + i), 32);
}

static void none_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    if (w->limit) { /* 8L bits, never smaller: the codec sends the line raw */
        cz_give_up(w);
        return;
    }
    CZ_LOCAL_WRITER(lw, w);
    none_encode_body(c, line, &lw);
    CZ_LOCAL_DONE(lw, w);
}

static gpuest_err none_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    (void)err;
    for (size_t i = 0; i < c->line_bytes; i += 4)
        cz_store32(line + i, cz_get(r, 32));
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_none = {
    .name = "none",
    .desc = "no compression (baseline)",
    .compress_latency = 0,
    .decompress_latency = 0,
    .flags = 0,
    .encode = none_encode,
    .decode = none_decode,
};
