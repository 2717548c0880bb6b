/* datagen.c: synthetic cache lines of typical GPU data kinds, for tests and benchmarks. */
#include "compress_int.h"

static const char *const kind_names[GPUEST_DATA_KINDS] = {
    "random", "zero", "repeated", "narrow", "pointer", "float", "text",
};

const char *gpuest_data_kind_name(gpuest_data_kind k)
{
    return (unsigned)k < GPUEST_DATA_KINDS ? kind_names[k] : "?";
}

static void fill_float(gpuest_rng_t *rng, uint8_t *line, size_t bytes)
{
    /* values around one magnitude with a random walk, sometimes negative */
    double base = (gpuest_rng_uniform(rng) - 0.5) * 2000.0;
    double step = gpuest_rng_uniform(rng) * 4.0;
    for (size_t i = 0; i < bytes; i += 4) {
        float f = (float)(base + step * (double)(i / 4) + gpuest_rng_gaussian(rng, 1.0));
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        cz_store32(line + i, b);
    }
}

static void fill_text(gpuest_rng_t *rng, uint8_t *line, size_t bytes)
{
    static const char alphabet[] = "etaoin shrdlu cmfwyp vbgkqjxz ETAOIN,.\n";
    for (size_t i = 0; i < bytes; i++)
        line[i] = (uint8_t)alphabet[gpuest_rng_below(rng, sizeof alphabet - 1)];
}

void gpuest_data_fill(gpuest_rng_t *rng, gpuest_data_kind kind, uint8_t *line, size_t bytes)
{
    switch (kind) {
    case GPUEST_DATA_ZERO:
        memset(line, 0, bytes);
        break;
    case GPUEST_DATA_REPEATED: {
        uint64_t v = gpuest_rng_u64(rng);
        if (gpuest_rng_below(rng, 2))
            v = (v & 0xFFFFFFFFu) * UINT64_C(0x100000001);
        for (size_t i = 0; i < bytes; i += 8)
            cz_store64(line + i, v);
        break;
    }
    case GPUEST_DATA_NARROW: {
        /* small signed ints, width picked per line: 4, 8 or 16 bits */
        unsigned width = 4u << gpuest_rng_below(rng, 3);
        for (size_t i = 0; i < bytes; i += 4) {
            uint32_t r = gpuest_rng_u32(rng) & ((1u << width) - 1u);
            uint32_t half = 1u << (width - 1);
            cz_store32(line + i, (r ^ half) - half);
        }
        break;
    }
    case GPUEST_DATA_POINTER: {
        uint64_t base = (gpuest_rng_u64(rng) & UINT64_C(0x00007FFFFFFFF000));
        uint64_t stride = 8u << gpuest_rng_below(rng, 4);
        for (size_t i = 0; i < bytes; i += 8) {
            uint64_t jitter = gpuest_rng_below(rng, 4) == 0 ? gpuest_rng_below(rng, 256) : 0;
            cz_store64(line + i, base + stride * (i / 8) + jitter);
        }
        break;
    }
    case GPUEST_DATA_FLOAT:
        fill_float(rng, line, bytes);
        break;
    case GPUEST_DATA_TEXT:
        fill_text(rng, line, bytes);
        break;
    default:
        for (size_t i = 0; i < bytes; i += 8)
            cz_store64(line + i, gpuest_rng_u64(rng));
        break;
    }
}
